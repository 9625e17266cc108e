package yinsh

import (
	"testing"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/envtest"
)

// TestSymmetryTurnsObservation: the observation of a position turned by symmetry k is the
// position's observation with every point's value moved to the point's image (the cells off
// the board, and the planes that are not about points, filled alike everywhere, unchanged),
// for every k, at every decision of random games; and each legal action's policy cell moves
// with the board (a row, named from its other end when its image runs the other way, at the
// image of one of its ends) (envtest.CheckObservationSymmetry).
func TestSymmetryTurnsObservation(t *testing.T) {
	image := func(k, c int) int {
		if p := gridPoint[c]; p >= 0 {
			return int(pointGrid[symPoint[k][p]])
		}
		return c
	}
	// A row's action is named from one end; its image may be named from the image of the other.
	alias := func(k int, a env.Action, to int) bool {
		i := int(a)
		if i < rowBase || i >= ringBase {
			return false
		}
		p, d := (i-rowBase)/3, (i-rowBase)%3
		return to == int(pointGrid[symPoint[k][cellPoint[rays[p][d][3]]]])
	}
	rows := 0
	visit := func(s State) {
		if s.phase == phaseRow && len(s.Legal(nil)) > 1 {
			rows++
		}
	}
	for _, g := range []*Game{Normal, Blitz} {
		envtest.CheckObservationSymmetry(t, g, 40, 3, envtest.CellSymmetry[State]{Image: image, Alias: alias, Visit: visit})
	}
	if rows == 0 {
		t.Error("no row to choose in the random games: the rows' symmetries went unchecked")
	}
}
