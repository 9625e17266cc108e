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
//
// # A session
//
// Run[S] runs one session. Self-play is package worker's, its search an
// mcts.Params decoded from the selfplay section (SelfPlayConfig embeds it) over
// self-play's defaults; each session seeds its workers afresh. The trainer draws
// batch_size samples uniformly from the replay window, each turned by a random
// symmetry, and steps; the value target is the result, or with value_from_search
// λ > 0 (1−λ)·result + λ·the root value. The ratio: step k+1 waits until
// train_ratio × samples ever ≥ (k+1) × batch_size, and every worker, here or
// remote, waits after a game while the pace says self-play is ahead. Every
// publish_every steps the weights are published and a train record written; every
// checkpoint_every steps a checkpoint, then state.json.
//
// Evaluation (eval.go) plays each new checkpoint against the previous ones and the
// baselines at the game's selfplay.PlayParams; the ladder is re-rated (anchored at
// random) into ratings.json. A newer checkpoint replaces one still waiting, so
// evaluation never falls behind. Checkpoints beyond keep_last are deleted, except
// the best rated and, while it is rated, the one under evaluation and its
// opponents; every step-*.zck the state does not list goes with them, so a
// deletion that failed is tried again.
//
// # Crash safety in detail
//
// The lock is the OS's (flock) on the folder itself, opened read-only, so a killed
// trainer releases it and deleting the lock file does not. A resume refuses a
// checkpoint that is whole but not the one the run wrote (its SHA-256 is not the
// recorded one); a damaged newest checkpoint is set aside as FILE.damaged, its
// ladder player renamed with it, and the run resumes from the newest whole one. A
// folder with checkpoints, ratings or games but no state.json is refused. Games
// and samples are counted under one lock, the buffer synced before the state
// counts them, and the buffer opens with the state's count as a floor (see
// replay.Open). Temporary files of cut writes are removed on reopening
// (atomicfile.RemoveTemps). A step whose loss is not finite ends the session
// without saving the weights it left. TestKillAndResume kills a run with SIGKILL,
// damages the replay tail and resumes it.
//
// # Init, history, refusals
//
// init (zero train --init) starts a new run from a checkpoint's weights
// (net.LoadTransfer: another game of the same shape will do); a net with fewer
// residual blocks is grown by net.Weights.Deepen, each new block the identity, so
// the run starts from the checkpoint's play to the bit. The configuration history
// (history.go) compares the session's configuration with the last record in
// config-history/ key by key, prints and records the changes, and refuses a change
// of game, of any net key or of optimizer.method before anything is written.
//
// # Remote workers, transport and benches
//
// Work (remote.go, zero worker) plays for a run on another machine: the run's info
// and configuration checked against this build, the newest network from the object
// store (switched at each publication), its own batcher and workers, and a
// dist.Publisher with an outbox in its folder. transport.go starts the embedded
// NATS server or connects to an external one, checks that it holds no other run
// (before the folder is written), sets the run up, and ingests: each game checked
// (replay.Check) or refused for good, added unless the buffer has had its id, and
// acknowledged once synced. BenchSelfPlay (zero bench selfplay) and BenchIngest
// (zero bench ingest) measure self-play and the intake. Console output (watch.go)
// goes through one console that erases the progress bar first.
package train

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/internal/atomicfile"
	"github.com/zerogames/zero/models"
	"github.com/zerogames/zero/net"
	"github.com/zerogames/zero/net/nettrain"
	"github.com/zerogames/zero/train/metrics"
	"github.com/zerogames/zero/train/metrics/tfevents"
	"github.com/zerogames/zero/train/replay"
	"github.com/zerogames/zero/train/runfolder"
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
		ck, err := net.LoadTransfer(models.ReadFile, r.cfg.Init, r.spec)
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

// checkpointName matches the names of the checkpoint files a run writes.
var checkpointName = regexp.MustCompile(`^step-[0-9]{8,}\` + runfolder.CheckpointExt + `$`)

func (r *run[S]) logf(format string, a ...any) { r.console.printf(format, a...) }
