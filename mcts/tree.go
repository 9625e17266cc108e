package mcts

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/zerogames/zero/env"
)

// node is one position of the tree, reached from its parent by action. Nodes live in pages
// (tree) and refer to each other by int32 index; the children of a node are contiguous, so a
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
	// ordered marks a decision node whose children selectChild may stop scanning at the first
	// unvisited one: its first sorted children are in descending order of prior, every later
	// one has no more prior than they, and the visited children are the first ones (order.go).
	ordered bool
	mm      float32
	sorted  int32
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

// tree holds the nodes and the positions of the nodes that have one. The nodes live in pages
// of 2^shift nodes, a node's index telling its page and its place there, so that a growing tree
// never copies what it holds (a Gygès search of a few seconds reaches millions of nodes, and
// growing one slice copied it over and over, half the search's time with the collector's waits
// on the copies: docs/BENCHMARKS.md, "The tree in pages"). A node's children are contiguous in
// one page: a page too full for them is left with a hole (unused nodes) at its end. Only the
// first page grows, doubling up to the page size, so a small tree holds little. The spares
// receive the subtree kept when the root advances.
type tree[S env.State[S]] struct {
	pages [][]node
	size  int32 // nodes in use, holes included: the indices below size
	shift uint8
	mask  int32
	// spare are the pages of the tree before the last keep, which the next keep copies into.
	spare  [][]node
	states []S
	spareS []S
	// proofsCut tells that the root's proofs (Params.RootProof) were cut short by the end of
	// a search's time or context: the next search of the same root resumes them (solver.go,
	// Start) at the root's child proofNext (the one cut, or the first not tried), with the
	// positions the proofs before it left, proofBudget.
	proofsCut   bool
	proofNext   int32
	proofBudget int64
}

// minPageShift is the least page size (2^13 nodes, 512 KiB); a game with more actions, whose
// node may have as many children, has pages of the power of two above its count.
const minPageShift = 13

// firstPage is the first page's size before it grows.
const firstPage = 8

// pageShift is the shift of the pages of a game of numActions actions.
func pageShift(numActions int) uint8 {
	return uint8(max(minPageShift, bits.Len(uint(max(numActions, 1)-1))))
}

// setShift sets the tree's page size (before any node).
func (t *tree[S]) setShift(shift uint8) {
	t.shift, t.mask = shift, int32(1)<<shift-1
}

// at is node i.
func (t *tree[S]) at(i int32) *node { return &t.pages[i>>t.shift][i&t.mask] }

// slice is the nodes lo to hi-1, which are in one page (a node's children).
func (t *tree[S]) slice(lo, hi int32) []node {
	o := lo & t.mask
	return t.pages[lo>>t.shift][o : o+hi-lo : o+hi-lo]
}

// len is the number of node indices in use.
func (t *tree[S]) len() int { return int(t.size) }

// alloc returns the index of n new contiguous nodes, unset, after the last: in the last page
// if they fit, else at the start of the next, the rest of the last made a hole.
func (t *tree[S]) alloc(n int32) int32 {
	if n > t.mask+1 {
		panic(fmt.Sprintf("mcts: %d children exceed a page of %d nodes", n, t.mask+1))
	}
	first := t.size
	if o := first & t.mask; o > 0 && o+n > t.mask+1 {
		t.grow(first>>t.shift, t.mask+1)
		page := t.pages[first>>t.shift]
		for k := o; k <= t.mask; k++ {
			page[k] = node{first: -1, state: -1, toMove: env.Terminal}
		}
		first = (first | t.mask) + 1
	}
	t.grow(first>>t.shift, first&t.mask+n)
	t.size = first + n
	return first
}

// grow makes page p hold at least n nodes: a new page at full size but the first, which
// doubles from firstPage.
func (t *tree[S]) grow(p, n int32) {
	for int(p) >= len(t.pages) {
		size := t.mask + 1
		if len(t.pages) == 0 {
			size = min(firstPage, size)
		}
		t.pages = append(t.pages, make([]node, size))
	}
	page := t.pages[p]
	if int(n) <= len(page) {
		return
	}
	size := int32(len(page))
	for size < n {
		size = min(2*size, t.mask+1)
	}
	grown := make([]node, size)
	copy(grown, page)
	t.pages[p] = grown
}

// reset makes a tree of the one node root.
func (t *tree[S]) reset(root S) {
	t.size = 0
	*t.at(t.alloc(1)) = node{first: -1, state: 0, toMove: root.ToMove(), action: -1}
	t.states = append(t.states[:0], root)
	t.proofsCut, t.proofNext, t.proofBudget = false, 0, 0
}

// makeState gives node i its position, the position of its parent after its action.
func (t *tree[S]) makeState(i, parent int32) {
	nd := t.at(i)
	s := t.states[t.at(parent).state].Play(nd.action)
	nd.state = int32(len(t.states))
	nd.toMove = s.ToMove()
	t.states = append(t.states, s)
}

// addChildren gives node i n children and returns them, for the caller to set each to a
// child (newChild): one pass over them, as a Gygès node has hundreds.
func (t *tree[S]) addChildren(i int32, n int) []node {
	first := t.alloc(int32(n))
	nd := t.at(i)
	nd.first, nd.count = first, int32(n)
	return t.slice(first, first+int32(n))
}

// newChild is a child reached by action a of prior p, unexpanded and without position.
func newChild(a env.Action, p float32) node {
	return node{first: -1, state: -1, toMove: env.Terminal, action: a, prior: p}
}

// keep makes node i the root, dropping everything that is not below it: the subtree is copied
// breadth first into the spare pages (so children stay contiguous), which then become the
// tree. No leaf may be in flight.
func (t *tree[S]) keep(i int32) {
	root := *t.at(i)
	root.action = -1
	// The root's scan runs the root proofs (Params.RootProof), which a node scanned as a
	// child did not get: it is scanned again as the root.
	root.scanned = false
	// The root chooses by other rules than selectChild's order (order.go).
	root.ordered = false
	t.proofsCut, t.proofNext, t.proofBudget = false, 0, 0
	if root.byProof {
		// Proven from its parent's side; as the root it is proven again from its children.
		root.byProof, root.solved = false, false
	}
	old := tree[S]{pages: t.pages, size: t.size, shift: t.shift, mask: t.mask}
	oldStates := t.states
	t.pages, t.spare, t.size = t.spare, t.pages, 0
	states := t.spareS[:0]
	*t.at(t.alloc(1)) = root
	for j := int32(0); j < t.size; j++ {
		nd := t.at(j)
		if nd.state >= 0 {
			states = append(states, oldStates[nd.state])
			nd.state = int32(len(states) - 1)
		}
		if nd.first >= 0 {
			first, count := nd.first, nd.count
			to := t.alloc(count)
			copy(t.slice(to, to+count), old.slice(first, first+count))
			t.at(j).first = to // alloc may have grown the page nd was in
		}
	}
	t.spareS, t.states = oldStates, states
}
