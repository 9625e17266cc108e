package imbriqua

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/zerogames/zero/env"
)

// step plays one decision; if legal is set it must first be the legal decisions, sorted
// byte-wise and joined by ';'.
type step struct {
	legal string
	play  string
}

// where is a state's turn and status, as the tests expect them: "13: dark to place".
func where(s State) string { return fmt.Sprintf("%d: %s", s.turn, s.status()) }

// squareList is the named squares of b, sorted byte-wise and joined by ';' (prefixed).
func squareList(prefix string, b bitboard) string {
	var names []string
	for x := 'a'; x <= 'h'; x++ {
		for y := '1'; y <= '8'; y++ {
			name := string([]rune{x, y})
			if b&squares(name) != 0 {
				names = append(names, prefix+name)
			}
		}
	}
	slices.Sort(names)
	return strings.Join(names, ";")
}

// innerSquares is b2…g7 written out from files and ranks, independently of the engine's mask.
func innerSquares() bitboard {
	var b bitboard
	for x := 'b'; x <= 'g'; x++ {
		for y := '2'; y <= '7'; y++ {
			b |= squares(string([]rune{x, y}))
		}
	}
	return b
}

func pawnsAre(s State, light, dark string) error {
	want := [2]bitboard{}
	for p, list := range []string{light, dark} {
		if list != "" {
			want[p] = squares(strings.Split(list, ",")...)
		}
	}
	if s.pawns != want {
		return fmt.Errorf("pawns: light %s, dark %s; want light %s, dark %s",
			squareList("", s.pawns[0]), squareList("", s.pawns[1]), light, dark)
	}
	return nil
}

