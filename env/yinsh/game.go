package yinsh

import (
	"fmt"
	"strings"

	"github.com/zerogames/zero/env"
)

// Names are the players' names: white (player 0, who begins) and black.
var Names = [2]string{"white", "black"}

// Game is YINSH, normal or blitz. Use Normal or Blitz.
type Game struct {
	info  env.Info
	blitz bool
}

// Observation planes, each 11×11 indexed [column][row] like the board grid, from the point of
// view of the player to decide ("own" is his, "their" the opponent's).
const (
	planeOwnRings = iota
	planeTheirRings
	planeOwnMarkers
	planeTheirMarkers
	planeBoard        // 1 on the 85 points
	planePlace        // all 1 in the opening
	planeMove         // all 1 when a ring must move (or pass)
	planeRow          // all 1 when a row must be removed
	planeRing         // all 1 when a ring must be removed
	planeNotMover     // all 1 when the decider resolves rows the opponent's move made
	planeOwnRemoved   // rings the decider has removed, / winning count
	planeTheirRemoved // rings the opponent has removed, / winning count
	planePool         // markers left in the pool / 51
	planeBlitz        // all 1 in blitz
	numPlanes
)

// MaxLength bounds a game: 10 placements; at most 71 moves (51 markers, and at most 4 rows
// returning 5 each before the fifth removal ends the game; the turn that finds the pool empty
// ends it); at most one pass before each move and two at the end; 5 rows and 5 rings.
const MaxLength = 10 + 71 + 73 + 10

var (
	// Normal is YINSH: the first to remove 3 rings wins.
	Normal = &Game{info: info("yinsh"), blitz: false}
	// Blitz is YINSH blitz: the first to remove 1 ring wins.
	Blitz = &Game{info: info("yinsh-blitz"), blitz: true}
)

func info(name string) env.Info {
	return env.Info{
		Name:        name,
		PlayerNames: Names,
		NumActions:  NumActions,
		Observation: env.Shape{Planes: numPlanes, Height: gridSize, Width: gridSize},
		MaxLength:   MaxLength,
		Symmetries:  numSymmetries,
		Rules:       2, // 2: rows made by the 51st marker refill the pool and the game goes on
		Encoding:    1,
	}
}

// Info returns the game's static facts.
func (g *Game) Info() *env.Info { return &g.info }

// New returns the empty board, white to place.
func (g *Game) New() State { return newState(g.blitz) }

// MapAction maps action a by symmetry k: k < 6 turns the board k times by 60° about f6
// (a column direction to the diagonal, and on around), k ≥ 6 mirrors it across the line of
// the diagonal through f6 first (columns and rows trade places).
func (g *Game) MapAction(k int, a env.Action) env.Action { return env.Action(symActions[k][a]) }

// Observe writes the observation planes (see the plane constants) into dst.
func (s State) Observe(dst []float32) {
	dst = dst[:numPlanes*numCells]
	clear(dst)
	me, them := s.toMove, s.toMove.Other()
	if s.toMove < 0 { // a finished game: seen from white
		me, them = 0, 1
	}
	setPlane(dst[planeOwnRings*numCells:], s.rings[me])
	setPlane(dst[planeTheirRings*numCells:], s.rings[them])
	setPlane(dst[planeOwnMarkers*numCells:], s.markers[me])
	setPlane(dst[planeTheirMarkers*numCells:], s.markers[them])
	setPlane(dst[planeBoard*numCells:], board)
	var phase int
	switch s.phase {
	case phasePlace:
		phase = planePlace
	case phaseMove:
		phase = planeMove
	case phaseRow:
		phase = planeRow
	case phaseRing:
		phase = planeRing
	}
	if phase != 0 {
		fill(dst[phase*numCells:], 1)
	}
	if s.phase >= phaseRow && s.phase <= phaseRing && s.toMove != s.mover {
		fill(dst[planeNotMover*numCells:], 1)
	}
	t := float32(s.target())
	fill(dst[planeOwnRemoved*numCells:], float32(s.removed[me])/t)
	fill(dst[planeTheirRemoved*numCells:], float32(s.removed[them])/t)
	fill(dst[planePool*numCells:], float32(s.Pool())/poolSize)
	if s.blitz {
		fill(dst[planeBlitz*numCells:], 1)
	}
}

func setPlane(dst []float32, b bitboard) {
	b.forEach(func(c int) { dst[cellGrid[c]] = 1 })
}

func fill(dst []float32, v float32) {
	for i := range numCells {
		dst[i] = v
	}
}

// String draws the board with columns upright, as the board lies between the players:
// W and B are white and black rings, w and b markers, · an empty point.
func (s State) String() string {
	var sb strings.Builder
	// Point (x, y) is drawn on text line 21 - 2y + x (up the column is up the page) at
	// character 3x+3.
	lines := make([][]byte, 28)
	for i := range lines {
		lines[i] = []byte(strings.Repeat(" ", 3*gridSize+4))
	}
	for p := 0; p < numPoints; p++ {
		c := int(pointCell[p])
		x, y := pointXY(p)
		ch := byte('.')
		switch {
		case s.rings[0].has(c):
			ch = 'W'
		case s.rings[1].has(c):
			ch = 'B'
		case s.markers[0].has(c):
			ch = 'w'
		case s.markers[1].has(c):
			ch = 'b'
		}
		lines[21-2*y+x][3*x+3] = ch
	}
	// Row numbers beside the first point of each row (column a side) and letters below.
	for y := 0; y < gridSize; y++ {
		for x := 0; x < gridSize; x++ {
			if onBoard(x, y) {
				label := fmt.Sprint(y + 1)
				line := lines[21-2*y+x]
				copy(line[3*x+3-1-len(label):], label)
				break
			}
		}
	}
	for x := 0; x < gridSize; x++ {
		lines[len(lines)-1][3*x+3] = byte('a' + x)
	}
	for _, l := range lines {
		if t := strings.TrimRight(string(l), " "); t != "" {
			sb.WriteString(t)
			sb.WriteByte('\n')
		}
	}
	fmt.Fprintf(&sb, "%s; rings removed: white %d, black %d; markers in the pool: %d",
		s.status(), s.removed[0], s.removed[1], s.Pool())
	return sb.String()
}

func (s State) status() string {
	if s.phase == phaseOver {
		switch s.result {
		case env.Draw:
			return "game over: draw"
		default:
			return "game over: " + Names[s.result.Winner()] + " wins"
		}
	}
	who := Names[s.toMove]
	switch s.phase {
	case phasePlace:
		return who + " to place a ring"
	case phaseRow:
		return who + " to remove a row"
	case phaseRing:
		return who + " to remove a ring"
	}
	return who + " to move"
}

// PolicyPlanes is the number of policy planes over the 11×11 grid: place (1), move (6
// directions × 9 distances), row (3 directions), ring (1). Pass is off the grid.
func (g *Game) PolicyPlanes() int { return 1 + 54 + 3 + 1 }

// PolicyCell places action a on the policy planes, at the cell of its (starting) point.
func (g *Game) PolicyCell(a env.Action) (plane, cell int, ok bool) {
	i := int(a)
	switch {
	case i < 0 || i >= passAction:
		return 0, 0, false
	case i < moveBase:
		return 0, int(pointGrid[i]), true
	case i < rowBase:
		i -= moveBase
		return 1 + i%54, int(pointGrid[i/54]), true
	case i < ringBase:
		i -= rowBase
		return 55 + i%3, int(pointGrid[i/3]), true
	}
	return 58, int(pointGrid[i-ringBase]), true
}
