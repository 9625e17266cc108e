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
//   - priors of a decision node's children sum to 1; the children are in order of action, or
//     in order of prior as far as the node was put in that order (order.go), and where the
//     order holds the visited children are the first;
//   - a decision node whose children are not chance nodes holds its own value plus what went
//     through its children;
//   - the solver's: a proven node's visits past its children's are its proven value (descents
//     stop there); a proven leaf that is not the end is a win at once for its decider; a
//     proven expanded node has the value its children give, and an expanded node that is not
//     proven could not be (nothing was left unpropagated).
func (s *Search[S]) checkTree() error {
	t := &s.t
	seen := make([]bool, t.len())
	var walk func(i int32, depth int) error
	walk = func(i int32, depth int) error {
		nd := t.at(i)
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
		if nd.byProof {
			// Proven by an alpha-beta from it, not by its children: the proof again, unbounded.
			if depth != 1 || !nd.solved {
				return where("proven by alpha-beta at depth %d (solved %v)", depth, nd.solved)
			}
			if v, ok := s.prover.Prove(t.states[nd.state], t.at(0).toMove, s.p.RootProof-1, 0); !ok || float64(nd.proven) != v {
				return where("proven %v by alpha-beta, which now says %v (%v)", nd.proven, v, ok)
			}
			return nil
		}
		if !nd.expanded() {
			if nd.solved {
				st := t.states[nd.state]
				if ok, _ := env.CanWin(st, nil); !ok || float64(nd.proven) != sign(nd.toMove) {
					return where("a proven leaf of value %v, but can the decider win at once: %v", nd.proven, ok)
				}
				if math.Abs(nd.w-float64(nd.proven)*float64(nd.n)) > 1e-9*float64(nd.n) {
					return where("a proven leaf with w %v after %d visits, proven %v", nd.w, nd.n, nd.proven)
				}
				return nil
			}
			if nd.n != 0 {
				return where("visited %d times but not expanded", nd.n)
			}
			return nil
		}
		if nd.first <= i || int(nd.first+nd.count) > t.len() || nd.count == 0 {
			return where("children [%d, %d+%d) out of place", nd.first, nd.first, nd.count)
		}
		children := t.slice(nd.first, nd.first+nd.count)
		sumN, sumW, sumP := int32(0), 0.0, 0.0
		hasChance := false
		if err := checkOrder(nd, children, i == 0); err != nil {
			return where("%v", err)
		}
		for _, c := range children {
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
		if err := s.checkProof(nd); err != nil {
			return where("%v", err)
		}
		// Implicit minimax backups: an expanded node holds the minimax of its children's
		// known values (the root's children proven by a root proof after the last backup
		// aside).
		if v, known := s.childMinimax(nd); s.p.MinimaxWeight > 0 && known && i != 0 && !nd.solved && (!nd.hasMM || nd.mm != v) {
			return where("minimax value %v (known %v), its children's %v", nd.mm, nd.hasMM, v)
		}
		switch {
		case nd.toMove == env.Chance:
			if nd.n != sumN && !(nd.solved && nd.n > sumN) {
				return where("chance node with %d visits, its outcomes %d", nd.n, sumN)
			}
			if want := float64(nd.n) * s.chanceMean(nd); math.Abs(nd.w-want) > 1e-9*max(1, math.Abs(want)) {
				return where("chance node with w %v, want %v", nd.w, want)
			}
		default:
			extra := nd.n - sumN - 1 // the descents that stopped at the node once proven
			if extra != 0 && !(nd.solved && extra > 0) {
				return where("%d visits, its children %d + 1", nd.n, sumN)
			}
			if want := float64(nd.value) + sumW + float64(extra)*float64(nd.proven); !hasChance && math.Abs(nd.w-want) > 1e-6*float64(nd.n) {
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
		nd := s.t.at(i)
		if !nd.expanded() {
			return -1
		}
		next := int32(-1)
		for c := nd.first; c < nd.first+nd.count; c++ {
			if s.t.at(c).action == a {
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

// q is the mean value of node i for player p (its proven value once proven), and its visits.
func (s *Search[S]) q(i int32, p env.Player) (float64, int32) {
	nd := s.t.at(i)
	if nd.n == 0 && !nd.solved {
		return 0, 0
	}
	return sign(p) * nd.mean(), nd.n
}

// checkProof: an expanded node is proven exactly when its children prove it, with the value
// they give.
func (s *Search[S]) checkProof(nd *node) error {
	if nd.toMove == env.Terminal {
		return nil
	}
	// What trySolve would find, worked out again on a copy.
	cp := *nd
	cp.solved = false
	saved := *s.t.at(0)
	*s.t.at(0) = cp
	ok := s.trySolve(0)
	got := *s.t.at(0)
	*s.t.at(0) = saved
	switch {
	case ok != nd.solved:
		return fmt.Errorf("proven %v, but its children prove it: %v", nd.solved, ok)
	case ok && (math.Abs(float64(got.proven-nd.proven)) > provenEps || got.depth != nd.depth):
		return fmt.Errorf("proven %v at depth %d, its children give %v at depth %d", nd.proven, nd.depth, got.proven, got.depth)
	}
	return nil
}

// checkProven compares every proven node that has a position with its exact value (player 0's
// view), and counts them: a test that proves nothing would prove nothing wrong either.
func (s *Search[S]) checkProven(exact func(S) float64) error {
	for i := range int32(s.t.len()) {
		nd := s.t.at(i)
		if !nd.solved || nd.state < 0 {
			continue
		}
		if want := exact(s.t.states[nd.state]); math.Abs(float64(nd.proven)-want) > 1e-6 {
			return fmt.Errorf("node %d proven %v, its exact value is %v:\n%v", i, nd.proven, want, s.t.states[nd.state])
		}
	}
	return nil
}

// checkOrder checks the order of a node's children: of action, or (once selectChild has put
// some in order of prior, order.go) the first sorted in descending order of prior, none after
// them of more, each action once; and while the node is marked ordered, the visited children
// are the first ones. The root's priors are noised after they were put in order (its order
// was made below the root, before tree reuse): its order of prior is not checked.
func checkOrder(nd *node, children []node, root bool) error {
	if nd.sorted == 0 {
		for k := 1; k < len(children); k++ {
			if children[k].action <= children[k-1].action {
				return fmt.Errorf("children not in order of action")
			}
		}
	} else {
		if nd.sorted > int32(len(children)) {
			return fmt.Errorf("%d children in order of %d", nd.sorted, len(children))
		}
		seen := map[env.Action]bool{}
		for k, c := range children {
			if seen[c.action] {
				return fmt.Errorf("action %d twice among the children", c.action)
			}
			seen[c.action] = true
			if root {
				continue
			}
			if k > 0 && k < int(nd.sorted) && c.prior > children[k-1].prior {
				return fmt.Errorf("child %d of prior %v after one of %v, in the order", k, c.prior, children[k-1].prior)
			}
			if k >= int(nd.sorted) && c.prior > children[nd.sorted-1].prior {
				return fmt.Errorf("child %d of prior %v after the order, which ends at %v", k, c.prior, children[nd.sorted-1].prior)
			}
		}
	}
	if !nd.ordered {
		return nil
	}
	unvisited := false
	for k, c := range children {
		visited := c.n+c.inflight > 0 || c.solved
		if visited && unvisited {
			return fmt.Errorf("child %d visited after an unvisited one, in a node in order", k)
		}
		unvisited = unvisited || !visited
		if visited && k >= int(nd.sorted) && nd.sorted < int32(len(children)) {
			return fmt.Errorf("child %d visited beyond the %d in order", k, nd.sorted)
		}
	}
	return nil
}
