package ui

import (
	"encoding/json"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/imbriqua"
	"github.com/zerogames/zero/internal/games"
)

// Imbriqua games for the tests, chance draws included.
const (
	// imbriquaPenalty stops at turn 2: dark placed on d4 and turned over card 10, which no
	// pawn can play; light is to remove one of dark's pawns.
	imbriquaPenalty = "c1;e8;g3;g4;b7;a3;d8;d5;f5;card 2;f5-e6;d4;card 10"
	// imbriquaChain stops at turn 16, in the second pile: dark placed on f7, turned over
	// card 6 and jumped f4xh6; he may jump on from h6 or stop.
	imbriquaChain = imbriquaPenalty + ";remove a3;d2;card 5;g3xg5;e3;card 1;d5-c5;b3;card 7;b3xf3;b2;card 4;d4-h8;f5;card 6;c1xa3;d6;card 8;remove e8;e2;card 9;remove e6;g6;card 3;c5-c2;d3;h3;g7;c7;f4;a4;e5;f5-f6;g3;remove h8;f7;f7xh5;f7;f4xh6"
)

func imbriquaPos(t *testing.T, moves string) *games.Position {
	t.Helper()
	g, err := games.Lookup("imbriqua")
	if err != nil {
		t.Fatal(err)
	}
	pos := g.NewPosition()
	if moves != "" {
		if err := pos.PlayMoves(moves); err != nil {
			t.Fatal(err)
		}
	}
	return pos
}

// imbriquaPlayOut plays pos to its end: the first legal decision, the first chance outcome.
func imbriquaPlayOut(t *testing.T, pos *games.Position) {
	t.Helper()
	for !pos.Over() {
		move := ""
		if pos.ToMove() == "chance" {
			move = pos.Chances()[0].Move
		} else {
			move = pos.Legal()[0]
		}
		if err := pos.Play(move); err != nil {
			t.Fatal(err)
		}
	}
}

// imbriquaCells reads the squares off the text drawing, by square name.
func imbriquaCells(t *testing.T, text string) map[string]string {
	t.Helper()
	cells := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		parts := strings.Split(line, "│")
		if len(parts) != 3 {
			continue
		}
		var r int
		if _, err := fmt.Sscan(parts[0], &r); err != nil || r < 1 || r > 8 {
			t.Fatalf("a rank starts %q", parts[0])
		}
		row := []rune(parts[1])
		if len(row) != 8*5+1 {
			t.Fatalf("rank %d is %d characters wide", r, len(row))
		}
		for f := range 8 {
			cells[fmt.Sprintf("%c%d", 'a'+f, r)] = strings.TrimSpace(string(row[5*f : 5*f+5]))
		}
	}
	if len(cells) != 64 {
		t.Fatalf("%d squares drawn:\n%s", len(cells), text)
	}
	return cells
}

func TestImbriquaText(t *testing.T) {
	tests := []struct {
		name, moves string
		marked      map[string]string // pawns drawn marked
		want        []string          // parts of the drawing, in order
		absent      []string
	}{
		{"the opening", "", nil, []string{"a    b    c    d    e    f    g    h",
			"framed squares: light 0, dark 0   pawns: light 0, dark 0", "light to place a pawn (the opening: 4 each, anywhere)"},
			[]string{"turn ", "card"}},
		{"a penalty", imbriquaPenalty, map[string]string{"d4": "[D]"}, []string{
			"turn 2 of 44, dark's   pile 1 of 4: 9 cards left to turn over, coming ? ? ? ? ? ? ? ? 11\n",
			"? is one of the cards not drawn yet: 1 3 4 5 6 7 8 9\n",
			"the card turned over: card 10 (double capture, diagonal; red)\n",
			"turn 1, light: light placed a pawn on f5; chance turned over card 2 (step, diagonal; green);",
			"light moved f5-e6\n",
			"turn 2, dark: dark placed a pawn on d4; chance turned over card 10 (double capture, diagonal;",
			"red): impossible, light removes one of dark's pawns\n",
			"light to remove one of dark's pawns: dark cannot play card 10 (double capture, diagonal; red); type remove SQUARE"},
			[]string{"the opening:", "the next card"}},
		{"a chain", imbriquaChain, map[string]string{"f7": "[D]", "h6": "<D>"}, []string{
			"<L> the pawn jumping on",
			"framed squares: light 4, dark 1   pawns: light 12, dark 7",
			"turn 16 of 44, dark's   pile 2 of 4 (the first pile reversed): 6 cards left to turn over, coming 4 7 1 5 10 2\n",
			"the card turned over: card 6 (capture, adjacent diagonal; green)\n",
			"the next card: card 4 (slide, diagonal; green), turn 17\n",
			"turn 15, light: light placed a pawn on f7; turned over card 8 (capture, long diagonal; red);",
			"light jumped f7xh5, taking g6\n",
			"dark jumped f4xh6, taking g5\n",
			"dark to jump again from h6, or stop"},
			[]string{"? is one of"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pos := imbriquaPos(t, tt.moves)
			text := BoardFor("imbriqua").Text(pos)
			s := pos.State().(imbriqua.State)
			for name, got := range imbriquaCells(t, text) {
				sq, _ := imbriqua.ParseSquare(name)
				want := "·"
				switch s.At(sq) {
				case imbriqua.LightPawn:
					want = "L"
				case imbriqua.DarkPawn:
					want = "D"
				default:
					l, d := bits.OnesCount8(s.Framed(0, sq)), bits.OnesCount8(s.Framed(1, sq))
					switch {
					case l > 0 && d > 0:
						want = fmt.Sprintf("l%dd%d", l, d)
					case l > 0:
						want = fmt.Sprintf("l%d", l)
					case d > 0:
						want = fmt.Sprintf("d%d", d)
					}
				}
				if m, ok := tt.marked[name]; ok {
					want = m
				}
				if got != want {
					t.Errorf("%s drawn %q, want %q", name, got, want)
				}
			}
			at := 0
			for _, part := range tt.want {
				i := strings.Index(text[at:], part)
				if i < 0 {
					t.Fatalf("the drawing lacks %q after byte %d:\n%s", part, at, text)
				}
				at += i + len(part)
			}
			for _, part := range tt.absent {
				if strings.Contains(text, part) {
					t.Errorf("the drawing has %q:\n%s", part, text)
				}
			}
		})
	}

	// The end: the result with the score that made it, no card to come.
	pos := imbriquaPos(t, "")
	imbriquaPlayOut(t, pos)
	text := BoardFor("imbriqua").Text(pos)
	score := pos.State().(imbriqua.State).Score()
	want := fmt.Sprintf("game over: %s wins, framed squares %d to %d", pos.Result(), max(score[0], score[1]), min(score[0], score[1]))
	if score[0] == score[1] {
		want = "game over: " // a tie on frames: decided by the pawns or drawn
	}
	if !strings.Contains(text, "all 44 turns played\n") || !strings.Contains(text, want) || strings.Contains(text, "the next card") {
		t.Errorf("the end, want %q:\n%s", want, text)
	}
}

