package gyges

import (
	"testing"

	"github.com/zerogames/zero/env/envtest"
)

// TestSymmetryTurnsObservation: the observation of the mirrored position is the position's
// observation mirrored left–right, square by square, at every decision of random games (set-up
// and moves, both rules, both sides to move: the board is in the mover's frame); and each legal
// action's policy cell is mirrored with it (envtest.CheckObservationSymmetry).
func TestSymmetryTurnsObservation(t *testing.T) {
	image := func(k, sq int) int {
		if k == 1 {
			return mirrorSquare(sq)
		}
		return sq
	}
	for _, g := range []*Game{Basic, Advanced} {
		envtest.CheckObservationSymmetry(t, g, 20, 3, envtest.CellSymmetry[State]{Image: image})
	}
}
