package mcts

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/zerogames/zero/env"
)

// now is the clock of searches by time and of the root proofs (time.Now; a test's clock).
var now = time.Now

// Search is a Monte Carlo tree search of one game, from a root position that moves on as the
// game is played (Advance keeps the subtree of the action played). It is not safe for
// concurrent use: run one Search per game, and let searches share a network through an
// Evaluator behind a batcher.
type Search[S env.State[S]] struct {
	numActions int
	oracle     Oracle[S]
	p          Params
	pcg        *rand.PCG
	rng        *rand.Rand
	t          tree[S]

	actions  []env.Action
	priors   []float32
	outcomes []env.Outcome
	// expanded and expandedPriors are the legal actions and priors of the node expand last
	// expanded (the cache stores them); pre, while a lane applies its leaves (parallel.go), is
	// that lane, which has worked out each leaf's actions and priors without the lock;
	// applying is the index of the leaf being applied.
	expanded       []env.Action
	expandedPriors []float32
	pre            *lane[S]
	applying       int
	// canWin tells whether the decider at a state can win at once (the solver's leaf check).
	canWin func(S) bool
	// heuristic is the game's static evaluation (env.Heuristic), or nil: the values of
	// Params.MinimaxWeight and Params.HeuristicWeight.
	heuristic func(S) float64
	// cache, if set, answers for the oracle the positions it has seen (SetCache); hit is its
	// answer while fromCache settles a leaf with it.
	cache *Cache[S]
	hit   []cachePair
	// orderTop, orderAt and orderNodes are extendOrder's scratch (order.go).
	orderTop    [orderChunk]int32
	orderAt     [orderChunk]int32
	orderNodes  [orderChunk]node
	orderPriors []float32
	// prover runs the solver's root proofs (Params.RootProof); Run sets ctx, whose end they
	// keep to, and deadline, the end of a search by time.
	prover   *AlphaBeta[S]
	ctx      context.Context
	deadline time.Time

	// The leaves in flight: their positions (what Collect returns), their nodes, and their
	// paths from the root, laid one after another in paths and delimited by pathEnd.
	leaves   []S
	leafNode []int32
	paths    []int32
	pathEnd  []int32
	// policy and value receive the oracle's answers in Run.
	policy []float32
	value  []float32

	// The search in progress (since Start).
	budget   int  // simulations to run
	started  int  // simulations started: done, or in flight
	done     int  // simulations done
	prepared bool // the root's noise or Gumbel draw has been made
	noised   bool // Dirichlet noise is in the root's priors
	gumbel   gumbelRoot
	// A Gumbel root searching for a time (Run with Budget.Time and no simulations): its
	// halving is planned for the simulations the time allows, at the rate of the search so far
	// (rate: this Search's simulations a second in its last search, 0 before one), and planned
	// again at each phase's start from the rate of the search under way (timedFrom: its start).
	timed     bool
	timedFrom time.Time
	rate      float64
	// mmStale tells Start to work out the minimax values again (recomputeMinimax).
	mmStale bool
	// helpers are the oracles of the goroutines Run searches with beside the caller's, and
	// lanes their leaves in flight, the caller's first (SetHelpers; parallel.go).
	helpers []Oracle[S]
	lanes   []*lane[S]
}

// Budget bounds a search.
type Budget struct {
	// Simulations is the number of simulations (descents from the root to a leaf, backed up).
	// The evaluation of a root that has none yet comes first and is not counted.
	Simulations int
	// Time, if positive, stops the search once it has run that long, whatever the
	// simulations. A search stopped by time depends on the machine's speed: use it for play,
	// never where results must be reproducible. With Simulations = 0 only Time bounds it; a
	// Gumbel root then plans its sequential halving for the simulations the time allows, at
	// the rate of the Search's last search (a least halving before any), planned again from
	// the search's own rate at each phase, its last phase going on while time is left.
	Time time.Duration
	// Progress, if set, is called with the simulations done every progressEvery simulations
	// or so, and once at the end, from the goroutine that runs the search.
	Progress func(done int)
}

// progressEvery is how many simulations pass between calls of Budget.Progress.
const progressEvery = 64

// New returns a search of game g asking oracle for priors and values, with parameters p and
// a generator seeded by seed (for root noise, Gumbel draws, chance sampling and temperature).
// Two searches made alike and driven alike give the same results.
func New[S env.State[S]](g env.Game[S], oracle Oracle[S], p Params, seed uint64) (*Search[S], error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	pcg := rand.NewPCG(seed, searchStream)
	n := g.Info().NumActions
	s := &Search[S]{
		numActions: n,
		oracle:     oracle,
		p:          p,
		pcg:        pcg,
		rng:        rand.New(pcg),
		actions:    make([]env.Action, 0, n),
		priors:     make([]float32, 0, n),
		outcomes:   make([]env.Outcome, 0, n),
		policy:     make([]float32, p.InFlight*n),
		value:      make([]float32, p.InFlight),
		canWin:     env.WinChecker(g),
	}
	if h, ok := g.(env.Heuristic[S]); ok {
		s.heuristic = h.Heuristic
	}
	if err := s.checkHeuristic(p); err != nil {
		return nil, err
	}
	s.prover, _ = NewAlphaBeta(g, 1, 0, seed)
	s.t.setShift(pageShift(n))
	s.t.reset(g.New())
	return s, nil
}

