package train

// The session's loop: self-play beside the trainer, the train ratio held both ways.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/zerogames/zero/internal/duration"
	"github.com/zerogames/zero/mcts"
	"github.com/zerogames/zero/net"
	"github.com/zerogames/zero/net/nettrain"
	"github.com/zerogames/zero/train/replay"
	"github.com/zerogames/zero/train/runfolder"
	"github.com/zerogames/zero/train/worker"
)

// loop runs the session: self-play workers, the trainer here, evaluation beside them.
func (r *run[S]) loop(ctx context.Context) (err error) {
	defer func() {
		if cerr := r.buffer.Close(); err == nil {
			err = cerr
		}
		if cerr := r.metrics.Close(); err == nil {
			err = cerr
		}
		if cerr := r.events.Close(); err == nil {
			err = cerr
		}
	}()
	w, opt, pcg := r.from.w, r.from.opt, r.from.pcg
	r.from = startWeights{}
	r.step.Store(r.state.Step)
	trainer, err := nettrain.NewTrainer(w, r.cfg.Optimizer, opt)
	if err != nil {
		return err
	}
	defer trainer.Close()
	sp := r.cfg.SelfPlay
	r.latest = worker.NewLatest(net.NewModel(w))
	r.batcher, err = worker.NewBatcher(r.latest, sp.Batcher())
	if err != nil {
		return err
	}
	defer r.batcher.Close()
	if err := r.startTransport(ctx, w); err != nil {
		return err
	}
	r.logf("%s: session %d of %s, step %d, %d samples in the buffer (%d ever), %d checkpoints; self-play's net on %s",
		r.dir, r.state.Sessions, r.cfg.Game, r.state.Step, r.buffer.Len(), r.buffer.Total(), len(r.state.Checkpoints), r.batcher.Backend())

	// Self-play stops with work, evaluation with judge: the trainer decides when. The
	// evaluation of the last checkpoint of a run that reached its stop is waited for.
	work, stopWork := context.WithCancel(context.WithoutCancel(ctx))
	defer stopWork()
	judge, stopJudge := context.WithCancel(ctx)
	defer stopJudge()
	var wg sync.WaitGroup
	errs := make(chan error, sp.Workers+3)
	r.startSelfPlay(work, &wg, errs)
	wg.Add(2)
	go func() {
		defer wg.Done()
		if err := r.ingest(work); err != nil {
			errs <- err
		}
	}()
	go func() {
		defer wg.Done()
		r.pace(work)
	}()
	r.evalQueue = make(chan runfolder.CheckpointEntry, 1)
	var evalWG sync.WaitGroup
	if r.cfg.Eval.Games > 0 {
		evalWG.Add(1)
		go func() {
			defer evalWG.Done()
			if err := r.evaluate(judge); err != nil && judge.Err() == nil {
				errs <- err
			}
		}()
		// A checkpoint the last session did not rate is rated now.
		if n := len(r.state.Checkpoints); n > 0 && !slices.Contains(r.ladder.Rated, r.state.Checkpoints[n-1].Name()) {
			r.evalQueue <- r.state.Checkpoints[n-1]
		}
	}
	watchDone, stopped := make(chan struct{}), make(chan struct{})
	go r.watch(work, ctx, stopped, watchDone)

	trainErr := r.train(ctx, trainer, pcg, errs)
	stopWork()
	wg.Wait()
	close(stopped) // watch records the last period
	<-watchDone
	// Games the workers finished between the last save of the state and their stop are in
	// the buffer: the state counts them too (the next session would, but the state of a
	// finished run would stay short).
	if serr := r.saveGames(); serr != nil && trainErr == nil {
		trainErr = serr
	}
	if trainErr == nil && r.cfg.Eval.Games > 0 {
		r.logf("%s: rating the last checkpoint", r.dir)
		close(r.evalQueue) // evaluate rates what is queued, then returns
	} else {
		stopJudge()
	}
	evalWG.Wait()
	if trainErr != nil && !errors.Is(trainErr, context.Canceled) && !errors.Is(trainErr, context.DeadlineExceeded) {
		return trainErr
	}
	if err := r.buffer.Sync(); err != nil {
		return err
	}
	r.logf("%s: stopped at step %d after %s (%d games, %d samples ever)", r.dir, r.step.Load(),
		duration.Seconds(r.elapsed()), r.gamesStart+r.games, r.buffer.Total())
	return trainErr
}