// imbriquaMoveOf puts a group's label and item together as the decision they list.
func imbriquaMoveOf(g MoveGroup, item string) string {
	switch g.Label {
	case "place":
		return item
	case "remove":
		return "remove " + item
	}
	return g.Label + item
}

func TestImbriquaGroup(t *testing.T) {
	tests := []struct {
		name, moves string
		labels      []string
	}{
		{"the opening", "", []string{"place"}},
		{"the penalty", imbriquaPenalty, []string{"remove"}},
		{"a chain: stop, then the jumps", imbriquaChain, []string{"stop", "h6x"}},
		{"a green card: by pawn", imbriquaPenalty + ";remove a3;d2;card 5", []string{"g3x", "d8x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pos := imbriquaPos(t, tt.moves)
			var labels, listed []string
			for _, g := range BoardFor("imbriqua").Group(pos) {
				labels = append(labels, g.Label)
				if g.Label == "stop" {
					listed = append(listed, "stop")
				}
				for _, it := range g.Items {
					listed = append(listed, imbriquaMoveOf(g, it))
				}
			}
			if !slices.Equal(labels, tt.labels) {
				t.Errorf("groups %q, want %q", labels, tt.labels)
			}
			legal := pos.Legal()
			slices.Sort(listed)
			slices.Sort(legal)
			if !slices.Equal(listed, legal) {
				t.Fatalf("the groups list %q, the legal decisions are %q", listed, legal)
			}
		})
	}
	// Squares in board order, not byte-wise.
	groups := BoardFor("imbriqua").Group(imbriquaPos(t, ""))
	if items := groups[0].Items; len(items) != 64 || items[0] != "a1" || items[1] != "b1" || items[63] != "h8" {
		t.Errorf("the placements listed %q", items)
	}
}

