package gyges

import (
	"math/rand/v2"
	"testing"

	"github.com/zerogames/zero/env"
)

// TestSymmetryTurnsObservation: the observation of the mirrored position is the position's
// observation mirrored left–right, square by square, at every decision of random games (set-up
// and moves, both rules, both sides to move: the board is in the mover's frame); and each legal
// action's policy cell is mirrored with it. The trainer feeds the net Observe(Symmetry(s)) with
// the target moved by MapAction: this is what makes that a mirrored picture of the same position
// with the same policy.
func TestSymmetryTurnsObservation(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	size := numPlanes * numSquares
	orig, turned := make([]float32, size), make([]float32, size)
	for _, g := range []*Game{Basic, Advanced} {
		for range 20 {
			s := g.New()
			for n := 0; s.ToMove() != env.Terminal && n < 400; n++ {
				legal := s.Legal(nil)
				s.Observe(orig)
				for k := range g.Info().Symmetries {
					image := func(sq int) int {
						if k == 1 {
							return mirrorSquare(sq)
						}
						return sq
					}
					s.Symmetry(k).Observe(turned)
					for pl := range numPlanes {
						for sq := range numSquares {
							if turned[pl*numSquares+image(sq)] != orig[pl*numSquares+sq] {
								t.Fatalf("%s, symmetry %d: plane %d, square %d holds %v, its image %v\n%v",
									g.Info().Name, k, pl, sq, orig[pl*numSquares+sq], turned[pl*numSquares+image(sq)], s)
							}
						}
					}
					for _, a := range legal {
						_, from, _ := g.PolicyCell(a)
						if _, to, _ := g.PolicyCell(g.MapAction(k, a)); to != image(from) {
							t.Fatalf("symmetry %d: action %d's policy cell %d goes to %d, want %d", k, a, from, to, image(from))
						}
					}
				}
				s = s.Play(legal[rng.IntN(len(legal))])
			}
		}
	}
}
