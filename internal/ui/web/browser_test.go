package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/zerogames/zero/internal/games"
	"github.com/zerogames/zero/internal/games/gamestest"
	"github.com/zerogames/zero/internal/testbrowser"
	"github.com/zerogames/zero/internal/ui"
	"github.com/zerogames/zero/selfplay"
)

// browser starts headless Chromium for a test, or skips the test where there is none
// (testbrowser.Start).
func browser(t *testing.T, timeout time.Duration) (context.Context, string) {
	t.Helper()
	return testbrowser.Start(t, timeout)
}

// shot saves a screenshot of the page as dir/name.png.
func shot(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	testbrowser.Shot(t, ctx, dir, name)
}

// driver drives one page in the browser for a test: every failure is fatal.
type driver struct {
	t      *testing.T
	ctx    context.Context
	dir    string // where screenshots go
	status string // the status line, as settle last read it
}

func (d *driver) run(actions ...chromedp.Action[chromedp.Void]) {
	d.t.Helper()
	if err := chromedp.Do(d.ctx, actions...); err != nil {
		d.t.Fatal(err)
	}
}

func (d *driver) get(a chromedp.Action[string]) string {
	d.t.Helper()
	v, err := chromedp.Run(d.ctx, a)
	if err != nil {
		d.t.Fatal(err)
	}
	return v
}

func (d *driver) attr(sel, name string) string {
	d.t.Helper()
	v, err := chromedp.Run(d.ctx, chromedp.AttributeValue(chromedp.CSS(sel), name))
	if err != nil {
		d.t.Fatal(err)
	}
	return v.Value
}

func (d *driver) text(sel string) string {
	d.t.Helper()
	return d.get(chromedp.Text(chromedp.CSS(sel)))
}

// click clicks the first element sel matches, again if the node went away before chromedp
// clicked it (testbrowser.Do: a part of the page drawn anew).
func (d *driver) click(sel string) {
	d.t.Helper()
	if err := testbrowser.Do(d.ctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
		d.t.Fatalf("clicking %s: %v", sel, err)
	}
}

// eval evaluates a JavaScript expression into out (JSON-decoded).
func (d *driver) eval(expr string, out any) {
	d.t.Helper()
	v, err := chromedp.Run(d.ctx, chromedp.Evaluate[json.RawMessage](expr))
	if err != nil {
		d.t.Fatalf("%s: %v", expr, err)
	}
	if err := json.Unmarshal(v, out); err != nil {
		d.t.Fatalf("%s: %v", expr, err)
	}
}

func (d *driver) count(sel string) int {
	d.t.Helper()
	var n int
	d.eval(fmt.Sprintf(`document.querySelectorAll(%q).length`, sel), &n)
	return n
}

// hover moves the mouse over the middle of the first element sel matches.
func (d *driver) hover(sel string) {
	d.t.Helper()
	var at [2]float64
	d.eval(fmt.Sprintf(`(() => { const r = document.querySelector(%q).getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()`, sel), &at)
	d.run(chromedp.MouseEvent("mouseMoved", at[0], at[1]))
}

