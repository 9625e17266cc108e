package mcts

import (
	"errors"
	"math"

	"github.com/zerogames/zero/env"
)

// Child is what the search knows of one action at the root.
type Child struct {
	Action env.Action
	// Visits is the number of simulations through the action (tree reuse included).
	Visits int
	// Q is their mean value from the point of view of the root's decider, 0 if unvisited.
	Q float64
	// Prior is the prior probability of the action (noise included).
	Prior float64
	// Proven tells that the solver proved the action's value: Q is then that value (+1 a
	// forced win, -1 a forced loss), and Depth the number of decisions to the end.
	Proven bool
	Depth  int
}

// Children appends to dst what the search knows of each legal action at the root, in the
// order of the legal actions, or, at a root kept from the tree below an earlier root, partly
// in order of prior (order.go). The root has no children before its first evaluation.
func (s *Search[S]) Children(dst []Child) []Child {
	root := s.t.at(0)
	if !root.expanded() {
		return dst
	}
	sg := sign(root.toMove)
	for _, c := range s.t.slice(root.first, root.first+root.count) {
		q := 0.0
		if c.n > 0 || c.solved {
			q = sg * c.mean()
		}
		dst = append(dst, Child{Action: c.action, Visits: int(c.n), Q: q, Prior: float64(c.prior),
			Proven: c.solved, Depth: int(c.depth)})
	}
	return dst
}

// PV appends the principal variation to dst: first, one of the root's actions (the search's
// choice, Choose's), then at each decision below it the most visited action (ties to the
// higher prior), down to a chance decision, a node not yet expanded or whose actions are
// unvisited, or max actions in all. Nothing is appended if first is not a root action.
func (s *Search[S]) PV(first env.Action, max int, dst []env.Action) []env.Action {
	root := s.t.at(0)
	if !root.expanded() || max < 1 {
		return dst
	}
	at := int32(-1)
	for k := root.first; k < root.first+root.count; k++ {
		if s.t.at(k).action == first {
			at = k
		}
	}
	if at < 0 {
		return dst
	}
	dst = append(dst, first)
	for n := 1; n < max; n++ {
		nd := s.t.at(at)
		if !nd.expanded() || nd.toMove == env.Chance {
			break
		}
		best := int32(-1)
		for k := nd.first; k < nd.first+nd.count; k++ {
			c, b := s.t.at(k), (*node)(nil)
			if best >= 0 {
				b = s.t.at(best)
			}
			if c.n > 0 && (b == nil || c.n > b.n || c.n == b.n && c.prior > b.prior) {
				best = k
			}
		}
		if best < 0 {
			break
		}
		dst = append(dst, s.t.at(best).action)
		at = best
	}
	return dst
}

// Visits is the number of values backed up through the root, its own evaluation included.
func (s *Search[S]) Visits() int { return int(s.t.at(0).n) }

// Value is the root's mean value from the point of view of its decider, 0 before any visit;
// its proven value once the solver has proven it.
func (s *Search[S]) Value() float64 {
	root := s.t.at(0)
	if root.n == 0 && !root.solved {
		return 0
	}
	return sign(root.toMove) * root.mean()
}

// Policy writes the search's policy over the whole action space into dst (NumActions values,
// zero for the illegal actions): the training target. It is the visit counts normalized, or
// with a Gumbel root the improved policy softmax(logit + σ(completed Q)). Before any
// simulation it is the prior. With the solver, proven losses get nothing while anything else
// is left, and a proven root gives its share to the children Choose would take.
func (s *Search[S]) Policy(dst []float32) {
	clear(dst[:s.numActions])
	root := s.t.at(0)
	if !root.expanded() {
		return
	}
	if root.solved {
		s.provenPolicy(dst)
		return
	}
	if s.p.Gumbel && s.prepared {
		s.improvedPolicy(dst)
	} else {
		children := s.t.slice(root.first, root.first+root.count)
		total := 0.0
		for _, c := range children {
			total += float64(c.n)
		}
		for _, c := range children {
			if total > 0 {
				dst[c.action] = float32(float64(c.n) / total)
			} else {
				dst[c.action] = c.prior
			}
		}
	}
	// The solver's proven losses out, the rest renormalized.
	sum, cut := float32(0), false
	for _, c := range s.t.slice(root.first, root.first+root.count) {
		if s.excluded(&c) {
			dst[c.action], cut = 0, true
		}
		sum += dst[c.action]
	}
	if cut && sum > 0 {
		for _, c := range s.t.slice(root.first, root.first+root.count) {
			dst[c.action] /= sum
		}
	}
}

// provenPolicy shares the policy equally among the children of a proven root that are as good
// as the one Choose takes: the proven value and the depth of provenBest.
func (s *Search[S]) provenPolicy(dst []float32) {
	root := s.t.at(0)
	b := s.t.at(s.provenBest())
	n := 0
	for _, c := range s.t.slice(root.first, root.first+root.count) {
		if c.solved && c.proven == b.proven && c.depth == b.depth {
			n++
		}
	}
	for _, c := range s.t.slice(root.first, root.first+root.count) {
		if c.solved && c.proven == b.proven && c.depth == b.depth {
			dst[c.action] = 1 / float32(n)
		}
	}
}

// Choose returns the action to play at the root, the move number-th decision of the game
// (from 0, for the temperature schedule). With a Gumbel root it is Gumbel AlphaZero's choice;
// else the most visited action at temperature 0 (ties to the higher prior, then the lower
// action), or an action drawn with probability ∝ visits^(1/τ).
func (s *Search[S]) Choose(move int) (env.Action, error) {
	root := s.t.at(0)
	if !root.expanded() {
		return 0, errors.New("mcts: Choose before the root was searched")
	}
	if root.solved {
		return s.t.at(s.provenBest()).action, nil
	}
	if s.p.Gumbel && s.prepared {
		return s.t.at(s.gumbelChoice()).action, nil
	}
	children := s.t.slice(root.first, root.first+root.count)
	tau := s.p.Temperature.At(move)
	most := int32(0)
	for k := range children {
		if !s.excluded(&children[k]) {
			most = max(most, children[k].n)
		}
	}
	if tau == 0 || most == 0 {
		best := -1
		for k := range children {
			c := &children[k]
			if s.excluded(c) {
				continue
			}
			if best < 0 {
				best = k
				continue
			}
			b := &children[best]
			if c.n > b.n || c.n == b.n && c.prior > b.prior {
				best = k
			}
		}
		return children[best].action, nil
	}
	// Weights (n/most)^(1/τ) stay in [0, 1] whatever τ.
	sum := 0.0
	for k := range children {
		if !s.excluded(&children[k]) {
			sum += math.Pow(float64(children[k].n)/float64(most), 1/tau)
		}
	}
	u := s.rng.Float64() * sum
	last := 0
	for k := range children {
		c := &children[k]
		if s.excluded(c) {
			continue
		}
		last = k
		w := math.Pow(float64(c.n)/float64(most), 1/tau)
		if u < w {
			return c.action, nil
		}
		u -= w
	}
	return children[last].action, nil
}
