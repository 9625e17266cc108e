package web

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// A game of Gygès with the advanced rule in a real browser against the random agent, from the
// set-up to the end. The test places its pieces by choosing a size and clicking a square of
// its start row; then it moves by clicking a piece of the row that may move and one of its
// highlighted ends, after checking the way shown while the mouse is over the end (bounces
// circled); it makes one replacement (the piece, the occupied end, then a highlighted drop
// square); it takes the goal whenever a piece can reach it. Each step checks what the page
// shows against the legal moves the server sent; the end is checked against the record.
func TestBrowserGyges(t *testing.T) {
	ctx, dir := browser(t, 50*time.Second)
	srv := httptest.NewServer(New(Options{Seed: func() uint64 { return 3 }}))
	defer srv.Close()
	d := &driver{t: t, ctx: ctx, dir: dir}

	d.run(chromedp.Navigate(srv.URL+"/?game=gyges-advanced&side=south&opponent=random"),
		chromedp.WaitReady(chromedp.CSS(`#board .hit.place`)))
	d.settle(0)
	if title := d.text("#title"); title != "Gygès (advanced)" || d.count("#board .g-square") != 36 || d.count("[data-goal]") != 2 ||
		d.count("#board .g-piece:not(.reserve)") != 0 || d.count(".g-piece.reserve") != 12 || d.count(".hit.place") != 6 ||
		d.status != "Your turn — south: choose a piece below, then a highlighted square of row 1." {
		t.Fatalf("start: title %q, %d squares, %d goals, %d pieces to place, %d squares to place on; status %q", title,
			d.count("#board .g-square"), d.count("[data-goal]"), d.count(".g-piece.reserve"), d.count(".hit.place"), d.status)
	}
	d.shot("gyges-1-setup")

	// The set-up: two triples, two doubles, two singles, each on the first free square of row 1.
	for i, size := range []int{3, 3, 2, 2, 1, 1} {
		n := d.count("#moves li")
		d.click(fmt.Sprintf(`#choices button[data-size="%d"]`, size))
		if on := d.attr("#choices button.toggle.on", "data-size"); on != fmt.Sprint(size) {
			t.Fatalf("placement %d: size %s chosen, want %d", i, on, size)
		}
		sq := d.attr(".hit.place", "data-square")
		d.click(`.hit.place`)
		d.settle(n + 2)
		if got := d.attr(fmt.Sprintf(`#board .g-piece[data-square=%q]`, sq), "data-size"); got != fmt.Sprint(size) || d.count(".g-piece.reserve") != 10-2*i {
			t.Fatalf("placement %d: %s shows a piece of size %q, want %d; %d left to place", i, sq, got, size, d.count(".g-piece.reserve"))
		}
		if i == 2 {
			d.shot("gyges-2-setup-half")
		}
	}
	if d.count("#board .g-piece") != 12 {
		t.Fatalf("after the set-up: %d pieces on the board", d.count("#board .g-piece"))
	}

	// The movement.
	seen := map[string]bool{}
	for step := 0; d.attr("#status", "data-state") != "over"; step++ {
		if step > 150 {
			t.Fatal("the game does not end")
		}
		var st struct {
			Legal []string `json:"legal"`
			View  struct {
				Row    int                   `json:"row"`
				Routes map[string][][]string `json:"routes"`
			} `json:"view"`
		}
		d.eval(`page.st`, &st)
		starts := map[string]bool{}
		for _, m := range st.Legal {
			starts[m[:2]] = true
			if int(m[1]-'0') != st.View.Row {
				t.Fatalf("step %d: %s is legal, but row %d is the row to move", step, m, st.View.Row)
			}
		}
		// The row that may move is marked, and exactly its pieces that can move are offered.
		if !strings.Contains(d.status, fmt.Sprintf("south to move a piece from row %d", st.View.Row)) ||
			d.count(".hit.piece") != len(starts) || d.count(".g-rowband.yours") != 1 {
			t.Fatalf("step %d: status %q, %d pieces offered, %d can move", step, d.status, d.count(".hit.piece"), len(starts))
		}
		pick := func(want func(m string) bool) string {
			for _, m := range st.Legal {
				if want(m) {
					return m
				}
			}
			return ""
		}
		goal := pick(func(m string) bool { return strings.HasSuffix(m, "-goal") })
		replacement := pick(func(m string) bool { return strings.Contains(m, "*") })
		bounce := pick(func(m string) bool { return !strings.Contains(m, "*") && len(st.View.Routes[m]) > 1 })
		var move string
		switch {
		case goal != "":
			move = goal
		case !seen["replace"] && replacement != "":
			move = replacement
		case !seen["bounce"] && bounce != "":
			move = bounce
		default: // the last plain move listed, to vary the pieces played
			for _, m := range st.Legal {
				if !strings.Contains(m, "*") {
					move = m
				}
			}
		}
		from, rest, _ := strings.Cut(move, "-")
		end, drop, replace := strings.Cut(rest, "*")

		n := d.count("#moves li")
		d.click(fmt.Sprintf(`.hit.piece[data-square=%q]`, from))
		ends, replaces := map[string]bool{}, map[string]bool{}
		for _, m := range st.Legal {
			if f, r, _ := strings.Cut(m, "-"); f == from {
				e, _, rep := strings.Cut(r, "*")
				map[bool]map[string]bool{false: ends, true: replaces}[rep][e] = true
			}
		}
		if d.count(".selected") != 1 || d.count(".hit.dest") != len(ends) || d.count(".hit.replace") != len(replaces) {
			t.Fatalf("step %d: %s picked: %d selected, %d ends and %d replacements offered, want %d and %d", step, from,
				d.count(".selected"), d.count(".hit.dest"), d.count(".hit.replace"), len(ends), len(replaces))
		}
		key, sel := move, fmt.Sprintf(`.hit.dest[data-square=%q]`, end)
		if replace {
			key, sel = from+"-"+end+"*", fmt.Sprintf(`.hit.replace[data-square=%q]`, end)
		}
		// The mouse over an end shows the way there, its bounces circled.
		way := st.View.Routes[key]
		d.hover(sel)
		if d.count(".g-preview .g-route") != 1 || d.count(".g-preview .g-route-bounce") != len(way)-1 {
			t.Fatalf("step %d: over %s, %d ways and %d bounces shown; the way is %v", step, end,
				d.count(".g-preview .g-route"), d.count(".g-preview .g-route-bounce"), way)
		}
		if len(way) > 1 && !seen["bounce"] {
			seen["bounce"] = true
			d.shot("gyges-4-bounce-path")
		}
		d.click(sel)
		if replace {
			drops := 0
			for _, m := range st.Legal {
				if strings.HasPrefix(m, key) {
					drops++
				}
			}
			status := d.text("#status")
			if d.count(".hit.drop") != drops || !strings.Contains(status, "click a highlighted square to drop") {
				t.Fatalf("step %d: replacing on %s: %d drops offered, want %d; status %q", step, end, d.count(".hit.drop"), drops, status)
			}
			d.shot("gyges-3-replace-drop")
			seen["replace"] = true
			d.click(fmt.Sprintf(`.hit.drop[data-square=%q]`, drop))
		}
		d.settle(n + 1)
		var moves []string
		d.eval(`[...document.querySelectorAll("#moves li")].map((li) => li.textContent)`, &moves)
		if moves[n] != move {
			t.Fatalf("step %d: %s clicked, the page played %q", step, move, moves[n])
		}
		seen["goal"] = end == "goal"
		if !seen["undo"] && step == 2 && len(moves) > n+1 {
			// Take the move back, with the agent's reply: the loop plays again from there.
			d.click("#undo")
			d.settle(0)
			if got := d.count("#moves li"); got != n || d.attr("#status", "data-state") != "you" || d.count(".hit.piece") != len(starts) {
				t.Fatalf("step %d: after undo %d moves (want %d), state %s", step, got, n, d.attr("#status", "data-state"))
			}
			seen["undo"] = true
			continue
		}
		if len(moves) > n+1 {
			// The agent's reply is drawn as the last move: its way, and a replacement's drop.
			reply := moves[n+1]
			if d.count("#g-last .lastpath") != 1 || !strings.Contains(d.text(".g-lastnote"), "north played "+reply) ||
				d.count(".g-lastdrop") != map[bool]int{false: 0, true: 1}[strings.Contains(reply, "*")] {
				t.Fatalf("step %d: the agent's %s is not shown as the last move (%q)", step, reply, d.text(".g-lastnote"))
			}
		}
	}
	d.shot("gyges-5-end")
	rec := d.checkRecord(srv)
	if !seen["bounce"] || !seen["replace"] {
		t.Fatalf("the game ended before the test could bounce and replace: %v", seen)
	}
	if rec.Result == "south" && (!seen["goal"] || d.count(".g-piece.in-goal") != 1) {
		t.Fatal("south won without a piece shown in the goal")
	}
	if !seen["undo"] {
		t.Fatal("the game ended before the test could undo")
	}
	if rec.Result != "draw" && !strings.HasSuffix(d.status, " — a piece in the "+map[string]string{"south": "north", "north": "south"}[rec.Result]+" goal.") {
		t.Fatalf("the end does not say how it was won: %q", d.status)
	}

	// A new game from the form, north against a small search: the board turns so that north's
	// start row is at the bottom and the goal north aims at on top; the agent places first;
	// the agent's view comes on request.
	d.newGameForm("north", "uct:{N}", "200")
	var goalY struct{ South, North float64 }
	d.eval(`(() => { const y = (g) => document.querySelector('[data-goal="' + g + '"] rect').getBBox().y; return {South: y("south"), North: y("north")}; })()`, &goalY)
	if d.count("#moves li") != 1 || !strings.HasPrefix(d.status, "Your turn — north: choose a piece below, then a highlighted square of row 6") ||
		!strings.Contains(d.text("#players"), "south: uct:200") || goalY.South >= goalY.North || d.count(".hit.place") != 6 {
		t.Fatalf("as north: %d moves, status %q, players %q, goals at %+v", d.count("#moves li"), d.status, d.text("#players"), goalY)
	}
	d.evaluate("uct:200", 200)
	d.shot("gyges-6-north-evaluated")
}
