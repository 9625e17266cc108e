package imbriqua

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/zerogames/zero/env"
)

// cardNames are the cards' names, indexed by number (1..11).
var cardNames = [numCards + 1]string{"",
	"step, orthogonal", "step, diagonal", "slide, orthogonal", "slide, diagonal",
	"capture, adjacent orthogonal", "capture, adjacent diagonal",
	"capture, long orthogonal", "capture, long diagonal",
	"double capture, orthogonal", "double capture, diagonal", "place 2 pawns"}

// CardName names card k (1..11), as "capture, long orthogonal"; "" for other numbers.
func CardName(k int) string {
	if k < 1 || k > numCards {
		return ""
	}
	return cardNames[k]
}

func appendSquare(dst []byte, sq int) []byte {
	return append(dst, byte('a'+sq%8), byte('1'+sq/8))
}

// SquareName is the name of square sq (0..63): "a1" is 0, "h1" 7, "a8" 56.
func SquareName(sq int) string { return string(appendSquare(nil, sq)) }

// ParseSquare reads a square name, a file a-h and a rank 1-8 ("c3").
func ParseSquare(text string) (int, error) {
	if len(text) != 2 || text[0] < 'a' || text[0] > 'h' || text[1] < '1' || text[1] > '8' {
		return 0, fmt.Errorf("%q is not a square (a file a-h and a rank 1-8, as c3)", text)
	}
	return int(text[1]-'1')*8 + int(text[0]-'a'), nil
}

// AppendAction appends the notation of a: "c3", "card 7", "c3-c5", "c3xc5", "stop",
// "remove d4". Holes of the action space print as "#N", which does not parse.
func (s State) AppendAction(dst []byte, a env.Action) []byte {
	i := int(a)
	switch {
	case i < 0 || i >= NumActions:
	case i < cardBase:
		return appendSquare(dst, i)
	case i < moveBase:
		return strconv.AppendInt(append(dst, "card "...), int64(i-cardBase+1), 10)
	case i < stopAction:
		sep, base := byte('-'), moveBase
		if i >= captureBase {
			sep, base = 'x', captureBase
		}
		from, _, dist, to := lineOf(i - base)
		if to < 0 || (sep == 'x' && dist == 1) {
			break
		}
		return appendSquare(append(appendSquare(dst, from), sep), to)
	case i == stopAction:
		return append(dst, "stop"...)
	default:
		return appendSquare(append(dst, "remove "...), i-removeBase)
	}
	return strconv.AppendInt(append(dst, '#'), int64(i), 10)
}

// ActionString is the notation of a (Imbriqua's notation does not depend on the position).
func ActionString(a env.Action) string { return string(State{}.AppendAction(nil, a)) }

var errSyntax = errors.New("want a square (c3), card N, c3-c5, c3xc5, stop or remove c3 (lower-case, as in the rules)")

// ParseAction reads one decision in Imbriqua's notation.
func (s State) ParseAction(text string) (env.Action, error) {
	a, err := parseAction(text)
	if err != nil {
		return 0, fmt.Errorf("%q: %w", text, err)
	}
	return a, nil
}

func parseAction(text string) (env.Action, error) {
	switch {
	case text == "stop":
		return stopAction, nil
	case len(text) == 2:
		sq, err := ParseSquare(text)
		return env.Action(placeBase + sq), err
	case strings.HasPrefix(text, "remove "):
		sq, err := ParseSquare(text[len("remove "):])
		return env.Action(removeBase + sq), err
	case strings.HasPrefix(text, "card "):
		num := text[len("card "):]
		k, err := strconv.Atoi(num)
		if err != nil || num[0] < '1' || num[0] > '9' {
			return 0, fmt.Errorf("%q is not a card number 1-10", num)
		}
		if k == placeTwo {
			return 0, errors.New("card 11 (place 2 pawns) is never drawn by chance: it is the first pile's bottom card")
		}
		if k > chanceCards {
			return 0, fmt.Errorf("there is no card %d: chance draws cards 1-10", k)
		}
		return env.Action(cardBase + k - 1), nil
	case len(text) == 5 && (text[2] == '-' || text[2] == 'x'):
		from, err := ParseSquare(text[:2])
		if err != nil {
			return 0, err
		}
		to, err := ParseSquare(text[3:])
		if err != nil {
			return 0, err
		}
		d, dist := lineBetween(from, to)
		if d < 0 {
			return 0, fmt.Errorf("%s and %s are not on one row, column or diagonal", text[:2], text[3:])
		}
		if text[2] == '-' {
			return lineAction(moveBase, from, d, dist), nil
		}
		if dist == 1 {
			return 0, fmt.Errorf("a capture jumps over a pawn: %s is next to %s", text[3:], text[:2])
		}
		return lineAction(captureBase, from, d, dist), nil
	}
	return 0, errSyntax
}