// startSelfPlay starts the self-play workers, whose games go to the stream (the transport's
// publisher), as remote workers' do.
func (r *run[S]) startSelfPlay(ctx context.Context, wg *sync.WaitGroup, errs chan<- error) {
	sp := r.cfg.SelfPlay
	wc := sp.Worker(r.step.Load)
	for i := range sp.Workers {
		wg.Add(1)
		seed := r.cfg.Seed<<20 ^ uint64(r.state.Sessions)<<8 ^ uint64(i)
		go func() {
			defer wg.Done()
			err := worker.Play(ctx, r.g, mcts.Evaluator(r.batcher), wc, seed, &r.stats, r.tr.pub)
			if err != nil && ctx.Err() == nil {
				errs <- err
			}
		}()
	}
}

// allowedSteps is the number of training steps total samples pay for: TrainRatio samples drawn
// per sample made, none before MinSamples.
func (r *run[S]) allowedSteps(total int64) int64 {
	if total < int64(r.cfg.Replay.MinSamples) {
		return 0
	}
	return int64(float64(total) * r.cfg.Replay.TrainRatio / float64(r.cfg.Trainer.BatchSize))
}

// ahead tells whether self-play has made more samples than the trainer will want for a while:
// more than MinSamples (or two batches' worth) beyond those its steps so far pay for; or, if
// not fully, more than half that. Self-play then waits (pace), and the cores go to training,
// so the ratio holds in both directions, whichever machines play.
func (r *run[S]) ahead(fully bool) bool {
	paid := float64(r.step.Load()) * float64(r.cfg.Trainer.BatchSize) / r.cfg.Replay.TrainRatio
	slack := max(float64(r.cfg.Replay.MinSamples), 2*float64(r.cfg.Trainer.BatchSize)/r.cfg.Replay.TrainRatio)
	if !fully {
		slack /= 2
	}
	return float64(r.buffer.Total()) > paid+slack
}

// finishTraining ends the trainer's loop with err: it writes a checkpoint of the steps taken
// since lastSaved, unless failed (the trainer's weights are then not to be trusted), and else
// saves the state, which counts the session's time and games once they are on disk (as
// checkpoint and saveGames do).
func (r *run[S]) finishTraining(t *nettrain.Trainer, pcg *rand.PCG, lastSaved int64, err error, failed bool) error {
	if r.step.Load() != lastSaved && !failed {
		if serr := r.checkpoint(t, pcg); serr != nil {
			return errors.Join(err, serr)
		}
		return err
	}
	// No step since the last checkpoint, or none to keep.
	r.mu.Lock()
	if serr := r.buffer.Sync(); serr != nil { // under mu, as in checkpoint
		r.mu.Unlock()
		return errors.Join(err, serr)
	}
	r.state.Elapsed = r.elapsed()
	r.state.Games, r.state.Samples = r.gamesStart+r.games, r.buffer.Total()
	serr := r.saveStateLocked()
	r.mu.Unlock()
	return errors.Join(err, serr)
}

