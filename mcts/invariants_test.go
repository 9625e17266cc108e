package mcts

import (
	"fmt"
	"math"

	"github.com/zerogames/zero/env"
)

// checkTree walks the tree from the root and returns the first broken invariant:
//   - no leaf in flight, no virtual loss left;
//   - children contiguous, after their parent, each reached once;
//   - the visits of an expanded decision node are its own evaluation plus its children's, and
//     those of a chance node its children's;
//   - a chance node's value is the probability-weighted mean of its visited outcomes;
//   - a terminal node's value is its result;
//   - priors of a decision node's children sum to 1 and are in order of action;
//   - a decision node whose children are not chance nodes holds its own value plus what went
//     through its children.
func (s *Search[S]) checkTree() error {
	t := &s.t
	seen := make([]bool, len(t.nodes))
	var walk func(i int32, depth int) error
	walk = func(i int32, depth int) error {
		nd := &t.nodes[i]
		where := func(format string, args ...any) error {
			return fmt.Errorf("node %d (depth %d, action %d, decider %d): %s", i, depth, nd.action, nd.toMove,
				fmt.Sprintf(format, args...))
		}
		if seen[i] {
			return where("reached twice")
		}
		seen[i] = true
		if nd.inflight != 0 || nd.pending {
			return where("in flight: inflight %d, pending %v", nd.inflight, nd.pending)
		}
		if nd.state < 0 {
			if nd.n != 0 || nd.expanded() {
				return where("visited or expanded without a state")
			}
			return nil
		}
		if s.t.states[nd.state].ToMove() != nd.toMove {
			return where("toMove %d, state says %d", nd.toMove, s.t.states[nd.state].ToMove())
		}
		if nd.toMove == env.Terminal {
			want := float64(t.states[nd.state].Result().Value(0)) * float64(nd.n)
			if nd.expanded() || nd.w != want {
				return where("terminal with w %v, want %v (expanded %v)", nd.w, want, nd.expanded())
			}
			return nil
		}
		if !nd.expanded() {
			if nd.n != 0 {
				return where("visited %d times but not expanded", nd.n)
			}
			return nil
		}
		if nd.first <= i || int(nd.first+nd.count) > len(t.nodes) || nd.count == 0 {
			return where("children [%d, %d+%d) out of place", nd.first, nd.first, nd.count)
		}
		children := t.nodes[nd.first : nd.first+nd.count]
		sumN, sumW, sumP := int32(0), 0.0, 0.0
		hasChance := false
		for k, c := range children {
			if k > 0 && c.action <= children[k-1].action {
				return where("children not in order of action")
			}
			sumN += c.n
			sumP += float64(c.prior)
			if c.n > 0 && c.toMove == env.Chance {
				hasChance = true
			}
			sumW += c.w
		}
		if math.Abs(sumP-1) > 1e-5 {
			return where("priors sum to %v", sumP)
		}
		switch {
		case nd.toMove == env.Chance:
			if nd.n != sumN {
				return where("chance node with %d visits, its outcomes %d", nd.n, sumN)
			}
			if want := float64(nd.n) * s.chanceMean(nd); math.Abs(nd.w-want) > 1e-9*max(1, math.Abs(want)) {
				return where("chance node with w %v, want %v", nd.w, want)
			}
		default:
			if nd.n != sumN+1 {
				return where("%d visits, its children %d + 1", nd.n, sumN)
			}
			if want := float64(nd.value) + sumW; !hasChance && math.Abs(nd.w-want) > 1e-6*float64(nd.n) {
				return where("w %v, want own value + children's %v", nd.w, want)
			}
		}
		for k := range children {
			if err := walk(nd.first+int32(k), depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if len(s.leafNode) != 0 {
		return fmt.Errorf("%d leaves in flight", len(s.leafNode))
	}
	return walk(0, 0)
}

// nodeAt is the node reached from the root by actions, or -1.
func (s *Search[S]) nodeAt(actions ...env.Action) int32 {
	i := int32(0)
	for _, a := range actions {
		nd := &s.t.nodes[i]
		if !nd.expanded() {
			return -1
		}
		next := int32(-1)
		for c := nd.first; c < nd.first+nd.count; c++ {
			if s.t.nodes[c].action == a {
				next = c
			}
		}
		if next < 0 {
			return -1
		}
		i = next
	}
	return i
}

// q is the mean value of node i for player p, and its visits.
func (s *Search[S]) q(i int32, p env.Player) (float64, int32) {
	nd := &s.t.nodes[i]
	if nd.n == 0 {
		return 0, 0
	}
	return sign(p) * nd.w / float64(nd.n), nd.n
}
