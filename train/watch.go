package train

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/zerogames/zero/internal/duration"
	"github.com/zerogames/zero/net/nettrain"
)

// console is where a run's lines go: plain lines, or on a terminal lines above a progress bar
// that they never break (the bar is cleared, the line written, and the bar drawn again at the
// next tick). It is safe for concurrent use; a nil writer drops everything.
type console struct {
	mu  sync.Mutex
	out io.Writer
	bar *progressbar.ProgressBar
}

func (c *console) printf(format string, a ...any) {
	if c.out == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bar != nil {
		c.bar.Clear()
	}
	fmt.Fprintf(c.out, format+"\n", a...)
}

// withBar calls f with the bar, if there is one, while no line is written.
func (c *console) withBar(f func(*progressbar.ProgressBar)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bar != nil {
		f(c.bar)
	}
}

// progress is what the status line says of a run at one moment.
type progress struct {
	step       int64
	firstStep  bool          // no step yet in this run: the buffer is filling
	samples    int64         // samples ever recorded
	minSamples int64         // before the first step
	window     int           // samples in the buffer's window
	sampleRate float64       // samples/s of the last period
	elapsed    time.Duration // the run's working time over its sessions
	left       time.Duration // until the session stops (--for, stop.time or stop.steps), -1: unknown
	loss       *nettrain.Loss
	rates      string  // self-play's and the trainer's rates
	steps      float64 // steps/s
}

// line is the status line: the buffer's filling before the first step, then the step, the
// time with what is left, the newest losses, the buffer and the rates.
func (p progress) line() string {
	if p.firstStep && p.samples < p.minSamples {
		s := fmt.Sprintf("filling the replay buffer: %s / %s samples before the first step", thousands(p.samples), thousands(p.minSamples))
		if p.sampleRate > 0 {
			eta := time.Duration(float64(p.minSamples-p.samples) / p.sampleRate * float64(time.Second))
			s += fmt.Sprintf(", %.0f samples/s, about %s", p.sampleRate, duration.Format(eta))
		}
		return s
	}
	parts := []string{fmt.Sprintf("step %s", thousands(p.step)), duration.Format(p.elapsed)}
	if p.left >= 0 {
		parts[1] += fmt.Sprintf(" (%s left)", duration.Format(p.left))
	}
	if p.loss != nil {
		parts = append(parts, fmt.Sprintf("loss %.3f (policy %.3f, value %.3f)", p.loss.Total, p.loss.Policy, p.loss.Value))
	}
	parts = append(parts, fmt.Sprintf("buffer %s of %s samples", thousands(int64(p.window)), thousands(p.samples)))
	if p.rates != "" {
		parts = append(parts, p.rates)
	}
	return strings.Join(parts, " | ")
}

// short is the bar's description: the bar shows the step and the times itself.
func (p progress) short() string {
	if p.firstStep && p.samples < p.minSamples {
		return fmt.Sprintf("filling the buffer: %s / %s samples", thousands(p.samples), thousands(p.minSamples))
	}
	var parts []string
	if p.left >= 0 {
		parts = append(parts, fmt.Sprintf("%s left", duration.Format(p.left)))
	}
	if p.loss != nil {
		parts = append(parts, fmt.Sprintf("loss %.3f (policy %.3f, value %.3f)", p.loss.Total, p.loss.Policy, p.loss.Value))
	}
	if p.steps > 0 {
		parts = append(parts, fmt.Sprintf("%.2f steps/s", p.steps))
	}
	if len(parts) == 0 {
		return "training"
	}
	return strings.Join(parts, " | ")
}

// thousands writes n with commas between thousands.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// left is the time until the session stops: its context's deadline (zero train --for), the
// run's stop.time, or stop.steps at the present rate of steps, whichever comes first; -1 if
// none is known.
func (r *run[S]) left(ctx context.Context, step int64, stepsPerSecond float64) time.Duration {
	left := time.Duration(-1)
	earlier := func(d time.Duration) {
		if left < 0 || d < left {
			left = max(d, 0)
		}
	}
	if d, ok := ctx.Deadline(); ok {
		earlier(time.Until(d))
	}
	if r.stop.Time > 0 {
		earlier(time.Duration(r.stop.Time) - time.Duration(r.elapsed()*float64(time.Second)))
	}
	if r.stop.Steps > 0 && stepsPerSecond > 0 {
		earlier(time.Duration(float64(r.stop.Steps-step) / stepsPerSecond * float64(time.Second)))
	}
	return left
}

