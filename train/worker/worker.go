package worker

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/mcts"
	"github.com/zerogames/zero/net"
	"github.com/zerogames/zero/train/replay"
)

// Config is how a self-play worker plays its games.
type Config struct {
	// Games is the number of games the worker plays at once: their leaves go to the evaluator
	// together, one round of searches after another.
	Games int
	// Params are the search's parameters for a full search (root noise, Gumbel root, leaves in
	// flight per round). Cheap searches use the same without root noise or Gumbel sampling
	// (they play their best move), their Gumbel root over CheapSimulations/4 actions at most.
	Params mcts.Params
	// Simulations is the budget of a full search, whose policy is recorded as a training
	// target.
	Simulations int
	// CheapSimulations is the budget of a cheap search (KataGo's playout cap randomization: it
	// chooses the move but is not recorded). 0 searches every move in full.
	CheapSimulations int
	// FullShare is the share of moves searched in full when CheapSimulations > 0.
	FullShare float64
	// ResignThreshold, if positive, lets the player to decide resign when the search values
	// his position below −ResignThreshold. 0 never resigns.
	ResignThreshold float64
	// ResignPlaythrough is the share of games in which nobody may resign, so that wrong
	// resignations can be measured.
	ResignPlaythrough float64
	// Step gives the training step of the network in use, recorded with each game.
	Step func() int64
	// CacheBytes bounds the worker's cache of the network's answers (mcts.Cache), shared by
	// its games' searches; 0: no cache.
	CacheBytes int
}

// Validate checks a worker configuration.
func (c *Config) Validate() error {
	switch {
	case c.Games < 1:
		return fmt.Errorf("games: %d, want ≥ 1", c.Games)
	case c.Simulations < 1:
		return fmt.Errorf("simulations: %d, want ≥ 1", c.Simulations)
	case c.CheapSimulations < 0 || c.CheapSimulations > c.Simulations:
		return fmt.Errorf("cheap simulations: %d, want 0 (off) to simulations (%d)", c.CheapSimulations, c.Simulations)
	case c.CheapSimulations > 0 && !(c.FullShare > 0 && c.FullShare <= 1):
		return fmt.Errorf("full search share: %v, want in (0, 1]", c.FullShare)
	case !(c.ResignThreshold >= 0 && c.ResignThreshold < 1):
		return fmt.Errorf("resign threshold: %v, want in [0, 1)", c.ResignThreshold)
	case !(c.ResignPlaythrough >= 0 && c.ResignPlaythrough <= 1):
		return fmt.Errorf("resign playthrough: %v, want in [0, 1]", c.ResignPlaythrough)
	}
	return c.Params.Validate()
}

// Stats counts a self-play's work; the workers of a run share one.
type Stats struct {
	Games       atomic.Int64 // games finished
	Decisions   atomic.Int64 // decisions played, chance's included
	Samples     atomic.Int64 // decisions recorded as training targets
	Simulations atomic.Int64 // simulations of finished searches
	Resigned    atomic.Int64 // games ended by a resignation
	// CacheLookups and CacheHits count the leaves looked up in the workers' caches and those
	// the cache answered (not sent to the network).
	CacheLookups, CacheHits atomic.Int64
}

// slot is one game a worker is playing.
type slot[S env.State[S]] struct {
	search    *mcts.Search[S]
	state     S
	game      *replay.Game
	full      bool // the search under way is recorded
	fullSet   bool // the search has the full search's parameters (root noise)
	mayResign bool
	start, n  int // this round's leaves in the worker's buffers
	rng       *rand.Rand
}

// worker plays Games games at once.
type worker[S env.State[S]] struct {
	g           env.Game[S]
	cfg         Config
	full, cheap mcts.Params
	stats       *Stats
	ctx         context.Context // Play's
	sink        GameSink
	legal       []env.Action
	outcomes    []env.Outcome
	policy      []float32 // one root's policy, for the targets
}

