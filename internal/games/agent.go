package games

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/mcts"
	"github.com/zerogames/zero/selfplay"
)

// Agent chooses moves for a Position: the opponent in `zero play` and `zero serve`, and the
// player behind the engine's genmove. It is the text-level face of a search; the players
// themselves are built by the game's generic code (NewAgent).
type Agent interface {
	// Spec is the agent's spec string, as given to NewAgent ("random", "uct:1000", …).
	Spec() string
	// Analyze searches pos, which must not be over, and returns its moves ranked, the best
	// first. progress, if not nil, is called from time to time with the work done and the
	// work planned (simulations). A cancelled ctx stops the search early with what it has.
	Analyze(ctx context.Context, pos *Position, progress func(done, total int)) (Analysis, error)
}

// Limiter is implemented by agents whose work can be set (the searches of NewAgent): the
// engine's go visits and go time.
type Limiter interface {
	// Limit sets the work of the following analyses: simulations (0: the spec's N) and a cap
	// on the time of each (0: none). Agents that do not search ignore it.
	Limit(simulations int, time time.Duration)
}

// Analysis is what an agent thinks of a position.
type Analysis struct {
	Moves []MoveStat // the moves considered, the chosen one first
	// Value is the expected result for the player to decide, in [-1, 1] (0 where the agent
	// has no opinion, as random).
	Value float64
	// Work is the simulations (or playouts) spent.
	Work int
}

// MoveStat is one move of an analysis.
type MoveStat struct {
	Move  string
	Share float64 // the share of the search spent on it (the policy), in [0, 1]
	// WinProb is the chance of winning after it for the player to decide, (value+1)/2, or -1
	// when unknown.
	WinProb float64
}

// Best is the move the agent chooses.
func (a Analysis) Best() string { return a.Moves[0].Move }

// agentImpl is an agent on typed states.
type agentImpl[S env.State[S]] interface {
	analyze(ctx context.Context, s S, progress func(done, total int)) (Analysis, error)
	limit(simulations int, time time.Duration)
}

// NewAgent builds an agent from its spec string (see selfplay.Spec): "random" (uniform among
// the legal moves), "uct:N" (tree search with random playouts, N simulations; "ucb1:N" with
// classic UCT's selection), "ab:D" (alpha-beta to D turns; "ab:D:TIME" capped at TIME a move),
// "mcts:N:CHECKPOINT" (N simulations of PUCT guided by the network of a checkpoint file).
// Every agent draws chance outcomes by their probabilities.
func (e generic[S]) NewAgent(spec string, seed uint64) (Agent, error) {
	switch kind, _, _ := strings.Cut(spec, ":"); kind {
	case "random", "uct", "ucb1", "ab", "mcts":
	default:
		return nil, fmt.Errorf("unknown agent %q (known: random, uct:N, ucb1:N, ab:D, ab:D:TIME, mcts:N:CHECKPOINT)", spec)
	}
	sp, err := selfplay.ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	if sp.Kind == "random" {
		return &agent[S]{spec: spec, g: e.g, impl: &randomAgent[S]{rng: rng}}, nil
	}
	p, err := selfplay.NewPlayer(e.g, sp, Checkpoints{})
	if err != nil {
		return nil, err
	}
	if ab, ok := p.(*selfplay.AlphaBetaPlayer[S]); ok {
		ab.NewGame(e.g.New(), seed)
		return &agent[S]{spec: spec, g: e.g, impl: &abAgent[S]{p: ab, rng: rng, cap: sp.Time}}, nil
	}
	searcher, ok := p.(*selfplay.Searcher[S])
	if !ok {
		return nil, fmt.Errorf("agent %q: not a search", spec)
	}
	searcher.NewGame(e.g.New(), seed)
	return &agent[S]{spec: spec, g: e.g, impl: &searchAgent[S]{p: searcher, rng: rng, budget: searcher.Budget, numActions: e.g.Info().NumActions}}, nil
}

type agent[S env.State[S]] struct {
	spec string
	g    env.Game[S]
	impl agentImpl[S]
}

func (a *agent[S]) Spec() string { return a.spec }

func (a *agent[S]) Analyze(ctx context.Context, pos *Position, progress func(done, total int)) (Analysis, error) {
	h, ok := pos.impl.(*history[S])
	if !ok || h.g.Info().Name != a.g.Info().Name {
		return Analysis{}, fmt.Errorf("agent for %s given a position of %s", a.g.Info().Name, pos.Info().Name)
	}
	if pos.Over() {
		return Analysis{}, fmt.Errorf("the game is over")
	}
	return a.impl.analyze(ctx, h.current(), progress)
}

func (a *agent[S]) Limit(simulations int, time time.Duration) { a.impl.limit(simulations, time) }