// settle waits until the page is idle with at least n moves in its list, reads the status
// line, and checks that the page shows everything (fits).
func (d *driver) settle(n int) {
	d.t.Helper()
	d.run(chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.body.dataset.busy === "false" && document.querySelectorAll("#moves li").length >= %d`, n),
		chromedp.WithPollingTimeout(10*time.Second)))
	d.status = d.text("#status")
	d.fits()
}

// cutOffJS lists what the page cuts off: the board's shapes and texts that reach past its
// viewBox (which clips them), as "tag.class text [left top right bottom]" with the margins to
// the viewBox's edges in pixels (negative: past it), a text of Imbriqua's card past its face,
// and a page wider than the window.
const cutOffJS = `(() => {
  const out = [];
  if (document.documentElement.scrollWidth > window.innerWidth)
    out.push("the page is " + document.documentElement.scrollWidth + " px wide in a window of " + window.innerWidth);
  const svg = document.getElementById("board");
  if (svg.hidden || !svg.viewBox.baseVal) return out;
  const vb = svg.viewBox.baseVal, m = svg.getScreenCTM();
  const a = new DOMPoint(vb.x, vb.y).matrixTransform(m), b = new DOMPoint(vb.x + vb.width, vb.y + vb.height).matrixTransform(m);
  for (const e of svg.querySelectorAll("text, circle, rect, polygon, polyline, line, path, ellipse")) {
    const r = e.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    const margins = [r.left - a.x, r.top - a.y, b.x - r.right, b.y - r.bottom].map(Math.round);
    if (margins.some((x) => x < -1))
      out.push(e.tagName + "." + e.getAttribute("class") + " " + JSON.stringify((e.textContent || "").slice(0, 50)) + " " + JSON.stringify(margins));
  }
  // Imbriqua's card: its texts within its face.
  for (const card of svg.querySelectorAll(".i-card")) {
    const f = card.querySelector(".i-cardface").getBoundingClientRect();
    for (const t of card.querySelectorAll("text")) {
      const r = t.getBoundingClientRect();
      if (r.left < f.left - 1 || r.right > f.right + 1)
        out.push("the card's text " + JSON.stringify(t.textContent) + " runs past its face by " + Math.round(Math.max(f.left - r.left, r.right - f.right)) + " px");
    }
  }
  return out;
})()`

// fits fails the test if the page cuts anything off (cutOffJS), at the window's width: the
// board is drawn to scale in its viewBox, so what reaches past it is lost at every width.
func (d *driver) fits() {
	d.t.Helper()
	var cut []string
	d.eval(cutOffJS, &cut)
	if len(cut) > 0 {
		var width int
		d.eval(`window.innerWidth`, &width)
		d.t.Fatalf("at %d px wide, after %d moves, the page cuts off:\n%s", width, d.count("#moves li"), strings.Join(cut, "\n"))
	}
}

// shot saves a screenshot once the page's animations (a card turned over) have ended.
func (d *driver) shot(name string) {
	d.t.Helper()
	d.run(chromedp.Poll[chromedp.Void](`document.getAnimations().length === 0`, chromedp.WithPollingTimeout(5*time.Second)))
	var ok bool
	d.eval(`window.scrollTo(0, 0), true`, &ok)
	shot(d.t, d.ctx, d.dir, name)
}

// newGameForm starts a new game from the page's form: the side, and an opponent spec as the
// form offers it ("uct:{N}" with a strength's budget, or "random").
func (d *driver) newGameForm(side, opponent, strength string) {
	d.t.Helper()
	d.run(chromedp.SetValue(chromedp.CSS("#ng-side"), side), chromedp.SetValue(chromedp.CSS("#ng-opponent"), opponent),
		chromedp.SetValue(chromedp.CSS("#ng-strength"), strength))
	d.click("#start")
	d.settle(0)
}

// evaluate asks for the agent's view and checks that a search's is shown: its budget, and
// more than one move with its visits and win chance.
func (d *driver) evaluate(agent string, work int) {
	d.t.Helper()
	d.click("#analyze")
	d.settle(0)
	head := d.text("#analysis p")
	if !strings.HasPrefix(head, agent) || !strings.Contains(head, fmt.Sprintf("%d simulations", work)) || d.count("#analysis tbody tr") < 2 {
		d.t.Fatalf("the agent's view: %q, %d moves", head, d.count("#analysis tbody tr"))
	}
}

// checkRecord checks that the end the page shows is the one of the record it offers.
func (d *driver) checkRecord(srv *httptest.Server) selfplay.Record {
	d.t.Helper()
	resp, err := srv.Client().Get(srv.URL + d.attr("#download", "href"))
	if err != nil {
		d.t.Fatal(err)
	}
	defer resp.Body.Close()
	rec, err := games.ReadRecord(resp.Body)
	if err != nil {
		d.t.Fatal(err)
	}
	human := ""
	for side, who := range rec.Players {
		if who == ui.Human {
			human = rec.Sides[side]
		}
	}
	// The status says who won, then maybe how (" — a piece in the north goal.").
	want := fmt.Sprintf("Game over: %s wins", rec.Result)
	switch rec.Result {
	case human:
		want = fmt.Sprintf("Game over: you win (%s)", human)
	case "draw":
		want = "Game over: a draw"
	}
	if rest, ok := strings.CutPrefix(d.status, want); !ok || rest != "." && !strings.HasPrefix(rest, " — ") || len(rec.Moves) != d.count("#moves li") {
		d.t.Fatalf("the page says %q after %d moves; the record: result %s after %d moves", d.status, d.count("#moves li"), rec.Result, len(rec.Moves))
	}
	return rec
}

// The new-game form starts on the game's default opponent: its model at its budget (a
// strength added to the choices), the server's models folder's before the shipped one.
func TestBrowserDefaultOpponent(t *testing.T) {
	ctx, dir := browser(t, 20*time.Second)
	models := t.TempDir()
	blitz, _ := games.Lookup("yinsh-blitz")
	gamestest.Checkpoint(t, blitz, filepath.Join(models, "yinsh-blitz.zck"))
	srv := httptest.NewServer(New(Options{ModelsDir: models, Seed: func() uint64 { return 1 }}))
	defer srv.Close()
	d := &driver{t: t, ctx: ctx, dir: dir}
	d.run(chromedp.Navigate(srv.URL+"/"), chromedp.WaitReady(chromedp.CSS(`#ng-game option[value="yinsh-blitz"]`)))
	tests := []struct{ game, opponent, strength string }{
		{"yinsh-blitz", "mcts:{N}:yinsh-blitz.zck", fmt.Sprint(ui.ModelSimulations)},
		{"yinsh", "mcts:{N}:models/yinsh.zck", fmt.Sprint(ui.ModelSimulations)},
		{"yinsh-blitz", "mcts:{N}:yinsh-blitz.zck", fmt.Sprint(ui.ModelSimulations)},
	}
	for _, tt := range tests {
		var got [2]string
		d.eval(`(() => {
			const g = document.getElementById("ng-game");
			g.value = "`+tt.game+`";
			g.dispatchEvent(new Event("change"));
			return [document.getElementById("ng-opponent").value, document.getElementById("ng-strength").value];
		})()`, &got)
		if got != [2]string{tt.opponent, tt.strength} {
			t.Errorf("%s: the form offers %q at %q, want %q at %q", tt.game, got[0], got[1], tt.opponent, tt.strength)
		}
	}
	// A link to a game or side the server does not have: said, and a game of the form's own
	// starts (the page stopped on a script error, with nothing on it).
	d.run(chromedp.Navigate(srv.URL+"/?game=nosuch&side=red&opponent=random"), chromedp.WaitVisible(chromedp.CSS(`#message`)))
	msg := d.text("#message")
	if !strings.Contains(msg, `No game "nosuch" here: playing yinsh.`) || !strings.Contains(msg, `No side "red" here`) {
		t.Errorf("the message after a link to an unknown game and side: %q", msg)
	}
	d.run(chromedp.WaitReady(chromedp.CSS(`#board .hit`)))
	// The agent's turn with nothing under way (as after a failed move): a button asks it
	// again, through /api/agent (here refused: it is the person's turn in truth).
	var shown bool
	d.eval(`(() => { page.st.agent_turn = true; updateButtons(); return !document.getElementById("agent-move").hidden; })()`, &shown)
	if !shown {
		t.Fatal("no button to ask the agent to move on its turn")
	}
	d.click("#agent-move")
	msg = ""
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if msg = d.text("#message"); strings.Contains(msg, "not the agent's turn") {
			break
		}
	}
	if !strings.Contains(msg, "not the agent's turn") {
		t.Errorf("after asking the agent: %q", msg)
	}
}

