package gyges

import (
	"math/bits"

	"github.com/zerogames/zero/env"
)

// Read-only accessors for the user interfaces, which draw a position square by square. They
// speak of the board as written (a1 = 0, f6 = 35), whatever the frame the state keeps, and
// are off the hot path.

// NumSquares is the number of squares, indexed as SquareName and ParseSquare name them.
const NumSquares = numSquares

// Goal is the end "square" of a move into the goal, in Route.
const Goal = goal

// At is the size (1..3) of the piece on square sq, or 0 if the square is empty.
func (s State) At(sq int) int { return s.size(s.abs(sq)) }

// Side is the player whose turn it is: the player to move while the game goes on, and once it
// is over the player who would have moved next.
func (s State) Side() env.Player { return s.side }

// ToPlace is how many pieces of size k (1..3) player p has still to place; 0 once the set-up
// is over.
func (s State) ToPlace(p env.Player, k int) int {
	if !s.SettingUp() || k < 1 || k > 3 {
		return 0
	}
	row := 0 // the start row of p, in the frame
	if p != s.side {
		row = 5
	}
	return s.toPlace(k, row)
}

// PlayableRow is the row (1..6) the player to move must move a piece from: his nearest
// occupied row, or the next when no piece there can move. It is 0 during the set-up, once the
// game is over, and when no piece can move.
func (s State) PlayableRow() int {
	if s.result != env.Ongoing || s.SettingUp() {
		return 0
	}
	r := s.playableRow()
	if r < 0 {
		return 0
	}
	return s.abs(r*6)/6 + 1
}

// Route is the way the legal action a goes, square by square: one list per movement, from
// its start to its end (Goal for the goal), each step to an adjacent square, so that a
// movement after a bounce starts on the square the last one ended on. It is the way Path
// prints, and a replacement's drop is not part of it. A placement has no route (nil). It
// returns an error if a is not legal in s.
func (s State) Route(a env.Action) ([][]int, error) {
	f, _, err := s.way(a)
	if f == nil {
		return nil, err
	}
	route := make([][]int, len(f.ways))
	for j, p := range f.ways {
		sq := f.segs[j][0]
		squares := []int{s.abs(sq)}
		// The squares passed through, in order: within one movement of at most 3 steps each
		// is next to the one before, and only one of them can be (a square and two
		// neighbours of it are never next to each other on a grid).
		for left := p.cells & allSquares; left != 0; {
			step := adjacent(1<<sq) & left
			sq = bits.TrailingZeros64(step)
			left &^= step
			squares = append(squares, s.abs(sq))
		}
		route[j] = append(squares, s.abs(p.end()))
	}
	return route, nil
}