// lineBetween returns the direction and distance from square p to square q, or -1 if they are
// not on one line (or are the same square).
func lineBetween(p, q int) (dir, dist int) {
	dx, dy := q%8-p%8, q/8-p/8
	n := max(dx, -dx, dy, -dy)
	if n == 0 || (dx != 0 && dy != 0 && dx != dy && dx != -dy) {
		return -1, 0
	}
	for d := 0; d < numDirs; d++ {
		if dirDX[d]*n == dx && dirDY[d]*n == dy {
			return d, n
		}
	}
	return -1, 0
}

// Explain says why a is not legal in s, or returns nil if it is.
func (s State) Explain(a env.Action) error {
	if env.IsLegal(s, a) {
		return nil
	}
	name := ActionString(a)
	i := int(a)
	if i < 0 || i >= NumActions || name[0] == '#' {
		return fmt.Errorf("%s: no such action", name)
	}
	kind := kindOf(i)
	who := Names[0]
	if s.toMove == 1 {
		who = Names[1]
	}
	card := s.cardOf(int(s.turn))
	empty := ^(s.pawns[0] | s.pawns[1])
	switch s.phase {
	case phaseOver:
		return fmt.Errorf("%s: the game is over", name)
	case phaseOpening, phasePlace, phaseBonus:
		var why string
		switch {
		case s.phase == phaseOpening:
			why = "the opening: 4 pawns each, placed in turn"
		case s.phase == phasePlace:
			why = "a turn starts with a placement"
		default:
			why = fmt.Sprintf("card 11 (place 2 pawns), %d left", s.bonus)
		}
		if kind != "place" {
			return fmt.Errorf("%s: %s must place a pawn (%s)", name, who, why)
		}
		if !has(empty, i) {
			return fmt.Errorf("%s: the square is taken", name)
		}
		return fmt.Errorf("%s: an edge square, while a square inside is empty (a turn's placement may use the edge only when no other square is empty)", name)
	case phaseDraw:
		if kind != "card" {
			return fmt.Errorf("%s: chance is to turn over the card of turn %d", name, s.turn+1)
		}
		return fmt.Errorf("%s: card %d was drawn already", name, i-cardBase+1)
	case phasePenalty:
		loser := Names[s.mover()]
		if kind != "remove" {
			return fmt.Errorf("%s: %s cannot perform card %d (%s): %s must remove one of %s's pawns", name, loser, card, cardNames[card], who, loser)
		}
		return fmt.Errorf("%s: no %s pawn there", name, loser)
	case phaseChain:
		switch kind {
		case "stop", "capture":
			return fmt.Errorf("%s: the chain goes on from %s: jump again (%s, card %d) or stop", name, SquareName(int(s.chain)), cardNames[card], card)
		}
		return fmt.Errorf("%s: %s is in a chain of jumps from %s: jump again or stop", name, who, SquareName(int(s.chain)))
	}
	// phaseAct
	if kind == "stop" {
		return fmt.Errorf("stop: no chain to end (stop ends a chain of jumps when a further jump exists)")
	}
	want, example, base := "move", "c3-c5", moveBase
	if card >= 5 {
		want, example, base = "capture", "c3xc5", captureBase
	}
	if kind != want {
		return fmt.Errorf("%s: card %d (%s) asks for a %s, as %s", name, card, cardNames[card], want, example)
	}
	from, d, dist, _ := lineOf(i - base)
	switch {
	case !has(s.pawns[s.toMove], from):
		return fmt.Errorf("%s: no %s pawn on %s", name, who, SquareName(from))
	case card >= 7 && from != int(s.placed):
		return fmt.Errorf("%s: card %d is red: only the pawn placed this turn (%s) may capture", name, card, SquareName(int(s.placed)))
	case d%2 != firstDir(card):
		kinds := [2]string{"orthogonally (along a row or column)", "diagonally"}
		return fmt.Errorf("%s: card %d (%s) goes %s", name, card, cardNames[card], kinds[firstDir(card)])
	case card <= 2 && dist > 1:
		return fmt.Errorf("%s: card %d (%s) moves one square", name, card, cardNames[card])
	case card <= 4:
		return fmt.Errorf("%s: the pawn moves to an empty square over empty squares only", name)
	case card <= 6:
		return fmt.Errorf("%s: card %d jumps over an adjacent %s pawn to the empty square right behind it", name, card, Names[s.toMove.Other()])
	case card <= 8:
		return fmt.Errorf("%s: card %d crosses empty squares, exactly one %s pawn, then empty squares to land", name, card, Names[s.toMove.Other()])
	}
	return fmt.Errorf("%s: card %d jumps over two adjacent %s pawns side by side to the empty square right behind them", name, card, Names[s.toMove.Other()])
}

// kindOf names the kind of action index i.
func kindOf(i int) string {
	switch {
	case i < cardBase:
		return "place"
	case i < moveBase:
		return "card"
	case i < captureBase:
		return "move"
	case i < stopAction:
		return "capture"
	case i == stopAction:
		return "stop"
	}
	return "remove"
}
