package games

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/zerogames/zero/env"
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
}

// NewAgent builds an agent from its spec string: "random" (uniform among the legal moves, by
// probability at chance nodes). Search-based kinds are added as they land.
func (e generic[S]) NewAgent(spec string, seed uint64) (Agent, error) {
	kind, arg, _ := strings.Cut(spec, ":")
	switch kind {
	case "random":
		if arg != "" {
			return nil, fmt.Errorf("agent %q: random takes no argument", spec)
		}
		return &agent[S]{spec: spec, g: e.g, impl: &randomAgent[S]{rng: rand.New(rand.NewPCG(seed, 0x5eed))}}, nil
	}
	return nil, fmt.Errorf("unknown agent %q (known: random)", spec)
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

type randomAgent[S env.State[S]] struct{ rng *rand.Rand }

func (r *randomAgent[S]) analyze(_ context.Context, s S, _ func(int, int)) (Analysis, error) {
	w := env.Walker[S]{Rng: r.rng}
	a := w.Step(s)
	an := Analysis{Moves: []MoveStat{{Move: env.ActionString(s, a), Share: 1, WinProb: -1}}}
	return an, nil
}
