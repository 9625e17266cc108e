package games

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/selfplay"
)

// Agent is a player (selfplay.Player) seen through positions in notation: the opponent in
// `zero play` and `zero serve`, and the player behind the engine's genmove and go. The player
// itself is built by the game's generic code (NewAgent), so nothing is boxed while it thinks.
type Agent interface {
	// Spec is the agent's spec string, as given to NewAgent ("random", "uct:1000", …).
	Spec() string
	// Analyze has the player think about pos, which must not be over (selfplay.Player's
	// Analyze: the moves ranked, the choice first; lim sets the work, progress is told of it,
	// a cancelled ctx stops the search early with what it has). A chance decision is drawn by
	// its probabilities.
	Analyze(ctx context.Context, pos *Position, lim selfplay.Limits, progress func(done, total int)) (selfplay.Analysis, error)
	// Release gives back the memory the player keeps between analyses (a search's tree and
	// cache), which the next analysis makes again: for an agent idle long between its moves.
	Release()
}

// NewAgent builds the player of spec (see selfplay.Spec: random, uct:N, ucb1:N, ab:D,
// ab:D:TIME, mcts:N:CHECKPOINT; uct:TIME, mcts:TIME:CHECKPOINT) for a game starting from its beginning, seeded by seed.
func (e generic[S]) NewAgent(spec string, seed uint64) (Agent, error) {
	sp, err := selfplay.ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	// One generator draws chance and, for random, the moves too, so the draws follow each
	// other as in a random game (env.Walker).
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	var p selfplay.Player[S]
	if sp.KindInfo().Draws {
		p = selfplay.NewRandom[S](rng)
	} else if p, err = selfplay.NewPlayer(e.g, sp); err != nil {
		return nil, err
	}
	p.NewGame(e.g.New(), seed)
	return &agent[S]{spec: spec, g: e.g, p: p, rng: rng}, nil
}

// agent is a Player of one game's states. Its player keeps what it may (a search's tree) from
// one analysis to the next.
type agent[S env.State[S]] struct {
	spec string
	g    env.Game[S]
	p    selfplay.Player[S]
	rng  *rand.Rand
}

func (a *agent[S]) Spec() string { return a.spec }

func (a *agent[S]) Release() {
	if r, ok := a.p.(interface{ Release() }); ok {
		r.Release()
	}
}

func (a *agent[S]) Analyze(ctx context.Context, pos *Position, lim selfplay.Limits, progress func(done, total int)) (selfplay.Analysis, error) {
	h, ok := pos.impl.(*history[S])
	if !ok || h.g.Info().Name != a.g.Info().Name {
		return selfplay.Analysis{}, fmt.Errorf("agent for %s given a position of %s", a.g.Info().Name, pos.Info().Name)
	}
	if pos.Over() {
		return selfplay.Analysis{}, fmt.Errorf("the game is over")
	}
	s := h.current()
	if s.ToMove() == env.Chance {
		// Chance is no player's: its outcome is drawn by its probability. Its share is what
		// the engine protocol has always answered: the outcome's probability for the tree
		// searches, the whole decision for the others.
		outcomes := s.Chances(nil)
		o := env.SampleOutcome(outcomes, a.rng.Float64())
		_, searches := a.p.(*selfplay.Searcher[S])
		for _, c := range outcomes {
			if c.Action == o {
				share := 1.0
				if searches {
					share = c.Prob
				}
				move := env.ActionString(s, o)
				return selfplay.Analysis{Moves: []selfplay.MoveStat{{Move: move, Share: share, WinProb: -1, Prior: -1, PV: []string{move}}}, PV: []string{move}, NoValue: true}, nil
			}
		}
	}
	return a.p.Analyze(ctx, s, lim, progress)
}
