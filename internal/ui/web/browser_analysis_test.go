package web

import (
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// hintMark is a candidate drawn on the board, as the page shows it.
type hintMark struct {
	Move, Text string
	Best       bool
}

// hints reads the candidates drawn on the board.
func (d *driver) hints() []hintMark {
	d.t.Helper()
	var out []hintMark
	d.eval(`[...document.querySelectorAll("#hints .hint:not(.next)")].map((g) => ({ move: g.dataset.move,
		text: [...g.querySelectorAll("text")].map((t) => t.textContent).join(" "), best: g.classList.contains("best") }))`, &out)
	return out
}

// key presses a key the page listens to (kb.ArrowLeft, kb.ArrowRight, kb.Escape).
func (d *driver) key(k string) {
	d.t.Helper()
	d.run(chromedp.KeyEvent(k))
}

// The agent's view on the board, for the three games at the widths the widths test checks
// (1024 to 1600 px): after Evaluate each candidate of the table is drawn at its target (a
// point, a square, the goal) with its win rate and visit share, the agent's choice
// highlighted; nothing is cut off; the checkbox takes the marks away and brings them back.
// Then, at 1024 px, the best move's line step by step (the buttons and the arrow keys): the
// board shows the position after each of its moves, the game unchanged; Esc returns to it.
func TestBrowserAgentsViewOnBoard(t *testing.T) {
	ctx, dir := browser(t, 90*time.Second)
	srv := httptest.NewServer(New(Options{Seed: func() uint64 { return 21 }}))
	defer srv.Close()
	d := &driver{t: t, ctx: ctx, dir: dir}
	for _, width := range []int64{1024, 1280, 1600} {
		for _, tt := range []struct {
			game, side string
			moves      int
		}{{"yinsh-blitz", "white", 7}, {"gyges-advanced", "south", 8}, {"imbriqua", "dark", 6}} {
			name := fmt.Sprintf("agents-view-%d-%s", width, tt.game)
			d.run(chromedp.EmulateViewport(width, 860),
				chromedp.Navigate(fmt.Sprintf("%s/?game=%s&side=%s&opponent=uct:300", srv.URL, tt.game, tt.side)),
				chromedp.Poll[chromedp.Void](`typeof page !== "undefined" && page.st != null`, chromedp.WithPollingTimeout(10*time.Second)))
			d.settle(0)
			for i := 0; i < tt.moves; i++ {
				n := d.count("#moves li")
				var ok bool
				d.eval(fmt.Sprintf(`(() => { const l = page.st.legal; if (!l.length) return false; play(l[(%d * 5) %% l.length]); return true; })()`, i), &ok)
				if !ok {
					t.Fatalf("%s: no legal move at move %d", name, n)
				}
				d.settle(n + 1)
			}
			d.click("#analyze")
			d.settle(0)
			var table []struct{ Move, Visits, Wins string }
			d.eval(`[...document.querySelectorAll("#analysis tbody tr")].map((tr) => ({ move: tr.cells[0].textContent, visits: tr.cells[1].textContent, wins: tr.cells[2].textContent }))`, &table)
			marks := d.hints()
			if len(table) < 2 || len(marks) < 2 {
				t.Fatalf("%s: %d moves in the table, %d on the board", name, len(table), len(marks))
			}
			for i, m := range marks {
				j := slices.IndexFunc(table, func(r struct{ Move, Visits, Wins string }) bool { return r.Move == m.Move })
				if j < 0 || m.Best != (j == 0) || m.Best != (i == 0) {
					t.Errorf("%s: the mark of %s (best %v, %d-th) is not the table's (%d-th)", name, m.Move, m.Best, i+1, j+1)
					continue
				}
				visits := strings.TrimSuffix(table[j].Visits, "%")
				var share float64
				fmt.Sscan(visits, &share)
				if want := fmt.Sprintf("%s %.0f%%", table[j].Wins, share); m.Text != want {
					t.Errorf("%s: %s is marked %q, the table says %q", name, m.Move, m.Text, want)
				}
			}
			d.fits()
			d.shot(name)
			d.click("#hints-on")
			if n := len(d.hints()); n != 0 {
				t.Errorf("%s: %d marks left with the checkbox off", name, n)
			}
			d.click("#hints-on")
			if n := len(d.hints()); n != len(marks) {
				t.Errorf("%s: %d marks with the checkbox on again, were %d", name, n, len(marks))
			}
			if width != 1024 {
				continue
			}

			// The best move's line, step by step.
			var before []string
			d.eval(`page.st.moves`, &before)
			board := func() string {
				var b string
				d.eval(`JSON.stringify(lineState(page.pv).view)`, &b)
				return b
			}
			d.click(`#analysis button.line[data-rank="0"]`)
			d.run(chromedp.Poll[chromedp.Void](`page.pv !== null && document.body.dataset.busy === "false"`, chromedp.WithPollingTimeout(10*time.Second)))
			var pv []string
			d.eval(`page.pv.line`, &pv)
			if pv[0] != table[0].Move || d.attr("#status", "data-state") != "line" || !strings.HasPrefix(d.text("#status"), "Line of "+pv[0]+" (the agent's choice), after 1 of") {
				t.Fatalf("%s: the line %q of %s; status %q", name, pv, table[0].Move, d.text("#status"))
			}
			seen := []string{board()}
			if len(pv) > 1 {
				d.click("#pv-next")
				seen = append(seen, board())
				d.key(kb.ArrowRight)
				seen = append(seen, board())
				d.key(kb.ArrowLeft)
				if board() != seen[1] {
					t.Errorf("%s: ← does not go back one step", name)
				}
			}
			for i := 1; i < len(seen); i++ {
				if seen[i] == seen[i-1] && i <= len(pv)-1 {
					t.Errorf("%s: step %d of the line shows the same board as the step before", name, i+1)
				}
			}
			if d.count("#hints .hint.next") != 1 && len(pv) > 2 {
				t.Errorf("%s: the line's next move is not marked", name)
			}
			var now []string
			d.eval(`page.st.moves`, &now)
			if !slices.Equal(now, before) || d.count("#moves li.pv") != len(pv) {
				t.Errorf("%s: stepping the line, the game has %q (was %q); %d of the line's moves listed", name, now, before, d.count("#moves li.pv"))
			}
			d.fits()
			d.shot(name + "-line")
			d.key(kb.Escape)
			var back bool
			d.eval(`page.pv === null && document.getElementById("pv-bar").hidden`, &back)
			if !back || !strings.HasPrefix(d.text("#status"), "Your turn") || len(d.hints()) != len(marks) {
				t.Errorf("%s: after Esc: back %v, status %q, %d marks", name, back, d.text("#status"), len(d.hints()))
			}
		}
	}
}
