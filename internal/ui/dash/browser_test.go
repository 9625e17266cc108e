package dash

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/zerogames/zero/internal/testbrowser"

	"github.com/zerogames/zero/internal/ui/web"
)

// browser starts headless Chromium for a test, or skips the test where there is none
// (testbrowser.Start).
func browser(t *testing.T, timeout time.Duration) (context.Context, string) {
	t.Helper()
	return testbrowser.Start(t, timeout)
}

// page drives the dashboard in the browser for a test: every failure is fatal.
type page struct {
	t   *testing.T
	ctx context.Context
	dir string
}

func (p *page) run(actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, actions...); err != nil {
		p.t.Fatal(err)
	}
}

// eval evaluates a JavaScript expression into out (JSON-decoded).
func (p *page) eval(expr string, out any) {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[json.RawMessage](expr))
	if err != nil {
		p.t.Fatalf("%s: %v", expr, err)
	}
	if err := json.Unmarshal(v, out); err != nil {
		p.t.Fatalf("%s: %v", expr, err)
	}
}

// wait waits until a JavaScript condition holds, across a navigation (a click on a link): the
// page that the condition was first evaluated in may go away meanwhile (testbrowser.Do).
func (p *page) wait(cond string) {
	p.t.Helper()
	if err := testbrowser.Do(p.ctx, chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		p.shot("stuck")
		p.t.Fatalf("waiting for %s: %v", cond, err)
	}
}

func (p *page) text(sel string) string {
	p.t.Helper()
	var s string
	p.eval(fmt.Sprintf(`document.querySelector(%q).textContent`, sel), &s)
	return s
}

// click clicks the first element sel matches, again if the node went away before chromedp
// clicked it (testbrowser.Do: a list the page rebuilt).
func (p *page) click(sel string) {
	p.t.Helper()
	if err := testbrowser.Do(p.ctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
		p.shot("stuck")
		p.t.Fatalf("clicking %s: %v", sel, err)
	}
}

// shot saves a screenshot of the page as dir/dash-name.png.
func (p *page) shot(name string) {
	p.t.Helper()
	testbrowser.Shot(p.t, p.ctx, p.dir, "dash-"+name)
}

// points is the number of data points a chart drew.
func (p *page) points(chart string) int {
	p.t.Helper()
	var n int
	p.eval(fmt.Sprintf(`+(document.querySelector('[data-chart=%q] svg').dataset.points || 0)`, chart), &n)
	return n
}

