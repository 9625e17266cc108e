package mcts

import (
	"fmt"
	"math/rand/v2"

	"github.com/zerogames/zero/env"
)

// Oracle gives the search the prior policy and the value of leaf positions, a batch at a time.
//
// Evaluate receives n = len(leaves) positions, none terminal and none a chance node, and
// writes for leaf i the policy logits of every action of the game's action space into
// policy[i·NumActions : (i+1)·NumActions] and the value into value[i]. The search reads the
// logits of the legal actions only (a softmax over them gives the priors), so illegal entries
// may hold anything. Values are in [-1, 1], from the point of view of the player to decide at
// the leaf. Both buffers belong to the caller, and leaves is only valid during the call.
//
// An oracle serves one search at a time (the baselines keep scratch state); searches that share
// a network do so through an Evaluator behind a batcher.
type Oracle[S env.State[S]] interface {
	Evaluate(leaves []S, policy, value []float32) error
}

// Evaluator is the network's side of the search: it maps observations to policy logits and
// values, knowing nothing of the game's state type. Evaluate reads n = len(value) observations
// laid one after another in obs (Info.Observation.Size() values each) and writes, as an
// Oracle does, n·NumActions logits into policy and n values into value. Every buffer belongs to
// the caller. Observe makes an Oracle of it.
type Evaluator interface {
	Evaluate(obs, policy, value []float32) error
}

// ActionEvaluator is an Evaluator that can also work out the logits of given actions only,
// which costs far less where the policy head has many more outputs than a position has legal
// actions (Gygès: 48,006 for some 600). EvaluateActions reads n = len(value) observations as
// Evaluate does; position i's actions are legal[ends[i-1]:ends[i]] (from 0 for i = 0), and
// their logits go to the same places of logits.
type ActionEvaluator interface {
	Evaluator
	EvaluateActions(obs []float32, legal []env.Action, ends []int32, logits, value []float32) error
}

// LegalScratch holds the legal actions of a batch of positions, and their logits, for an
// ActionEvaluator; its slices grow to the largest batch and are kept.
type LegalScratch struct {
	Legal  []env.Action
	Ends   []int32
	Logits []float32
}

// EvaluateLegal evaluates leaves, observed in obs, with e: through EvaluateActions where e
// has it (each leaf's legal actions listed, their logits written into policy at
// i·numActions + a, the rest of policy left as it was), else through Evaluate. The search
// reads the legal actions' logits only (Oracle).
func EvaluateLegal[S env.State[S]](e Evaluator, sc *LegalScratch, leaves []S, obs []float32, numActions int, policy, value []float32) error {
	ae, ok := e.(ActionEvaluator)
	if !ok {
		return e.Evaluate(obs, policy, value)
	}
	sc.Legal, sc.Ends = sc.Legal[:0], sc.Ends[:0]
	for _, s := range leaves {
		sc.Legal = s.Legal(sc.Legal)
		sc.Ends = append(sc.Ends, int32(len(sc.Legal)))
	}
	if cap(sc.Logits) < len(sc.Legal) {
		sc.Logits = make([]float32, len(sc.Legal), 2*len(sc.Legal))
	}
	sc.Logits = sc.Logits[:len(sc.Legal)]
	if err := ae.EvaluateActions(obs, sc.Legal, sc.Ends, sc.Logits, value); err != nil {
		return err
	}
	start := int32(0)
	for i, end := range sc.Ends {
		p := policy[i*numActions : (i+1)*numActions]
		for j := start; j < end; j++ {
			p[sc.Legal[j]] = sc.Logits[j]
		}
		start = end
	}
	return nil
}

// Uniform is the oracle that knows nothing: equal priors and a value of 0 (a draw). Searching
// with it measures the search alone, and it finds what the rules decide within its horizon.
type Uniform[S env.State[S]] struct{}

// Evaluate writes zero logits and zero values.
func (Uniform[S]) Evaluate(leaves []S, policy, value []float32) error {
	clear(policy)
	clear(value[:len(leaves)])
	return nil
}

// Rollout is the oracle of classic Monte Carlo tree search: equal priors, and as value the
// result of random games played from the leaf to the end (uniform among legal actions,
// chance by its probabilities), averaged over Playouts games.
type Rollout[S env.State[S]] struct {
	pcg      *rand.PCG
	walker   *env.Walker[S]
	playouts int
}

// rolloutStream is the second word of the rollouts' PCG seed.
const rolloutStream = 0x5eed_0f_7011

// NewRollout returns a rollout oracle for g drawing from a generator seeded by seed, playing
// playouts random games per leaf (at least 1).
func NewRollout[S env.State[S]](g env.Game[S], seed uint64, playouts int) *Rollout[S] {
	pcg := rand.NewPCG(seed, rolloutStream)
	return &Rollout[S]{
		pcg:      pcg,
		walker:   env.NewGameWalker(g, rand.New(pcg)),
		playouts: max(playouts, 1),
	}
}

