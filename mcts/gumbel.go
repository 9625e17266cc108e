package mcts

import (
	"math"
	"time"
)

// gumbelRoot is the state of a Gumbel AlphaZero root (Danihelka et al., ICLR 2022) for one
// search, indexed like the root's children.
//
// The root samples m actions without replacement by Gumbel-top-k (the m largest g(a) +
// logit(a)) and shares the simulations among them by sequential halving: log2(m) phases, each
// giving the remaining actions equal visits, then keeping the better half by g(a) + logit(a) +
// σ(q̂(a)). Both come out of one rule, as in DeepMind's mctx: simulation k goes to the best
// scoring action among those that have had exactly seq[k] visits in this search, seq being
// the visit count each remaining action reaches round by round.
type gumbelRoot struct {
	g       []float64 // GumbelScale × a Gumbel(0, 1) draw
	logit   []float64 // log prior
	local   []int32   // visits given in this search, in flight included
	q       []float64 // scratch: completed Q, then rescaled to [0, 1]
	seq     []int32   // seq[k]: the visits an action must have had to get simulation k
	phase   []int32   // phase[k]: the number of actions still considered at simulation k
	scratch []float64 // scratch for Dirichlet noise
	planned int       // a timed search: the simulation at which the halving was last planned
}

// barrier tells whether simulation k starts a new halving phase, whose choice of actions
// needs the values of the previous phase.
func (gr *gumbelRoot) barrier(k int) bool {
	return k > 0 && k < len(gr.phase) && gr.phase[k] != gr.phase[k-1]
}

// sequence lays out seq and phase for m considered actions and n simulations.
func (gr *gumbelRoot) sequence(m, n int) {
	gr.seq, gr.phase = gr.seq[:0], gr.phase[:0]
	gr.plan(m, 0, n)
}

// plan appends to seq and phase the halving of considered actions, each of which has had
// visits visits, over n more simulations: the phases left share them equally.
func (gr *gumbelRoot) plan(considered int, visits int32, n int) {
	end := len(gr.seq) + n
	if considered <= 1 {
		for len(gr.seq) < end {
			gr.seq = append(gr.seq, visits)
			gr.phase = append(gr.phase, 1)
			visits++
		}
		return
	}
	phases := int(math.Ceil(math.Log2(float64(considered))))
	for len(gr.seq) < end {
		rounds := max(1, n/(phases*considered))
		for range rounds {
			for range considered {
				gr.seq = append(gr.seq, visits)
				gr.phase = append(gr.phase, int32(considered))
			}
			visits++
		}
		considered = max(2, considered/2)
	}
	gr.seq, gr.phase = gr.seq[:end], gr.phase[:end]
}

// timedBudget is the simulations a Gumbel root plans for a search of d: those d allows at the
// rate of this Search's last search, and before any, the least halving of GumbelActions that
// gives each action two visits in the first phase (the plan is made again at each phase from
// the rate of the search under way).
func (s *Search[S]) timedBudget(d time.Duration) int {
	m := max(s.p.GumbelActions, 1)
	least := m
	if m > 1 {
		least = 2 * m * int(math.Ceil(math.Log2(float64(m))))
	}
	if s.rate <= 0 {
		return least
	}
	return max(least, int(min(s.rate*d.Seconds(), 1<<40)))
}

// extendTimed gives a timed search whose plan is spent, with time left, one more round of its
// last phase: its survivors' round completed, or a round more for each.
func (s *Search[S]) extendTimed() {
	gr := &s.gumbel
	n := len(gr.seq)
	if n == 0 {
		return
	}
	c, v := gr.phase[n-1], gr.seq[n-1]
	done := int32(0)
	for k := n - 1; k >= 0 && gr.seq[k] == v && gr.phase[k] == c; k-- {
		done++
	}
	if done >= c {
		done, v = 0, v+1
	}
	for range c - done {
		gr.seq = append(gr.seq, v)
		gr.phase = append(gr.phase, c)
	}
	s.budget = len(gr.seq)
}