// TestBrowserDashboard opens the dashboard on a synthetic run as a person would: the list, the
// run's charts drawn (the Elo with its band), a point that appears when the test appends a
// record to metrics.jsonl as a training run does, the x axis turned to time, a self-play game
// stepped through, and the play button, which starts a game in the play page against the
// run's newest checkpoint.
func TestBrowserDashboard(t *testing.T) {
	ctx, shots := browser(t, 50*time.Second)
	runs := t.TempDir()
	dir := writeRun(t, runs, "blitz", 300, 6)
	writeRun(t, runs, "young", 30, 0)
	d := New(Options{RunsDir: runs, Poll: 150 * time.Millisecond})
	srv := httptest.NewServer(d.Wrap(web.New(web.Options{RunCheckpoint: d.Checkpoint, Seed: func() uint64 { return 3 }})))
	defer srv.Close()
	p := &page{t: t, ctx: ctx, dir: shots}

	// The list.
	p.run(chromedp.Navigate(srv.URL + "/runs"))
	p.wait(`document.querySelectorAll("#runs tr[data-run]").length === 2`)
	if row := p.text(`tr[data-run="blitz"]`); !strings.Contains(row, "300") || !strings.Contains(row, "step-00000300") || !strings.Contains(row, "stopped") {
		t.Errorf("the list's row of blitz: %q", row)
	}
	p.shot("1-list")

	// The run.
	p.click(`tr[data-run="blitz"] a[href="?run=blitz"]`)
	p.wait(`document.body.dataset.view === "run" && document.querySelector('[data-chart="loss"] svg[data-points]') !== null && document.querySelectorAll("#games li").length > 0`)
	for chart, want := range map[string]int{"loss": 90, "elo": 3, "selfplay": 90, "simulations": 30} {
		if got := p.points(chart); got != want {
			t.Errorf("chart %s: %d points drawn, want %d", chart, got, want)
		}
	}
	var n int
	// Rates twenty times apart and more (games/s, samples/s) are on a log scale, which a click
	// turns linear; the losses are linear.
	if got := p.text(`[data-chart="selfplay"] button.scale`); got != "log scale" {
		t.Errorf("the rates' scale: %q", got)
	}
	var ticks []string
	p.eval(`[...document.querySelectorAll('[data-chart="selfplay"] text.tick')].map((t) => t.textContent)`, &ticks)
	if got := strings.Join(ticks, " "); !strings.HasPrefix(got, "1 2 5 10 20 50 ") {
		t.Errorf("the rates' ticks on a log scale: %s", got)
	}
	p.click(`[data-chart="selfplay"] button.scale`)
	if got, loss := p.text(`[data-chart="selfplay"] button.scale`), p.text(`[data-chart="loss"] button.scale`); got != "linear scale" || loss != "linear scale" {
		t.Errorf("the rates' scale after a click: %q; the losses': %q", got, loss)
	}
	if p.eval(`document.querySelectorAll('[data-chart="elo"] polygon.band').length`, &n); n != 1 {
		t.Errorf("the Elo chart has %d interval bands, want 1", n)
	}
	if p.eval(`document.querySelectorAll("#ladder tbody tr").length`, &n); n != 4 {
		t.Errorf("the ladder has %d rows, want 4 (3 checkpoints and random)", n)
	}
	if facts := p.text("#facts"); !strings.Contains(facts, "step-00000300") || !strings.Contains(facts, "300steps") {
		t.Errorf("the run's facts: %q", facts)
	}
	p.shot("2-run")

	// A record appended as the run trains: its point appears without a reload.
	var records int
	p.eval(`+document.body.dataset.records`, &records)
	appendLine(t, dir, recordLine("train", 310, 310, map[string]float64{"loss": 0.9, "policy_loss": 0.7, "value_loss": 0.2}))
	p.wait(fmt.Sprintf(`+document.body.dataset.records === %d`, records+1))
	p.wait(`+document.querySelector('[data-chart="loss"] svg').dataset.points === 93`)

	// Against time: under two hours, in minutes.
	p.click("#x-time")
	if label := p.text(`[data-chart="loss"] svg`); !strings.Contains(label, "minutes of training") {
		t.Errorf("the loss chart against time: %q", label)
	}

	// A self-play game, move by move.
	p.click("#games li")
	p.wait(`!document.getElementById("viewer").hidden && document.getElementById("v-board").textContent.length > 50`)
	start := p.text("#v-board")
	p.click("#v-next")
	if where := p.text("#v-where"); !strings.HasPrefix(where, "move 1 of ") || p.text("#v-board") == start {
		t.Errorf("after one step: %q", where)
	}
	p.click("#v-last")
	if where := p.text("#v-where"); !strings.Contains(where, "wins") && !strings.Contains(where, "draw") && !strings.Contains(where, "resigned") {
		t.Errorf("at the end: %q", where)
	}
	p.shot("3-game")

	// Play the newest checkpoint: the play page starts a game against it.
	p.click("#play")
	p.wait(`location.pathname === "/" && typeof page !== "undefined" && page.st !== null && document.body.dataset.busy === "false"`)
	var players map[string]string
	p.eval(`page.st.players`, &players)
	// Named as the page asked for it (runs/RUN/FILE), not by the server's path to the file.
	want := "mcts:400:runs/blitz/step-00000300.zck"
	if players["white"] != "human" || players["black"] != want {
		t.Errorf("the game's players: %v, want black %s", players, want)
	}
	// The play page links back to the runs.
	var hidden bool
	if p.eval(`document.getElementById("runs-link").hidden`, &hidden); hidden {
		t.Errorf("the play page of a server with runs has no link to them")
	}
	p.shot("4-play")
}

