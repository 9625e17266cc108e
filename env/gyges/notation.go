package gyges

import (
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"

	"github.com/zerogames/zero/env"
)

// abs converts a square of the mover's frame to the board's (and back: the map is its own
// inverse). The goal stays the goal.
func (s *State) abs(sq int) int {
	if s.side == 1 && sq != goal {
		return numSquares - 1 - sq
	}
	return sq
}

// appendSquare appends a square's name (a1..f6, of the board as written) or "goal".
func appendSquare(dst []byte, sq int) []byte {
	if sq == goal {
		return append(dst, "goal"...)
	}
	return append(dst, byte('a'+sq%6), byte('1'+sq/6))
}

// SquareName is the name of square sq (0 = a1, 5 = f1, 35 = f6) of the board as written.
func SquareName(sq int) string { return string(appendSquare(nil, sq)) }

func (s *State) numActions() int {
	if s.advanced {
		return NumActionsAdvanced
	}
	return NumActionsBasic
}

// AppendAction appends the notation of a: "3@c1", "b1-d4", "b1-goal", "b1-d4*e2". Indices
// outside the action space print as "#N", which does not parse.
func (s State) AppendAction(dst []byte, a env.Action) []byte {
	i := int(a)
	switch {
	case i < 0 || i >= s.numActions():
		return strconv.AppendInt(append(dst, '#'), int64(i), 10)
	case i < moveBase:
		dst = append(dst, byte('1'+i/6), '@')
		return appendSquare(dst, s.abs(i%6))
	case i < replaceBase:
		i -= moveBase
		dst = appendSquare(dst, s.abs(i/(numSquares+1)))
		return appendSquare(append(dst, '-'), s.abs(i%(numSquares+1)))
	}
	i -= replaceBase
	dst = appendSquare(dst, s.abs(i/(numSquares*numSquares)))
	dst = appendSquare(append(dst, '-'), s.abs(i/numSquares%numSquares))
	return appendSquare(append(dst, '*'), s.abs(i%numSquares))
}

// ParseSquare reads a square name such as "c1" and returns its index (a1 = 0, f6 = 35).
func ParseSquare(text string) (int, error) {
	if len(text) != 2 || text[0] < 'a' || text[0] > 'f' || text[1] < '1' || text[1] > '6' {
		return 0, fmt.Errorf("%q is not a square (a column a-f and a row 1-6, as c1)", text)
	}
	return int(text[1]-'1')*6 + int(text[0]-'a'), nil
}

var errSyntax = errors.New("want a placement (3@c1), a move (b1-d4 or b1-goal) or, with the advanced rule, a replacement (b1-d4*e2)")

// ParseAction reads one action in Gygès notation. Squares are the board's; the action it
// returns is in the frame of the player to move.
func (s State) ParseAction(text string) (env.Action, error) {
	a, err := s.parseAction(text)
	if err != nil {
		return 0, fmt.Errorf("%q: %w", text, err)
	}
	return a, nil
}

func (s *State) parseAction(text string) (env.Action, error) {
	if size, at, ok := strings.Cut(text, "@"); ok {
		if len(size) != 1 || size[0] < '1' || size[0] > '3' {
			return 0, fmt.Errorf("a placement starts with the piece's size 1, 2 or 3, as 3@c1")
		}
		sq, err := ParseSquare(at)
		if err != nil {
			return 0, err
		}
		sq = s.abs(sq)
		if !s.SettingUp() {
			return 0, errors.New("the set-up is over: pieces move now")
		}
		if sq/6 != 0 {
			return 0, fmt.Errorf("%s places on his start row, row %d", Names[s.side], s.abs(0)/6+1)
		}
		return env.Action(placeBase + int(size[0]-'1')*6 + sq), nil
	}
	from, rest, ok := strings.Cut(text, "-")
	if !ok {
		return 0, errSyntax
	}
	to, drop, replace := strings.Cut(rest, "*")
	p, err := ParseSquare(from)
	if err != nil {
		return 0, err
	}
	p = s.abs(p)
	if to == "goal" {
		if replace {
			return 0, errors.New("a move into the goal replaces nothing")
		}
		return env.Action(moveBase + p*(numSquares+1) + goal), nil
	}
	e, err := ParseSquare(to)
	if err != nil {
		return 0, fmt.Errorf("%w, or goal", err)
	}
	e = s.abs(e)
	if !replace {
		return env.Action(moveBase + p*(numSquares+1) + e), nil
	}
	if !s.advanced {
		return 0, errors.New("replacements belong to the advanced rule (gyges-advanced)")
	}
	d, err := ParseSquare(drop)
	if err != nil {
		return 0, err
	}
	return env.Action(replaceBase + (p*numSquares+e)*numSquares + s.abs(d)), nil
}

