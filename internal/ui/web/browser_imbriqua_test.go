package web

import (
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// imbriquaPage is what the Imbriqua test reads of the page's state.
type imbriquaPage struct {
	Legal []string `json:"legal"`
	Moves []string `json:"moves"`
	View  struct {
		Squares []string       `json:"squares"`
		Phase   string         `json:"phase"`
		Mover   string         `json:"mover"`
		Decider string         `json:"decider"`
		Turn    int            `json:"turn"`
		Score   map[string]int `json:"score"`
		Placed  string         `json:"placed"`
		Chain   string         `json:"chain"`
		Card    *struct {
			Number int    `json:"number"`
			Name   string `json:"name"`
			Colour string `json:"colour"`
		} `json:"card"`
		Pile struct {
			Number int `json:"number"`
			Done   int `json:"done"`
		} `json:"pile"`
		Recent []struct {
			Turn      int    `json:"turn"`
			Mover     string `json:"mover"`
			Decisions []struct {
				By, Move, Kind, Text string
			} `json:"decisions"`
		} `json:"recent"`
	} `json:"view"`
}

// A whole game of Imbriqua in a real browser against the random agent. The test places its
// pawns by clicking highlighted squares, moves and jumps by clicking a pawn and a highlighted
// square (jumping on along a chain, and once stopping it with the button), removes one of the
// agent's pawns when the agent's card is impossible, and checks after each step what the page
// shows: the card turned over (the chance draws of the first pile as they come), the pile, the
// pawn placed this turn, who decides a penalty, the framed squares and the score; at the end,
// the result against the record the page offers.
func TestBrowserImbriqua(t *testing.T) {
	ctx, dir := browser(t, 50*time.Second)
	srv := httptest.NewServer(New(Options{Seed: func() uint64 { return 5 }}))
	defer srv.Close()
	d := &driver{t: t, ctx: ctx, dir: dir}

	d.run(chromedp.Navigate(srv.URL+"/?game=imbriqua&side=light&opponent=random"),
		chromedp.WaitReady(chromedp.CSS(`#board .hit.place`)))
	d.settle(0)
	if title := d.text("#title"); title != "Imbriqua" || d.count("#board .i-square") != 64 || d.count("#board .i-square.edge") != 28 ||
		d.count(".hit.place") != 64 || d.status != "Your turn — light to place a pawn (the opening: 4 each, anywhere)." ||
		d.attr(".i-card", "class") != "i-card back" {
		t.Fatalf("start: title %q, %d squares, %d to place on, status %q", title, d.count("#board .i-square"), d.count(".hit.place"), d.status)
	}
	d.shot("imbriqua-1-opening")

	seen := map[string]bool{}
	var st imbriquaPage
	read := func() {
		t.Helper()
		d.eval(`page.st`, &st)
	}
	for step := 0; d.attr("#status", "data-state") != "over"; step++ {
		if step > 200 {
			t.Fatal("the game does not end")
		}
		read()
		v := &st.View
		n := len(st.Moves)
		// What is on the board is what the server sent.
		if d.count(`[data-pawn="L"]`) != count(v.Squares, "L") || d.count(`[data-pawn="D"]`) != count(v.Squares, "D") {
			t.Fatalf("step %d: %d light and %d dark pawns drawn, the view has %d and %d", step,
				d.count(`[data-pawn="L"]`), d.count(`[data-pawn="D"]`), count(v.Squares, "L"), count(v.Squares, "D"))
		}
		if got := d.text(`[data-score="light"]`); !strings.HasPrefix(got, fmt.Sprintf("%d framed", v.Score["light"])) {
			t.Fatalf("step %d: light's score shows %q, the view has %d", step, got, v.Score["light"])
		}
		if v.Placed != "" && d.attr(".i-placed", "data-placed") != v.Placed {
			t.Fatalf("step %d: the pawn placed this turn, %s, is not marked", step, v.Placed)
		}
		// The card: the turn's own once turned over, drawn by chance in the first pile.
		if c := v.Card; c != nil {
			if got := d.attr(".i-card", "data-card"); got != fmt.Sprint(c.Number) || !strings.Contains(d.attr(".i-card", "class"), c.Colour) {
				t.Fatalf("step %d: card %d (%s) turned over, the page shows %s (%s)", step, c.Number, c.Colour, got, d.attr(".i-card", "class"))
			}
			if v.Turn <= 10 && !slices.Contains(st.Moves, fmt.Sprintf("card %d", c.Number)) {
				t.Fatalf("step %d: card %d shown at turn %d, but chance did not draw it (%q)", step, c.Number, v.Turn, st.Moves)
			}
			if v.Turn <= 10 && !seen["reveal"] && d.count(".i-card.reveal") == 1 {
				seen["reveal"] = true
				d.shot("imbriqua-2-card-revealed")
			}
		}
		// The last turn played and the turn in progress are drawn: each move and jump an arrow.
		arrows, lastDone := 0, 0
		for _, tr := range v.Recent {
			if tr.Turn > 0 && tr.Turn != v.Turn {
				lastDone = tr.Turn
			}
		}
		for _, tr := range v.Recent {
			for _, dec := range tr.Decisions {
				if tr.Turn > 0 && (tr.Turn == v.Turn || tr.Turn == lastDone) && (dec.Kind == "move" || dec.Kind == "capture") {
					arrows++
				}
			}
		}
		if got := d.count("#i-last .i-lastmove"); got != arrows {
			t.Fatalf("step %d: %d moves drawn as the last, want %d", step, got, arrows)
		}
		if arrows > 0 {
			seen["last move drawn"] = true
		}
		// A penalty the agent decided against the person: shown as such.
		for _, tr := range v.Recent {
			for _, dec := range tr.Decisions {
				if dec.Kind == "remove" && dec.By == "dark" && !seen["agent removed "+fmt.Sprint(tr.Turn)] {
					seen["agent removed "+fmt.Sprint(tr.Turn)] = true
					seen["penalty-agent"] = true
					sq := strings.TrimPrefix(dec.Move, "remove ")
					if !strings.Contains(d.text("#notes"), "dark removed light's pawn on "+sq+" (penalty)") || d.count(".i-turn li.penalty") < 2 {
						t.Fatalf("step %d: dark's penalty on %s is not told: %q", step, sq, d.text("#notes"))
					}
					if v.Squares[square(sq)] == "" && d.attr(".i-removed", "data-removed") != sq {
						t.Fatalf("step %d: the pawn removed from %s is not crossed out", step, sq)
					}
					if !seen["shot agent removed"] && v.Phase != "penalty" { // the penalty has a screenshot of its own
						seen["shot agent removed"] = true
						d.shot("imbriqua-3-agent-removed")
					}
				}
			}
		}
		if d.attr("#status", "data-state") == "over" {
			break
		}
		switch v.Phase {
		case "opening", "place", "bonus":
			places := 0
			for _, m := range st.Legal {
				if len(m) == 2 {
					places++
				}
			}
			if d.count(".hit.place") != places {
				t.Fatalf("step %d: %d squares offered to place on, %d legal", step, d.count(".hit.place"), places)
			}
			if v.Phase == "bonus" && !seen["bonus"] {
				seen["bonus"] = true
				if !strings.Contains(d.status, "card 11") {
					t.Fatalf("step %d: card 11's placements: status %q", step, d.status)
				}
			}
			// Next to a dark pawn if one can, to make captures.
			target := d.attr(".hit.place", "data-square")
			for _, m := range st.Legal {
				if sq := square(m); len(m) == 2 && sq%8 > 0 && sq%8 < 7 && sq > 8 && sq < 55 && (v.Squares[sq+1] == "D" || v.Squares[sq-8] == "D") {
					target = m
				}
			}
			d.click(fmt.Sprintf(`.hit.place[data-square=%q]`, target))
		case "penalty":
			// The agent's card is impossible: the person removes one of its pawns.
			if d.attr("#status", "data-state") != "penalty" || !strings.HasPrefix(d.status, "Your decision — dark cannot play card") ||
				d.count(".hit.remove") != count(v.Squares, "D") || d.count(".hit.remove") != len(st.Legal) {
				t.Fatalf("step %d: the penalty is ours to decide: status %q (%s), %d pawns offered, dark has %d", step, d.status,
					d.attr("#status", "data-state"), d.count(".hit.remove"), count(v.Squares, "D"))
			}
			if !seen["penalty-you"] {
				d.shot("imbriqua-4-you-remove")
			}
			seen["penalty-you"] = true
			sq := d.attr(".hit.remove", "data-square")
			d.click(".hit.remove")
			d.settle(n + 1)
			if !strings.Contains(d.text("#notes"), "light removed dark's pawn on "+sq+" (penalty)") {
				t.Fatalf("step %d: our removal of %s is not told: %q", step, sq, d.text("#notes"))
			}
			continue
		case "act", "chain":
			if v.Phase == "act" && v.Turn >= 5 && !seen["undo"] {
				// Take back the turn's placement, and the card chance drew after it.
				seen["undo"] = true
				d.click("#undo")
				d.settle(0)
				read()
				if len(st.Moves) >= n || st.View.Phase != "place" || d.attr("#status", "data-state") != "you" || d.count(".hit.place") == 0 || st.View.Card != nil {
					t.Fatalf("step %d: after undo %d moves (were %d), phase %s", step, len(st.Moves), n, st.View.Phase)
				}
				continue
			}
			if v.Card.Colour == "red" {
				seen["red"] = true
			}
			if v.Phase == "chain" {
				seen["chain"] = true
				if !strings.Contains(d.status, "jump again from "+v.Chain) || d.count(`#choices [data-move="stop"]`) != 1 {
					t.Fatalf("step %d: a chain from %s: status %q", step, v.Chain, d.status)
				}
				if !seen["stop"] {
					d.shot("imbriqua-5-chain")
					seen["stop"] = true
					d.click(`#choices [data-move="stop"]`)
					break
				}
			}
			if d.count(".selected") == 0 {
				d.click(".hit.pawn")
			}
			from := d.attr(".hit.pawn", "data-square")
			if d.count(".selected") != 1 {
				t.Fatalf("step %d: no pawn picked", step)
			}
			if sel := d.count(".hit.dest"); sel == 0 {
				t.Fatalf("step %d: %s picked, no square offered", step, from)
			}
			d.hover(".hit.dest")
			if d.count(".i-hint .i-path") != 1 {
				t.Fatalf("step %d: the way of the move is not shown", step)
			}
			d.click(".hit.dest")
		default:
			t.Fatalf("step %d: phase %q on the person's turn", step, v.Phase)
		}
		d.settle(n + 1)
	}
	read()
	d.shot("imbriqua-6-end")
	rec := d.checkRecord(srv)
	if !slices.Equal(rec.Moves, st.Moves) || st.View.Turn != 44 || !strings.Contains(d.status, " — framed squares ") && !strings.Contains(d.status, " on pawns") {
		t.Fatalf("the end: turn %d, the record has %d moves, the page %d; status %q", st.View.Turn, len(rec.Moves), len(st.Moves), d.status)
	}
	for _, want := range []string{"reveal", "penalty-you", "penalty-agent", "chain", "stop", "bonus", "red", "undo", "last move drawn"} {
		if !seen[want] {
			t.Errorf("the game never showed %s (another seed may)", want)
		}
	}

	// A new game from the form, dark against a small search: the board turns (rank 8 at the
	// bottom), the agent places first, and the agent's view comes on request.
	d.newGameForm("dark", "uct:{N}", "200")
	var y struct{ A1, A8 float64 }
	d.eval(`(() => { const y = (s) => +document.querySelector('.i-square[data-square="' + s + '"]').getAttribute("y"); return {A1: y("a1"), A8: y("a8")}; })()`, &y)
	if d.count("#moves li") != 1 || d.status != "Your turn — dark to place a pawn (the opening: 4 each, anywhere)." ||
		!strings.Contains(d.text("#players"), "light: uct:200") || y.A1 >= y.A8 || d.count(".hit.place") != 63 {
		t.Fatalf("as dark: %d moves, status %q, players %q, a1 and a8 at %+v", d.count("#moves li"), d.status, d.text("#players"), y)
	}
	d.evaluate("uct:200", 200)
	d.shot("imbriqua-7-dark-evaluated")
}

func count(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}

// square is the index of an Imbriqua square name (a1 = 0, h8 = 63).
func square(name string) int { return int(name[1]-'1')*8 + int(name[0]-'a') }