// TestBrowserOnePeriod: a run of one log period draws its one point of each rate (a dot: a
// line of one point drew nothing) on an axis whose ticks all differ (they read "439 440 440
// 441 441"), its one rated checkpoint's interval as a bar (a polygon of one x drew nothing),
// every series clipped to the plot area, and no chart of the intake while the trainer's own
// self-play is its only worker; a run with a remote worker has them.
func TestBrowserOnePeriod(t *testing.T) {
	ctx, shots := browser(t, 40*time.Second)
	runs := t.TempDir()
	one := writeRun(t, runs, "one", 0, 0) // no records: those of one period at step 440 follow
	appendLine(t, one, recordLine("train", 440, 40, map[string]float64{"loss": 4, "policy_loss": 3, "value_loss": 1}))
	appendLine(t, one, recordLine("selfplay", 440, 40, map[string]float64{"games_per_s": 12, "samples_per_s": 350, "steps_per_s": 40, "simulations_per_s": 4100}))
	appendLine(t, one, recordLine("eval", 440, 40, map[string]float64{"checkpoint_step": 440, "elo": 417, "elo_low": 61, "elo_high": 772}))
	appendLine(t, one, recordLine("ingest", 440, 40, map[string]float64{"games": 20, "games_per_s": 2, "worker/train/games_per_s": 2, "refused": 0, "duplicates": 0}))
	two := writeRun(t, runs, "two", 20, 0)
	appendLine(t, two, recordLine("ingest", 20, 20, map[string]float64{"games": 20, "games_per_s": 2, "worker/train/games_per_s": 1, "worker/box/games_per_s": 1, "refused": 0, "duplicates": 0}))
	srv := httptest.NewServer(New(Options{RunsDir: runs, Poll: 150 * time.Millisecond}))
	defer srv.Close()
	p := &page{t: t, ctx: ctx, dir: shots}

	p.run(chromedp.Navigate(srv.URL + "/runs/?run=one"))
	p.wait(`document.querySelector('[data-chart="selfplay"] svg[data-points]') !== null && document.querySelector('[data-chart="elo"] svg[data-points]') !== null`)
	p.shot("one-period")
	var n int
	if p.eval(`document.querySelectorAll('[data-chart="selfplay"] circle.dot').length`, &n); n != 3 {
		t.Errorf("the rates of one period: %d dots, want 3 (games, samples, steps per s)", n)
	}
	if p.eval(`document.querySelectorAll('[data-chart="simulations"] circle.dot').length`, &n); n != 1 {
		t.Errorf("the search rate of one period: %d dots, want 1", n)
	}
	for _, chart := range []string{"selfplay", "simulations", "loss", "elo"} {
		var ticks []string
		p.eval(fmt.Sprintf(`[...document.querySelectorAll('[data-chart=%q] text.tick')].filter((t) => t.getAttribute("y") === "277").map((t) => t.textContent)`, chart), &ticks)
		seen := map[string]bool{}
		for _, tick := range ticks {
			if seen[tick] {
				t.Errorf("chart %s: the x ticks %q repeat %s", chart, ticks, tick)
				break
			}
			seen[tick] = true
		}
		if len(ticks) < 3 {
			t.Errorf("chart %s: x ticks %q", chart, ticks)
		}
		// What the series draw is in the clipped group, and only there.
		var outside int
		p.eval(fmt.Sprintf(`document.querySelectorAll('[data-chart=%q] svg > :is(polyline, polygon, circle, rect)').length`, chart), &outside)
		var clipped bool
		p.eval(fmt.Sprintf(`document.querySelector('[data-chart=%q] svg g.data')?.getAttribute("clip-path") === "url(#clip-%s)" && document.getElementById("clip-%s") !== null`, chart, chart, chart), &clipped)
		if outside != 0 || !clipped {
			t.Errorf("chart %s: %d shapes outside the clipped group (clipped: %v)", chart, outside, clipped)
		}
	}
	var bar struct{ Width, Height float64 }
	p.eval(`(() => { const r = document.querySelector('[data-chart="elo"] rect.band'); return r ? { width: +r.getAttribute("width"), height: +r.getAttribute("height") } : {}; })()`, &bar)
	if bar.Width <= 0 || bar.Height < 100 {
		t.Errorf("the interval of one rated checkpoint: a bar of %+v, want one as tall as the interval", bar)
	}
	for chart, hidden := range map[string]bool{"ingest": true, "refused": true, "selfplay": false} {
		var got bool
		if p.eval(fmt.Sprintf(`document.querySelector('[data-chart=%q]').hidden`, chart), &got); got != hidden {
			t.Errorf("run one (the trainer's self-play alone): chart %s hidden %v, want %v", chart, got, hidden)
		}
	}

	p.run(chromedp.Navigate(srv.URL + "/runs/?run=two"))
	p.wait(`document.querySelector('[data-chart="selfplay"] svg[data-points]') !== null && document.body.dataset.records > 0`)
	for _, chart := range []string{"ingest", "refused"} {
		var got bool
		if p.eval(fmt.Sprintf(`document.querySelector('[data-chart=%q]').hidden`, chart), &got); got {
			t.Errorf("run two (a remote worker): chart %s hidden", chart)
		}
	}
}