// A whole yinsh-blitz game in a real browser against the random agent: the test clicks as a
// person would (a point to place a ring; a ring, then one of its highlighted destinations; a
// highlighted row; a highlighted ring to remove; the pass button), checks what the page shows
// after each turn, asks for the agent's evaluation, takes a move back, and at the end checks
// the result shown against the game record the page offers for download.
func TestBrowserWholeGame(t *testing.T) {
	ctx, dir := browser(t, 55*time.Second)
	srv := httptest.NewServer(New(Options{Seed: func() uint64 { return 11 }}))
	defer srv.Close()
	d := &driver{t: t, ctx: ctx, dir: dir}
	run, get, attr, click, count, settle := d.run, d.get, d.attr, d.click, d.count, d.settle

	run(chromedp.Navigate(srv.URL+"/?game=yinsh-blitz&side=white&opponent=random"),
		chromedp.WaitReady(chromedp.CSS(`#board .hit.place`)))
	settle(0)
	title := get(chromedp.Text(chromedp.CSS("#title")))
	if title != "YINSH blitz" || d.status != "Your turn — white to place a ring." || count(".hit.place") != 85 || count("#board .coord") != 22 {
		t.Fatalf("start: title %q, status %q, %d points to place on", title, d.status, count(".hit.place"))
	}
	d.shot("yinsh-blitz-1-start")

	seen := map[string]bool{}
	undone := false
	for step := 0; ; step++ {
		if step > 300 {
			t.Fatal("the game does not end")
		}
		state := attr("#status", "data-state")
		if state == "over" {
			break
		}
		if state != "you" {
			t.Fatalf("step %d: the page waits for nobody (state %q, status %q)", step, state, d.status)
		}
		n := count("#moves li")
		switch {
		case count("[data-row]") > 0:
			if !seen["row"] {
				d.shot("yinsh-blitz-3-row")
			}
			seen["row"] = true
			click(`[data-row]`)
		case count(".hit.remove") > 0:
			seen["ring"] = true
			click(`.hit.remove`)
		case count(".hit.place") > 0:
			placed := count(`[data-piece="W"]`)
			click(`.hit.place`)
			settle(n + 2)
			if got := count(`[data-piece="W"]`); got != placed+1 || count(`[data-piece="B"]`) != placed+1 {
				t.Fatalf("after placing: %d white and %d black rings shown, want %d each", got, count(`[data-piece="B"]`), placed+1)
			}
			continue
		case count(".hit.ring") > 0:
			run(chromedp.Click(chromedp.CSS(`.hit.ring`)), chromedp.WaitReady(chromedp.CSS(`.hit.dest`)))
			if count(".selected") != 1 || count(".hit.dest") == 0 {
				t.Fatalf("a ring picked: %d selected, %d destinations", count(".selected"), count(".hit.dest"))
			}
			if !seen["move"] {
				d.shot("yinsh-blitz-2-ring-picked")
			}
			seen["move"] = true
			markers := count(`[data-piece="w"]`) + count(`[data-piece="b"]`)
			click(`.hit.dest`)
			settle(n + 1)
			if got := count(`[data-piece="w"]`) + count(`[data-piece="b"]`); got < markers+1 && count("#choices [data-move]")+count("[data-row]")+count(".hit.remove") == 0 {
				// A move leaves a marker; only a row removed since takes markers away.
				if !strings.Contains(d.status, "wins") && count(".lastpath") != 1 {
					t.Fatalf("after a move: %d markers shown, were %d, and no last move drawn", got, markers)
				}
			}
			if count(".lastpath") != 1 {
				t.Fatal("the last move is not shown")
			}
			if !undone && n > 14 {
				// Ask for the agent's view, then take the move back and make it again.
				click("#analyze")
				settle(0)
				if count("#analysis tbody tr") < 1 {
					t.Fatal("no analysis shown")
				}
				d.shot("yinsh-blitz-4-analysis")
				before := count("#moves li")
				click("#undo")
				settle(0)
				if after := count("#moves li"); after >= before {
					t.Fatalf("undo: %d moves, were %d", after, before)
				}
				undone = true
			}
			continue
		case count(`#choices [data-move="pass"]`) > 0:
			click(`#choices [data-move="pass"]`)
		default:
			d.shot("yinsh-blitz-stuck")
			t.Fatalf("step %d: nothing to click; status %q", step, d.status)
		}
		settle(n + 1)
	}
	d.shot("yinsh-blitz-5-end")
	if !seen["move"] || !undone {
		t.Fatalf("the game ended before the test could move a ring and undo: %v", seen)
	}

	// What the page says of the end is what the record it offers says.
	d.checkRecord(srv)
	if count(".pip.on") != 1 {
		t.Errorf("%d rings shown removed, want the winner's 1", count(".pip.on"))
	}
}

