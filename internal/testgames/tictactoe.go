package testgames

import (
	"fmt"
	"strings"

	"github.com/zerogames/zero/env"
)

// TicTacToe is noughts and crosses: X (player 0) begins, three in a row wins, a full board
// without a row is a draw. Cells are named by column a–c and row 1–3 ("b2" is the centre);
// action r·3+c puts the mover's mark on column c, row r+1.
var TicTacToe = &tttGame{info: env.Info{
	Name:        "tictactoe",
	PlayerNames: [2]string{"x", "o"},
	NumActions:  9,
	Observation: env.Shape{Planes: 2, Height: 3, Width: 3},
	MaxLength:   9,
	Symmetries:  8,
	Rules:       1,
	Encoding:    1,
}}

type tttGame struct{ info env.Info }

// Info returns the game's static facts.
func (g *tttGame) Info() *env.Info { return &g.info }

// New returns the empty board, X to play.
func (g *tttGame) New() Board { return Board{} }

// MapAction maps a cell by symmetry k of the square (see tttSym).
func (g *tttGame) MapAction(k int, a env.Action) env.Action { return env.Action(tttSym[k][a]) }

// PolicyPlanes is 1: every action is a cell, so the policy head is one plane over the board
// (env.SpatialPolicy).
func (g *tttGame) PolicyPlanes() int { return 1 }

// PolicyCell places action a on the cell it marks: action r·3+c is Observe's cell r·3+c.
func (g *tttGame) PolicyCell(a env.Action) (plane, cell int, ok bool) { return 0, int(a), true }

// tttSym[k][cell] is the image of a cell under symmetry k: k = 0..3 turn the board by k
// quarter turns, k = 4..7 mirror it left to right first.
var tttSym = func() (t [8][9]int8) {
	for k := 0; k < 8; k++ {
		for c := 0; c < 9; c++ {
			r, col := c/3, c%3
			if k >= 4 {
				col = 2 - col
			}
			for range k % 4 {
				r, col = col, 2-r
			}
			t[k][c] = int8(r*3 + col)
		}
	}
	return t
}()

var tttLines = [8][3]int8{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {0, 3, 6}, {1, 4, 7}, {2, 5, 8}, {0, 4, 8}, {2, 4, 6}}

// Board is a tic-tac-toe position: cells hold 0 (empty), 1 (X) or 2 (O).
type Board struct {
	cells  [9]int8
	toMove env.Player
	result env.Result
}

// ToMove is the player to mark a cell, or env.Terminal.
func (b Board) ToMove() env.Player { return b.toMove }

// Result is env.Ongoing until a row is made or the board is full.
func (b Board) Result() env.Result { return b.result }

// Chances is empty: no chance in tic-tac-toe.
func (b Board) Chances(dst []env.Outcome) []env.Outcome { return dst }

// Legal appends the empty cells, or nothing once the game is over.
func (b Board) Legal(dst []env.Action) []env.Action {
	if b.toMove == env.Terminal {
		return dst
	}
	for c, v := range b.cells {
		if v == 0 {
			dst = append(dst, env.Action(c))
		}
	}
	return dst
}

// Play marks cell a for the player to move.
func (b Board) Play(a env.Action) Board {
	mark := int8(b.toMove) + 1
	b.cells[a] = mark
	for _, l := range tttLines {
		if b.cells[l[0]] == mark && b.cells[l[1]] == mark && b.cells[l[2]] == mark {
			b.result, b.toMove = env.WinFor(b.toMove), env.Terminal
			return b
		}
	}
	for _, v := range b.cells {
		if v == 0 {
			b.toMove = b.toMove.Other()
			return b
		}
	}
	b.result, b.toMove = env.Draw, env.Terminal
	return b
}

// Observe writes two 3×3 planes: the cells of the player to decide, then the opponent's
// (seen from X once the game is over).
func (b Board) Observe(dst []float32) {
	me := int8(1)
	if b.toMove == 1 {
		me = 2
	}
	for c, v := range b.cells {
		dst[c], dst[9+c] = 0, 0
		switch {
		case v == me:
			dst[c] = 1
		case v != 0:
			dst[9+c] = 1
		}
	}
}

// Symmetry returns the board under symmetry k.
func (b Board) Symmetry(k int) Board {
	t := b
	for c, v := range b.cells {
		t.cells[tttSym[k][c]] = v
	}
	return t
}

// AppendAction appends the cell's name, "b2".
func (b Board) AppendAction(dst []byte, a env.Action) []byte {
	if a < 0 || a > 8 {
		return fmt.Appendf(dst, "#%d", a)
	}
	return append(dst, byte('a'+a%3), byte('1'+a/3))
}

// ParseAction reads a cell name.
func (b Board) ParseAction(text string) (env.Action, error) {
	if len(text) != 2 || text[0] < 'a' || text[0] > 'c' || text[1] < '1' || text[1] > '3' {
		return 0, fmt.Errorf("%q is not a cell (a column a-c and a row 1-3, as b2)", text)
	}
	return env.Action(text[1]-'1')*3 + env.Action(text[0]-'a'), nil
}

// String draws the board, row 3 on top.
func (b Board) String() string {
	var sb strings.Builder
	for r := 2; r >= 0; r-- {
		for c := 0; c < 3; c++ {
			sb.WriteByte(".XO"[b.cells[r*3+c]])
		}
		sb.WriteByte('\n')
	}
	switch b.result {
	case env.Ongoing:
		sb.WriteString([2]string{"x", "o"}[b.toMove] + " to play")
	case env.Draw:
		sb.WriteString("draw")
	default:
		sb.WriteString([2]string{"x", "o"}[b.result.Winner()] + " wins")
	}
	return sb.String()
}
