package imbriqua

import (
	"math/rand/v2"
	"testing"

	"github.com/zerogames/zero/env"
)

// TestSymmetryTurnsObservation: the observation of a position turned by symmetry k is the
// position's observation with every square's value moved to the square's image, for each of
// the 8 symmetries, at every decision of random games (chance's included); and each legal
// action on the policy grid has its cell moved with the board (cards and stop stay off it).
// The trainer feeds the net Observe(Symmetry(s)) with the target moved by MapAction: this is
// what makes that a turned picture of the same position with the same policy.
func TestSymmetryTurnsObservation(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	size := numPlanes * numSquares
	orig, turned := make([]float32, size), make([]float32, size)
	g := Game
	for range 30 {
		s := g.New()
		for s.ToMove() != env.Terminal {
			legal := s.Legal(nil)
			s.Observe(orig)
			for k := range numSymmetries {
				s.Symmetry(k).Observe(turned)
				for pl := range numPlanes {
					for sq := range numSquares {
						if d := symSquare(k, sq); turned[pl*numSquares+d] != orig[pl*numSquares+sq] {
							t.Fatalf("symmetry %d: plane %d, square %d holds %v, its image %d %v\n%v",
								k, pl, sq, orig[pl*numSquares+sq], d, turned[pl*numSquares+d], s)
						}
					}
				}
				if s.ToMove() == env.Chance {
					continue
				}
				for _, a := range legal {
					_, from, ok := g.PolicyCell(a)
					_, to, ok2 := g.PolicyCell(g.MapAction(k, a))
					if ok != ok2 || ok && to != symSquare(k, from) {
						t.Fatalf("symmetry %d: %s's policy cell %d (on the grid: %v) goes to %d (%v), want %d",
							k, ActionString(a), from, ok, to, ok2, symSquare(k, from))
					}
				}
			}
			if s.ToMove() == env.Chance {
				s = s.Play(env.SampleOutcome(s.Chances(nil), rng.Float64()))
				continue
			}
			s = s.Play(legal[rng.IntN(len(legal))])
		}
	}
}