// Position is the state in the spec's position notation: rows 1 to 6 separated by '/', each
// six sizes from column a to f (0 empty), then the player to move, 's' or 'n', as
// "321123/000000/000000/000000/000000/321123 s". It records neither the moves made toward the
// cap nor a result: a finished game prints its final board and the player who would move next.
func (s State) Position() string {
	lo, hi := s.absolute()
	buf := make([]byte, 0, 6*7+2)
	for sq := range numSquares {
		if sq > 0 && sq%6 == 0 {
			buf = append(buf, '/')
		}
		buf = append(buf, byte('0'+(lo>>sq&1|(hi>>sq&1)<<1)))
	}
	return string(append(buf, ' ', "sn"[s.side]))
}

// ParsePosition reads a position in the spec's notation (see State.Position) and returns it
// as a state of g, with no moves made toward the cap.
//
// A position with all 12 pieces (4 of each size) is a position of the movement; the player to
// move moves. One with fewer is a position of the set-up: every piece must stand on its
// placer's start row (row 1 for south, row 6 for north), each player with at most 2 of each
// size, and the player to move must be the next to place (south when both have placed as many
// pieces, north when south has placed one more). Pieces already on the board count as placed.
// If the player to move has no legal move the position is a finished game, drawn.
func (g *Game) ParsePosition(text string) (State, error) {
	s, err := g.parsePosition(text)
	if err != nil {
		return State{}, fmt.Errorf("position %q: %w", text, err)
	}
	return s, nil
}

func (g *Game) parsePosition(text string) (State, error) {
	board, who, ok := strings.Cut(text, " ")
	if !ok || (who != "s" && who != "n") {
		return State{}, errors.New("want six rows of six sizes 0-3 joined by '/', a space, and s or n (the player to move), as 321123/000000/000000/000000/000000/321123 s")
	}
	rows := strings.Split(board, "/")
	if len(rows) != 6 {
		return State{}, fmt.Errorf("%d rows: want 6, from row 1 to row 6, joined by '/'", len(rows))
	}
	s := g.New()
	var count [4]int
	for r, row := range rows {
		if len(row) != 6 {
			return State{}, fmt.Errorf("row %d %q: want 6 sizes, one per column a-f", r+1, row)
		}
		for c := range 6 {
			ch := row[c]
			if ch < '0' || ch > '3' {
				return State{}, fmt.Errorf("row %d %q: %c on %s is not a size 0-3", r+1, row, ch, SquareName(r*6+c))
			}
			if k := int(ch - '0'); k > 0 {
				s.put(r*6+c, k)
				count[k]++
			}
		}
	}
	if who == "n" {
		s.side = 1
	}
	placed := count[1] + count[2] + count[3]
	for k := 1; k <= 3; k++ {
		if count[k] > 4 {
			return State{}, fmt.Errorf("%d pieces of size %d: there are 4", count[k], k)
		}
	}
	if placed == numPieces {
		s.lo, s.hi = s.absolute()
		s.settle()
		return s, nil
	}
	// The set-up: the board is South's frame so far.
	if stray := s.occupied() &^ (rowMask[0] | rowMask[5]); stray != 0 {
		return State{}, fmt.Errorf("a piece on %s during the set-up (%d pieces, not 12): pieces are placed on the start rows 1 and 6 only",
			SquareName(lowest(stray)), placed)
	}
	for k := 1; k <= 3; k++ {
		for p, row := range [2]int{0, 5} {
			if s.toPlace(k, row) < 0 {
				return State{}, fmt.Errorf("%s has placed %d pieces of size %d: each player has 2", Names[p], 2-s.toPlace(k, row), k)
			}
		}
	}
	south, north := bits.OnesCount64(s.occupied()&rowMask[0]), bits.OnesCount64(s.occupied()&rowMask[5])
	next := env.Player(-1)
	switch south - north {
	case 0:
		next = 0
	case 1:
		next = 1
	}
	if next != s.side {
		return State{}, fmt.Errorf("south has placed %d pieces and north %d: %s cannot be the next to place (south places first, then they alternate)",
			south, north, Names[s.side])
	}
	s.lo, s.hi = s.absolute()
	return s, nil
}