// TestRulings plays every ruling of the spec (and the rules around them) from hand-made
// positions. The expected lists were worked out by hand from the spec.
func TestRulings(t *testing.T) {
	allCards := "card 1;card 10;card 2;card 3;card 4;card 5;card 6;card 7;card 8;card 9"
	tests := []struct {
		name  string
		spec  string // a position (see position), or "new" for the start of a game
		steps []step
		end   string            // where(s) after the steps
		check func(State) error // more to check at the end
	}{
		{
			name: "light begins; the opening alternates 4 + 4; the placement comes before the card; " +
				"draws are chance, listed byte-wise; the opponent removes, and may take the pawn just placed",
			spec: "new",
			steps: []step{{squareList("", ^bitboard(0)), "a1"}, {"", "h8"}, {"", "a8"}, {"", "h1"},
				{"", "b1"}, {"", "g8"}, {"", "b8"}, {"", "g1"},
				{squareList("", innerSquares()), "d4"},
				{allCards, "card 5"},
				{"remove a1;remove a8;remove b1;remove b8;remove d4", "remove d4"}},
			end: "1: dark to place",
			check: func(s State) error {
				return pawnsAre(s, "a1,a8,b1,b8", "h8,h1,g8,g1")
			},
		},
		{
			name:  "a turn's placement stays off the edge while a square inside is empty (forced: still a decision)",
			spec:  "L=inner empty=e5 D=a1 turn=12 card=1",
			steps: []step{{"e5", "e5"}},
			end:   "12: light to apply card 1 (step, orthogonal)",
		},
		{
			name: "no square inside is empty: any empty edge square",
			spec: "L=inner D=a1 turn=13 card=9",
			steps: []step{{squareList("", edge&^squares("a1")), "h8"},
				{"remove a1;remove h8", "remove a1"}},
			end: "14: light to place",
		},
		{
			name:  "a full board: the placement is skipped and the card turned over at once",
			spec:  "D=a1 L=rest turn=13 card=3",
			steps: []step{{"remove a1", "remove a1"}, {"a1", "a1"}},
			end:   "14: dark to remove a light pawn (card 8 impossible)",
		},
		{
			name:  "a full board and no pawn of the player's: nothing to remove, the turn ends",
			spec:  "L=rest turn=13 card=3",
			end:   "14: dark to remove a light pawn (card 8 impossible)",
			steps: nil,
		},
		{
			name:  "the 10th draw has one outcome, still a decision",
			spec:  "L=a1 D=h8 turn=9",
			steps: []step{{"", "d4"}, {"card 10", "card 10"}, {"remove d4;remove h8", "remove h8"}},
			end:   "10: light to place",
		},
		{
			name: "card 11 is the first pile's 11th card, not a chance decision; its placements may use the edge",
			spec: "L=a1 D=h8 turn=10",
			steps: []step{{"", "d4"}, {squareList("", ^squares("a1", "h8", "d4")), "a2"},
				{squareList("", ^squares("a1", "h8", "d4", "a2")), "b1"}, {"", "e5"}},
			end: "11: dark to place (card 11, 2 left)",
		},
		{
			name:  "card 11 is impossible with fewer than two empty squares: the penalty",
			spec:  "L=a1 D=rest empty=d4,e5 turn=10",
			steps: []step{{"d4;e5", "d4"}, {"remove a1;remove d4", "remove a1"}},
			end:   "11: dark to place",
		},
		{
			name:  "card 1: a step along a row or column of any own pawn, the one placed included",
			spec:  "L=a1 D=a2 turn=12 card=1",
			steps: []step{{"", "c3"}, {"a1-b1;c3-b3;c3-c2;c3-c4;c3-d3", "a1-b1"}},
			end:   "13: dark to place",
			check: func(s State) error { return pawnsAre(s, "b1,c3", "a2") },
		},
		{
			name:  "card 2: a diagonal step",
			spec:  "L=a1 D=b2 turn=12 card=2",
			steps: []step{{"", "c3"}, {"c3-b4;c3-d2;c3-d4", "c3-d4"}},
			end:   "13: dark to place",
			check: func(s State) error { return pawnsAre(s, "a1,d4", "b2") },
		},
		{
			name: "card 3: a slide over empty squares",
			spec: "L=a1 D=a3,c1,b5,f2 turn=12 card=3",
			steps: []step{{"", "b2"},
				{"a1-a2;a1-b1;b2-a2;b2-b1;b2-b3;b2-b4;b2-c2;b2-d2;b2-e2", "b2-e2"}},
			end: "13: dark to place",
		},
		{
			name: "card 4: a diagonal slide",
			spec: "L=h8 D=c3 turn=12 card=4",
			steps: []step{{"", "e5"},
				{"e5-b8;e5-c7;e5-d4;e5-d6;e5-f4;e5-f6;e5-g3;e5-g7;e5-h2;h8-f6;h8-g7", "h8-f6"}},
			end: "13: dark to place",
		},
		{
			name:  "no pawn can perform the card: the opponent removes one",
			spec:  "L=a1 D=a2,b1,c4,d3,e4,d5 turn=12 card=1",
			steps: []step{{"", "d4"}, {"remove a1;remove d4", "remove a1"}},
			end:   "13: dark to place",
			check: func(s State) error { return pawnsAre(s, "d4", "a2,b1,c4,d3,e4,d5") },
		},
		{
			name: "card 5: a chain may change direction and land where it started; it ends by itself",
			spec: "L=h1 D=c4,d5,e4,d3 turn=12 card=5",
			steps: []step{{"", "c3"}, {"c3xc5;c3xe3", "c3xc5"}, {"c5xe5;stop", "c5xe5"},
				{"e5xe3;stop", "e5xe3"}, {"e3xc3;stop", "e3xc3"}},
			end:   "13: dark to place",
			check: func(s State) error { return pawnsAre(s, "c3,h1", "") },
		},
		{
			name:  "card 5: a single jump is still a decision, and a chain with no further jump ends without a stop",
			spec:  "L=h1 D=c4 turn=12 card=5",
			steps: []step{{"", "c3"}, {"c3xc5", "c3xc5"}},
			end:   "13: dark to place",
			check: func(s State) error { return pawnsAre(s, "c5,h1", "") },
		},
		{
			name:  "card 6: any own pawn may start; the chain goes on with that pawn only; stop is a decision",
			spec:  "L=a1,f6 D=b2,d4,g7 turn=12 card=6",
			steps: []step{{"", "e3"}, {"a1xc3;e3xc5;f6xh8", "a1xc3"}, {"c3xe5;stop", "stop"}},
			end:   "13: dark to place",
			check: func(s State) error { return pawnsAre(s, "c3,e3,f6", "d4,g7") },
		},
		{
			name:  "card 5: a capture needs the square behind empty and never jumps an own pawn",
			spec:  "L=c5,b3 D=c4,d3,e3 turn=12 card=5",
			steps: []step{{"", "c3"}},
			end:   "12: dark to remove a light pawn (card 5 impossible)",
		},
		{
			name: "card 7: red, the placed pawn only; it may start next to the pawn and land right behind " +
				"it or further; the chain may reverse over emptied squares",
			spec: "L=a4 D=c5,c2,e4 turn=12 card=7",
			steps: []step{{"", "c3"}, {"c3xc1;c3xc6;c3xc7;c3xc8", "c3xc6"},
				{"c6xc1;stop", "c6xc1"}},
			end:   "13: dark to place",
			check: func(s State) error { return pawnsAre(s, "a4,c1", "e4") },
		},
		{
			name:  "card 7: one pawn crossed, never two nor an own; another pawn able to capture does not count",
			spec:  "L=a1,f4 D=d5,d6,g4 turn=12 card=7",
			steps: []step{{"", "d4"}},
			end:   "12: dark to remove a light pawn (card 7 impossible)",
		},
		{
			name:  "card 8: the chain keeps the card's kind (diagonal), not an orthogonal jump",
			spec:  "L=h1 D=e5,g5,f7 turn=12 card=8",
			steps: []step{{"", "c3"}, {"c3xf6;c3xg7;c3xh8", "c3xf6"}, {"f6xh4;stop", "f6xh4"}},
			end:   "13: dark to place",
			check: func(s State) error { return pawnsAre(s, "h1,h4", "f7") },
		},
		{
			name:  "card 8: red, a long diagonal capture may start next to the pawn and land right behind it or further",
			spec:  "L=h1 D=e5 turn=12 card=8",
			steps: []step{{"", "d4"}, {"d4xf6;d4xg7;d4xh8", "d4xf6"}},
			end:   "13: dark to place",
			check: func(s State) error { return pawnsAre(s, "f6,h1", "") },
		},
		{
			name: "card 7: a chain may land on the square of a pawn it captured earlier (emptied); " +
				"it ends by itself when no jump is left",
			spec:  "L=a1 D=c5,e7,h6,d5 turn=12 card=7",
			steps: []step{{"", "c3"}, {"", "c3xc7"}, {"", "c7xh7"}, {"", "h7xh5"}, {"h5xa5;h5xb5;h5xc5;stop", "h5xc5"}},
			end:   "13: dark to place",
			check: func(s State) error { return pawnsAre(s, "a1,c5", "") },
		},
		{
			name:  "card 9: two pawns side by side, the first adjacent; no further jump",
			spec:  "L=a1 D=d5,d6,e4,f4,e7,f7 turn=12 card=9",
			steps: []step{{"", "d4"}, {"d4xd7;d4xg4", "d4xd7"}},
			end:   "13: dark to place",
			check: func(s State) error { return pawnsAre(s, "a1,d7", "e4,f4,e7,f7") },
		},
		{
			name:  "card 9: the first pawn must be adjacent, and one pawn is not enough",
			spec:  "L=a1 D=d6,d7,e4 turn=12 card=9",
			steps: []step{{"", "d4"}},
			end:   "12: dark to remove a light pawn (card 9 impossible)",
		},
		{
			name:  "card 10: no further jump, though a second double capture is there",
			spec:  "L=h1 D=c3,d4,f6,g7 turn=12 card=10",
			steps: []step{{"", "b2"}, {"b2xe5", "b2xe5"}},
			end:   "13: dark to place",
			check: func(s State) error { return pawnsAre(s, "e5,h1", "f6,g7") },
		},
		{
			name:  "card 10: a diagonal double capture",
			spec:  "L=a1 D=e5,f6,c5,b6 turn=12 card=10",
			steps: []step{{"", "d4"}, {"d4xa7;d4xg7", "d4xa7"}},
			end:   "13: dark to place",
			check: func(s State) error { return pawnsAre(s, "a1,a7", "e5,f6") },
		},
		{
			name:  "the end: more framed squares wins",
			spec:  "L=c4,e4 D=a8 turn=43 card=1",
			steps: []step{{"", "g7"}, {"", "g7-g6"}},
			end:   "44: game over: light wins",
		},
		{
			name:  "the end: equal framed squares, more pawns wins",
			spec:  "L=c4,e4 D=d3,d5,a8 turn=43 card=1",
			steps: []step{{"", "g7"}, {"", "g7-g6"}},
			end:   "44: game over: dark wins",
			check: func(s State) error {
				return expect(s.Score() == [2]int{1, 1}, "one framed square each (d4, by a row and a column)")
			},
		},
		{
			name:  "the end: equal framed squares and pawns, a draw",
			spec:  "L=c4,e4,a1 D=d3,d5 turn=43 card=1",
			steps: []step{{"", "g7"}, {"", "g7-g6"}},
			end:   "44: game over: draw",
		},
		{
			name:  "the end: the last penalty decides the tie-break",
			spec:  "L=c4,e4,a1 D=d3,d5 turn=43 card=9",
			steps: []step{{"", "g7"}, {"remove d3;remove d5;remove g7", "remove g7"}},
			end:   "44: game over: light wins",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Game.New()
			if tt.spec != "new" {
				s = position(t, tt.spec)
			}
			for i, st := range tt.steps {
				if st.legal != "" {
					if got := legalText(s); got != st.legal {
						t.Fatalf("before step %d (%s): legal = %q, want %q\n%v", i+1, st.play, got, st.legal, s)
					}
				}
				next, _, err := env.PlayText(s, st.play)
				if err != nil {
					t.Fatalf("step %d: %v\n%v", i+1, err, s)
				}
				s = next
			}
			if got := where(s); got != tt.end {
				t.Fatalf("after the steps: %q, want %q\n%v", got, tt.end, s)
			}
			if tt.check != nil {
				if err := tt.check(s); err != nil {
					t.Fatalf("%v\n%v", err, s)
				}
			}
		})
	}
}

