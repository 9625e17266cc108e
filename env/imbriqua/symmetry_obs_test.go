package imbriqua

import (
	"testing"

	"github.com/zerogames/zero/env/envtest"
)

// TestSymmetryTurnsObservation: the observation of a position turned by symmetry k is the
// position's observation with every square's value moved to the square's image, for each of
// the 8 symmetries, at every decision of random games (chance's included); and each legal
// action on the policy grid has its cell moved with the board, cards and stop staying off it
// (envtest.CheckObservationSymmetry).
func TestSymmetryTurnsObservation(t *testing.T) {
	envtest.CheckObservationSymmetry(t, Game, 30, 3, envtest.CellSymmetry[State]{Image: symSquare})
}
