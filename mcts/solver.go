package mcts

import (
	"context"
	"math"

	"github.com/zerogames/zero/env"
)

// The MCTS-solver (Winands, Björnsson and Saito, "Monte-Carlo Tree Search Solver", 2008; as
// OpenSpiel's mcts.h with solve): with Params.Solver, the search proves the values it can.
//
//   - A terminal node is proven: its result. A leaf whose decider can win at once (the game's
//     env.WinFinder, or playing every action) is a proven win for him, without asking the
//     oracle. At the root every child is looked at so: a move that ends the game, or that
//     hands the opponent a win at once, is known before the first simulation.
//   - A player's decision is a proven win for him if one child is, and proven otherwise once
//     every child is (the best of them for him); a chance node once every outcome is (their
//     expectation). Deciders are compared, not alternated, so turns of several decisions and
//     the opponent's decision inside a turn back up as values do.
//   - A descent that reaches a proven node backs its proven value up at once. Selection never
//     enters a proven loss for the decider while anything else is left; the move choice and
//     the policy target never take one either, and a proven win is always taken (the shortest).
//     A search whose root is proven stops: nothing is left to learn there.

// solvable tells whether the leaf i (a player's decision, not yet expanded) is a proven win
// for its decider, and marks it so.
func (s *Search[S]) solveLeaf(i int32) bool {
	nd := s.t.at(i)
	if !s.canWin(s.t.states[nd.state]) {
		return false
	}
	nd.solve(sign(nd.toMove), 1)
	return true
}

// propagate proves what the newly proven last node of path makes provable above it.
func (s *Search[S]) propagate(path []int32) {
	for k := len(path) - 2; k >= 0; k-- {
		if s.t.at(path[k]).solved || !s.trySolve(path[k]) {
			return
		}
	}
}

// trySolve proves the expanded node i if its children allow, and tells whether it did.
func (s *Search[S]) trySolve(i int32) bool {
	nd := s.t.at(i)
	if nd.solved {
		return true
	}
	if !nd.expanded() {
		return false
	}
	children := s.t.slice(nd.first, nd.first+nd.count)
	if nd.toMove == env.Chance {
		sum, depth := 0.0, int16(0)
		same := true
		for k := range children {
			c := &children[k]
			if !c.solved {
				return false
			}
			sum += float64(c.prior) * float64(c.proven)
			depth = max(depth, c.depth)
			same = same && c.proven == children[0].proven
		}
		if same {
			sum = float64(children[0].proven) // exactly, whatever the rounding of the priors
		}
		nd.solve(sum, int(depth)+1)
		return true
	}
	sg := sign(nd.toMove)
	// A win for the decider proves the node at once (the shortest win); else every child must
	// be proven, and the decider takes the best (a loss as late as can be).
	win := int16(-1)
	all := true
	best, bestDepth := math.Inf(-1), int16(0)
	for k := range children {
		c := &children[k]
		if !c.solved {
			all = false
			continue
		}
		if c.wonFor(sg) {
			if win < 0 || c.depth < win {
				win = c.depth
			}
			continue
		}
		v := sg * float64(c.proven)
		switch {
		case v > best+provenEps:
			best, bestDepth = v, c.depth
		case v > best-provenEps:
			if v <= -1+provenEps {
				bestDepth = max(bestDepth, c.depth)
			} else {
				bestDepth = min(bestDepth, c.depth)
			}
		}
	}
	switch {
	case win >= 0:
		nd.solve(sg, int(win)+1)
	case all:
		nd.solve(sg*best, int(bestDepth)+1)
	default:
		return false
	}
	return true
}

// scan proves what the children of the expanded node i show at once: those that end the
// game, and those whose decider can win at once (a move that hands the opponent a win is a
// proven loss before any simulation is spent on it). The root is scanned, and the nodes above
// Params.ScanDepth, once each.
func (s *Search[S]) scan(i int32) {
	s.t.at(i).scanned = true
	s.t.at(i).ordered = false // the children it proves are not visited
	nd := *s.t.at(i)
	for c := nd.first; c < nd.first+nd.count; c++ {
		if s.t.at(c).solved {
			continue
		}
		if s.t.at(c).state < 0 {
			s.t.makeState(c, i)
		}
		ch := s.t.at(c)
		switch st := s.t.states[ch.state]; ch.toMove {
		case env.Terminal:
			ch.solve(float64(st.Result().Value(0)), 0)
		case 0, 1:
			if !ch.expanded() {
				s.solveLeaf(c)
			}
		}
	}
	if i == 0 && s.p.RootProof > 0 {
		s.t.proofsCut = !s.proveRoot(false)
	}
	// A root proven as a leaf (its decider could win at once) is proven again from its
	// children, which now show the win and its length.
	s.t.at(i).solved = false
	s.trySolve(i)
}