func expect(ok bool, what string) error {
	if ok {
		return nil
	}
	return fmt.Errorf("expected: %s", what)
}

// TestDeck: the first pile is the 10 drawn cards then card 11; each later pile is the previous
// one turned over. The 44 cards are written out by hand.
func TestDeck(t *testing.T) {
	s := position(t, "turn=10 deck=3,7,1,9,2,10,4,6,5,8")
	want := "3 7 1 9 2 10 4 6 5 8 11 " + "11 8 5 6 4 10 2 9 1 7 3 " +
		"3 7 1 9 2 10 4 6 5 8 11 " + "11 8 5 6 4 10 2 9 1 7 3"
	var got []string
	for turn := 0; turn < numTurns; turn++ {
		got = append(got, fmt.Sprint(s.CardOf(turn)))
	}
	if strings.Join(got, " ") != want {
		t.Fatalf("cards by turn:\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
	// Before turn 10 the cards not drawn yet are unknown, in every pile.
	s = position(t, "turn=3 deck=3,7,1")
	for turn, want := range map[int]int{0: 3, 2: 1, 3: 0, 9: 0, 10: 11, 11: 11, 12: 0, 19: 1, 21: 3, 22: 3, 25: 0, 43: 3} {
		if got := s.CardOf(turn); got != want {
			t.Errorf("after drawing 3, 7, 1: turn %d plays %d, want %d", turn, got, want)
		}
	}
}

// TestChances: a draw offers the cards not drawn yet, equally likely.
func TestChances(t *testing.T) {
	for _, tt := range []struct {
		spec  string
		cards []int
	}{
		{"turn=0", []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
		{"turn=3 deck=3,7,1", []int{2, 4, 5, 6, 8, 9, 10}},
		{"turn=9 deck=1,2,3,4,5,6,7,8,9", []int{10}},
	} {
		s := position(t, tt.spec).Play(env.Action(placeBase + 27)) // d4
		if s.ToMove() != env.Chance {
			t.Fatalf("%s: after the placement %s decides, want chance", tt.spec, Names[s.ToMove()])
		}
		var got []int
		for _, o := range s.Chances(nil) {
			got = append(got, int(o.Action)-cardBase+1)
			if o.Prob != 1/float64(len(tt.cards)) {
				t.Errorf("%s: card %d has probability %v, want 1/%d", tt.spec, got[len(got)-1], o.Prob, len(tt.cards))
			}
		}
		if !slices.Equal(got, tt.cards) {
			t.Errorf("%s: chance draws %v, want %v", tt.spec, got, tt.cards)
		}
	}
}

// TestPlaceTwoEitherOrder: card 11's two placements commute.
func TestPlaceTwoEitherOrder(t *testing.T) {
	s := position(t, "L=a1 D=h8 turn=10")
	s, _, _ = env.PlayText(s, "d4")
	a, _ := s.ParseAction("a2")
	b, _ := s.ParseAction("g5")
	if ab, ba := s.Play(a).Play(b), s.Play(b).Play(a); ab != ba {
		t.Fatalf("a2 then g5:\n%v\ng5 then a2:\n%v", ab, ba)
	}
}

func TestScore(t *testing.T) {
	for _, tt := range []struct {
		name, light, dark string
		want              [2]int
	}{
		{"a square framed on all four lines counts four times", "c3,d3,e3,c4,e4,c5,d5,e5", "", [2]int{4, 0}},
		{"a square may count for both players", "c4,e4", "d3,d5", [2]int{1, 1}},
		{"a diagonal frames", "b2,d4", "", [2]int{1, 0}},
		{"an occupied square is not framed", "c4,e4", "d4", [2]int{0, 0}},
		{"mixed neighbours do not frame", "c4", "e4", [2]int{0, 0}},
		{"lines do not wrap around the board's edge", "h3,b4,h2,b5,h4,b3", "", [2]int{0, 0}},
		{"two squares on one row", "a1,c1,e1", "", [2]int{2, 0}},
	} {
		s := newState()
		if tt.light != "" {
			s.pawns[0] = squares(strings.Split(tt.light, ",")...)
		}
		if tt.dark != "" {
			s.pawns[1] = squares(strings.Split(tt.dark, ",")...)
		}
		if got := s.Score(); got != tt.want {
			t.Errorf("%s: score %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestIllegal(t *testing.T) {
	opening := Game.New().Play(env.Action(placeBase + 27)) // d4
	draw := position(t, "turn=3 deck=3,7,1").Play(env.Action(placeBase + 27))
	play := func(spec string, moves ...string) State {
		s := position(t, spec)
		for _, m := range moves {
			var err error
			if s, _, err = env.PlayText(s, m); err != nil {
				t.Fatalf("%s: %s: %v", spec, m, err)
			}
		}
		return s
	}
	card1 := play("L=a1 D=a2 turn=12 card=1", "c3")
	card7 := play("L=a4 D=c5,c2,e4 turn=12 card=7", "c3")
	chain := play("L=a1,f6 D=b2,d4,g7 turn=12 card=6", "e3", "a1xc3")
	penalty := play("L=a1 D=a2,b1,c4,d3,e4,d5 turn=12 card=1", "d4")
	tests := []struct {
		name string
		s    State
		move string
		want string // a part of the error
	}{
		{"a move in the opening", opening, "d4-d5", "dark must place a pawn (the opening"},
		{"a taken square", opening, "d4", "the square is taken"},
		{"the edge while a square inside is empty", position(t, "turn=12"), "a1", "an edge square"},
		{"a player's decision at a draw", draw, "e5", "chance is to turn over the card of turn 4"},
		{"a card drawn already", draw, "card 7", "card 7 was drawn already"},
		{"card 11 by chance", draw, "card 11", "never drawn by chance"},
		{"card 12", draw, "card 12", "no card 12"},
		{"a step of two squares", card1, "c3-c5", "moves one square"},
		{"a capture for a move card", card1, "c3xc5", "asks for a move, as c3-c5"},
		{"a diagonal step for card 1", card1, "c3-d4", "goes orthogonally"},
		{"onto a pawn", card1, "a1-a2", "empty square"},
		{"the opponent's pawn", card1, "a2-a3", "no light pawn on a2"},
		{"stop outside a chain", card1, "stop", "no chain to end"},
		{"a red card with another pawn", card7, "a4xf4", "card 7 is red: only the pawn placed this turn (c3)"},
		{"a move for a capture card", card7, "c3-c4", "asks for a capture"},
		{"a long capture over nothing", card7, "c3xh3", "exactly one dark pawn"},
		{"another pawn in a chain", chain, "f6xh8", "the chain goes on from c3"},
		{"a placement in a chain", chain, "h1", "in a chain of jumps from c3"},
		{"removing an own pawn", penalty, "remove a2", "no light pawn there"},
		{"a move instead of the removal", penalty, "d4-e4", "light cannot perform card 1 (step, orthogonal): dark must remove"},
		{"a capture next to its start", card7, "c3xc4", "a capture jumps over a pawn"},
		{"not on a line", card1, "c3-d5", "not on one row, column or diagonal"},
		{"upper case", card1, "C3-C4", "not a square"}, {"no such word", card1, "pass", "want a square"},
		{"off the board", opening, "i1", "not a square"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.s
			got, _, err := env.PlayText(tt.s, tt.move)
			if err == nil {
				t.Fatalf("%q was accepted", tt.move)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("%q: error %q, want it to say %q", tt.move, err, tt.want)
			}
			if got != before {
				t.Fatalf("%q: refused, but the state changed", tt.move)
			}
		})
	}
}

// TestSymmetryTables: the bit tricks that map a board agree with the square map, and the
// direction map agrees with both along every ray.
func TestSymmetryTables(t *testing.T) {
	for k := 0; k < numSymmetries; k++ {
		seen := map[int]bool{}
		for sq := 0; sq < numSquares; sq++ {
			img := symSquare(k, sq)
			if seen[img] {
				t.Fatalf("symmetry %d maps two squares to %s", k, SquareName(img))
			}
			seen[img] = true
			if symBoard(k, bit(sq)) != bit(img) {
				t.Fatalf("symmetry %d: the board map takes %s elsewhere than %s", k, SquareName(sq), SquareName(img))
			}
			for d := 0; d < numDirs; d++ {
				if rayLen[sq][d] > 0 && symSquare(k, int(rays[sq][d][0])) != int(rays[img][symDir(k, d)][0]) {
					t.Fatalf("symmetry %d: direction %d from %s does not map to direction %d", k, d, SquareName(sq), symDir(k, d))
				}
			}
		}
	}
	// Quarter turns: a1 → h1 → h8 → a8; the mirror takes a1 to h1.
	for k, want := range []string{"a1", "h1", "h8", "a8", "h1", "h8", "a8", "a1"} {
		if got := SquareName(symSquare(k, 0)); got != want {
			t.Errorf("symmetry %d takes a1 to %s, want %s", k, got, want)
		}
	}
}

// TestPerft pins the decision counts (chance outcomes as plies) from the empty board, where the
// opening's placements give 64·63·62·…, and after an opening in the corners, where the counts to
// depth 4 are also the reference's (TestTreeAgainstReference).
func TestPerft(t *testing.T) {
	for _, tt := range []struct {
		moves string
		want  []uint64
	}{
		{"", []uint64{64, 4032, 249984}},
		{"a1;b1;h8;g8;a8;b8;h1;g1", []uint64{36, 360, 4048, 141216, 1270944}},
	} {
		s, _, err := env.Replay(Game, tt.moves)
		if err != nil {
			t.Fatal(err)
		}
		for d, want := range tt.want {
			if got := env.Perft(s, d+1, nil); got != want {
				t.Errorf("perft %d after %q: %d, want %d", d+1, tt.moves, got, want)
			}
		}
	}
}