// Path is the way action a goes, for people: each movement's start and end square, a bounce
// marked by '^' ("b1-b3^b3-d4", "c2-c5^c5-goal"), a replacement's drop after '*'. Among the
// ways to the same outcome it gives one with the fewest bounces. A placement is its notation.
// It returns an error if a is not legal in s.
func (s State) Path(a env.Action) (string, error) {
	f, drop, err := s.way(a)
	if err != nil {
		return "", err
	}
	if f == nil {
		return env.ActionString(s, a), nil
	}
	var buf []byte
	for j, seg := range f.segs {
		if j > 0 {
			buf = append(buf, '^')
		}
		buf = appendSquare(buf, s.abs(seg[0]))
		buf = appendSquare(append(buf, '-'), s.abs(seg[1]))
	}
	if drop >= 0 {
		buf = appendSquare(append(buf, '*'), s.abs(drop))
	}
	return string(buf), nil
}

// way finds the way of the legal action a with the fewest movements (Path, Route): a finder
// holding its movements, and the drop square of a replacement (-1 for a move), in the frame. A
// placement has no way: nil.
func (s *State) way(a env.Action) (*pathFinder, int, error) {
	if err := s.Explain(a); err != nil {
		return nil, -1, err
	}
	i := int(a)
	if i < moveBase {
		return nil, -1, nil
	}
	var start, end, drop int
	if i < replaceBase {
		i -= moveBase
		start, end, drop = i/(numSquares+1), i%(numSquares+1), -1
	} else {
		i -= replaceBase
		start, end, drop = i/(numSquares*numSquares), i/numSquares%numSquares, i%numSquares
	}
	f := pathFinder{s: s, occ: s.occupied() &^ (1 << start), end: end, replace: drop >= 0}
	for limit := 1; limit <= numConnections; limit++ {
		f.limit = limit
		if f.find(start, s.size(start), 0) {
			return &f, drop, nil
		}
	}
	return nil, -1, fmt.Errorf("%s: no path found (an engine bug)", env.ActionString(*s, a))
}

// pathFinder looks for a way to an outcome with at most limit movements.
type pathFinder struct {
	s       *State
	occ     uint64
	end     int
	replace bool
	limit   int
	segs    [][2]int // each movement's start and end
	ways    []path   // each movement, as the table lists it
}

func (f *pathFinder) find(sq, k int, used uint64) bool {
	for _, p := range paths[sq][k] {
		if p.cells&f.occ != 0 || p.conns&used != 0 {
			continue
		}
		e := p.end()
		f.segs = append(f.segs, [2]int{sq, e})
		f.ways = append(f.ways, p)
		landed := e != goal && f.occ>>e&1 != 0
		if e == f.end && landed == f.replace {
			return true
		}
		if landed && len(f.segs) < f.limit && f.find(e, f.s.size(e), used|p.conns) {
			return true
		}
		f.segs = f.segs[:len(f.segs)-1]
		f.ways = f.ways[:len(f.ways)-1]
	}
	return false
}

