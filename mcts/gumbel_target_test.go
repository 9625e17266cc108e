package mcts

import (
	"context"
	"hash/maphash"
	"math"
	"testing"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/yinsh"
)

// noisyOracle answers each position with a value and logits drawn from a hash of it: a
// network's answers, uneven and fixed, without a network.
type noisyOracle[S env.State[S]] struct{ seed maphash.Seed }

func (h noisyOracle[S]) Evaluate(leaves []S, policy, value []float32) error {
	na := len(policy) / len(leaves)
	for i, s := range leaves {
		x := maphash.Comparable(h.seed, s)
		value[i] = float32(int64(x%2001)-1000) / 1000
		for a := range na {
			x = x*6364136223846793005 + 1442695040888963407
			policy[i*na+a] = float32(x>>40) / float32(1<<24) * 4
		}
	}
	return nil
}

// TestImprovedPolicyIsMctxs: the policy target of a Gumbel root is the improved policy of
// Danihelka et al. as DeepMind's mctx computes it (qtransform_completed_by_mix_value), worked
// out here from what the search reports of the root's children and the oracle's root value:
// softmax(log prior + (c_visit + max n)·c_scale·q̂), q̂ the completed Qs (v_mix for the
// unvisited) rescaled to [0, 1].
func TestImprovedPolicyIsMctxs(t *testing.T) {
	g := yinsh.Blitz
	o := noisyOracle[yinsh.State]{maphash.MakeSeed()}
	for _, d := range []int{12, 30, 41} {
		root := midgame(g, d)
		p := DefaultParams()
		p.Gumbel, p.GumbelActions, p.Solver, p.RootProof = true, 16, false, 0
		s := mustSearch(t, g, o, p, 5)
		s.Reset(root)
		if err := s.Run(context.Background(), Budget{Simulations: 64}); err != nil {
			t.Fatal(err)
		}
		pol := make([]float32, g.Info().NumActions)
		s.Policy(pol)
		v, logits := make([]float32, 1), make([]float32, g.Info().NumActions)
		o.Evaluate([]yinsh.State{root}, logits, v)
		ch := s.Children(nil)
		sumN, sumP, sumPQ, maxN := 0.0, 0.0, 0.0, 0
		for _, c := range ch {
			if c.Visits > 0 {
				sumN += float64(c.Visits)
				sumP += c.Prior
				sumPQ += c.Prior * c.Q
				maxN = max(maxN, c.Visits)
			}
		}
		mix := (float64(v[0]) + sumN*sumPQ/sumP) / (1 + sumN)
		completed := make([]float64, len(ch))
		lo, hi := math.Inf(1), math.Inf(-1)
		for k, c := range ch {
			completed[k] = mix
			if c.Visits > 0 {
				completed[k] = c.Q
			}
			lo, hi = min(lo, completed[k]), max(hi, completed[k])
		}
		z, w := 0.0, make([]float64, len(ch))
		for k, c := range ch {
			q := (completed[k] - lo) / max(hi-lo, 1e-8)
			w[k] = math.Exp(math.Log(c.Prior) + (p.CVisit+float64(maxN))*p.CScale*q)
			z += w[k]
		}
		for k, c := range ch {
			if d := math.Abs(w[k]/z - float64(pol[c.Action])); d > 1e-5 {
				t.Fatalf("%s: the target gives %v, the improved policy %v", env.ActionString(root, c.Action), pol[c.Action], w[k]/z)
			}
		}
	}
}
