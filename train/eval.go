package train

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/zerogames/zero/internal/atomicfile"
	"github.com/zerogames/zero/selfplay"
	"github.com/zerogames/zero/train/runfolder"
)

// evaluate rates each checkpoint handed to it: Eval.Games games against each of the Previous
// checkpoints before it and each baseline, added to the ladder of all the run's games, which is
// rated again (anchored at "random" when it is a baseline) and written to ratings.json.
func (r *run[S]) evaluate(ctx context.Context) error {
	cfg := r.cfg.Eval
	for {
		var e runfolder.CheckpointEntry
		select {
		case <-ctx.Done():
			return nil
		case next, ok := <-r.evalQueue:
			if !ok {
				return nil
			}
			e = next
		}
		player := func(c runfolder.CheckpointEntry) string {
			return fmt.Sprintf("mcts:%d:%s", cfg.Simulations, filepath.Join(r.dir, c.File))
		}
		type opponent struct{ name, spec string }
		var opponents []opponent
		r.mu.Lock()
		i := slices.IndexFunc(r.state.Checkpoints, func(c runfolder.CheckpointEntry) bool { return c.File == e.File })
		if i < 0 {
			r.mu.Unlock()
			continue // deleted since it was queued
		}
		// The files the games read stay (trim) until the evaluation ends.
		r.rating = append(r.rating[:0], e.File)
		for j := i - 1; j >= 0 && len(opponents) < cfg.Previous; j-- {
			c := r.state.Checkpoints[j]
			opponents = append(opponents, opponent{c.Name(), player(c)})
			r.rating = append(r.rating, c.File)
		}
		r.mu.Unlock()
		for _, b := range cfg.Baselines {
			opponents = append(opponents, opponent{b, b})
		}
		var games []selfplay.Outcome
		var names []string
		engine := "" // what the checkpoint's network ran on
		scores := map[string]float64{}
		for k, o := range opponents {
			res, err := selfplay.Arena(ctx, r.g, selfplay.ArenaConfig{
				Players: []string{player(e), o.spec}, Games: cfg.Games,
				Seed:    r.cfg.Seed ^ uint64(e.Step)<<16 ^ uint64(k),
				Opening: cfg.Opening, Workers: cfg.Workers,
			})
			if ctx.Err() != nil {
				return nil // the checkpoint is rated by the next session
			}
			if err != nil {
				// Training goes on: an evaluation is worth less than the run.
				r.logf("evaluating %s against %s: %v", e.Name(), o.name, err)
				break
			}
			names = append(names, o.name)
			engine = res.Engines[player(e)]
			points := 0.0
			for _, rec := range res.Records {
				var out selfplay.Outcome
				score := 0.5 // a draw
				switch rec.Winner() {
				case 0:
					score = 1
				case 1:
					score = 0
				}
				mine := rec.Players[0] == player(e)
				if mine {
					points += score
				} else {
					points += 1 - score
				}
				out.Score = score
				// Indices are filled in below, once the ladder is locked.
				out.First, out.Second = boolIndex(mine), boolIndex(!mine)
				games = append(games, out)
			}
			scores[o.name] = points / float64(len(res.Records))
		}
		if len(names) < len(opponents) {
			r.rated()
			continue
		}
		r.mu.Lock()
		me := r.ladder.Index(e.Name())
		for k := range games {
			opp := r.ladder.Index(names[k/cfg.Games])
			first, second := me, opp
			if games[k].First == 1 {
				first, second = opp, me
			}
			games[k].First, games[k].Second = first, second
		}
		r.ladder.Games = append(r.ladder.Games, games...)
		r.ladder.Rated = append(r.ladder.Rated, e.Name())
		anchor := max(slices.Index(r.ladder.Players, "random"), 0)
		ratings, err := selfplay.Rate(r.ladder.Players, r.ladder.Games, anchor, 2)
		if err == nil {
			r.ladder.Ratings = &ratings
		}
		data, merr := json.MarshalIndent(&r.ladder, "", "  ")
		rating, rated := r.ladder.Rating(e.Name())
		best := r.ladder.Best(r.state.Checkpoints)
		r.mu.Unlock()
		if err != nil {
			r.logf("ratings: %v", err)
		}
		if merr != nil {
			return merr
		}
		if err := atomicfile.WriteBytes(filepath.Join(r.dir, runfolder.RatingsFile), append(data, '\n')); err != nil {
			return err
		}
		values := map[string]float64{"checkpoint_step": float64(e.Step)}
		var parts []string
		for _, n := range names {
			values["score_"+n] = scores[n]
			parts = append(parts, fmt.Sprintf("%s %.0f%%", n, 100*scores[n]))
		}
		line := fmt.Sprintf("eval %s: %s", e.Name(), strings.Join(parts, ", "))
		if rated {
			values["elo"], values["elo_low"], values["elo_high"] = rating.Elo, rating.Elo-rating.CI95, rating.Elo+rating.CI95
			line += fmt.Sprintf("; Elo %+.0f ± %.0f (best %s)", rating.Elo, rating.CI95, best)
		}
		if engine != "" {
			line += "; nets on " + engine
		}
		r.recordAt("eval", e.Step, e.Elapsed, values)
		r.logf("%s", line)
		r.rated()
	}
}

// rated ends an evaluation: the files it read are trimmed as any other.
func (r *run[S]) rated() {
	r.mu.Lock()
	r.rating = r.rating[:0]
	r.mu.Unlock()
	r.trim()
}

func boolIndex(b bool) int {
	if b {
		return 0
	}
	return 1
}