// A server without room answers 503, and the page says why and stays usable: a new game
// refused by a full server (the message, and no game), then the agent's turn refused while the
// one search slot is taken and a request waits for it (the message, the board, and the button
// that asks the agent again, which plays once the slot is free).
func TestBrowserServerBusy(t *testing.T) {
	ctx, dir := browser(t, 20*time.Second)
	s := New(Options{MaxSessions: 3, Searches: 1, MaxTime: time.Minute, Seed: func() uint64 { return 1 }})
	started := make(chan int, 3)
	addr := func(i int) string { return fmt.Sprintf("192.0.2.%d", 1+i) }
	ids, let := slowGames(t, s, 3, addr, started)
	srv := httptest.NewServer(s)
	defer srv.Close()
	d := &driver{t: t, ctx: ctx, dir: dir}
	d.run(chromedp.Navigate(srv.URL+"/?game=yinsh-blitz&side=black&opponent=random"), chromedp.WaitVisible(chromedp.CSS(`#message`)))
	if msg := d.text("#message"); !strings.Contains(msg, "the server is full: it keeps at most 3 games") {
		t.Errorf("the message after a new game on a full server: %q", msg)
	}
	var st any
	if d.eval(`page.st`, &st); st != nil {
		t.Errorf("a game refused, the page holds %v", st)
	}
	// A place frees (as a game idle too long goes), and a search of another game holds the one
	// slot while a third waits for it.
	s.mu.Lock()
	delete(s.sessions, ids[2])
	s.mu.Unlock()
	answered := make(chan int, 2)
	ask := func(i int) { answered <- serveAs(s, addr(i), "POST", "/api/agent", `{"id":"`+ids[i]+`"}`).Code }
	go ask(0)
	<-started
	go ask(1)
	for deadline, queued := time.Now().Add(5*time.Second), 0; queued == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("a request for the search slot, held, is not waiting for it after 5 s")
		}
		s.mu.Lock()
		queued = s.queued
		s.mu.Unlock()
	}
	d.click("#start")
	d.settle(0)
	var hidden bool
	if d.eval(`document.getElementById("agent-move").hidden`, &hidden); hidden || d.count("#board .coord") == 0 ||
		!strings.Contains(d.text("#message"), "the server is busy: every search slot is taken (it runs 1 at once) and as many requests wait for one") {
		t.Errorf("the agent's turn refused: message %q, the button to ask again hidden: %v, %d coordinates on the board", d.text("#message"), hidden, d.count("#board .coord"))
	}
	d.shot("server-busy")
	let()
	for range 2 {
		if code := <-answered; code != 200 {
			t.Errorf("another game's agent: %d", code)
		}
	}
	d.click("#agent-move")
	d.settle(1)
	if d.eval(`document.getElementById("message").hidden`, &hidden); !hidden || !strings.HasPrefix(d.status, "Your turn") {
		t.Errorf("after asking the agent again: status %q, message %q", d.status, d.text("#message"))
	}
}

