// Package train is the learning loop: self-play, the replay buffer and the trainer running
// together in one process over a run folder, with evaluation of every checkpoint and an Elo
// ladder of them all. The self-play workers and their batcher are package train/worker's (a
// worker.Latest their WeightsSource); their games, and those of workers on other machines,
// reach the trainer through NATS JetStream (package train/dist: an embedded server by default);
// the trainer is net/nettrain's, the evaluation games package selfplay's.
//
// A run folder holds everything the run knows, so that it can stop at any moment and resume:
// its layout, state and ladder are package runfolder's.
//
// Invariants: state.json only names a checkpoint that was fully written; a checkpoint holds the
// optimizer state of its step; the replay buffer only grows by whole games, each checked
// against the rules and held once (by its id) however often the server delivers it; a game
// leaves the server only once the buffer has synced it. A process killed at
// any moment (SIGKILL included) therefore resumes from its last checkpoint with every finished
// game it had recorded, losing only the games in progress and the training steps since that
// checkpoint. An interruption (context cancelled: Ctrl-C) writes a last checkpoint first. One
// process trains in a folder at a time: a second is refused at once, naming the first.
package train

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/zerogames/zero/train/runfolder"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/internal/atomicfile"
	"github.com/zerogames/zero/internal/duration"
	"github.com/zerogames/zero/mcts"
	"github.com/zerogames/zero/net"
	"github.com/zerogames/zero/net/nettrain"
	"github.com/zerogames/zero/train/metrics"
	"github.com/zerogames/zero/train/metrics/tfevents"
	"github.com/zerogames/zero/train/replay"
	"github.com/zerogames/zero/train/worker"
)

// Options tie a run to its surroundings.
type Options struct {
	// Out receives the run's progress: a progress bar when it is a terminal, else a plain line
	// every LogEvery. nil: nothing.
	Out io.Writer
	// LogEvery is the period of log lines and of selfplay metrics (default 30s).
	LogEvery time.Duration
	// Stop, if set, replaces the configuration's stop for this session only: config.yaml keeps
	// the run's own (command-line overrides are not saved with the run).
	Stop *StopConfig
	// Command is the command line that started the session, written in its record in
	// config-history/ ("": none).
	Command string
	// Transport is how games and weights travel (the zero value: an embedded server with no
	// socket, for the run's own workers).
	Transport Transport
}

// run is one session of a run.
type run[S env.State[S]] struct {
	g          env.Game[S]
	cfg        Config
	given      Config // cfg as given, before Cores: what config.yaml holds
	dir        string
	opt        Options
	spec       *net.Spec
	stop       StopConfig // this session's stop
	start      time.Time
	before     float64 // elapsed seconds of the earlier sessions
	gamesStart int64   // games played by the earlier sessions
	games      int64   // games played by this session, guarded by mu (counted with the buffer's Add)

	buffer  *replay.Buffer
	metrics *metrics.Log
	events  *tfevents.Writer // the same records for TensorBoard
	batcher *worker.Batcher
	latest  *worker.Latest // the batcher's weights: the trainer publishes here
	stats   worker.Stats
	step    atomic.Int64
	loss    atomic.Pointer[nettrain.Loss] // the mean loss of the newest train record
	console console

	mu     sync.Mutex // guards state and ladder
	state  runfolder.State
	ladder runfolder.Ladder
	aside  map[string]string // the damaged checkpoints' files → the suffix they are set aside with
	// retireLogged tells that the buffer's RetireErr has been logged.
	retireLogged bool

	tr *transport // the session's server, connection, consumer and publisher

	evalQueue chan runfolder.CheckpointEntry
	// rating are the files of the checkpoint being evaluated and of its opponents, which trim
	// keeps until the evaluation ends; writing is the checkpoint being written, not yet in the
	// state; failedRemoval are the files trim could not delete, each logged once (all guarded
	// by mu).
	rating        []string
	writing       string
	failedRemoval map[string]bool
	// init is the checkpoint of cfg.Init when the run starts from it (nil otherwise).
	init *net.Checkpoint
	// from is what the session starts from, loaded by open before it writes anything.
	from startWeights
}