// rescan scans the expanded nodes below node i (at depth) that are above Params.ScanDepth and
// were not scanned: after tree reuse (Advance, SetRoot) the new root's subtree comes up from
// below the old root, where its nodes were expanded deeper than ScanDepth and left unscanned,
// so without this the wins and losses in two among the root's reused moves went unseen. The
// deepest go first, so that what they prove goes up through trySolve to i's children.
func (s *Search[S]) rescan(i int32, depth int) {
	if depth+1 >= s.p.ScanDepth {
		return
	}
	first, count := s.t.at(i).first, s.t.at(i).count
	for c := first; c < first+count; c++ {
		if ch := s.t.at(c); !ch.expanded() || ch.solved {
			continue
		}
		s.rescan(c, depth+1)
		if ch := s.t.at(c); ch.toMove != env.Chance && !ch.scanned {
			s.scan(c)
		} else {
			s.trySolve(c)
		}
	}
	if nd := s.t.at(i); nd.toMove == env.Chance {
		// Its value reads its outcomes' proofs: worked out again, as a backup would.
		nd.w = float64(nd.n) * s.chanceMean(nd)
	}
}

// resumeProofs goes on with the root's proofs where a search's end cut them short
// (tree.proofsCut), and proves the root again from its children if they now show its value.
func (s *Search[S]) resumeProofs() {
	if s.t.at(0).solved {
		s.t.proofsCut = false // proven meanwhile by the simulations: nothing left to prove
		return
	}
	s.t.proofsCut = !s.proveRoot(true)
	s.trySolve(0)
}

// proveRoot runs the root proofs (Params.RootProof): an alpha-beta from each of the root's
// moves not proven yet, within the rest of RootProof turns, sharing RootProofNodes positions.
// A win found ends the proofs, and so does the end of the search's context (Run's) or of its
// time; it tells whether they ran to their end (a win found, or every move tried), and if not
// keeps where they stopped in the tree. Resumed (resume), they go on from there with the
// positions left: the proofs of a stream's slices (the engine's go infinite) advance from one
// slice to the next, and a proof longer than a slice, cut again at each, takes from the budget
// what it spent each time, until its share is small enough to end (proven or given up) within
// one, so the later moves are tried too.
func (s *Search[S]) proveRoot(resume bool) bool {
	root := *s.t.at(0)
	p := root.toMove
	from, budget := root.first, int64(s.p.RootProofNodes)
	if resume {
		from, budget = root.first+s.t.proofNext, s.t.proofBudget
	}
	// The moves not proven yet share the budget: each is given the rest divided among those
	// left, so what an easy proof leaves goes to the harder ones after it.
	left := int64(0)
	for c := from; c < root.first+root.count; c++ {
		if !s.t.at(c).solved {
			left++
		}
	}
	ctx := s.ctx
	if ctx == nil {
		ctx = context.Background() // driven by Start, Collect and Apply
	}
	stopped := func() bool { return ctx.Err() != nil || !s.deadline.IsZero() && now().After(s.deadline) }
	cut := func(c int32) bool {
		s.t.proofNext, s.t.proofBudget = c-root.first, max(budget, 0)
		return false
	}
	for c := from; c < root.first+root.count; c++ {
		if s.t.at(c).solved {
			if s.t.at(c).wonFor(sign(p)) {
				return true
			}
			continue
		}
		if stopped() {
			return cut(c) // the search is stopped, or its time is up
		}
		v, ok := s.prover.prove(ctx, s.t.states[s.t.at(c).state], p, s.p.RootProof-1, max(budget/left, 1), s.deadline)
		budget -= s.prover.nodes
		if !ok && stopped() {
			return cut(c) // cut, not failed: tried again when resumed
		}
		left--
		if !ok {
			continue
		}
		s.t.at(c).solve(v, 2*s.p.RootProof)
		s.t.at(c).byProof = true
		if s.t.at(c).wonFor(sign(p)) {
			return true
		}
	}
	return true
}

// Proven tells whether the root's value is proven, and gives it from the root decider's
// view (an expectation over chance).
func (s *Search[S]) Proven() (float64, bool) {
	root := s.t.at(0)
	if !root.solved || root.toMove == env.Terminal {
		return 0, false
	}
	return sign(root.toMove) * float64(root.proven), true
}

// provenBest returns the root's child to play when the root is proven: the shortest win, else
// among the best proven values a loss as late as can be, or a draw as soon as can be; ties to
// the more visited, then the higher prior.
func (s *Search[S]) provenBest() int32 {
	root := s.t.at(0)
	sg := sign(root.toMove)
	want := sg * float64(root.proven)
	best := int32(-1)
	for c := root.first; c < root.first+root.count; c++ {
		ch := s.t.at(c)
		if !ch.solved || math.Abs(sg*float64(ch.proven)-want) > provenEps {
			continue
		}
		if best < 0 {
			best = c
			continue
		}
		b := s.t.at(best)
		longer := ch.depth > b.depth
		if want > -1+provenEps {
			longer = ch.depth < b.depth // a win or a draw: the sooner the better
		}
		if longer || ch.depth == b.depth && (ch.n > b.n || ch.n == b.n && ch.prior > b.prior) {
			best = c
		}
	}
	if best < 0 {
		return root.first // not reached: a proven root has a child of its value
	}
	return best
}

// excluded tells whether the root's child c is left out of the move choice and the policy
// target: a proven loss while the root is not proven (some child is not a proven loss).
func (s *Search[S]) excluded(c *node) bool {
	root := s.t.at(0)
	return s.p.Solver && !root.solved && c.lostFor(sign(root.toMove))
}