type randomAgent[S env.State[S]] struct{ rng *rand.Rand }

func (r *randomAgent[S]) limit(int, time.Duration) {}

func (r *randomAgent[S]) analyze(_ context.Context, s S, _ func(int, int)) (Analysis, error) {
	w := env.Walker[S]{Rng: r.rng}
	a := w.Step(s)
	an := Analysis{Moves: []MoveStat{{Move: env.ActionString(s, a), Share: 1, WinProb: -1}}}
	return an, nil
}

// searchAgent is a tree search (selfplay.Searcher) seen through positions. Its tree is kept
// from one analysis to the next when the new position lies a few decisions below the old one.
type searchAgent[S env.State[S]] struct {
	p          *selfplay.Searcher[S]
	numActions int
	policy     []float32
	rng        *rand.Rand
	budget     mcts.Budget // the spec's
	limits     mcts.Budget // Limit's, where set
}

func (a *searchAgent[S]) limit(simulations int, cap time.Duration) {
	a.limits = mcts.Budget{Simulations: simulations, Time: cap}
}

func (a *searchAgent[S]) analyze(ctx context.Context, s S, progress func(done, total int)) (Analysis, error) {
	if s.ToMove() == env.Chance {
		// Chance is not searched: its outcome is drawn by its probability.
		outcomes := s.Chances(nil)
		o := env.SampleOutcome(outcomes, a.rng.Float64())
		for _, c := range outcomes {
			if c.Action == o {
				return Analysis{Moves: []MoveStat{{Move: env.ActionString(s, o), Share: c.Prob, WinProb: -1}}}, nil
			}
		}
	}
	b := a.budget
	if a.limits.Simulations > 0 {
		b.Simulations = a.limits.Simulations
	}
	b.Time = a.limits.Time
	if progress != nil {
		total := b.Simulations
		b.Progress = func(done int) { progress(done, total) }
	}
	search := a.p.Search()
	search.SetRoot(s)
	if err := search.Run(ctx, b); err != nil && (ctx.Err() == nil || search.Visits() == 0) {
		return Analysis{}, err
	}
	best, err := search.Choose(0)
	if err != nil {
		return Analysis{}, err
	}
	children := search.Children(nil)
	if cap(a.policy) < len(children) {
		a.policy = make([]float32, a.numActions)
	}
	a.policy = a.policy[:a.numActions]
	search.Policy(a.policy) // the visits' shares, or the solver's proven choice
	total := 0.0
	for _, c := range children {
		total += float64(a.policy[c.Action])
	}
	slices.SortStableFunc(children, func(x, y mcts.Child) int {
		switch {
		case x.Action == best:
			return -1
		case y.Action == best:
			return 1
		}
		return cmp.Or(cmp.Compare(y.Visits, x.Visits), cmp.Compare(y.Prior, x.Prior))
	})
	an := Analysis{Value: search.Value(), Work: search.Simulations()}
	for _, c := range children {
		m := MoveStat{Move: env.ActionString(s, c.Action), WinProb: -1}
		if total > 0 {
			m.Share = float64(a.policy[c.Action]) / total
		}
		if c.Visits > 0 || c.Proven {
			m.WinProb = (c.Q + 1) / 2
		}
		an.Moves = append(an.Moves, m)
	}
	return an, nil
}

// abAgent is an alpha-beta search (selfplay.AlphaBetaPlayer) seen through positions.
type abAgent[S env.State[S]] struct {
	p   *selfplay.AlphaBetaPlayer[S]
	rng *rand.Rand
	cap time.Duration // the spec's
}

// limit sets the time cap of the searches (0: the spec's); an alpha-beta search is bounded by
// its depth, not by simulations.
func (a *abAgent[S]) limit(_ int, cap time.Duration) {
	if cap <= 0 {
		cap = a.cap
	}
	a.p.AB.Limit(0, cap)
}

func (a *abAgent[S]) analyze(ctx context.Context, s S, progress func(done, total int)) (Analysis, error) {
	if s.ToMove() == env.Chance {
		o := env.SampleOutcome(s.Chances(nil), a.rng.Float64())
		return Analysis{Moves: []MoveStat{{Move: env.ActionString(s, o), Share: 1, WinProb: -1}}}, nil
	}
	if _, err := a.p.Choose(ctx, s, 0); err != nil {
		return Analysis{}, err
	}
	res := a.p.Last
	if progress != nil {
		progress(res.Depth, a.p.AB.Depth())
	}
	an := Analysis{Value: res.Value, Work: int(res.Nodes),
		Moves: []MoveStat{{Move: env.ActionString(s, res.Best), Share: 1, WinProb: (res.Value + 1) / 2}}}
	return an, nil
}