// Run trains g's network with cfg in the run folder dir, creating it or resuming what it holds,
// until ctx ends or cfg.Stop is reached. On a resume, the settings that changed since the last
// session are printed, and a change of game, net or optimizer method is refused before
// anything is written. Each session's configuration is recorded in config-history/.
func Run[S env.State[S]](ctx context.Context, g env.Game[S], cfg Config, dir string, opt Options) error {
	info := g.Info()
	if cfg.Game != info.Name {
		return fmt.Errorf("the configuration is for %s, not %s", cfg.Game, info.Name)
	}
	given := cfg
	cfg.Cores()
	if err := cfg.Validate(); err != nil {
		return err
	}
	if opt.LogEvery <= 0 {
		opt.LogEvery = 30 * time.Second
	}
	spec, err := net.SpecOf(info, g)
	if err != nil {
		return err
	}
	r := &run[S]{g: g, cfg: cfg, given: given, dir: dir, opt: opt, spec: spec, start: time.Now(), stop: cfg.Stop, console: console{out: opt.Out}}
	if opt.Stop != nil {
		r.stop = *opt.Stop
		if r.stop.Steps < 0 || r.stop.Time < 0 {
			return fmt.Errorf("stop: steps %d and time %v must be ≥ 0", r.stop.Steps, time.Duration(r.stop.Time))
		}
	}
	// The folder is this process's until it returns: a second trainer is refused before it
	// reads anything. A folder made here for a run refused (by the server or open) is removed
	// again.
	_, statErr := os.Stat(dir)
	lock, err := runfolder.Take(dir)
	if err != nil {
		return err
	}
	defer lock.Release()
	err = r.connectTransport(ctx)
	if err == nil {
		defer r.stopTransport()
		err = r.open()
	}
	if err != nil {
		if errors.Is(statErr, os.ErrNotExist) {
			r.stopTransport()
			os.RemoveAll(dir)
		}
		return err
	}
	return r.loop(ctx)
}