// replan plans a timed search's halving again at the start of a phase, with no leaf in
// flight: the simulations left are those the time left allows at this search's rate so far.
func (s *Search[S]) replan() {
	gr := &s.gumbel
	k := s.started
	gr.planned = k
	el := now().Sub(s.timedFrom)
	if s.done <= 0 || el <= 0 {
		return
	}
	left := int(min(float64(s.done)/el.Seconds()*s.deadline.Sub(now()).Seconds(), 1<<40))
	considered, visits := int(gr.phase[k]), gr.seq[k]
	gr.seq, gr.phase = gr.seq[:k], gr.phase[:k]
	// At least one round of the phase that starts: what the plan promised it.
	gr.plan(considered, visits, max(left, considered))
	s.budget = len(gr.seq)
}

// prepare draws the Gumbel sample and lays out the sequence for the root's children.
func (s *Search[S]) prepareGumbel() {
	gr := &s.gumbel
	root := s.t.at(0)
	k := int(root.count)
	gr.g, gr.logit, gr.local, gr.q = resize(gr.g, k), resize(gr.logit, k), resize(gr.local, k), resize(gr.q, k)
	open := 0 // the actions the sample may take: not the solver's proven losses
	for c := range k {
		if !s.excluded(s.t.at(root.first + int32(c))) {
			open++
		}
		// -log(-log u) is a Gumbel(0, 1) draw; u = 0 would give -Inf.
		u := s.rng.Float64()
		for u == 0 {
			u = s.rng.Float64()
		}
		gr.g[c] = s.p.GumbelScale * -math.Log(-math.Log(u))
		gr.logit[c] = math.Log(max(float64(s.t.at(root.first+int32(c)).prior), 1e-30))
		gr.local[c] = 0
	}
	gr.sequence(min(s.p.GumbelActions, max(open, 1)), s.budget)
	gr.planned = 0
}

func resize[T any](x []T, n int) []T {
	if cap(x) < n {
		return make([]T, n)
	}
	return x[:n]
}

// completion is what Gumbel's completed Q needs at a decision node (Danihelka et al.,
// appendix D): an unvisited child's Q is v_mix, the oracle's value of the node mixed with the
// prior-weighted Q of the visited children; the completed Qs, from the node's decider's view,
// are rescaled to [0, 1] between the lowest and the highest of them; σ(q̂) = (c_visit + max
// n)·c_scale·q̂.
type completion struct {
	sg, mix, lo, span, sigma float64
	// alpha is the weight of the children's minimax values in their Q (Params.MinimaxWeight).
	alpha float64
}