// The form shows the spec the game plays, one name a model: a link's mcts:50 with the shipped
// model selects the model's one entry (models/gyges.zck, as the game names it) at 50
// simulations (the Strength box said "default (400 simulations)", and the list named the model
// twice); a link's ab:2 plays as the alpha-beta entry the list offers (capped at 10 s a move).
func TestBrowserFormShowsTheSpecPlaying(t *testing.T) {
	ctx, dir := browser(t, 20*time.Second)
	srv := httptest.NewServer(New(Options{Seed: func() uint64 { return 3 }}))
	defer srv.Close()
	d := &driver{t: t, ctx: ctx, dir: dir}
	for _, tt := range []struct{ link, plays, opponent, strength, label string }{
		{"mcts:50:models/gyges.zck", "mcts:50:models/gyges.zck", "mcts:{N}:models/gyges.zck", "50 simulations", "network models/gyges.zck"},
		{"mcts:50:gyges.zck", "mcts:50:models/gyges.zck", "mcts:{N}:models/gyges.zck", "50 simulations", "network models/gyges.zck"},
		{"ab:2", "ab:2:10s", "ab:2:10s", "", "alpha-beta, 2 turns deep (classical search)"},
		{"uct:2s", "uct:2s", "uct:{N}", "2s a move", "UCT search (random playouts)"},
	} {
		d.run(chromedp.Navigate(srv.URL+"/?game=gyges&side=south&opponent="+tt.link),
			chromedp.Poll[chromedp.Void](`typeof page !== "undefined" && page.st != null`, chromedp.WithPollingTimeout(10*time.Second)))
		d.settle(0)
		var got struct {
			Plays, Opponent, Label, Strength string
			Disabled                         bool
			Named                            []string
		}
		d.eval(`(() => {
			const o = document.getElementById("ng-opponent"), s = document.getElementById("ng-strength");
			return { plays: page.st.players.north, opponent: o.value, label: o.selectedOptions[0].textContent,
				strength: s.selectedOptions[0].textContent, disabled: s.disabled,
				named: [...o.options].map((x) => x.textContent).filter((x) => x.includes("gyges")) };
		})()`, &got)
		strength := got.Strength
		if got.Disabled {
			strength = ""
		}
		if got.Plays != tt.plays || got.Opponent != tt.opponent || got.Label != tt.label || strength != tt.strength || len(got.Named) != 1 {
			t.Errorf("a link to %s: the game plays %q; the form shows %q (%q) at %q; the models listed %q", tt.link, got.Plays, got.Opponent, got.Label, strength, got.Named)
		}
		if !strings.Contains(d.text("#players"), "north: "+tt.plays) {
			t.Errorf("a link to %s: the header says %q", tt.link, d.text("#players"))
		}
		if tt.link == "mcts:50:gyges.zck" {
			var ok bool
			d.eval(`document.getElementById("newgame").scrollIntoView(), true`, &ok)
			shot(t, ctx, dir, "form-shows-the-spec-playing")
		}
	}
}