// watch shows the run's progress until work ends, then closes done: on a terminal a progress
// bar of training steps (towards stop.steps when set) described by the short status; elsewhere
// the status line every LogEvery. Every LogEvery it also records in metrics the throughput of
// the run's own self-play (selfplay) and the games taken from every worker (ingest, with the
// run's count of games so far, games_total), and the session's last period once stopped is
// closed (its workers and intake ended). session is the session's context, whose deadline is
// --for's.
func (r *run[S]) watch(work, session context.Context, stopped <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	hasBar := false
	if f, ok := r.opt.Out.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		hasBar = true
		total := int64(-1)
		if r.stop.Steps > 0 {
			total = r.stop.Steps
		}
		bar := progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(f),
			progressbar.OptionSetDescription("training"),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(r.stop.Steps > 0),
			progressbar.OptionThrottle(500*time.Millisecond),
			progressbar.OptionFullWidth(),
			progressbar.OptionClearOnFinish(),
		)
		bar.Set64(r.step.Load())
		r.console.mu.Lock()
		r.console.bar = bar
		r.console.mu.Unlock()
		defer func() {
			r.console.mu.Lock()
			bar.Finish()
			r.console.bar = nil
			r.console.mu.Unlock()
		}()
	}
	last, lastStep := readMark(&r.stats, r.batcher), r.step.Load()
	lastSamples := r.buffer.Total()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	logAt := time.Now().Add(r.opt.LogEvery)
	var p progress
	recorded := false // a period of the session
	// period records the period since the last: self-play's throughput and the games taken,
	// and prints the status line unless final.
	period := func(final bool) {
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
		ctx := work
		if final {
			// work has ended: the stream's count of games still waiting is asked for all the same.
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(context.Background(), time.Second)
			defer cancel()
		}
		waiting, _, err := r.tr.conn.Stats(ctx)
		if err != nil {
			waiting = 0
		}
		iv := r.tr.ingest.record(sp.Seconds, waiting)
		r.mu.Lock()
		iv["games_total"] = float64(r.gamesStart + r.games) // the run's count, as its state and log say
		r.mu.Unlock()
		r.record("ingest", iv)
		if n := int64(iv["refused"]); n > 0 {
			r.logf("%s refused in the last %s (%d in this session): see the lines \"refused game\" above", nouns(int(n), "game"), duration.Seconds(sp.Seconds), r.tr.ingest.refusedTotal.Load())
		}
		samples := r.buffer.Total()
		p = progress{
			step: step, firstStep: step == 0, samples: samples, minSamples: int64(r.cfg.Replay.MinSamples),
			window: r.buffer.Len(), sampleRate: float64(samples-lastSamples) / sp.Seconds,
			elapsed: time.Duration(r.elapsed() * float64(time.Second)), left: r.left(session, step, v["steps_per_s"]),
			loss: r.loss.Load(), steps: v["steps_per_s"],
			rates: fmt.Sprintf("%.2f games/s, %.0f samples/s, %.0f sims/s, batch %.0f%% full, net %.2f cores, %.2f steps/s; taken %.2f games/s from %s",
				v["games_per_s"], v["samples_per_s"], v["simulations_per_s"], 100*v["batch_fill"], v["net_cores"], v["steps_per_s"],
				iv["games_per_s"], nouns(int(iv["workers"]), "worker")),
		}
		switch {
		case final:
		case hasBar:
			r.console.withBar(func(bar *progressbar.ProgressBar) {
				bar.Describe(p.short())
				bar.Set64(step)
			})
		default:
			r.logf("%s", p.line())
		}
		last, lastStep, lastSamples, recorded = c, step, samples, true
	}
	for {
		select {
		case <-work.Done():
			// The session's last period, once its workers and intake have stopped (stopped):
			// its records then count every game the session took, as its state and last line
			// do. One under a second after another is too short for its rates to mean much:
			// its games are counted in games_total of the next session's first period.
			<-stopped
			if !recorded || time.Since(last.at) >= time.Second {
				period(true)
			}
			return
		case now := <-tick.C:
			if now.Before(logAt) {
				r.console.withBar(func(bar *progressbar.ProgressBar) { bar.Set64(r.step.Load()) })
				continue
			}
			logAt = now.Add(r.opt.LogEvery)
			period(false)
		}
	}
}