// Seed reseeds the rollouts' generator, as if the oracle had been made with seed.
func (r *Rollout[S]) Seed(seed uint64) { r.pcg.Seed(seed, rolloutStream) }

// Evaluate plays the random games.
func (r *Rollout[S]) Evaluate(leaves []S, policy, value []float32) error {
	clear(policy)
	for i, s := range leaves {
		me := s.ToMove()
		sum := float32(0)
		for range r.playouts {
			end, _ := r.walker.Playout(s)
			sum += end.Result().Value(me)
		}
		value[i] = sum / float32(r.playouts)
	}
	return nil
}

// Observer is the Oracle of an Evaluator: it writes the leaves' observations into a buffer it
// owns and passes them on. It serves one search at a time.
type Observer[S env.State[S]] struct {
	shape      env.Shape
	e          Evaluator
	obs        []float32
	legal      LegalScratch
	numActions int
}

// Observe returns the oracle that asks e about observations of g's states.
func Observe[S env.State[S]](g env.Game[S], e Evaluator) *Observer[S] {
	return &Observer[S]{shape: g.Info().Observation, e: e, numActions: g.Info().NumActions}
}

// Evaluate observes the leaves and evaluates them with the Evaluator.
func (o *Observer[S]) Evaluate(leaves []S, policy, value []float32) error {
	size := o.shape.Size()
	if need := len(leaves) * size; cap(o.obs) < need {
		o.obs = make([]float32, need)
	}
	o.obs = o.obs[:len(leaves)*size]
	for i, s := range leaves {
		s.Observe(o.obs[i*size : (i+1)*size])
	}
	return EvaluateLegal(o.e, &o.legal, leaves, o.obs, o.numActions, policy, value[:len(leaves)])
}

// Symmetric is the oracle that asks another about each leaf turned by several of the game's
// symmetries and answers their mean: the mean of the values, and for each action the mean of
// the logits the other gave its image (a geometric mean of the priors, up to their
// normalisation). A network trained on positions turned by random symmetries (as the trainer
// turns its samples) is equivariant only roughly; the mean of its answers is an ensemble of
// them, at the cost of as many evaluations a leaf. The inner oracle sees n·K leaves a batch.
type Symmetric[S env.State[S]] struct {
	inner      Oracle[S]
	numActions int
	// images[j][a] is action a under symmetry j (j < K): the action of the turned leaf whose
	// logit belongs to a.
	images [][]env.Action
	leaves []S
	policy []float32
	value  []float32
}

// NewSymmetric returns the oracle that asks inner about each leaf turned by the first k
// symmetries of g (the identity first; k from 1 to g.Info().Symmetries).
func NewSymmetric[S env.State[S]](g env.Game[S], inner Oracle[S], k int) (*Symmetric[S], error) {
	info := g.Info()
	if k < 1 || k > info.Symmetries {
		return nil, fmt.Errorf("mcts: %d symmetries asked of %s, which has %d (the identity counted)", k, info.Name, info.Symmetries)
	}
	o := &Symmetric[S]{inner: inner, numActions: info.NumActions, images: make([][]env.Action, k)}
	for j := range k {
		o.images[j] = make([]env.Action, info.NumActions)
		for a := range info.NumActions {
			o.images[j][a] = g.MapAction(j, env.Action(a))
		}
	}
	return o, nil
}

// Evaluate asks the inner oracle about every leaf in every symmetry, at once, and averages.
func (o *Symmetric[S]) Evaluate(leaves []S, policy, value []float32) error {
	k, na := len(o.images), o.numActions
	m := len(leaves) * k
	o.leaves = o.leaves[:0]
	for _, s := range leaves {
		for j := range k {
			o.leaves = append(o.leaves, s.Symmetry(j))
		}
	}
	if cap(o.policy) < m*na {
		o.policy = make([]float32, m*na)
		o.value = make([]float32, m)
	}
	o.policy, o.value = o.policy[:m*na], o.value[:m]
	err := o.inner.Evaluate(o.leaves, o.policy, o.value)
	clear(o.leaves) // let the states go
	if err != nil {
		return err
	}
	scale := 1 / float32(k)
	for i := range leaves {
		dst := policy[i*na : (i+1)*na]
		clear(dst)
		v := float32(0)
		for j, image := range o.images {
			src := o.policy[(i*k+j)*na : (i*k+j+1)*na]
			for a, b := range image {
				dst[a] += src[b]
			}
			v += o.value[i*k+j]
		}
		for a := range dst {
			dst[a] *= scale
		}
		value[i] = v * scale
	}
	return nil
}
