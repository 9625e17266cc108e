package envtest

import (
	"math/rand/v2"
	"testing"

	"github.com/zerogames/zero/env"
)

// CellSymmetry tells a game's symmetries on its observation grid, for CheckObservationSymmetry.
type CellSymmetry[S env.State[S]] struct {
	// Image is the cell symmetry k takes the cell h·Width + w to (a cell off the board, whose
	// values are the same everywhere, may stay where it is).
	Image func(k, cell int) int
	// Alias, if set, accepts an action's policy cell that is not the image of its own, to,
	// when the action's image may be named from that cell too (a YINSH row named from its
	// other end).
	Alias func(k int, a env.Action, to int) bool
	// Visit, if set, is called at every decision played (to count what the games reached).
	Visit func(s S)
}

// CheckObservationSymmetry plays games seeded random games of g and checks, at every decision
// (chance's included) and for every symmetry k, that Observe(Symmetry(s)) is Observe(s) with
// every cell's value moved to its image, plane by plane; and, if g is an env.SpatialPolicy,
// that each legal action at a player's decision is on the policy grid exactly when its image
// is, at the image of its cell. The trainer feeds the net Observe(Symmetry(s)) with the
// target moved by MapAction: this is what makes that a turned picture of the same position
// with the same policy. (The suite's symmetry checks hold the legal actions and play to the
// symmetries, not the observation.)
func CheckObservationSymmetry[S env.State[S]](t *testing.T, g env.Game[S], games int, seed uint64, sym CellSymmetry[S]) {
	t.Helper()
	info := g.Info()
	shape := info.Observation
	cells := shape.Height * shape.Width
	spatial, _ := any(g).(env.SpatialPolicy)
	rng := rand.New(rand.NewPCG(seed, 4))
	orig, turned := make([]float32, shape.Size()), make([]float32, shape.Size())
	for range games {
		s := g.New()
		for n := 0; s.ToMove() != env.Terminal; n++ {
			if n > info.MaxLength {
				t.Fatalf("%s: a random game ran past MaxLength (%d)", info.Name, info.MaxLength)
			}
			if sym.Visit != nil {
				sym.Visit(s)
			}
			legal := s.Legal(nil)
			s.Observe(orig)
			for k := range info.Symmetries {
				s.Symmetry(k).Observe(turned)
				for pl := range shape.Planes {
					for c := range cells {
						if d := sym.Image(k, c); turned[pl*cells+d] != orig[pl*cells+c] {
							t.Fatalf("%s, symmetry %d: plane %d, cell %d holds %v, its image %d %v\n%v",
								info.Name, k, pl, c, orig[pl*cells+c], d, turned[pl*cells+d], s)
						}
					}
				}
				if spatial == nil || s.ToMove() == env.Chance {
					continue
				}
				for _, a := range legal {
					_, from, ok := spatial.PolicyCell(a)
					_, to, ok2 := spatial.PolicyCell(g.MapAction(k, a))
					switch {
					case ok != ok2:
						t.Fatalf("%s, symmetry %d takes %s on or off the policy grid (%v, %v)",
							info.Name, k, env.ActionString(s, a), ok, ok2)
					case ok && to != sym.Image(k, from) && (sym.Alias == nil || !sym.Alias(k, a, to)):
						t.Fatalf("%s, symmetry %d: %s's policy cell %d goes to %d, the image of its cell is %d",
							info.Name, k, env.ActionString(s, a), from, to, sym.Image(k, from))
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
