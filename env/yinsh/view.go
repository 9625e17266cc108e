package yinsh

import "github.com/zerogames/zero/env"

// Read-only accessors for the user interfaces, which draw a position point by point. They are
// off the hot path.

// NumPoints is the number of points; they are indexed 0..NumPoints-1 column by column (a2, a3,
// …, k10), as PointName and ParsePoint name them.
const NumPoints = numPoints

// PointCoords returns point p's column (0 for a … 10 for k) and row number (1..11).
func PointCoords(p int) (column, row int) {
	x, y := pointXY(p)
	return x, y + 1
}

// Piece is what lies on a point.
type Piece uint8

// The pieces. A ring and a marker never share a point.
const (
	Empty Piece = iota
	WhiteRing
	BlackRing
	WhiteMarker // a marker showing white
	BlackMarker
)

// At is what lies on point p.
func (s State) At(p int) Piece {
	c := int(pointCell[p])
	switch {
	case s.rings[0].has(c):
		return WhiteRing
	case s.rings[1].has(c):
		return BlackRing
	case s.markers[0].has(c):
		return WhiteMarker
	case s.markers[1].has(c):
		return BlackMarker
	}
	return Empty
}

// Phase is the kind of decision that comes next.
type Phase uint8

// The phases, in the order a game goes through them.
const (
	PhasePlace = Phase(phasePlace) // the opening: placing rings
	PhaseMove  = Phase(phaseMove)  // a turn: move a ring (or pass if none can move)
	PhaseRow   = Phase(phaseRow)   // remove a row of one's markers
	PhaseRing  = Phase(phaseRing)  // remove one of one's rings after a row
	PhaseOver  = Phase(phaseOver)
)

// Phase is the kind of the next decision.
func (s State) Phase() Phase { return Phase(s.phase) }

// Mover is the player whose move made the rows being removed (PhaseRow, PhaseRing); in the
// other phases it is the player to move, or the last mover once the game is over.
func (s State) Mover() env.Player {
	if s.phase == phasePlace {
		return s.toMove // the opening's placements do not keep mover
	}
	return s.mover
}
