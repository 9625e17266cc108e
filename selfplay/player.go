package selfplay

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/mcts"
)

// Player makes the decisions of one side of a game. A player serves one game at a time; a
// match makes one per side and reuses it from game to game.
type Player[S env.State[S]] interface {
	// NewGame gets the player ready for a game starting at s, with its generators seeded by
	// seed (a game played twice with the same seeds is played alike).
	NewGame(s S, seed uint64)
	// Choose returns the player's decision at s, which is his to make; move is the number of
	// decisions made before in the game (chance's included).
	Choose(ctx context.Context, s S, move int) (env.Action, error)
	// Played tells the player that a was decided at s, by either side or by chance.
	Played(s S, a env.Action) error
}

// Spec is a player described by a spec string:
//
//	random              uniform among the legal actions
//	uct:N               Monte Carlo tree search without knowledge: N simulations, each valued
//	                    by one random game from its leaf, PUCT with equal priors, no solver
//	ucb1:N              the same with classic UCT's UCB1 selection (weaker: docs/BENCHMARKS.md)
//	ab:D                alpha-beta to D turns (1 to mcts.MaxABDepth; mcts.AlphaBeta): ab:1
//	                    takes every win in one, ab:2 never allows a loss in one
//	ab:D:TIME           the same, iterative deepening stopped after TIME a move (1s, 250ms)
//	mcts:N:CHECKPOINT   AlphaZero search: N simulations of PUCT guided by the network of a
//	                    checkpoint file, one leaf evaluated at a time (needs Networks), with
//	                    the solver (mcts.Params.Solver); no noise and the most visited move,
//	                    so arenas of such players want an ArenaConfig.Opening
type Spec struct {
	// Text is the spec as given, which names the player in tables and records.
	Text string
	// Kind is "random", "uct", "ucb1", "ab" or "mcts".
	Kind string
	// Simulations is N (uct and mcts).
	Simulations int
	// Depth is D and Time the cap on a move's search (ab).
	Depth int
	Time  time.Duration
	// Checkpoint is the checkpoint file (mcts).
	Checkpoint string
}

// ParseSpec reads a player spec.
func ParseSpec(text string) (Spec, error) {
	kind, rest, _ := strings.Cut(text, ":")
	sims := func(field string) (int, error) {
		n, err := strconv.Atoi(field)
		if err != nil || n < 1 || field[0] == '+' {
			return 0, fmt.Errorf("player %q: the number of simulations %q is not a whole number ≥ 1", text, field)
		}
		return n, nil
	}
	sp := Spec{Text: text, Kind: kind}
	switch kind {
	case "random":
		if text != "random" {
			return Spec{}, fmt.Errorf("player %q: random takes no parameter", text)
		}
		return sp, nil
	case "uct", "ucb1":
		n, err := sims(rest)
		if err != nil {
			return Spec{}, err
		}
		sp.Simulations = n
		return sp, nil
	case "ab":
		field, cap, timed := strings.Cut(rest, ":")
		d, err := strconv.Atoi(field)
		if err != nil || field == "" || field[0] == '+' || d < 1 || d > mcts.MaxABDepth {
			return Spec{}, fmt.Errorf("player %q: the depth %q is not a whole number of turns from 1 to %d", text, field, mcts.MaxABDepth)
		}
		sp.Depth = d
		if timed {
			t, err := time.ParseDuration(cap)
			if err != nil || t <= 0 {
				return Spec{}, fmt.Errorf("player %q: the time a move %q is not a duration > 0 (1s, 250ms)", text, cap)
			}
			sp.Time = t
		}
		return sp, nil
	case "mcts":
		field, path, ok := strings.Cut(rest, ":")
		if !ok || path == "" {
			return Spec{}, fmt.Errorf("player %q: want mcts:N:CHECKPOINT", text)
		}
		n, err := sims(field)
		if err != nil {
			return Spec{}, err
		}
		sp.Simulations, sp.Checkpoint = n, path
		return sp, nil
	}
	return Spec{}, fmt.Errorf("player %q: unknown kind %q (want random, uct:N, ucb1:N, ab:D, ab:D:TIME or mcts:N:CHECKPOINT)", text, kind)
}

// PlayerCacheBytes bounds an mcts:N player's cache of its network's answers (mcts.Cache).
const PlayerCacheBytes = 32 << 20

// Networks gives mcts:N:CHECKPOINT players their network (internal/games.Checkpoints loads
// checkpoint files with package net). Without one, such players are refused.
type Networks interface {
	// Evaluator loads (or shares) the network of checkpoint for the game info and returns an
	// evaluator for the exclusive use of one player. It refuses a checkpoint of another game.
	Evaluator(checkpoint string, info *env.Info) (mcts.Evaluator, error)
}

// ErrNoNetworks is the error for an mcts player when no Networks were given.
var ErrNoNetworks = errors.New("mcts:N:CHECKPOINT players need a loader of networks (selfplay.Networks)")

