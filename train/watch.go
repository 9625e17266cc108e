package train

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/zerogames/zero/selfplay"
)

// watch shows the run's progress until ctx ends, then closes done: on a terminal a progress bar
// of training steps (towards stop.steps when set) described with self-play's rates; elsewhere a
// log line every LogEvery. Every LogEvery it also records self-play's throughput in metrics.
func (r *run[S]) watch(ctx context.Context, done chan<- struct{}) {
	defer close(done)
	var bar *progressbar.ProgressBar
	if f, ok := r.opt.Out.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		total := int64(-1)
		if r.stop.Steps > 0 {
			total = r.stop.Steps
		}
		bar = progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(f),
			progressbar.OptionSetDescription("training"),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("steps"),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(500*time.Millisecond),
			progressbar.OptionFullWidth(),
			progressbar.OptionClearOnFinish(),
		)
		bar.Set64(r.step.Load())
		defer bar.Finish()
	}
	type counters struct {
		at                                   time.Time
		games, decisions, samples, sims, res int64
		batch                                selfplay.BatcherStats
		step                                 int64
	}
	read := func() counters {
		return counters{time.Now(), r.stats.Games.Load(), r.stats.Decisions.Load(), r.stats.Samples.Load(),
			r.stats.Simulations.Load(), r.stats.Resigned.Load(), r.batcher.Stats(), r.step.Load()}
	}
	last := read()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	logAt := time.Now().Add(r.opt.LogEvery)
	rates := ""
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			if now.Before(logAt) {
				if bar != nil {
					bar.Set64(r.step.Load())
				}
				continue
			}
			logAt = now.Add(r.opt.LogEvery)
			c := read()
			secs := c.at.Sub(last.at).Seconds()
			batches, positions := c.batch.Batches-last.batch.Batches, c.batch.Positions-last.batch.Positions
			fill, busy := 0.0, (c.batch.NetCPU-last.batch.NetCPU).Seconds()/secs
			if batches > 0 {
				fill = float64(positions) / float64(batches) / float64(r.cfg.SelfPlay.BatchSize)
			}
			v := map[string]float64{
				"games_per_s":       float64(c.games-last.games) / secs,
				"decisions_per_s":   float64(c.decisions-last.decisions) / secs,
				"samples_per_s":     float64(c.samples-last.samples) / secs,
				"simulations_per_s": float64(c.sims-last.sims) / secs,
				"positions_per_s":   float64(positions) / secs,
				"batch_fill":        fill,
				"net_cores":         busy,
				"resigned":          float64(c.res - last.res),
				"buffer_window":     float64(r.buffer.Len()),
				"samples_total":     float64(r.buffer.Total()),
				"steps_per_s":       float64(c.step-last.step) / secs,
			}
			r.record("selfplay", v)
			rates = fmt.Sprintf("%.2f games/s, %.0f samples/s, %.0f sims/s, batch %.0f%% full, net %.2f cores, %.2f steps/s",
				v["games_per_s"], v["samples_per_s"], v["simulations_per_s"], 100*fill, busy, v["steps_per_s"])
			if bar != nil {
				bar.Describe(fmt.Sprintf("%s | buffer %d", rates, r.buffer.Len()))
				bar.Set64(c.step)
			} else {
				r.logf("step %d | %s | buffer %d of %d samples | %s",
					c.step, time.Duration(r.elapsed()*float64(time.Second)).Round(time.Second), r.buffer.Len(), r.buffer.Total(), rates)
			}
			last = c
		}
	}
}