// Seed reseeds the search's generator, as if it had been made with seed: a search reused for
// another game then plays it as a new one would.
func (s *Search[S]) Seed(seed uint64) { s.pcg.Seed(seed, searchStream) }

// searchStream is the second word of the search's PCG seed, so that the same seed given to a
// search and to a rollout oracle draws different numbers.
const searchStream = 0x5ea_0c4

// SetCache makes the search look every leaf up in c before asking the oracle, and remember
// the oracle's answers there (nil: no cache). The searches of one goroutine may share one.
func (s *Search[S]) SetCache(c *Cache[S]) {
	s.cache = c
}

// Params returns the search's parameters.
func (s *Search[S]) Params() Params { return s.p }

// Oracle returns the oracle the search asks.
func (s *Search[S]) Oracle() Oracle[S] { return s.oracle }

// SetParams changes the parameters of the searches to come, keeping the tree: a self-play
// worker turns root noise on for the moves it records and off for the cheap ones (playout cap
// randomization). Noise already mixed into the root's priors stays there. It refuses invalid
// parameters, or a change while leaves are in flight, and then changes nothing.
func (s *Search[S]) SetParams(p Params) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if len(s.leafNode) > 0 {
		return errors.New("mcts: SetParams with leaves in flight: Apply them first")
	}
	if err := s.checkHeuristic(p); err != nil {
		return err
	}
	if p.MinimaxWeight > 0 && s.p.MinimaxWeight == 0 {
		s.mmStale = true // the tree grew without minimax values
	}
	s.p = p
	s.policy = resize(s.policy, p.InFlight*s.numActions)
	s.value = resize(s.value, p.InFlight)
	s.prepared = false
	return nil
}

// Root is the position at the root.
func (s *Search[S]) Root() S { return s.t.states[s.t.at(0).state] }

// Reset makes root the root of a new, empty tree. The arenas keep their memory.
func (s *Search[S]) Reset(root S) {
	s.dropLeaves()
	s.t.reset(root)
	s.newRoot()
}

// Release gives back the memory of the tree, keeping only its root: the next search starts
// afresh from there, as after Reset, and grows the arenas again. For a search kept idle long
// between searches (a web game's agent waiting on a person), whose tree would otherwise hold
// tens to hundreds of megabytes while it waits.
func (s *Search[S]) Release() {
	s.dropLeaves()
	root := s.Root()
	s.t = tree[S]{shift: s.t.shift, mask: s.t.mask}
	s.t.reset(root)
	s.newRoot()
}

// SetRoot makes root the root. If root is the root already, or a position of the tree a few
// decisions below it (the opponent's reply to the move searched), what the tree knows of it
// is kept; else the tree starts afresh as with Reset.
func (s *Search[S]) SetRoot(root S) {
	s.dropLeaves()
	if s.Root() == root {
		return
	}
	if i := s.find(root, findDepth); i > 0 {
		s.t.keep(i)
		s.newRoot()
		return
	}
	s.Reset(root)
}

// findDepth is how many decisions below the root SetRoot looks for its position: a YINSH turn
// and the reply to it take up to 6.
const findDepth = 8

// find returns the first node, breadth first down to depth decisions, whose position is st,
// or -1. It uses s.paths as its queue (no leaf is in flight).
func (s *Search[S]) find(st S, depth int) int32 {
	queue := append(s.paths[:0], 0)
	for level, start := 0, 0; level <= depth && start < len(queue); level++ {
		end := len(queue)
		for _, i := range queue[start:end] {
			nd := s.t.at(i)
			if nd.state < 0 {
				continue
			}
			if s.t.states[nd.state] == st {
				s.paths = queue[:0]
				return i
			}
			for c := nd.first; nd.expanded() && c < nd.first+nd.count; c++ {
				queue = append(queue, c)
			}
		}
		start = end
	}
	s.paths = queue[:0]
	return -1
}