// NewPlayer makes the player of spec for game g. nets may be nil if no spec is mcts.
func NewPlayer[S env.State[S]](g env.Game[S], sp Spec, nets Networks) (Player[S], error) {
	switch sp.Kind {
	case "random":
		return &Random[S]{actions: make([]env.Action, 0, g.Info().NumActions)}, nil
	case "uct", "ucb1":
		oracle := mcts.NewRollout(g, 0, 1)
		// PUCT with the rollouts' equal priors is stronger than UCB1 (docs/BENCHMARKS.md).
		// Both stay classic Monte Carlo tree search, without the solver, so that they remain
		// the yardsticks they were.
		p := mcts.DefaultParams()
		p.Solver = false
		if sp.Kind == "ucb1" {
			p = mcts.UCTParams()
		}
		return newSearchPlayer(g, oracle, p, mcts.Budget{Simulations: sp.Simulations}, oracle.Seed)
	case "ab":
		ab, err := mcts.NewAlphaBeta(g, sp.Depth, sp.Time, 0)
		if err != nil {
			return nil, fmt.Errorf("player %q: %w", sp.Text, err)
		}
		return &AlphaBetaPlayer[S]{AB: ab}, nil
	case "mcts":
		if nets == nil {
			return nil, fmt.Errorf("player %q: %w", sp.Text, ErrNoNetworks)
		}
		e, err := nets.Evaluator(sp.Checkpoint, g.Info())
		if err != nil {
			return nil, fmt.Errorf("player %q: %w", sp.Text, err)
		}
		// One leaf at a time: at 200 simulations it beat 8 leaves in flight (virtual loss)
		// 57–1–42 with the same network (docs/BENCHMARKS.md, "selfplay (arenas)").
		p, err := newSearchPlayer(g, mcts.Observe(g, e), mcts.DefaultParams(), mcts.Budget{Simulations: sp.Simulations}, nil)
		if err == nil {
			p.search.SetCache(mcts.NewCache(g, PlayerCacheBytes))
		}
		return p, err
	}
	return nil, fmt.Errorf("player %q: unknown kind %q", sp.Text, sp.Kind)
}

// Random plays uniformly among the legal actions.
type Random[S env.State[S]] struct {
	rng     *rand.Rand
	pcg     *rand.PCG
	actions []env.Action
}

// NewGame reseeds the player.
func (r *Random[S]) NewGame(_ S, seed uint64) {
	if r.pcg == nil {
		r.pcg = rand.NewPCG(seed, 0)
		r.rng = rand.New(r.pcg)
	}
	r.pcg.Seed(seed, 0)
}

// Choose draws a legal action.
func (r *Random[S]) Choose(_ context.Context, s S, _ int) (env.Action, error) {
	if r.rng == nil {
		r.NewGame(s, 0)
	}
	r.actions = s.Legal(r.actions[:0])
	if len(r.actions) == 0 {
		return 0, errors.New("random player: no legal action")
	}
	return r.actions[r.rng.IntN(len(r.actions))], nil
}

// Played does nothing: a random player remembers nothing.
func (r *Random[S]) Played(S, env.Action) error { return nil }

// Searcher plays the choice of a tree search, keeping the tree from move to move.
type Searcher[S env.State[S]] struct {
	search *mcts.Search[S]
	// Budget bounds each search; the engine's go visits / go time change it.
	Budget mcts.Budget
	seed   func(uint64) // reseeds the oracle, if it draws numbers
}

func newSearchPlayer[S env.State[S]](g env.Game[S], o mcts.Oracle[S], p mcts.Params, b mcts.Budget, seed func(uint64)) (*Searcher[S], error) {
	s, err := mcts.New(g, o, p, 0)
	if err != nil {
		return nil, err
	}
	return &Searcher[S]{search: s, Budget: b, seed: seed}, nil
}

// Search is the player's search, for analysis (its statistics after Choose).
func (p *Searcher[S]) Search() *mcts.Search[S] { return p.search }

// NewGame starts a new tree at s and reseeds the search and its oracle.
func (p *Searcher[S]) NewGame(s S, seed uint64) {
	p.search.Seed(seed)
	if p.seed != nil {
		p.seed(seed ^ 0x9e3779b97f4a7c15)
	}
	p.search.Reset(s)
}

// Choose searches s within the budget and returns the search's choice.
func (p *Searcher[S]) Choose(ctx context.Context, s S, move int) (env.Action, error) {
	p.search.SetRoot(s)
	if err := p.search.Run(ctx, p.Budget); err != nil {
		return 0, err
	}
	return p.search.Choose(move)
}

// Played moves the root of the tree along a, keeping its subtree.
func (p *Searcher[S]) Played(s S, a env.Action) error {
	if p.search.Root() != s {
		p.search.Reset(s.Play(a))
		return nil
	}
	return p.search.Advance(a)
}

// AlphaBetaPlayer plays the choice of an alpha-beta search (mcts.AlphaBeta), the tactical
// baseline: it keeps nothing from move to move.
type AlphaBetaPlayer[S env.State[S]] struct {
	AB *mcts.AlphaBeta[S]
	// Last is the result of the last search.
	Last mcts.ABResult
}

// NewGame reseeds the search's tie-breaks.
func (p *AlphaBetaPlayer[S]) NewGame(_ S, seed uint64) { p.AB.Seed(seed) }

// Choose searches s and returns the best move found.
func (p *AlphaBetaPlayer[S]) Choose(ctx context.Context, s S, _ int) (env.Action, error) {
	res, err := p.AB.Search(ctx, s)
	if err != nil {
		return 0, err
	}
	p.Last = res
	return res.Best, nil
}

// Played does nothing: each search starts afresh.
func (p *AlphaBetaPlayer[S]) Played(S, env.Action) error { return nil }
