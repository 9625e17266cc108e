package games

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/net"
)

// TestNetSpec: every registered game describes itself to the network (no two actions on one
// policy output), and its default net builds and evaluates a batch: every action's probability
// when all are legal, summing to 1.
func TestNetSpec(t *testing.T) {
	for _, g := range All() {
		t.Run(g.Info().Name, func(t *testing.T) {
			spec, err := g.NetSpec()
			if err != nil {
				t.Fatal(err)
			}
			seen := map[int]env.Action{}
			for a := range env.Action(spec.NumActions) {
				o := spec.OutputOf(a)
				if o < 0 || o >= spec.Outputs() {
					t.Fatalf("action %d at output %d of %d", a, o, spec.Outputs())
				}
				if b, ok := seen[o]; ok {
					t.Fatalf("actions %d and %d share output %d", b, a, o)
				}
				seen[o] = a
			}
			w, err := net.NewWeights(spec, net.DefaultConfig(), rand.New(rand.NewPCG(1, 1)))
			if err != nil {
				t.Fatal(err)
			}
			const n = 2
			b := &net.Batch{N: n, Obs: make([]float32, n*spec.Observation.Size()), Value: make([]float32, n)}
			for range n {
				for a := range env.Action(spec.NumActions) {
					b.Legal = append(b.Legal, a)
				}
				b.LegalEnd = append(b.LegalEnd, int32(len(b.Legal)))
			}
			b.Policy = make([]float32, len(b.Legal))
			if err := net.NewEngine(net.NewModel(w)).EvaluateLegal(b); err != nil {
				t.Fatal(err)
			}
			var sum float64
			for _, p := range b.Policy[:spec.NumActions] {
				sum += float64(p)
			}
			if math.Abs(sum-1) > 1e-3 {
				t.Errorf("probabilities sum to %g", sum)
			}
		})
	}
}