// train is the trainer's loop, until ctx ends or the run's stop condition.
func (r *run[S]) train(ctx context.Context, t *nettrain.Trainer, pcg *rand.PCG, errs <-chan error) error {
	rng := rand.New(pcg)
	cfg := r.cfg.Trainer
	info := r.g.Info()
	size := info.Observation.Size()
	batch := &net.Batch{N: cfg.BatchSize, Obs: make([]float32, cfg.BatchSize*size),
		LegalEnd: make([]int32, cfg.BatchSize), Value: make([]float32, cfg.BatchSize)}
	var samples []replay.Sample
	var sum nettrain.Loss
	var entropy float64
	summed, lastStep := 0, r.step.Load()
	lastSaved := lastStep
	windowStart := time.Now()
	stopAt := time.Duration(r.stop.Time)
	// finish ends the loop with err, saving the steps taken since the last checkpoint; unless
	// failed, when the trainer's weights are not to be trusted (a step that failed part way,
	// as one with a non-finite loss, has already written its batchnorm statistics or its
	// update): the run then resumes from its last checkpoint.
	finish := func(err error) error { return r.finishTraining(t, pcg, lastSaved, err, false) }
	fail := func(err error) error { return r.finishTraining(t, pcg, lastSaved, err, true) }
	for {
		select {
		case err := <-errs:
			return finish(err)
		default:
		}
		if ctx.Err() != nil {
			return finish(ctx.Err())
		}
		step := r.step.Load()
		if (r.stop.Steps > 0 && step >= r.stop.Steps) ||
			(stopAt > 0 && r.elapsed() >= stopAt.Seconds()) {
			r.logf("%s: reached the stop condition (steps %d, time %s)", r.dir, r.stop.Steps, stopAt)
			return finish(nil)
		}
		if r.allowedSteps(r.buffer.Total()) <= step {
			select {
			case <-ctx.Done():
			case err := <-errs:
				return finish(err)
			case <-time.After(50 * time.Millisecond):
			}
			continue
		}
		samples = r.buffer.Draw(rng, cfg.BatchSize, samples[:0])
		batch.Legal, batch.Policy = batch.Legal[:0], batch.Policy[:0]
		for i, s := range samples {
			var err error
			var v float32
			sym := rng.IntN(info.Symmetries)
			batch.Legal, batch.Policy, v, err = replay.MaterializeLegal(r.g, s, sym, batch.Obs[i*size:(i+1)*size], batch.Legal, batch.Policy)
			if err != nil {
				return finish(err)
			}
			batch.LegalEnd[i], batch.Value[i] = int32(len(batch.Legal)), valueTarget(v, s.Game.Targets[s.Target], cfg.ValueFromSearch)
		}
		entropy += targetEntropy(batch)
		loss, err := t.Step(batch)
		if err == nil && (math.IsNaN(loss.Total) || math.IsInf(loss.Total, 0)) {
			err = fmt.Errorf("the loss is %v", loss.Total)
		}
		if err != nil {
			return fail(fmt.Errorf("training step %d: %w (the run resumes from its last checkpoint, step %d; if the loss is not finite, lower optimizer.learning_rate first)", step+1, err, lastSaved))
		}
		step = r.step.Add(1)
		sum.Policy += loss.Policy
		sum.Value += loss.Value
		sum.L2 += loss.L2
		sum.Total += loss.Total
		summed++
		if step%int64(cfg.PublishEvery) == 0 {
			r.latest.Publish(net.NewModel(t.Weights()))
			if err := r.publishWeights(ctx, t.Weights(), step, false); err != nil {
				return finish(err)
			}
			secs := time.Since(windowStart).Seconds()
			n := float64(summed)
			r.loss.Store(&nettrain.Loss{Total: sum.Total / n, Policy: sum.Policy / n, Value: sum.Value / n, L2: sum.L2 / n})
			r.record("train", map[string]float64{
				"loss": sum.Total / n, "policy_loss": sum.Policy / n, "value_loss": sum.Value / n, "l2": sum.L2 / n,
				"target_entropy": entropy / n, "lr": r.cfg.Optimizer.LearningRateAt(step - 1), // the last step's (steps count from 0)
				"samples_per_s": float64(int64(summed)*int64(cfg.BatchSize)) / secs,
				"steps_per_s":   float64(step-lastStep) / secs,
			})
			sum, entropy, summed, lastStep, windowStart = nettrain.Loss{}, 0, 0, step, time.Now()
		}
		if step%int64(cfg.CheckpointEvery) == 0 {
			if err := r.checkpoint(t, pcg); err != nil {
				return err
			}
			lastSaved = step
		}
	}
}

// valueTarget mixes the game's result and the search's root value, both from the decider's
// side, with weight lambda on the search's.
func valueTarget(result float32, t replay.Target, lambda float64) float32 {
	if t.Proven {
		return t.Value // the search proved it: the game's result adds only noise (chance) or nothing
	}
	return float32((1-lambda)*float64(result) + lambda*float64(t.Value))
}

// targetEntropy is the mean entropy of the batch's policy targets, in nats: what the policy
// loss would be for a net that predicted them exactly.
func targetEntropy(b *net.Batch) float64 {
	h, start := 0.0, int32(0)
	for i := range b.N {
		for _, p := range b.Policy[start:b.LegalEnd[i]] {
			if p > 0 {
				h -= float64(p) * math.Log(float64(p))
			}
		}
		start = b.LegalEnd[i]
	}
	return h / float64(b.N)
}