func TestImbriquaView(t *testing.T) {
	read := func(t *testing.T, pos *games.Position) imbriquaView {
		t.Helper()
		data, err := json.Marshal(BoardFor("imbriqua").View(pos))
		if err != nil {
			t.Fatal(err)
		}
		var v imbriquaView
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
		if v.Recent == nil || v.Framed == nil || v.Unknown == nil {
			t.Errorf("a list is null in %s: the page iterates them", data)
		}
		s := pos.State().(imbriqua.State)
		for sq, p := range v.Squares {
			if want := [...]string{"", "L", "D"}[s.At(sq)]; p != want {
				t.Errorf("%s: %q in the view, %q on the board", imbriqua.SquareName(sq), p, want)
			}
		}
		lines := map[string]int{}
		for _, f := range v.Framed {
			sq, _ := imbriqua.ParseSquare(f.Square)
			if len(f.Light) != bits.OnesCount8(s.Framed(0, sq)) || len(f.Dark) != bits.OnesCount8(s.Framed(1, sq)) {
				t.Errorf("%s framed by %v and %v", f.Square, f.Light, f.Dark)
			}
			lines["light"] += len(f.Light)
			lines["dark"] += len(f.Dark)
		}
		if lines["light"] != v.Score["light"] || lines["dark"] != v.Score["dark"] {
			t.Errorf("the framed squares' lines %v, the score %v", lines, v.Score)
		}
		return v
	}

	v := read(t, imbriquaPos(t, ""))
	if v.Kind != "imbriqua" || v.Phase != "opening" || v.Mover != "light" || v.Decider != "light" || v.Turn != 0 || v.Turns != 44 ||
		v.Card != nil || v.Next != nil || len(v.Recent) != 0 || len(v.Unknown) != 10 {
		t.Errorf("the opening: %+v", v)
	}

	v = read(t, imbriquaPos(t, imbriquaPenalty))
	c := v.Card
	if v.Phase != "penalty" || v.Mover != "dark" || v.Decider != "light" || v.Turn != 2 || v.Placed != "d4" ||
		c == nil || *c != (imbriquaCard{10, "double capture, diagonal", "red", 2, "dark"}) || v.Next != nil ||
		v.Previous == nil || v.Previous.Number != 2 || v.Previous.By != "light" ||
		v.Pile.Number != 1 || v.Pile.Done != 2 || v.Pile.Reversed || !slices.Equal(v.Pile.Cards, []int{2, 10, 0, 0, 0, 0, 0, 0, 0, 0, 11}) ||
		!slices.Equal(v.Unknown, []int{1, 3, 4, 5, 6, 7, 8, 9}) {
		t.Errorf("the penalty: %+v, card %+v, pile %+v", v, v.Card, v.Pile)
	}
	var kinds []string
	for _, turn := range v.Recent {
		for _, d := range turn.Decisions {
			kinds = append(kinds, fmt.Sprintf("%d %s %s %s", turn.Turn, d.By, d.Kind, d.Move))
		}
	}
	if want := []string{"1 light place f5", "1 chance card card 2", "1 light move f5-e6", "2 dark place d4", "2 chance card card 10"}; !slices.Equal(kinds, want) {
		t.Errorf("the recent decisions %q, want %q", kinds, want)
	}

	v = read(t, imbriquaPos(t, imbriquaChain))
	if v.Phase != "chain" || v.Chain != "h6" || v.Placed != "f7" || v.Turn != 16 || v.Card.Number != 6 || v.Card.Colour != "green" ||
		v.Next == nil || *v.Next != (imbriquaCard{4, "slide, diagonal", "green", 17, "light"}) ||
		v.Pile.Number != 2 || !v.Pile.Reversed || v.Pile.Done != 5 || v.Pile.Cards[0] != 11 || len(v.Unknown) != 0 {
		t.Errorf("the chain: %+v, card %+v, pile %+v", v, v.Card, v.Pile)
	}
	if last := v.Recent[len(v.Recent)-1].Decisions; last[len(last)-1].Text != "dark jumped f4xh6, taking g5" {
		t.Errorf("the last decision told as %q", last[len(last)-1].Text)
	}

	pos := imbriquaPos(t, imbriquaChain)
	imbriquaPlayOut(t, pos)
	v = read(t, pos)
	if v.Phase != "over" || v.Decider != "none" || v.Turn != 44 || v.Next != nil || v.Pile.Number != 4 || v.Pile.Done != 11 ||
		!strings.HasPrefix(v.Status, "game over: ") {
		t.Errorf("the end: %+v, pile %+v", v, v.Pile)
	}
}

// Every end reads "game over: RESULT, HOW" (the browser shows HOW after the result): a win on
// framed squares, a win on pawns when the frames are level, a draw. Random games, seeded, until
// each kind has been seen.
func TestImbriquaEndStatus(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	seen := map[string]bool{}
	for game := 0; game < 2000 && len(seen) < 2; game++ {
		pos := imbriquaPos(t, "")
		for !pos.Over() {
			var move string
			if pos.ToMove() == "chance" {
				c := pos.Chances()
				move = c[rng.IntN(len(c))].Move
			} else {
				l := pos.Legal()
				move = l[rng.IntN(len(l))]
			}
			if err := pos.Play(move); err != nil {
				t.Fatal(err)
			}
		}
		st := pos.State().(imbriqua.State)
		score, result := st.Score(), pos.Result()
		var kind, want string
		switch {
		case result == "draw":
			kind, want = "draw", fmt.Sprintf("game over: a draw, framed squares %d each and pawns %d each", score[0], st.Pawns(0))
		case score[0] == score[1]:
			w := env.Player(0)
			if result == "dark" {
				w = 1
			}
			kind, want = "pawns", fmt.Sprintf("game over: %s wins, on pawns %d to %d (framed squares level at %d)",
				result, st.Pawns(w), st.Pawns(1-w), score[0])
		default:
			kind, want = "frames", fmt.Sprintf("game over: %s wins, framed squares %d to %d", result, max(score[0], score[1]), min(score[0], score[1]))
		}
		seen[kind] = true
		if text := BoardFor("imbriqua").Text(pos); !strings.Contains(text+"\n", want+"\n") {
			t.Fatalf("game %d (%s): want %q in\n%s", game, kind, want, text)
		}
	}
	if !seen["pawns"] || !seen["frames"] {
		t.Fatalf("kinds of end seen: %v; want a win on pawns and one on frames", seen)
	}
}
