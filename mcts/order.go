package mcts

import "github.com/zerogames/zero/env"

// The children of a decision node are its legal actions, a few hundred in Gygès, and PUCT's
// choice among them was a scan of all at every descent through the node, though most are never
// visited: the best unvisited child is the one of the highest prior, and which it is does not
// change until it is visited. So below the root a node's children are put in order of prior
// orderChunk at a time: the first chunk as the node is expanded (orderedChildren), the next
// when selectChild has visited all before it (extendOrder). The node's first sorted children
// are then in descending order of prior and no later one has more, and as PUCT takes the
// unvisited child of the highest prior, the visited children are the first ones: selectChild
// stops at the first unvisited child, its choice unchanged.
//
// The order holds while only selectChild chooses at the node (node.ordered): Gumbel's improved
// policy, UCB1, the solver's scans (which prove children never visited) and a leaf dropped
// from flight (a visit undone) each clear the mark, and the node is scanned in full from then
// on. The root is never in order (its noise, Gumbel's halving): its children are in the legal
// order, but for a root kept from the tree below an earlier root.

// orderedChildren sets the children of the new node nd, of the legal actions acts with their
// priors, the orderChunk of the highest priors first, in descending order (ties in the legal
// order), then the others in the legal order: nd is in order (order.go).
func (s *Search[S]) orderedChildren(nd *node, children []node, acts []env.Action, priors []float32) {
	top := s.orderTop[:0]
	for k, p := range priors {
		top = insertTop(top, int32(k), p, priors)
	}
	for j, k := range top {
		children[j] = newChild(acts[k], priors[k])
	}
	at := ascending(s.orderAt[:len(top)], top)
	w, c := len(top), 0
	for k := range acts {
		if c < len(at) && at[c] == int32(k) {
			c++
			continue
		}
		children[w] = newChild(acts[k], priors[k])
		w++
	}
	nd.ordered, nd.sorted = true, int32(len(top))
}

// insertTop adds index k of prior p to top, the indices of the highest priors so far (of at
// most orderChunk, best first, ties in the order of the indices), if it is among them.
func insertTop(top []int32, k int32, p float32, priors []float32) []int32 {
	if len(top) == orderChunk && p <= priors[top[len(top)-1]] {
		return top
	}
	j := len(top)
	if j < orderChunk {
		top = append(top, 0)
	} else {
		j--
	}
	for j > 0 && p > priors[top[j-1]] {
		top[j] = top[j-1]
		j--
	}
	top[j] = k
	return top
}

// insertTopNode is insertTop over the priors of nodes.
func insertTopNode(top []int32, k int32, p float32, nodes []node) []int32 {
	j := len(top)
	if j < orderChunk {
		top = append(top, 0)
	} else {
		j--
	}
	for j > 0 && p > nodes[top[j-1]].prior {
		top[j] = top[j-1]
		j--
	}
	top[j] = k
	return top
}

// ascending copies top into at (of its length) in ascending order.
func ascending(at, top []int32) []int32 {
	copy(at, top)
	for a := 1; a < len(at); a++ {
		for b := a; b > 0 && at[b] < at[b-1]; b-- {
			at[b], at[b-1] = at[b-1], at[b]
		}
	}
	return at
}

// orderChunk is how many children one extension of a node's order sorts.
const orderChunk = 16

// extendOrder puts the orderChunk children of the highest priors among children[nd.sorted:]
// (all unvisited) next in the order, in descending order of prior (ties in their order), the
// others after them in their order.
func (s *Search[S]) extendOrder(nd *node, children []node) {
	tail := children[nd.sorted:]
	top := s.orderTop[:0]
	for k := range tail {
		if p := tail[k].prior; len(top) < orderChunk || p > tail[top[len(top)-1]].prior {
			top = insertTopNode(top, int32(k), p, tail)
		}
	}
	for j, k := range top {
		s.orderNodes[j] = tail[k]
	}
	// The others move up behind them, from the end, keeping their order.
	at := ascending(s.orderAt[:len(top)], top)
	w, c := int32(len(tail)-1), len(at)-1
	for r := int32(len(tail) - 1); r >= 0; r-- {
		if c >= 0 && at[c] == r {
			c--
			continue
		}
		tail[w] = tail[r]
		w--
	}
	copy(tail, s.orderNodes[:len(top)])
	nd.sorted += int32(len(top))
}