// Explain says why a is not legal in s, or returns nil if it is.
func (s State) Explain(a env.Action) error {
	if env.IsLegal(s, a) {
		return nil
	}
	name := env.ActionString(s, a)
	who := Names[s.side]
	i := int(a)
	switch {
	case i < 0 || i >= s.numActions():
		return fmt.Errorf("%s: no such action", name)
	case s.result != env.Ongoing:
		return fmt.Errorf("%s: the game is over", name)
	case s.SettingUp():
		if i >= moveBase {
			return fmt.Errorf("%s: %s must place a piece first (the set-up is not over)", name, who)
		}
		k, sq := i/6+1, i%6
		if s.toPlace(k, 0) == 0 {
			return fmt.Errorf("%s: %s has placed both his pieces of size %d", name, who, k)
		}
		return fmt.Errorf("%s: %s is taken", name, SquareName(s.abs(sq)))
	case i < moveBase:
		return fmt.Errorf("%s: the set-up is over: pieces move now", name)
	}
	var start, end, drop int
	if i < replaceBase {
		i -= moveBase
		start, end, drop = i/(numSquares+1), i%(numSquares+1), -1
	} else {
		i -= replaceBase
		start, end, drop = i/(numSquares*numSquares), i/numSquares%numSquares, i%numSquares
	}
	occ := s.occupied()
	at := SquareName(s.abs(start))
	if occ>>start&1 == 0 {
		return fmt.Errorf("%s: no piece on %s", name, at)
	}
	if row := s.playableRow(); start/6 != row {
		return fmt.Errorf("%s: %s must move a piece from row %d (the nearest row with a piece that can move)", name, who, s.abs(row*6)/6+1)
	}
	if end == start {
		return fmt.Errorf("%s: a move must change the board: the piece may not end where it started", name)
	}
	r := reach{lo: s.lo, hi: s.hi, row: 1 << start, advanced: s.advanced, limits: searchLimits{boundAfter, carefulAfter}}
	r.start(occ, start)
	r.walk(start, s.size(start), 0)
	if drop < 0 {
		switch {
		case end == goal:
			return fmt.Errorf("%s: the piece on %s cannot reach the goal (it enters it only by the last step of a movement, from the far row)", name, at)
		case occ>>end&1 != 0:
			if s.advanced {
				return fmt.Errorf("%s: %s is occupied: a movement that ends there bounces or replaces (then name the drop square, as %s*SQUARE)", name, SquareName(s.abs(end)), name)
			}
			return fmt.Errorf("%s: %s is occupied: a movement that ends there bounces", name, SquareName(s.abs(end)))
		}
		return fmt.Errorf("%s: the piece on %s cannot reach %s (it moves exactly as many steps as its size over empty squares, bounces on the pieces it lands on, and uses no connection twice)", name, at, SquareName(s.abs(end)))
	}
	switch {
	case occ>>end&1 == 0:
		return fmt.Errorf("%s: %s is empty: there is nothing to replace", name, SquareName(s.abs(end)))
	case r.lands>>end&1 == 0:
		return fmt.Errorf("%s: no movement of the piece on %s ends on %s", name, at, SquareName(s.abs(end)))
	case drop != start && occ>>drop&1 != 0:
		return fmt.Errorf("%s: the displaced piece cannot go on %s: it is occupied", name, SquareName(s.abs(drop)))
	case drop == start && s.size(end) == s.size(start):
		return fmt.Errorf("%s: a move must change the board: a piece of the same size back on %s", name, at)
	}
	return fmt.Errorf("%s: the displaced piece may not go beyond the opponent's nearest row, row %d", name,
		s.abs(topRow(occ&^(1<<start))*6)/6+1)
}

// playableRow is the row the player to move moves a piece from: his nearest occupied row, or
// if no piece there can move, the next, and so on (-1 when no piece can move).
func (s *State) playableRow() int {
	occ := s.occupied()
	for rows := occ; rows != 0; {
		r := lowest(rows) / 6
		rows &^= rowMask[r]
		for m := occ & rowMask[r]; m != 0; m &= m - 1 {
			if s.canMove(occ, lowest(m)) {
				return r
			}
		}
	}
	return -1
}