// open creates or reopens the run folder.
func (r *run[S]) open() error {
	// Everything is read and checked before anything is written: a refused run changes nothing.
	last, from, err := lastRecord(r.dir)
	if err != nil {
		return err
	}
	var changed []change
	if last != nil {
		if changed, err = changes(last, &r.cfg); err != nil {
			return err
		}
		if err := refused(r.dir, changed); err != nil {
			return err
		}
	}
	if err := runfolder.ReadJSON(filepath.Join(r.dir, runfolder.StateFile), &r.state); err != nil {
		return err
	}
	if err := stateless(r.dir); err != nil {
		return err
	}
	if r.state.Game != "" && r.state.Game != r.cfg.Game {
		return fmt.Errorf("%s: a %s run, not %s", filepath.Join(r.dir, runfolder.StateFile), r.state.Game, r.cfg.Game)
	}
	if err := runfolder.ReadJSON(filepath.Join(r.dir, runfolder.RatingsFile), &r.ladder); err != nil {
		return err
	}
	if r.state.Checkpoint == "" && r.cfg.Init != "" {
		ck, err := net.LoadTransfer(r.cfg.Init, r.spec)
		if err != nil {
			return fmt.Errorf("init: %w", err)
		}
		if ck.Header.Net != r.cfg.Net {
			// A net with fewer blocks, the same otherwise, grows into the run's: its new
			// blocks start as the identity (net.Weights.Deepen), so the run goes on from the
			// checkpoint's play with more capacity.
			d, err := ck.Weights.Deepen(r.cfg.Net, rand.New(rand.NewPCG(r.cfg.Seed, 0x6465_6570)))
			if err != nil {
				return fmt.Errorf("init: %s holds another net (%+v) than the run's (%+v), and cannot grow into it: %w", r.cfg.Init, ck.Header.Net, r.cfg.Net, err)
			}
			ck.Weights = d
		}
		r.init = ck
	}
	if err := r.ownCheckpoints(); err != nil {
		return err
	}
	if r.from, err = r.weights(); err != nil {
		return err
	}
	for _, d := range []string{r.dir, filepath.Join(r.dir, runfolder.CheckpointDir)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	r.buffer, err = replay.Open(filepath.Join(r.dir, runfolder.ReplayDir), r.cfg.Game, r.cfg.Replay.Window, r.state.Samples)
	if err != nil {
		return err
	}
	for _, c := range r.buffer.Cuts() {
		r.logf("replay: %v", c)
	}
	for _, d := range r.buffer.Damage() {
		r.logf("replay: warning: %v; the run goes on (zero replay check --run %s lists the damage, zero replay repair rewrites the damaged shards)", d, r.dir)
	}
	if c := r.buffer.RetiredCut(); c != "" {
		r.logf("replay: %s", c)
	}
	if err := r.buffer.RetireErr(); err != nil {
		r.logf("replay: writing the retired game ids: %v (the shards the window passes stay on the disk this session)", err)
		r.retireLogged = true
	}
	// The temporary files of writes a killed process left (the folder is this process's: its
	// lock is held); best effort.
	removed, err := atomicfile.RemoveTemps(r.dir, filepath.Join(r.dir, runfolder.CheckpointDir), filepath.Join(r.dir, runfolder.HistoryDir), filepath.Join(r.dir, runfolder.ReplayDir))
	if len(removed) > 0 {
		r.logf("%s: removed %s a killed process left: %s", r.dir, nouns(len(removed), "temporary file"), strings.Join(removed, ", "))
	}
	if err != nil {
		r.logf("%s: removing the temporary files a killed process left: %v", r.dir, err)
	}
	err = r.writeConfig()
	if err == nil {
		r.metrics, err = metrics.Create(filepath.Join(r.dir, runfolder.MetricsFile))
	}
	if err == nil {
		if r.events, err = tfevents.Create(r.dir, time.Now()); err != nil {
			r.metrics.Close()
		}
	}
	if err != nil {
		r.buffer.Close()
		return err
	}
	if len(changed) > 0 {
		r.logf("%s: the configuration changed since %s:", r.dir, filepath.ToSlash(from))
		for _, c := range changed {
			r.logf("  %s", c)
		}
	}
	// The record of the session is written before the state counts it: a session that fails
	// to count is recorded again, under the same number, by the next.
	var stop *StopConfig
	if r.opt.Stop != nil {
		stop = &r.stop
	}
	record, err := sessionRecord(&r.cfg, r.state.Sessions+1, r.opt.Command, r.start, &r.state, stop, from, changed)
	if err == nil {
		err = os.MkdirAll(filepath.Join(r.dir, runfolder.HistoryDir), 0o755)
	}
	if err == nil {
		err = atomicfile.WriteBytes(filepath.Join(r.dir, sessionFile(r.state.Sessions+1)), record)
	}
	if err == nil && r.from.fellBack != nil {
		err = r.fallBack(*r.from.fellBack, r.from.damaged)
	}
	if err != nil {
		r.buffer.Close()
		r.metrics.Close()
		r.events.Close()
		return err
	}
	r.state.Game = r.cfg.Game
	r.state.Sessions++
	if r.state.Samples > 0 || r.state.Games == 0 {
		// The games recorded after the last save, by a process killed before its next.
		r.state.Games += int64(r.buffer.GamesSince(r.state.Samples))
	}
	r.state.Samples = r.buffer.Total()
	r.before, r.gamesStart = r.state.Elapsed, r.state.Games
	// The session is counted at once, so that the next one never replays its self-play seeds.
	r.mu.Lock()
	err = r.saveStateLocked()
	r.mu.Unlock()
	if err != nil {
		r.buffer.Close()
		r.metrics.Close()
		r.events.Close()
		return err
	}
	r.setAside(r.from.damaged)
	return nil
}

// writeConfig writes the configuration as given to config.yaml, unless the file already holds
// it: a file edited by hand keeps its comments and layout.
func (r *run[S]) writeConfig() error {
	path := filepath.Join(r.dir, runfolder.ConfigFile)
	data, err := r.given.Marshal()
	if err != nil {
		return err
	}
	if old, err := LoadConfig(path); err == nil {
		if was, err := old.Marshal(); err == nil && string(was) == string(data) {
			return nil
		}
	}
	return atomicfile.WriteBytes(path, data)
}

// elapsed is the run's working time over all its sessions.
func (r *run[S]) elapsed() float64 { return r.before + time.Since(r.start).Seconds() }

func (r *run[S]) record(kind string, values map[string]float64) {
	r.recordAt(kind, r.step.Load(), r.elapsed(), values)
}

// recordAt writes a record of step, made when the run had worked elapsed seconds.
func (r *run[S]) recordAt(kind string, step int64, elapsed float64, values map[string]float64) {
	rec := metrics.Record{Kind: kind, Step: step, Time: time.Now(), Elapsed: elapsed, Values: values}
	if err := r.metrics.Write(rec); err != nil {
		r.logf("metrics: %v", err)
	}
	tagged := make(map[string]float64, len(values))
	for name, v := range values {
		tagged[kind+"/"+name] = v
	}
	if err := r.events.Scalars(rec.Time, step, tagged); err != nil {
		r.logf("tensorboard events: %v", err)
	}
}

// startWeights is what a session starts from (weights): the network, the optimizer and the
// trainer's generator, and, if the newest checkpoint was damaged, the older one taken instead
// and the damaged ones after it.
type startWeights struct {
	w        *net.Weights
	opt      *net.Optimizer
	pcg      *rand.PCG
	fellBack *runfolder.CheckpointEntry
	damaged  []string
}

// weights loads the newest checkpoint, or makes the first weights. It writes nothing (open
// calls it before the folder is touched): a fall-back to an older checkpoint is applied by
// fallBack once the session is under way.
func (r *run[S]) weights() (startWeights, error) {
	pcg := rand.NewPCG(r.cfg.Seed, 0x7472_6169_6e)
	if r.init != nil {
		h := r.init.Header
		r.logf("starting from the weights of %s (%s, step %d)", r.cfg.Init, h.Game, h.Step)
		if h.Net.Blocks != r.cfg.Net.Blocks {
			r.logf("deepened from %d residual blocks to %d: the new ones start as the identity", h.Net.Blocks, r.cfg.Net.Blocks)
		}
		return startWeights{w: r.init.Weights, opt: net.NewOptimizer(r.init.Weights), pcg: pcg}, nil
	}
	if r.state.Checkpoint == "" {
		w, err := net.NewWeights(r.spec, r.cfg.Net, rand.New(rand.NewPCG(r.cfg.Seed, 0x6e6574)))
		if err != nil {
			return startWeights{}, err
		}
		return startWeights{w: w, opt: net.NewOptimizer(w), pcg: pcg}, nil
	}
	if err := pcg.UnmarshalBinary(r.state.RNG); err != nil {
		return startWeights{}, fmt.Errorf("%s: rng: %w", filepath.Join(r.dir, runfolder.StateFile), err)
	}
	// The newest checkpoint, or if it is damaged (a disk's fault: checkpoints are written
	// atomically) the newest good one before it, whose steps since are trained again.
	newest := runfolder.CheckpointEntry{File: r.state.Checkpoint, Step: r.state.Step, Elapsed: r.state.Elapsed}
	candidates := []runfolder.CheckpointEntry{newest}
	for _, c := range slices.Backward(r.state.Checkpoints) {
		if c.File != newest.File && c.Step < newest.Step {
			candidates = append(candidates, c)
		}
	}
	var first error
	var damaged []string
	for _, c := range candidates {
		path := filepath.Join(r.dir, c.File)
		ck, err := net.Load(path, r.spec)
		if err == nil && (ck.Header.Step != c.Step || ck.Optimizer == nil) {
			err = fmt.Errorf("it holds step %d (state.json says %d) and optimizer state %v", ck.Header.Step, c.Step, ck.Optimizer != nil)
		}
		if err != nil {
			if first == nil {
				first = fmt.Errorf("resuming from %s: %w", path, err)
			}
			r.logf("resuming: %s is damaged: %v", path, err)
			damaged = append(damaged, c.File)
			continue
		}
		sw := startWeights{w: ck.Weights, opt: ck.Optimizer, pcg: pcg}
		if c != newest {
			sw.fellBack, sw.damaged = &c, damaged
		}
		return sw, nil
	}
	return startWeights{}, fmt.Errorf("%w (and no checkpoint before it is whole)", first)
}

// ownCheckpoints refuses a resume where a checkpoint state.json lists is whole but not the
// file the run wrote (its size and SHA-256 are not those recorded with it): another process
// wrote it over the run's (a second trainer in the folder), or it was copied in, and resuming
// would take the other's weights, or its rating, as the run's. A file that does not load is
// damage, left to weights (which falls back past a damaged newest checkpoint). It writes
// nothing.
func (r *run[S]) ownCheckpoints() error {
	for _, c := range r.state.Checkpoints {
		if c.SHA256 == "" {
			continue // listed before files were recorded with their digest
		}
		path := filepath.Join(r.dir, c.File)
		size, sum, err := fileDigest(path)
		if err != nil || size == c.Size && sum == c.SHA256 {
			continue // missing or unreadable: damage, as a file that does not load
		}
		ck, err := net.Load(path, r.spec)
		if err != nil {
			continue
		}
		return fmt.Errorf("resuming: %s is not the checkpoint %s lists (written by session %d: %d bytes, SHA-256 %.12s…) "+
			"but another, of step %d saved %s (%d bytes, SHA-256 %.12s…): another process wrote it over the run's, or it was copied in; "+
			"put the run's own file back, or start a new run from this one (--init %s, with another --run)",
			path, runfolder.StateFile, c.Session, c.Size, c.SHA256, ck.Header.Step, ck.Header.Created.Local().Format(time.DateTime), size, sum, path)
	}
	return nil
}

// fileDigest is the size and SHA-256 (hex) of the file at path.
func fileDigest(path string) (int64, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return 0, "", err
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}

// fallBack makes c, an older checkpoint than the state's newest, the run's newest in r.state
// (open saves it), the damaged ones after it out of the list. Their ladder players are renamed
// as their files will be (setAside), their games kept under the new names, and ratings.json
// saved before the state: a checkpoint trained again at the same step is rated afresh, not
// with the damaged one's games and rating.
func (r *run[S]) fallBack(c runfolder.CheckpointEntry, damaged []string) error {
	r.logf("resuming from %s (step %d) instead, the newest whole checkpoint: its %d steps since are trained again",
		filepath.Join(r.dir, c.File), c.Step, r.state.Step-c.Step)
	r.aside = map[string]string{}
	renamed := false
	for _, f := range damaged {
		name := runfolder.CheckpointEntry{File: f}.Name()
		suffix := asideSuffix(func(suffix string) bool {
			_, err := os.Lstat(filepath.Join(r.dir, f+suffix))
			return err == nil || slices.Contains(r.ladder.Players, name+suffix)
		})
		r.aside[f] = suffix
		renamed = r.ladder.Rename(name, name+suffix) || renamed
	}
	r.state.Step, r.state.Checkpoint, r.state.Elapsed = c.Step, c.File, c.Elapsed
	r.state.Checkpoints = slices.DeleteFunc(r.state.Checkpoints, func(e runfolder.CheckpointEntry) bool { return slices.Contains(damaged, e.File) })
	if !renamed {
		return nil
	}
	data, err := json.MarshalIndent(&r.ladder, "", "  ")
	if err == nil {
		err = atomicfile.WriteBytes(filepath.Join(r.dir, runfolder.RatingsFile), append(data, '\n'))
	}
	return err
}

// asideSuffix is the first of ".damaged", ".damaged-2", ".damaged-3", … that taken does not
// report taken: a checkpoint damaged twice at one step keeps both.
func asideSuffix(taken func(suffix string) bool) string {
	suffix := ".damaged"
	for k := 2; taken(suffix); k++ {
		suffix = fmt.Sprintf(".damaged-%d", k)
	}
	return suffix
}

// setAside renames the damaged checkpoints to FILE.damaged (or .damaged-2, …, as fallBack
// chose; kept for a look, out of the run's way), once the state no longer names them.
func (r *run[S]) setAside(damaged []string) {
	for _, f := range damaged {
		path := filepath.Join(r.dir, f)
		if err := os.Rename(path, path+r.aside[f]); err != nil && !errors.Is(err, os.ErrNotExist) {
			r.logf("checkpoints: %v", err)
		}
	}
}

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

// checkpoint writes the weights and optimizer of the current step, then the state naming it,
// hands it to evaluation and trims the checkpoints kept.
func (r *run[S]) checkpoint(t *nettrain.Trainer, pcg *rand.PCG) error {
	step := r.step.Load()
	entry := runfolder.CheckpointEntry{File: filepath.Join(runfolder.CheckpointDir, fmt.Sprintf("step-%08d%s", step, runfolder.CheckpointExt)), Step: step, Elapsed: r.elapsed()}
	path := filepath.Join(r.dir, entry.File)
	r.mu.Lock()
	r.writing = entry.File // trim leaves it while the state does not list it
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.writing = ""
		r.mu.Unlock()
	}()
	if err := net.Save(path, t.Weights(), t.Optimizer(), step, time.Now()); err != nil {
		return err
	}
	// The file as the state records it, for a resume to tell it from another (ownCheckpoints).
	var err error
	if entry.Size, entry.SHA256, err = fileDigest(path); err != nil {
		return err
	}
	rng, err := pcg.MarshalBinary()
	if err != nil {
		return err
	}
	r.mu.Lock()
	// Every recorded game is on disk before the state counts it: synced under mu, which games
	// are added under (addGame), so that none comes between the sync and the count.
	if err := r.buffer.Sync(); err != nil {
		r.mu.Unlock()
		return err
	}
	if err := r.buffer.RetireErr(); err != nil && !r.retireLogged {
		r.logf("replay: writing the retired game ids: %v (the shards the window passes stay on the disk this session)", err)
		r.retireLogged = true
	}
	r.state.Step, r.state.Checkpoint, r.state.Elapsed, r.state.RNG = step, entry.File, entry.Elapsed, rng
	r.state.Games, r.state.Samples = r.gamesStart+r.games, r.buffer.Total()
	entry.Session = r.state.Sessions
	r.state.Checkpoints = slices.DeleteFunc(r.state.Checkpoints, func(c runfolder.CheckpointEntry) bool { return c.File == entry.File })
	r.state.Checkpoints = append(r.state.Checkpoints, entry)
	err = r.saveStateLocked()
	r.mu.Unlock()
	if err != nil {
		return err
	}
	r.logf("checkpoint %s: step %d, %s of training", filepath.Join(r.dir, entry.File), step,
		duration.Seconds(entry.Elapsed))
	if r.cfg.Eval.Games > 0 {
		// The newest checkpoint replaces one still waiting: evaluation never falls behind.
		select {
		case <-r.evalQueue:
		default:
		}
		r.evalQueue <- entry
	}
	r.trim()
	return nil
}

