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