// Play plays self-play games with ev until ctx ends, handing each finished game to sink (games
// in progress are dropped). Each game slot's generators derive from seed.
func Play[S env.State[S]](ctx context.Context, g env.Game[S], ev mcts.Evaluator, cfg Config, seed uint64, stats *Stats, sink GameSink) error {
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("self-play: %w", err)
	}
	info := g.Info()
	w := &worker[S]{g: g, cfg: cfg, full: cfg.Params, cheap: cfg.Params, stats: stats, ctx: ctx, sink: sink,
		legal:    make([]env.Action, 0, info.NumActions),
		outcomes: make([]env.Outcome, 0, info.NumActions),
		policy:   make([]float32, info.NumActions)}
	// A cheap search plays its best move, as KataGo's fast searches do: no root noise, no
	// temperature, no Gumbel sample (else three moves in four would be draws from the prior,
	// and the games' results would say little about the positions). Its Gumbel root considers
	// fewer actions, so that sequential halving still gives each a few simulations.
	w.cheap.DirichletAlpha, w.cheap.GumbelScale, w.cheap.Temperature = 0, 0, nil
	w.cheap.GumbelActions = max(2, min(w.cheap.GumbelActions, cfg.CheapSimulations/4))
	slots := make([]*slot[S], cfg.Games)
	var cache *mcts.Cache[S]
	if cfg.CacheBytes > 0 {
		cache = mcts.NewCache(g, cfg.CacheBytes)
	}
	var lookups, hits int64 // the cache's counts already added to stats
	// The cache holds one network's answers: when the evaluator's weights change (a Batcher's
	// hot swap), it forgets them, as a search must not mix a stale network's values into the
	// targets of the new one's games.
	nets, _ := ev.(interface{ Model() *net.Model })
	var seen *net.Model
	if nets != nil {
		seen = nets.Model()
	}
	for i := range slots {
		search, err := mcts.New[S](g, mcts.Uniform[S]{}, cfg.Params, seed^uint64(i)<<32)
		if err != nil {
			return err
		}
		search.SetCache(cache)
		slots[i] = &slot[S]{search: search, fullSet: true, rng: rand.New(rand.NewPCG(seed, uint64(i)))}
		if err := w.newGame(slots[i]); err != nil {
			return err
		}
	}
	size, n := info.Observation.Size(), info.NumActions
	most := cfg.Games * cfg.Params.InFlight
	obs := make([]float32, most*size)
	logits := make([]float32, most*n)
	values := make([]float32, most)
	all := make([]S, 0, most) // the leaves of every slot, in order
	var legal mcts.LegalScratch
	for ctx.Err() == nil {
		k := 0
		all = all[:0]
		for _, sl := range slots {
			leaves := sl.search.Collect()
			sl.start, sl.n = k, len(leaves)
			for _, leaf := range leaves {
				leaf.Observe(obs[k*size : (k+1)*size])
				k++
			}
			all = append(all, leaves...)
		}
		if k > 0 {
			// Only the legal actions' logits, where the evaluator can (the Batcher can).
			if err := mcts.EvaluateLegal(ev, &legal, all, obs[:k*size], n, logits[:k*n], values[:k]); err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				return fmt.Errorf("self-play: evaluating %d positions: %w", k, err)
			}
		}
		if cache != nil {
			stats.CacheLookups.Add(cache.Lookups - lookups)
			stats.CacheHits.Add(cache.Hits - hits)
			lookups, hits = cache.Lookups, cache.Hits
		}
		for _, sl := range slots {
			if sl.n > 0 {
				if err := sl.search.Apply(logits[sl.start*n:(sl.start+sl.n)*n], values[sl.start:sl.start+sl.n]); err != nil {
					return fmt.Errorf("self-play: %w", err)
				}
			}
			if sl.search.Finished() {
				if err := w.move(sl); err != nil {
					return err
				}
			}
		}
		// After the answers are stored: a batch run on new weights while seen was read
		// shows as a change here, and its answers go too.
		if cache != nil && nets != nil {
			if m := nets.Model(); m != seen {
				cache.Clear()
				seen = m
			}
		}
	}
	return ctx.Err()
}

