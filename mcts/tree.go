package mcts

import (
	"math"

	"github.com/zerogames/zero/env"
)

// node is one position of the tree, reached from its parent by action. Nodes live in one
// slice and refer to each other by int32 index; the children of a node are contiguous, so a
// node only records the first and how many.
//
// Values are kept from player 0's point of view, whoever decides at the node: a decider p
// reads them through Result.Value's convention (p = 1 negates). Nothing is negated level by
// level, so turns of several decisions and decisions by the opponent in the middle of a turn
// need no special case.
type node struct {
	// w is the sum of the values backed up through the node (player 0's view). At a chance
	// node it is n times the probability-weighted mean of its visited outcomes' values.
	w float64
	// n counts the values backed up through the node, its own evaluation included.
	n int32
	// inflight counts the leaves in flight below the node (virtual loss).
	inflight int32
	// prior is the policy's prior of the action (a player's decision) or the outcome's
	// probability (chance).
	prior float32
	// value is the oracle's value of the node itself (player 0's view), for Gumbel's v_mix.
	value float32
	// first is the index of the first child, or -1 until the node is expanded.
	first int32
	// count is the number of children.
	count int32
	// action leads from the parent to the node.
	action env.Action
	// state is the index of the node's position in the search's states, or -1 until made.
	state int32
	// toMove is who decides at the node, known once its state is made.
	toMove env.Player
	// pending marks a leaf whose evaluation is in flight.
	pending bool
	// solved marks a node whose value is proven (Params.Solver): proven is then its value
	// under best play from there (player 0's view; an expectation over chance), and depth the
	// number of decisions to the end along that play (a win as soon as can be, a loss as late).
	solved bool
	depth  int16
	proven float32
	// scanned marks a node whose children the solver has looked at (solver.go, scan).
	scanned bool
	// byProof marks a node proven by an alpha-beta from it (Params.RootProof), not by its
	// children.
	byProof bool
	// hasMM marks a node whose minimax value mm is known (Params.MinimaxWeight): the game's
	// heuristic at a leaf, the best of its children's above (player 0's view).
	hasMM bool
	mm    float32
}

func (nd *node) expanded() bool { return nd.first >= 0 }

// mean is the node's value (player 0's view): its proven value once solved, else the mean of
// the values backed up through it. The node must have been visited or solved.
func (nd *node) mean() float64 {
	if nd.solved {
		return float64(nd.proven)
	}
	return nd.w / float64(nd.n)
}

// mixed is the node's value (player 0's view) as the search's choices read it with implicit
// minimax backups of weight alpha (Params.MinimaxWeight): its proven value once solved, else
// (1-alpha)·mean + alpha·mm where the minimax value is known. The node must have been visited
// or solved.
func (nd *node) mixed(alpha float64) float64 {
	if nd.solved || alpha == 0 || !nd.hasMM {
		return nd.mean()
	}
	return (1-alpha)*nd.w/float64(nd.n) + alpha*float64(nd.mm)
}

// minimax is the node's minimax value (player 0's view): its proven value once solved.
func (nd *node) minimax() float64 {
	if nd.solved {
		return float64(nd.proven)
	}
	return float64(nd.mm)
}

// lostFor tells whether the node is a proven loss for the player of sign sg.
func (nd *node) lostFor(sg float64) bool { return nd.solved && sg*float64(nd.proven) <= -1+provenEps }

// wonFor tells whether the node is a proven win for the player of sign sg.
func (nd *node) wonFor(sg float64) bool { return nd.solved && sg*float64(nd.proven) >= 1-provenEps }

// provenEps absorbs the rounding of chance probabilities in proven expectations.
const provenEps = 1e-5

// solve marks the node proven with value v (player 0's view) at depth d.
func (nd *node) solve(v float64, d int) {
	nd.solved, nd.proven, nd.depth = true, float32(v), int16(min(d, math.MaxInt16))
}

// sign is +1 for player 0 and -1 for player 1: the factor that turns player 0's values into
// p's.
func sign(p env.Player) float64 {
	if p == 1 {
		return -1
	}
	return 1
}

// tree holds the nodes and the positions of the nodes that have one, in two arenas each (the
// spares receive the subtree kept when the root advances).
type tree[S env.State[S]] struct {
	nodes  []node
	states []S
	spare  []node
	spareS []S
	// proofsCut tells that the root's proofs (Params.RootProof) were cut short by the end of
	// a search's time or context: the next search of the same root resumes them (solver.go,
	// Start) at the root's child proofNext (the one cut, or the first not tried), with the
	// positions the proofs before it left, proofBudget.
	proofsCut   bool
	proofNext   int32
	proofBudget int64
}

// reset makes a tree of the one node root.
func (t *tree[S]) reset(root S) {
	t.nodes = append(t.nodes[:0], node{first: -1, state: 0, toMove: root.ToMove(), action: -1})
	t.states = append(t.states[:0], root)
	t.proofsCut, t.proofNext, t.proofBudget = false, 0, 0
}

// makeState gives node i its position, the position of its parent after its action.
func (t *tree[S]) makeState(i, parent int32) {
	s := t.states[t.nodes[parent].state].Play(t.nodes[i].action)
	t.nodes[i].state = int32(len(t.states))
	t.nodes[i].toMove = s.ToMove()
	t.states = append(t.states, s)
}

// addChildren appends n children to node i, with the given actions, and returns the first.
func (t *tree[S]) addChildren(i int32, n int) int32 {
	first := int32(len(t.nodes))
	for range n {
		t.nodes = append(t.nodes, node{first: -1, state: -1, toMove: env.Terminal})
	}
	t.nodes[i].first, t.nodes[i].count = first, int32(n)
	return first
}

// keep makes node i the root, dropping everything that is not below it: the subtree is copied
// breadth first into the spare arenas (so children stay contiguous), which then become the
// tree. No leaf may be in flight.
func (t *tree[S]) keep(i int32) {
	nodes, states := t.spare[:0], t.spareS[:0]
	nodes = append(nodes, t.nodes[i])
	nodes[0].action = -1
	// The root's scan runs the root proofs (Params.RootProof), which a node scanned as a
	// child did not get: it is scanned again as the root.
	nodes[0].scanned = false
	t.proofsCut, t.proofNext, t.proofBudget = false, 0, 0
	if nodes[0].byProof {
		// Proven from its parent's side; as the root it is proven again from its children.
		nodes[0].byProof, nodes[0].solved = false, false
	}
	for j := 0; j < len(nodes); j++ {
		if nodes[j].state >= 0 {
			states = append(states, t.states[nodes[j].state])
			nodes[j].state = int32(len(states) - 1)
		}
		if nodes[j].first >= 0 {
			first := nodes[j].first
			nodes[j].first = int32(len(nodes))
			nodes = append(nodes, t.nodes[first:first+nodes[j].count]...)
		}
	}
	t.spare, t.spareS = t.nodes, t.states
	t.nodes, t.states = nodes, states
}