// Advance moves the root to the position after action a, keeping what the search knows of it
// (tree reuse). Call it with every action played, the opponent's and chance's included.
func (s *Search[S]) Advance(a env.Action) error {
	if len(s.leafNode) > 0 {
		return errors.New("mcts: Advance with leaves in flight: Apply them first")
	}
	root := s.t.at(0)
	if root.expanded() {
		for c := root.first; c < root.first+root.count; c++ {
			if s.t.at(c).action == a {
				if s.t.at(c).state < 0 {
					s.t.makeState(c, 0)
				}
				s.t.keep(c)
				s.newRoot()
				return nil
			}
		}
	} else {
		s.actions = s.Root().Legal(s.actions[:0])
		for _, b := range s.actions {
			if a == b {
				s.t.reset(s.Root().Play(a))
				s.newRoot()
				return nil
			}
		}
	}
	return fmt.Errorf("mcts: Advance(%s): not a legal action at the root", env.ActionString(s.Root(), a))
}

func (s *Search[S]) newRoot() {
	s.prepared, s.noised = false, false
	s.budget, s.started, s.done = 0, 0, 0
}

// Run searches from the root within budget, asking the oracle for every batch of leaves.
// It returns ctx's error if ctx is cancelled first (the tree stays usable).
func (s *Search[S]) Run(ctx context.Context, b Budget) error {
	sims := b.Simulations
	var deadline time.Time
	begin := now()
	timed := false
	if b.Time > 0 {
		deadline = begin.Add(b.Time)
		if sims <= 0 || sims == math.MaxInt {
			sims = math.MaxInt
			if s.p.Gumbel {
				// Sequential halving shares out a number of simulations: those the time
				// allows at the rate measured so far, planned again at each phase.
				timed, sims = true, s.timedBudget(b.Time)
			}
		}
	}
	s.ctx, s.deadline = ctx, deadline
	defer func() { s.ctx, s.deadline, s.timed = nil, time.Time{}, false }()
	if err := s.Start(sims); err != nil {
		return err
	}
	s.timed, s.timedFrom = timed, begin
	defer func() {
		if el := now().Sub(begin); s.done > 0 && el > 0 {
			s.rate = float64(s.done) / el.Seconds()
		}
	}()
	reported := 0
	for {
		if s.timed && s.done >= s.budget && len(s.leafNode) == 0 && now().Before(deadline) {
			s.extendTimed() // time is left: the last phase goes on
		}
		if s.Finished() {
			break
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if b.Progress != nil && s.done-reported >= progressEvery {
			reported = s.done
			b.Progress(s.done)
		}
		if len(s.helpers) > 0 && s.t.at(0).expanded() && len(s.leafNode) == 0 {
			// The root expanded, the helpers join in (parallel.go) for the rest.
			if err := s.runLanes(ctx, b, deadline, &reported); err != nil {
				return err
			}
			break
		}
		if leaves := s.Collect(); len(leaves) > 0 {
			n := len(leaves)
			if err := s.oracle.Evaluate(leaves, s.policy[:n*s.numActions], s.value[:n]); err != nil {
				s.dropLeaves()
				return err
			}
			if err := s.Apply(s.policy[:n*s.numActions], s.value[:n]); err != nil {
				return err
			}
		}
		// A search by time makes at least one simulation before it ends: a stopped search's
		// least answer (the engine's one simulation in a nanosecond) is a searched one (a
		// rollout's root is expanded before any simulation, and ended there it answered every
		// move unsearched), and a stream of searches whose root proofs were cut (the engine's
		// go infinite, which ends its slices on one that did nothing) goes on to resume them.
		if b.Time > 0 && s.t.at(0).expanded() && now().After(deadline) && s.done > 0 {
			break
		}
	}
	if b.Progress != nil {
		b.Progress(s.done)
	}
	return nil
}

// Start begins a search of sims simulations at the root, to be driven by Collect and Apply
// until Finished (Run does all three). A Gumbel root needs sims < math.MaxInt.
func (s *Search[S]) Start(sims int) error {
	if len(s.leafNode) > 0 {
		return errors.New("mcts: Start with leaves in flight: Apply them first")
	}
	switch s.t.at(0).toMove {
	case env.Terminal:
		return errors.New("mcts: the game is over at the root")
	case env.Chance:
		return errors.New("mcts: the root is a chance node: sample its outcome instead of searching")
	}
	if s.p.Gumbel && sims == math.MaxInt {
		return errors.New("mcts: a Gumbel root needs a budget in simulations")
	}
	s.budget, s.started, s.done = max(sims, 0), 0, 0
	s.prepared = false
	// The root is scanned once. Its proofs, if a search's end cut them short, are resumed
	// where they were cut by the next search of the position (a genmove after a stopped or
	// timed search, each slice of the engine's go infinite): slices shorter than the proofs
	// still see them through.
	if root := s.t.at(0); s.p.Solver && root.expanded() {
		switch {
		case !root.scanned:
			// A root brought up by tree reuse: the nodes now above ScanDepth that were
			// expanded deeper, unscanned, are scanned as a new tree's would have been.
			s.rescan(0, 0)
			s.scan(0)
		case s.t.proofsCut && s.p.RootProof > 0:
			s.resumeProofs()
		}
		s.mmStale = true // what the scans and proofs proved went up without minimax values
	}
	if s.mmStale && s.p.MinimaxWeight > 0 {
		s.recomputeMinimax()
	}
	s.mmStale = false
	return nil
}

// recomputeMinimax works out every node's minimax value again (Params.MinimaxWeight), children
// before parents (a child's index is above its parent's): after the solver's scans and proofs
// at Start, which prove nodes without backing anything up, and when the weight was off while
// the tree grew (SetParams).
func (s *Search[S]) recomputeMinimax() {
	for i := int32(s.t.len()) - 1; i >= 0; i-- {
		nd := s.t.at(i)
		if nd.state < 0 || nd.n == 0 && !nd.solved {
			continue
		}
		if v, known := s.childMinimax(nd); known {
			nd.mm, nd.hasMM = v, true
			continue
		}
		switch st := s.t.states[nd.state]; {
		case nd.hasMM || nd.solved:
		case nd.toMove == env.Terminal:
			nd.mm, nd.hasMM = float32(st.Result().Value(0)), true
		case nd.toMove != env.Chance && s.heuristic != nil:
			nd.mm, nd.hasMM = float32(s.heuristic(st)*sign(nd.toMove)), true
		}
	}
}

// Finished tells whether the search begun by Start has run its simulations (or filled the
// tree to Params.MaxNodes, or proved the root's value).
func (s *Search[S]) Finished() bool {
	root := s.t.at(0)
	return root.expanded() && len(s.leafNode) == 0 && (s.done >= s.budget || s.full() || root.solved)
}

func (s *Search[S]) full() bool { return s.t.len() >= s.p.MaxNodes }

// Simulations is the number of simulations done since Start.
func (s *Search[S]) Simulations() int { return s.done }

// maxDescents bounds the descents of one Collect.
const maxDescents = 1024

// Collect descends from the root to up to Params.InFlight leaves and returns their positions,
// for the caller to evaluate and pass to Apply before anything else is done with the search.
// Leaves that end the game (or that the cache values) are backed up at once and not returned,
// so Collect may return none while the search progresses; it returns after at most
// maxDescents descents, so that a search for a time, whose every descent may end the game (a
// small game's tree explored, with no solver), still hears its clock. The slice belongs to the
// search and is valid until Apply.
func (s *Search[S]) Collect() []S {
	if len(s.leafNode) > 0 {
		return s.leaves
	}
	s.leaves, s.leafNode, s.paths, s.pathEnd = s.leaves[:0], s.leafNode[:0], s.paths[:0], s.pathEnd[:0]
	if !s.t.at(0).expanded() {
		if s.fromCache(0, 0) {
			return s.leaves // the cache answered for the root: nothing to evaluate yet
		}
		s.commit(0)
		return s.leaves
	}
	if !s.prepared {
		s.prepareRoot()
	}
	// Descents that end at once (the end of the game, a proven node, the cache) while a leaf
	// waits take a place in flight too: they see the waiting leaf's path through its virtual
	// loss, so unchecked they would pour simulation after simulation into an instant sibling
	// (TestInstantDescentsWhileALeafWaits). With one leaf in flight nothing changes.
	waited := 0
	for d := 0; d < maxDescents && len(s.leafNode)+waited < s.p.InFlight && s.started < s.budget && !s.full() && !s.t.at(0).solved; d++ {
		if s.p.Gumbel && s.gumbel.barrier(s.started) {
			if s.t.at(0).inflight > 0 {
				break // halving needs the values of the phase's leaves in flight
			}
			if s.timed && s.gumbel.planned != s.started {
				s.replan()
			}
		}
		n := len(s.leafNode)
		if !s.descend() {
			break // a leaf already in flight: evaluate what we have first
		}
		if n > 0 && len(s.leafNode) == n {
			waited++
		}
	}
	return s.leaves
}

// descend walks from the root to a leaf, choosing children by the rule at players' decisions
// and outcomes at chance nodes. It backs up a terminal leaf at once, puts another in flight,
// and reports false if it reached a leaf already in flight (nothing is changed then).
func (s *Search[S]) descend() bool {
	start := len(s.paths)
	s.paths = append(s.paths, 0)
	t := &s.t
	i := int32(0)
	for {
		nd := t.at(i)
		var c int32
		switch {
		case nd.solved && i != 0:
			// A proven node (the solver's) gives its value at once, as the end of the game does.
			s.finishDescent(start, float64(nd.proven), false)
			return true
		case nd.toMove == env.Terminal:
			v := float64(t.states[nd.state].Result().Value(0))
			if s.p.Solver {
				nd.solve(v, 0)
			}
			s.finishDescent(start, v, s.p.Solver)
			return true
		case nd.toMove == env.Chance:
			if !nd.expanded() {
				s.expandChance(i)
			}
			c = s.selectOutcome(i)
		case !nd.expanded():
			if nd.pending {
				s.paths = s.paths[:start]
				return false
			}
			if s.p.Solver && s.solveLeaf(i) {
				s.finishDescent(start, float64(nd.proven), true)
				return true
			}
			if s.fromCache(i, start) {
				s.started++
				return true
			}
			s.commit(i)
			s.started++
			return true
		case i == 0 && s.p.Gumbel:
			c = s.gumbelSelect()
		case s.p.Gumbel && s.p.GumbelInterior:
			c = s.improvedSelect(i)
		default:
			c = s.selectChild(i)
		}
		if t.at(c).state < 0 {
			t.makeState(c, i)
		}
		s.paths = append(s.paths, c)
		i = c
	}
}

// finishDescent ends the descent whose path starts at s.paths[start] on a node whose value v
// is known without the oracle (the end of the game, or a proven node), backing v up at once;
// proved tells that the node has just been proven, so that the nodes above may be. The proofs
// come first: a chance node's value, worked out again as v goes up, reads its outcomes' proven
// values.
func (s *Search[S]) finishDescent(start int, v float64, proved bool) {
	path := s.paths[start:]
	s.countRootChild(path, 1)
	if proved {
		s.propagate(path)
	}
	s.backup(path, v, false)
	if s.p.MinimaxWeight > 0 {
		leaf := s.t.at(path[len(path)-1])
		leaf.mm, leaf.hasMM = float32(v), true
		s.backupMinimax(path)
	}
	s.paths = s.paths[:start]
	s.started++
	s.done++
}

// fromCache expands leaf i, reached by the path from s.paths[start] on (the root alone for
// i = 0), with the cache's answer if it has one, and backs its value up.
func (s *Search[S]) fromCache(i int32, start int) bool {
	if s.cache == nil {
		return false
	}
	pairs, v, ok := s.cache.answer(s.t.states[s.t.at(i).state])
	if !ok {
		return false
	}
	if i == 0 {
		s.paths = append(s.paths[:start], 0)
	}
	path := s.paths[start:]
	s.countRootChild(path, 1)
	// The cache holds only answers expand took: it cannot fail on them. Its pairs are the
	// leaf's legal actions, in order, with their logits: expand takes them as they are.
	s.hit = pairs
	err := s.settle(i, path, nil, float64(v), false, false)
	s.hit = nil
	if err != nil {
		panic("mcts: a cached answer refused: " + err.Error())
	}
	s.paths = s.paths[:start]
	return true
}

// commit puts leaf i, reached by the path at the end of s.paths, in flight.
func (s *Search[S]) commit(i int32) {
	if i == 0 {
		s.paths = append(s.paths[:0], 0)
	}
	start := int32(0)
	if len(s.pathEnd) > 0 {
		start = s.pathEnd[len(s.pathEnd)-1]
	}
	path := s.paths[start:]
	for _, j := range path {
		s.t.at(j).inflight++
	}
	s.countRootChild(path, 1)
	s.t.at(i).pending = true
	s.leaves = append(s.leaves, s.t.states[s.t.at(i).state])
	s.leafNode = append(s.leafNode, i)
	s.pathEnd = append(s.pathEnd, int32(len(s.paths)))
}

// countRootChild counts a simulation down path for the Gumbel root's sequential halving.
func (s *Search[S]) countRootChild(path []int32, d int32) {
	if s.p.Gumbel && s.prepared && len(path) > 1 {
		s.gumbel.local[path[1]-s.t.at(0).first] += d
	}
}

// Apply expands the leaves returned by Collect with the oracle's answers (laid out as
// Oracle.Evaluate writes them) and backs their values up. On an error (a value or the logits
// of a leaf's legal actions not finite) the leaves are dropped and the tree is left as it was
// before Collect, except for the leaves before the faulty one.
func (s *Search[S]) Apply(policy, value []float32) error {
	n := len(s.leafNode)
	if len(policy) < n*s.numActions || len(value) < n {
		s.dropLeaves()
		return fmt.Errorf("mcts: Apply: %d leaves need %d logits and %d values, got %d and %d",
			n, n*s.numActions, n, len(policy), len(value))
	}
	for j := 0; j < n; j++ {
		i := s.leafNode[j]
		s.applying = j
		v := float64(value[j])
		if math.IsNaN(v) || math.IsInf(v, 0) {
			s.dropFrom(j)
			return fmt.Errorf("mcts: the oracle valued %q at %v", s.leafText(i), v)
		}
		v = min(max(v, -1), 1)
		start := int32(0)
		if j > 0 {
			start = s.pathEnd[j-1]
		}
		if err := s.settle(i, s.paths[start:s.pathEnd[j]], policy[j*s.numActions:(j+1)*s.numActions], v, true, true); err != nil {
			s.dropFrom(j)
			return err
		}
	}
	s.clearLeaves()
	return nil
}

// settle expands leaf i with an answer (the logits, and the value v from the leaf's decider's
// view) and backs v up along path, the leaf last; inflight tells that the leaf was in flight,
// store that the answer is the oracle's, to be remembered. Nothing changes on an error.
func (s *Search[S]) settle(i int32, path []int32, logits []float32, v float64, inflight, store bool) error {
	if err := s.expand(i, logits); err != nil {
		return err
	}
	if store && s.cache != nil {
		s.cache.Store(s.t.states[s.t.at(i).state], s.expanded, s.expandedPriors, float32(v))
	}
	v0 := v * sign(s.t.at(i).toMove)
	if s.heuristic != nil && (s.p.MinimaxWeight > 0 || s.p.HeuristicWeight > 0) {
		h := s.heuristic(s.t.states[s.t.at(i).state]) * sign(s.t.at(i).toMove)
		if lam := s.p.HeuristicWeight; lam > 0 {
			v0 = (1-lam)*v0 + lam*h
		}
		s.t.at(i).mm, s.t.at(i).hasMM = float32(h), true
	}
	s.t.at(i).value = float32(v0)
	s.t.at(i).pending = false
	if s.p.Solver && len(path)-1 < s.p.ScanDepth {
		// The solver looks at the new node's children; what it proves goes up first, so that
		// the chance nodes above read it as v goes up.
		if s.scan(i); s.t.at(i).solved {
			s.propagate(path)
		}
	}
	s.backup(path, v0, inflight)
	if s.p.MinimaxWeight > 0 {
		s.backupMinimax(path)
	}
	if i != 0 {
		s.done++
	}
	return nil
}

// checkHeuristic refuses parameters that need the game's heuristic when it has none.
func (s *Search[S]) checkHeuristic(p Params) error {
	if s.heuristic != nil {
		return nil
	}
	switch {
	case p.MinimaxWeight > 0:
		return &ParamError{Key: "minimax_weight", Value: p.MinimaxWeight, Want: "0: the game has no static evaluation (env.Heuristic)"}
	case p.HeuristicWeight > 0:
		return &ParamError{Key: "heuristic_weight", Value: p.HeuristicWeight, Want: "0: the game has no static evaluation (env.Heuristic)"}
	}
	return nil
}

// backupMinimax brings the minimax values of path's nodes up to date after its last node's
// (Params.MinimaxWeight): each expanded node takes the best of its children's known values for
// its decider (a chance node their probability-weighted mean), a leaf keeps its own, and the
// walk stops at the first node above the leaf that it leaves unchanged.
func (s *Search[S]) backupMinimax(path []int32) {
	for k := len(path) - 1; k >= 0; k-- {
		nd := s.t.at(path[k])
		v, known := s.childMinimax(nd)
		if !known {
			if k == len(path)-1 {
				continue // a leaf, or a node none of whose children is valued yet
			}
			return
		}
		if k < len(path)-1 && nd.hasMM && nd.mm == v {
			return
		}
		nd.mm, nd.hasMM = v, true
	}
}

// childMinimax is the minimax value of expanded node nd from its children's known values, and
// whether any is known.
func (s *Search[S]) childMinimax(nd *node) (float32, bool) {
	if !nd.expanded() {
		return 0, false
	}
	children := s.t.slice(nd.first, nd.first+nd.count)
	if nd.toMove == env.Chance {
		sum, mass := 0.0, 0.0
		for c := range children {
			if ch := &children[c]; ch.hasMM || ch.solved {
				sum += float64(ch.prior) * ch.minimax()
				mass += float64(ch.prior)
			}
		}
		if mass == 0 {
			return 0, false
		}
		return float32(sum / mass), true
	}
	sg, best, known := sign(nd.toMove), math.Inf(-1), false
	for c := range children {
		if ch := &children[c]; ch.hasMM || ch.solved {
			best, known = max(best, sg*ch.minimax()), true
		}
	}
	return float32(sg * best), known
}

func (s *Search[S]) leafText(i int32) string {
	return s.t.states[s.t.at(i).state].String()
}

// dropLeaves forgets the leaves in flight, taking their virtual losses back.
func (s *Search[S]) dropLeaves() { s.dropFrom(0) }

func (s *Search[S]) dropFrom(j int) {
	for ; j < len(s.leafNode); j++ {
		start := int32(0)
		if j > 0 {
			start = s.pathEnd[j-1]
		}
		for _, k := range s.paths[start:s.pathEnd[j]] {
			s.t.at(k).inflight--
			s.t.at(k).ordered = false // a visit undone: the visited children may not lead now
		}
		s.countRootChild(s.paths[start:s.pathEnd[j]], -1)
		s.t.at(s.leafNode[j]).pending = false
		if s.leafNode[j] != 0 {
			s.started--
		}
	}
	s.clearLeaves()
}

func (s *Search[S]) clearLeaves() {
	clear(s.leaves) // states may be large: let them go (they hold no pointers, but be tidy)
	s.leaves, s.leafNode, s.paths, s.pathEnd = s.leaves[:0], s.leafNode[:0], s.paths[:0], s.pathEnd[:0]
}

// expand gives decision node i its children, one per legal action, with priors from a softmax
// of the logits over the legal actions.
func (s *Search[S]) expand(i int32, logits []float32) error {
	t := &s.t
	var acts []env.Action
	var priors []float32
	var err error
	switch l := s.pre; {
	case s.hit != nil:
		// The cache's answer: the legal actions and priors without working them out again.
		s.actions, s.priors = cachedPriors(s.hit, s.actions, s.priors)
		acts, priors = s.actions, s.priors
	case l != nil:
		// A lane's leaf, whose actions and priors were worked out without the lock.
		acts, priors, err = l.expansion(s.applying)
	default:
		s.actions, s.priors, err = legalPriors(t.states[t.at(i).state], logits, s.actions, s.priors)
		acts, priors = s.actions, s.priors
	}
	if err != nil {
		return err
	}
	children := t.addChildren(i, len(acts))
	if i == 0 {
		// The root chooses by other rules than selectChild's order (order.go): its children
		// are in the legal actions' order.
		for k := range children {
			children[k] = newChild(acts[k], priors[k])
		}
	} else {
		s.orderedChildren(t.at(i), children, acts, priors)
	}
	s.expanded, s.expandedPriors = acts, priors
	return nil
}

// cachedPriors returns the actions of the cache's pairs and their priors, which legalPriors
// worked out when the answer was stored, in the buffers acts and priors (emptied first).
func cachedPriors(pairs []cachePair, acts []env.Action, priors []float32) ([]env.Action, []float32) {
	acts, priors = acts[:0], priors[:0]
	for _, p := range pairs {
		acts, priors = append(acts, p.action), append(priors, p.prior)
	}
	return acts, priors
}

// legalPriors returns st's legal actions and their priors, a softmax of the logits over the
// legal actions, in the buffers acts and priors (emptied first). It refuses a logit that is NaN
// or +Inf, or all -Inf.
func legalPriors[S env.State[S]](st S, logits []float32, acts []env.Action, priors []float32) ([]env.Action, []float32, error) {
	acts, priors = st.Legal(acts[:0]), priors[:0]
	hi := math.Inf(-1)
	for _, a := range acts {
		l := float64(logits[a])
		if math.IsNaN(l) || math.IsInf(l, 1) {
			return acts, priors, fmt.Errorf("mcts: the oracle gave %q the logit %v at %q", env.ActionString(st, a), l, st.String())
		}
		hi = max(hi, l)
	}
	if math.IsInf(hi, -1) {
		return acts, priors, fmt.Errorf("mcts: the oracle gave every legal action a logit of -Inf at %q", st.String())
	}
	sum := 0.0
	for _, a := range acts {
		e := 1.0 // the most likely actions, and every action of a uniform policy
		if d := float64(logits[a]) - hi; d != 0 {
			e = math.Exp(d)
		}
		priors = append(priors, float32(e))
		sum += e
	}
	for k := range priors {
		priors[k] = float32(float64(priors[k]) / sum)
	}
	return acts, priors, nil
}

// expandChance gives chance node i one child per outcome, with its probability as prior.
func (s *Search[S]) expandChance(i int32) {
	t := &s.t
	s.outcomes = t.states[t.at(i).state].Chances(s.outcomes[:0])
	children := t.addChildren(i, len(s.outcomes))
	for k, o := range s.outcomes {
		children[k] = newChild(o.Action, float32(o.Prob))
	}
}

// backup adds value v (player 0's view) to the nodes of path, leaf last. A chance node takes
// instead the probability-weighted mean of its visited outcomes, which its children already
// hold since the walk goes up from the leaf.
func (s *Search[S]) backup(path []int32, v float64, inflight bool) {
	for k := len(path) - 1; k >= 0; k-- {
		nd := s.t.at(path[k])
		if inflight {
			nd.inflight--
		}
		nd.n++
		if nd.toMove == env.Chance {
			nd.w = float64(nd.n) * s.chanceMean(nd)
		} else {
			nd.w += v
		}
	}
}

// chanceMean is the value of a chance node: the mean of its visited outcomes' values, each
// weighted by its probability, over the probability of the visited outcomes.
func (s *Search[S]) chanceMean(nd *node) float64 {
	sum, mass := 0.0, 0.0
	for _, c := range s.t.slice(nd.first, nd.first+nd.count) {
		if c.n > 0 || c.solved {
			p := float64(c.prior)
			sum += p * c.mean()
			mass += p
		}
	}
	if mass == 0 {
		return 0
	}
	return sum / mass
}

// selectChild picks the child to descend to at decision node i by the rule.
func (s *Search[S]) selectChild(i int32) int32 {
	nd := s.t.at(i)
	sg := sign(nd.toMove)
	children := s.t.slice(nd.first, nd.first+nd.count)
	parentN := float64(nd.n + nd.inflight)
	best, bestK := math.Inf(-1), -1
	if s.p.Rule == UCB1 {
		nd.ordered = false // UCB1 visits in the children's order, not the priors'
		logN := math.Log(max(parentN, 1))
		for k := range children {
			ch := &children[k]
			if ch.lostFor(sg) {
				continue // the solver's: never worth a visit while anything else is left
			}
			visits := float64(ch.n + ch.inflight)
			if visits == 0 {
				return nd.first + int32(k)
			}
			u := s.childQ(ch, sg, visits) + s.p.UCBC*math.Sqrt(logN/visits)
			if u > best {
				best, bestK = u, k
			}
		}
		return nd.first + int32(max(bestK, 0))
	}
	c := s.p.CPuct
	if s.p.CPuctBase > 0 {
		c += math.Log((1 + parentN + s.p.CPuctBase) / s.p.CPuctBase)
	}
	cs := c * math.Sqrt(parentN)
	visitedPrior := 0.0
	unvisited, unvisitedPrior := -1, float32(-1)
	// In a node in order (order.go) the first unvisited child is the best unvisited one, and
	// every child after it is unvisited: the scan stops there.
	ordered := nd.ordered
	for k := range children {
		if ordered && int32(k) == nd.sorted {
			s.extendOrder(nd, children) // every child in order visited: order the next ones
		}
		ch := &children[k]
		if ch.lostFor(sg) {
			continue // the solver's: never worth a visit while anything else is left
		}
		visits := float64(ch.n + ch.inflight)
		if visits == 0 && !ch.solved {
			if ch.prior > unvisitedPrior {
				unvisited, unvisitedPrior = k, ch.prior
			}
			if ordered {
				break
			}
			continue
		}
		p := float64(ch.prior)
		visitedPrior += p
		u := s.childQ(ch, sg, visits) + cs*p/(1+visits)
		if u > best {
			best, bestK = u, k
		}
	}
	if unvisited >= 0 {
		fpu := sg*nd.w/float64(max(nd.n, 1)) - s.p.FPUReduction*math.Sqrt(visitedPrior)
		if u := fpu + cs*float64(unvisitedPrior); u > best || bestK < 0 {
			bestK = unvisited
		}
	}
	return nd.first + int32(max(bestK, 0))
}

// childQ is child ch's value for the decider of sign sg, with its virtual losses: the proven value
// of a proven child, else the mean of its visits (visits > 0, those in flight included).
func (s *Search[S]) childQ(ch *node, sg, visits float64) float64 {
	if ch.solved {
		return sg * float64(ch.proven)
	}
	q := (sg*ch.w - s.p.VirtualLoss*float64(ch.inflight)) / visits
	if a := s.p.MinimaxWeight; a > 0 && ch.hasMM {
		q = (1-a)*q + a*sg*float64(ch.mm)
	}
	return q
}

// selectOutcome picks the outcome to descend to at chance node i: drawn by probability, or
// the one furthest below its share of the visits.
func (s *Search[S]) selectOutcome(i int32) int32 {
	nd := s.t.at(i)
	children := s.t.slice(nd.first, nd.first+nd.count)
	if s.p.SampleChance {
		u := s.rng.Float64()
		for k := range children {
			p := float64(children[k].prior)
			if u < p {
				return nd.first + int32(k)
			}
			u -= p
		}
		return nd.first + nd.count - 1
	}
	total := 1.0
	for k := range children {
		total += float64(children[k].n + children[k].inflight)
	}
	best, bestK := math.Inf(-1), 0
	for k := range children {
		if d := float64(children[k].prior)*total - float64(children[k].n+children[k].inflight); d > best {
			best, bestK = d, k
		}
	}
	return nd.first + int32(bestK)
}

// prepareRoot draws what the root needs once per search: Gumbel's sample, or Dirichlet noise
// (once per root).
func (s *Search[S]) prepareRoot() {
	s.prepared = true
	if s.p.Gumbel {
		s.prepareGumbel()
		return
	}
	if s.noised || s.p.DirichletAlpha <= 0 || s.p.NoiseFraction <= 0 {
		return
	}
	s.noised = true
	root := s.t.at(0)
	children := s.t.slice(root.first, root.first+root.count)
	sum := 0.0
	s.gumbel.scratch = s.gumbel.scratch[:0]
	for range children {
		x := gammaRand(s.rng, s.p.DirichletAlpha)
		s.gumbel.scratch = append(s.gumbel.scratch, x)
		sum += x
	}
	if !(sum > 0) {
		return
	}
	eps := s.p.NoiseFraction
	for k := range children {
		children[k].prior = float32((1-eps)*float64(children[k].prior) + eps*s.gumbel.scratch[k]/sum)
	}
}