// saveGames saves the state if games were recorded since it was saved, once they are on disk.
func (r *run[S]) saveGames() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	games, samples := r.gamesStart+r.games, r.buffer.Total()
	if games == r.state.Games && samples == r.state.Samples {
		return nil
	}
	if err := r.buffer.Sync(); err != nil {
		return err
	}
	r.state.Games, r.state.Samples = games, samples
	return r.saveStateLocked()
}

func (r *run[S]) saveStateLocked() error {
	data, err := json.MarshalIndent(&r.state, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteBytes(filepath.Join(r.dir, runfolder.StateFile), append(data, '\n'))
}

// checkpointName matches the names of the checkpoint files a run writes.
var checkpointName = regexp.MustCompile(`^step-[0-9]{8,}\` + runfolder.CheckpointExt + `$`)

// trim drops from the state the checkpoints beyond the last KeepLast, except the best rated
// and those of the evaluation under way (the checkpoint rated and its opponents, until it
// ends), then deletes every checkpoint file in the folder that the state does not list, but
// the one being written: a file whose deletion failed is tried again at the next trim, and
// one left by a process killed between its checkpoint and its state goes too.
func (r *run[S]) trim() {
	r.mu.Lock()
	defer r.mu.Unlock()
	keep := r.cfg.Trainer.KeepLast
	best := r.ladder.Best(r.state.Checkpoints)
	var kept []runfolder.CheckpointEntry
	for i, c := range r.state.Checkpoints {
		if i >= len(r.state.Checkpoints)-keep || c.Name() == best || c.File == r.state.Checkpoint || slices.Contains(r.rating, c.File) {
			kept = append(kept, c)
		}
	}
	if len(kept) < len(r.state.Checkpoints) {
		was := r.state.Checkpoints
		r.state.Checkpoints = kept
		if err := r.saveStateLocked(); err != nil {
			// The state on disk still lists them: they are dropped at the next trim.
			r.state.Checkpoints = was
			r.logf("checkpoints: %v", err)
			return
		}
	}
	// The state no longer names the others: a crash from here on leaves at worst a stray file.
	entries, err := os.ReadDir(filepath.Join(r.dir, runfolder.CheckpointDir))
	if err != nil {
		r.logf("checkpoints: %v", err)
		return
	}
	for _, e := range entries {
		f := filepath.Join(runfolder.CheckpointDir, e.Name())
		if !checkpointName.MatchString(e.Name()) || f == r.writing ||
			slices.ContainsFunc(kept, func(c runfolder.CheckpointEntry) bool { return c.File == f }) {
			continue
		}
		err := os.Remove(filepath.Join(r.dir, f))
		switch {
		case err == nil || errors.Is(err, os.ErrNotExist):
			delete(r.failedRemoval, f)
		case !r.failedRemoval[f]:
			// Said once: it is tried again at every trim.
			r.logf("checkpoints: %v (tried again at each checkpoint)", err)
			if r.failedRemoval == nil {
				r.failedRemoval = map[string]bool{}
			}
			r.failedRemoval[f] = true
		}
	}
}

// readJSON reads a JSON file into v; a missing file leaves v as it is.
// stateless refuses a run folder with no state.json that holds what only a run that saved one
// writes (checkpoints, ratings, recorded games): starting again there would write over the
// run's files, its checkpoints among them. A folder with none of them is a new run's, or one
// whose first session was killed before it saved anything.
func stateless(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, runfolder.StateFile)); !errors.Is(err, os.ErrNotExist) {
		return nil
	}
	var found []string
	for _, pattern := range []string{runfolder.RatingsFile, filepath.Join(runfolder.CheckpointDir, "*"+runfolder.CheckpointExt), filepath.Join(runfolder.ReplayDir, "*.zrp")} {
		m, _ := filepath.Glob(filepath.Join(dir, pattern))
		switch {
		case len(m) == 1 && m[0] == filepath.Join(dir, pattern):
			found = append(found, m[0])
		case len(m) == 1:
			found = append(found, fmt.Sprintf("%s (1 file)", filepath.Join(dir, pattern)))
		case len(m) > 1:
			found = append(found, fmt.Sprintf("%s (%d files)", filepath.Join(dir, pattern), len(m)))
		}
	}
	if len(found) == 0 {
		return nil
	}
	return fmt.Errorf("%s: no %s, but the folder holds a run's files: %s; restore %s (or start the run in another folder): training here would start again over them",
		dir, runfolder.StateFile, strings.Join(found, ", "), runfolder.StateFile)
}

func (r *run[S]) logf(format string, a ...any) { r.console.printf(format, a...) }