// newGame starts a slot's next game.
func (w *worker[S]) newGame(sl *slot[S]) error {
	sl.state = w.g.New()
	sl.search.Reset(sl.state)
	sl.game = &replay.Game{Actions: make([]env.Action, 0, 128)}
	sl.mayResign = w.cfg.ResignThreshold > 0 && sl.rng.Float64() >= w.cfg.ResignPlaythrough
	return w.next(sl)
}

// move ends a slot's search: records it if it was full, plays its choice (or resigns), and
// goes on to the next decision.
func (w *worker[S]) move(sl *slot[S]) error {
	w.stats.Simulations.Add(int64(sl.search.Simulations()))
	decider := sl.state.ToMove()
	if sl.mayResign && sl.search.Value() < -w.cfg.ResignThreshold {
		sl.game.Result = env.WinFor(decider.Other())
		w.stats.Resigned.Add(1)
		return w.finish(sl)
	}
	if sl.full {
		sl.search.Policy(w.policy)
		t := replay.Target{Ply: len(sl.game.Actions), Value: float32(sl.search.Value())}
		if v, ok := sl.search.Proven(); ok {
			t.Value, t.Proven = float32(v), true
		}
		w.legal = sl.state.Legal(w.legal[:0])
		for _, a := range w.legal {
			if p := w.policy[a]; p >= 1.0/65535 {
				t.Policy = append(t.Policy, replay.PolicyEntry{Action: a, Prob: p})
			}
		}
		sl.game.Targets = append(sl.game.Targets, t)
		w.stats.Samples.Add(1)
	}
	a, err := sl.search.Choose(len(sl.game.Actions))
	if err != nil {
		return fmt.Errorf("self-play: %w", err)
	}
	if err := w.play(sl, a); err != nil {
		return err
	}
	return w.next(sl)
}

// next plays the decisions that need no search (chance's, and forced ones), then finishes the
// game or starts the search of the next decision.
func (w *worker[S]) next(sl *slot[S]) error {
	for {
		switch sl.state.ToMove() {
		case env.Terminal:
			sl.game.Result = sl.state.Result()
			return w.finish(sl)
		case env.Chance:
			w.outcomes = sl.state.Chances(w.outcomes[:0])
			if err := w.play(sl, env.SampleOutcome(w.outcomes, sl.rng.Float64())); err != nil {
				return err
			}
			continue
		}
		if w.legal = sl.state.Legal(w.legal[:0]); len(w.legal) == 1 {
			if err := w.play(sl, w.legal[0]); err != nil {
				return err
			}
			continue
		}
		break
	}
	sl.full = w.cfg.CheapSimulations == 0 || sl.rng.Float64() < w.cfg.FullShare
	params, sims := w.full, w.cfg.Simulations
	if !sl.full {
		params, sims = w.cheap, w.cfg.CheapSimulations
	}
	if sl.fullSet != sl.full {
		if err := sl.search.SetParams(params); err != nil {
			return err
		}
		sl.fullSet = sl.full
	}
	return sl.search.Start(sims)
}

func (w *worker[S]) play(sl *slot[S], a env.Action) error {
	sl.game.Actions = append(sl.game.Actions, a)
	sl.state = sl.state.Play(a)
	w.stats.Decisions.Add(1)
	return sl.search.Advance(a)
}

func (w *worker[S]) finish(sl *slot[S]) error {
	if w.cfg.Step != nil {
		sl.game.Step = w.cfg.Step()
	}
	w.stats.Games.Add(1)
	if err := w.sink.AddGame(w.ctx, sl.game); err != nil {
		return err
	}
	return w.newGame(sl)
}