func (s *Search[S]) complete(nd *node) completion {
	sg := sign(nd.toMove)
	children := s.t.slice(nd.first, nd.first+nd.count)
	sumN, maxN := 0.0, int32(0)
	sumP, sumPQ := 0.0, 0.0
	for _, c := range children {
		if c.n > 0 || c.solved {
			q := sg * c.mixed(s.p.MinimaxWeight)
			sumN += float64(c.n)
			sumP += float64(c.prior)
			sumPQ += float64(c.prior) * q
			maxN = max(maxN, c.n)
		}
	}
	cm := completion{sg: sg, mix: sg * float64(nd.value), sigma: (s.p.CVisit + float64(maxN)) * s.p.CScale, alpha: s.p.MinimaxWeight}
	if sumN > 0 && sumP > 0 {
		cm.mix = (cm.mix + sumN*sumPQ/sumP) / (1 + sumN)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for k := range children {
		q := cm.raw(&children[k])
		lo, hi = min(lo, q), max(hi, q)
	}
	cm.lo, cm.span = lo, max(hi-lo, 1e-8)
	return cm
}

// raw is child c's completed Q, from the decider's view.
func (cm *completion) raw(c *node) float64 {
	if c.n > 0 || c.solved {
		return cm.sg * c.mixed(cm.alpha)
	}
	return cm.mix
}

// q is child c's completed Q rescaled to [0, 1].
func (cm *completion) q(c *node) float64 { return (cm.raw(c) - cm.lo) / cm.span }

// completedQ fills gr.q with the root children's rescaled completed Q and returns σ's factor.
func (s *Search[S]) completedQ() float64 {
	root := s.t.at(0)
	cm := s.complete(root)
	for k := range s.gumbel.q {
		s.gumbel.q[k] = cm.q(s.t.at(root.first + int32(k)))
	}
	return cm.sigma
}

// gumbelSelect picks the root child for simulation number s.started.
func (s *Search[S]) gumbelSelect() int32 {
	gr := &s.gumbel
	root := s.t.at(0)
	sigma := s.completedQ()
	want := int32(-1)
	if s.started < len(gr.seq) {
		want = gr.seq[s.started]
	}
	children := s.t.slice(root.first, root.first+root.count)
	best, bestK := math.Inf(-1), -1
	for k := range gr.local {
		if gr.local[k] != want || s.excluded(&children[k]) {
			continue
		}
		if score := gr.g[k] + gr.logit[k] + sigma*gr.q[k]; score > best {
			best, bestK = score, k
		}
	}
	if bestK < 0 {
		// Reached when the solver proved a loss among the actions of the phase, or with fewer
		// actions left than sampled: the least visited of the visited actions, else the best
		// of the others.
		fewest := int32(math.MaxInt32)
		for k, n := range gr.local {
			if n > 0 && n < fewest && !s.excluded(&children[k]) {
				fewest, bestK = n, k
			}
		}
		for k := range gr.local {
			if bestK >= 0 {
				break
			}
			if !s.excluded(&children[k]) {
				bestK = k
			}
		}
		bestK = max(bestK, 0)
	}
	return root.first + int32(bestK)
}

// gumbelChoice is the action Gumbel AlphaZero plays: the best by g + logit + σ(q̂) among the
// actions that were given the most visits in the search (the last phase's survivors).
func (s *Search[S]) gumbelChoice() int32 {
	gr := &s.gumbel
	root := s.t.at(0)
	sigma := s.completedQ()
	children := s.t.slice(root.first, root.first+root.count)
	most := int32(0)
	for k, n := range gr.local {
		if !s.excluded(&children[k]) {
			most = max(most, n)
		}
	}
	best, bestK := math.Inf(-1), 0
	for k := range gr.local {
		if gr.local[k] != most || s.excluded(&children[k]) {
			continue
		}
		if score := gr.g[k] + gr.logit[k] + sigma*gr.q[k]; score > best {
			best, bestK = score, k
		}
	}
	return root.first + int32(bestK)
}

// improvedPolicy writes softmax(logit + σ(q̂)) over the root's children into dst at their
// actions: Gumbel AlphaZero's policy target.
func (s *Search[S]) improvedPolicy(dst []float32) {
	gr := &s.gumbel
	root := s.t.at(0)
	sigma := s.completedQ()
	hi := math.Inf(-1)
	for k := range gr.q {
		hi = max(hi, gr.logit[k]+sigma*gr.q[k])
	}
	sum := 0.0
	for k := range gr.q {
		sum += math.Exp(gr.logit[k] + sigma*gr.q[k] - hi)
	}
	for k, c := range s.t.slice(root.first, root.first+root.count) {
		dst[c.action] = float32(math.Exp(gr.logit[k]+sigma*gr.q[k]-hi) / sum)
	}
}

// improvedSelect picks the child of decision node i (not the root) as Gumbel MuZero does below
// the root, deterministically: argmax π'(a) - n(a)/(1 + Σn), with π' = softmax(logit +
// σ(q̂)) the node's improved policy, that is π'(a) ∝ P(a)·exp(σ(q̂(a))). Leaves in flight
// count as visits.
func (s *Search[S]) improvedSelect(i int32) int32 {
	nd := s.t.at(i)
	nd.ordered = false // the improved policy's choices are not the priors' order
	children := s.t.slice(nd.first, nd.first+nd.count)
	cm := s.complete(nd)
	// Exponents relative to the largest, so that exp neither overflows nor underflows all.
	top := 0.0
	for k := range children {
		top = max(top, cm.q(&children[k]))
	}
	z, visits := 0.0, 1.0
	for k := range children {
		z += float64(children[k].prior) * math.Exp(cm.sigma*(cm.q(&children[k])-top))
		visits += float64(children[k].n + children[k].inflight)
	}
	if z == 0 {
		z = 1 // priors so small they underflow: the visit counts alone decide
	}
	best, bestK := math.Inf(-1), 0
	for k := range children {
		c := &children[k]
		if c.lostFor(cm.sg) {
			continue // the solver's: never worth a visit while anything else is left
		}
		pi := float64(c.prior) * math.Exp(cm.sigma*(cm.q(c)-top)) / z
		if score := pi - float64(c.n+c.inflight)/visits; score > best {
			best, bestK = score, k
		}
	}
	return nd.first + int32(bestK)
}
