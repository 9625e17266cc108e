package yinsh

import (
	"math/rand/v2"
	"testing"

	"github.com/zerogames/zero/env"
)

// TestSymmetryTurnsObservation: the observation of a position turned by symmetry k is the
// position's observation with every point's value moved to the point's image (the planes that
// are not about points, filled alike everywhere, unchanged), for every k, at every decision of
// random games; and each legal action's policy cell moves with the board (a row, named from its
// other end when its image runs the other way, at the image of one of its ends). The trainer
// feeds the net Observe(Symmetry(s)) with the target moved by MapAction: this is what makes
// that a rotated picture of the same position with the same policy.
func TestSymmetryTurnsObservation(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	size := numPlanes * numCells
	orig, turned := make([]float32, size), make([]float32, size)
	rows := 0
	for _, g := range []*Game{Normal, Blitz} {
		for range 40 {
			s := g.New()
			for s.ToMove() != env.Terminal {
				legal := s.Legal(nil)
				if s.phase == phaseRow && len(legal) > 1 {
					rows++
				}
				s.Observe(orig)
				for k := range numSymmetries {
					s.Symmetry(k).Observe(turned)
					for pl := range numPlanes {
						for c := range numCells {
							d := c
							if p := gridPoint[c]; p >= 0 {
								d = int(pointGrid[symPoint[k][p]])
							}
							if turned[pl*numCells+d] != orig[pl*numCells+c] {
								t.Fatalf("%s, symmetry %d: plane %d, grid cell %d holds %v, its image %d %v\n%v",
									g.Info().Name, k, pl, c, orig[pl*numCells+c], d, turned[pl*numCells+d], s)
							}
						}
					}
					for _, a := range legal {
						_, from, ok := g.PolicyCell(a)
						_, to, ok2 := g.PolicyCell(g.MapAction(k, a))
						if !ok || !ok2 {
							if ok != ok2 {
								t.Fatalf("symmetry %d takes %s on or off the policy grid", k, ActionString(a))
							}
							continue
						}
						want := int(pointGrid[symPoint[k][gridPoint[from]]])
						if i := int(a); i >= rowBase && i < ringBase {
							p, d := (i-rowBase)/3, (i-rowBase)%3
							other := int(pointGrid[symPoint[k][cellPoint[rays[p][d][3]]]])
							if to == other {
								continue
							}
						}
						if to != want {
							t.Fatalf("symmetry %d: %s's policy cell %d goes to %d, the image of its point is %d",
								k, ActionString(a), from, to, want)
						}
					}
				}
				s = s.Play(legal[rng.IntN(len(legal))])
			}
		}
	}
	if rows == 0 {
		t.Error("no row to choose in the random games: the rows' symmetries went unchecked")
	}
}
