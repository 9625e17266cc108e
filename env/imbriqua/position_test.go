package imbriqua

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// position builds a hand-made position at the start of a turn, for the ruling tests. The spec
// is space-separated fields:
//
//	L=a1,d4     light pawns          D=…  dark pawns
//	L=rest      light on every square not given yet (D=rest likewise): a full board
//	L=inner     light on every inner square not given yet (D=inner likewise)
//	empty=e5,a1 take the pawns off these squares (after the fields before it)
//	turn=12     the turn about to start, 0..43 (even: light's, odd: dark's); default 12
//	deck=3,7,1  the first pile's cards drawn so far, in order: the first `turn` of them before
//	            turn 10, all 10 from turn 10 on; default 1, 2, 3, …
//	card=7      from turn 10 on, reorder the default deck so that this turn plays card 7
//
// The turn then starts as in a game: its placement is due (or skipped if the board is full,
// which turns the card over at once).
func position(t *testing.T, spec string) State {
	t.Helper()
	s := newState()
	turn := 12
	var deck []int
	card := 0
	for _, f := range strings.Fields(spec) {
		key, val, _ := strings.Cut(f, "=")
		switch key {
		case "L", "D":
			p := map[string]int{"L": 0, "D": 1}[key]
			switch val {
			case "rest":
				s.pawns[p] |= ^(s.pawns[0] | s.pawns[1])
				continue
			case "inner":
				s.pawns[p] |= inner &^ (s.pawns[0] | s.pawns[1])
				continue
			}
			for _, name := range strings.Split(val, ",") {
				sq, err := ParseSquare(name)
				if err != nil {
					t.Fatalf("position %q: %v", spec, err)
				}
				if has(s.pawns[0]|s.pawns[1], sq) {
					t.Fatalf("position %q: %s given twice", spec, name)
				}
				s.pawns[p] |= bit(sq)
			}
		case "empty":
			for _, name := range strings.Split(val, ",") {
				sq, err := ParseSquare(name)
				if err != nil {
					t.Fatalf("position %q: %v", spec, err)
				}
				s.pawns[0] &^= bit(sq)
				s.pawns[1] &^= bit(sq)
			}
		case "turn":
			turn = atoi(t, spec, val)
		case "deck":
			for _, k := range strings.Split(val, ",") {
				deck = append(deck, atoi(t, spec, k))
			}
		case "card":
			card = atoi(t, spec, val)
		default:
			t.Fatalf("position %q: unknown field %q", spec, f)
		}
	}
	if turn < 0 || turn >= numTurns {
		t.Fatalf("position %q: turn %d out of 0..43", spec, turn)
	}
	drawn := min(turn, chanceCards)
	if deck == nil {
		for k := 1; k <= drawn; k++ {
			deck = append(deck, k)
		}
	}
	if card != 0 {
		i := pileIndex(turn)
		switch {
		case turn < chanceCards:
			t.Fatalf("position %q: card= needs turn 10 or later (before, chance draws it)", spec)
		case i == chanceCards:
			if card != placeTwo {
				t.Fatalf("position %q: turn %d always plays card 11", spec, turn)
			}
		default:
			j := slices.Index(deck, card)
			deck[i], deck[j] = deck[j], deck[i]
		}
	}
	if len(deck) != drawn {
		t.Fatalf("position %q: %d cards drawn before turn %d, deck gives %d", spec, drawn, turn, len(deck))
	}
	for i, k := range deck {
		if k < 1 || k > chanceCards || !s.Unknown(k) {
			t.Fatalf("position %q: deck card %d is %d: want distinct cards 1-10", spec, i+1, k)
		}
		s.order[i] = uint8(k)
		s.unknown &^= 1 << k
	}
	s.opening = openingPlacements
	s.turn = uint8(turn)
	s.startTurn()
	return s
}

func atoi(t *testing.T, spec, text string) int {
	t.Helper()
	n, err := strconv.Atoi(text)
	if err != nil {
		t.Fatalf("position %q: %q is not a number", spec, text)
	}
	return n
}

// legalText lists the legal actions' notation sorted byte-wise, as the engine's legal does.
func legalText(s State) string {
	var parts []string
	for _, a := range s.Legal(nil) {
		parts = append(parts, ActionString(a))
	}
	slices.Sort(parts)
	return strings.Join(parts, ";")
}

// squares is the set of the named squares.
func squares(names ...string) bitboard {
	var b bitboard
	for _, n := range names {
		sq, err := ParseSquare(n)
		if err != nil {
			panic(err)
		}
		b |= bit(sq)
	}
	return b
}
