package train

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
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
	last, lastStep := readMark(&r.stats, r.batcher), r.step.Load()
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
			c, step := readMark(&r.stats, r.batcher), r.step.Load()
			sp := c.since(last, r.cfg.SelfPlay.BatchSize)
			v := map[string]float64{
				"games_per_s":       sp.Rate(sp.Games),
				"decisions_per_s":   sp.Rate(sp.Decisions),
				"samples_per_s":     sp.Rate(sp.Samples),
				"simulations_per_s": sp.Rate(sp.Simulations),
				"positions_per_s":   sp.Rate(sp.Positions),
				"batch_fill":        sp.BatchFill(),
				"net_cores":         sp.NetSeconds / sp.Seconds,
				"resigned":          float64(sp.Resigned),
				"buffer_window":     float64(r.buffer.Len()),
				"samples_total":     float64(r.buffer.Total()),
				"steps_per_s":       sp.Rate(step - lastStep),
			}
			r.record("selfplay", v)
			rates = fmt.Sprintf("%.2f games/s, %.0f samples/s, %.0f sims/s, batch %.0f%% full, net %.2f cores, %.2f steps/s",
				v["games_per_s"], v["samples_per_s"], v["simulations_per_s"], 100*v["batch_fill"], v["net_cores"], v["steps_per_s"])
			if bar != nil {
				bar.Describe(fmt.Sprintf("%s | buffer %d", rates, r.buffer.Len()))
				bar.Set64(step)
			} else {
				r.logf("step %d | %s | buffer %d of %d samples | %s",
					step, time.Duration(r.elapsed()*float64(time.Second)).Round(time.Second), r.buffer.Len(), r.buffer.Total(), rates)
			}
			last, lastStep = c, step
		}
	}
}
