package train

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/mcts"
	"github.com/zerogames/zero/models"
	"github.com/zerogames/zero/net"
	"github.com/zerogames/zero/train/dist"
	"github.com/zerogames/zero/train/runfolder"
	"github.com/zerogames/zero/train/worker"
)

// WorkerOptions are a remote self-play worker's (zero worker).
type WorkerOptions struct {
	// Workers is the number of self-play goroutines, each with its own inference engine (0:
	// the run's selfplay.workers, or one per core of this machine where it says 0).
	Workers int
	// Dir is the worker's folder: its outbox (games the server did not take yet), the
	// network in use, a lock (one worker process a folder).
	Dir string
	// Name names the worker in the games' ids and the trainer's metrics (default: the host's
	// name).
	Name string
	// Out receives the progress: a bar on a terminal, else a line every LogEvery.
	Out      io.Writer
	LogEvery time.Duration
	// Journal, if set, is a file to which the id of every game the server took is appended,
	// a line each.
	Journal string
	// MaxOutbox bounds the games kept in the outbox (default 10,000).
	MaxOutbox int
}

// Files of a worker's folder.
const (
	outboxDir      = "outbox"
	workerWeights  = "weights.zck"
	defaultOutbox  = 10_000
	weightsRetries = time.Second
	// fetchTries is how many failed downloads of the first network in a row a worker takes
	// before it gives up (fetch).
	fetchTries = 10
)

// Work plays self-play games for the run on the server c is connected to, until ctx ends or
// the connection is lost for good (dist.Conn.Lost: it returns why). It refuses, before
// playing, a run whose game, rules revision, encoding or network this build does not share
// (run is the run's info, config its configuration). It fetches the newest network (checked by
// the object store's digest and the checkpoint loader), plays with its own batcher, publishes
// each game with a unique id, keeps in its outbox what the server cannot take, and switches to
// each new network the trainer publishes.
func Work[S env.State[S]](ctx context.Context, g env.Game[S], c *dist.Conn, run dist.RunInfo, config []byte, opt WorkerOptions) error {
	info := g.Info()
	if m := run.Mismatch(info); m != "" {
		return fmt.Errorf("this zero cannot play for the run: %s", m)
	}
	cfg, err := ParseConfig(config)
	if err != nil {
		return fmt.Errorf("the run's configuration: %w", err)
	}
	if cfg.Game != info.Name || cfg.Net != run.Net {
		return fmt.Errorf("the run's configuration (%s, net %+v) is not its info's (%s, net %+v)", cfg.Game, cfg.Net, run.Game, run.Net)
	}
	spec, err := net.SpecOf(info, g)
	if err != nil {
		return err
	}
	if opt.Workers > 0 {
		cfg.SelfPlay.Workers, cfg.SelfPlay.InferenceWorkers = opt.Workers, opt.Workers
	}
	cfg.Cores()
	if err := cfg.Validate(); err != nil {
		return err
	}
	if opt.Name == "" {
		host, _ := os.Hostname()
		opt.Name = host
	}
	if !dist.ValidName(opt.Name) {
		return fmt.Errorf("worker name %q: want 1 to 64 letters, digits, '.', '_' or '-' (--name)", opt.Name)
	}
	if opt.LogEvery <= 0 {
		opt.LogEvery = 30 * time.Second
	}
	if opt.MaxOutbox <= 0 {
		opt.MaxOutbox = defaultOutbox
	}
	lock, err := runfolder.TakeFor(opt.Dir, "worker folder %s is %w: %s works in it; wait for it to stop or give another --dir")
	if err != nil {
		return err
	}
	defer lock.Release()
	w := &remote[S]{g: g, c: c, weights: c, retry: weightsRetries, spec: spec, cfg: cfg, opt: opt, console: console{out: opt.Out}}
	// A connection gone for good (the server refused the worker's credentials
	// dist.MaxAuthRefusals times in a row: its trainer was started again with a new token) ends
	// the worker, saying why: the games it would play could never be sent. Those it finished
	// stay in its outbox.
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		select {
		case <-c.Lost():
			stop()
		case <-ctx.Done():
		}
	}()
	err = w.work(ctx)
	select {
	case <-c.Lost():
		return c.Err()
	default:
		return err
	}
}

// weightSource is where a worker reads the run's info and downloads its network from: a
// *dist.Conn.
type weightSource interface {
	Run(ctx context.Context) (dist.RunInfo, []byte, error)
	GetWeights(ctx context.Context, path string) (int64, error)
	Connected() bool
}

// errNotThisRun marks what ends a worker for good: the run's network or info no longer fits
// this build or the configuration it started with (a trainer restarted by another build).
var errNotThisRun = errors.New("this worker can no longer play for the run")

// checkRun reads the run's info again (a new network, or a reconnection: the trainer may have
// been restarted by another build, with another revision of the rules or another net) and
// returns errNotThisRun, with the reason, if this worker can no longer play for it; nil if it
// can, or if the info cannot be read now (it is read again at the next change).
func (w *remote[S]) checkRun(ctx context.Context) error {
	run, _, err := w.weights.Run(ctx)
	if err != nil {
		if ctx.Err() == nil {
			w.logf("reading the run's info again: %v", err)
		}
		return nil
	}
	if m := run.Mismatch(w.g.Info()); m != "" {
		return fmt.Errorf("%w: %s", errNotThisRun, m)
	}
	if run.Net != w.cfg.Net {
		return fmt.Errorf("%w: its net is now %+v, this worker's %+v (start it again)", errNotThisRun, run.Net, w.cfg.Net)
	}
	return nil
}

// remote is a zero worker session.
type remote[S env.State[S]] struct {
	g       env.Game[S]
	c       *dist.Conn
	weights weightSource  // c, but for tests of fetch
	retry   time.Duration // between downloads of the first network
	spec    *net.Spec
	cfg     Config
	opt     WorkerOptions
	latest  *worker.Latest
	step    atomic.Int64 // the network's
	stats   worker.Stats
	pub     *dist.Publisher
	outbox  *dist.Outbox
	console console
}

func (w *remote[S]) logf(format string, a ...any) { w.console.printf(format, a...) }

func (w *remote[S]) work(ctx context.Context) error {
	var err error
	if w.outbox, err = dist.OpenOutbox(filepath.Join(w.opt.Dir, outboxDir), w.cfg.Game, w.g.Info().Rules, w.opt.MaxOutbox); err != nil {
		return err
	}
	if n := w.outbox.Len(); n > 0 {
		w.logf("%s from before wait in the outbox: they are sent first", nouns(n, "game"))
	}
	// The network: the trainer publishes one as it starts; a worker started first waits.
	model, err := w.fetch(ctx, true)
	if err != nil {
		return err
	}
	w.latest = worker.NewLatest(model)
	changed := make(chan struct{}, 1)
	watching, stopWatching := context.WithCancel(ctx)
	defer stopWatching()
	w.c.WatchWeights(watching, func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	sp := w.cfg.SelfPlay
	batcher, err := worker.NewBatcher(w.latest, sp.Batcher())
	if err != nil {
		return err
	}
	defer batcher.Close()
	var journal *os.File
	var jmu sync.Mutex
	if w.opt.Journal != "" {
		if journal, err = os.OpenFile(w.opt.Journal, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err != nil {
			return err
		}
		defer journal.Close()
	}
	host, _ := os.Hostname()
	w.pub, err = w.c.NewPublisher(dist.PublisherConfig{Game: w.cfg.Game, Rules: w.g.Info().Rules, Worker: w.opt.Name, Host: host,
		Outbox: w.outbox, Logf: w.logf, Sent: func(id string, _ time.Duration) {
			if journal != nil {
				jmu.Lock()
				journal.WriteString(id + "\n")
				jmu.Unlock()
			}
		}})
	if err != nil {
		return err
	}
	defer w.pub.Close()
	w.logf("%s: playing %s for the run with %s × %s (session %s), network of step %d",
		w.opt.Name, w.cfg.Game, nouns(sp.Workers, "worker"), nouns(sp.GamesPerWorker, "game"), w.pub.Session(), w.step.Load())

	work, stop := context.WithCancel(ctx)
	defer stop()
	var wg sync.WaitGroup
	errs := make(chan error, sp.Workers+1)
	wc := sp.Worker(w.step.Load)
	var seed [8]byte
	rand.Read(seed[:])
	for i := range sp.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := worker.Play(work, w.g, mcts.Evaluator(batcher), wc, binary.LittleEndian.Uint64(seed[:])^uint64(i)<<48, &w.stats, w.pub)
			if err != nil && work.Err() == nil {
				errs <- err
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-work.Done():
				return
			case <-changed:
				err := w.checkRun(work)
				var m *net.Model
				if err == nil {
					m, err = w.fetch(work, false)
				}
				switch {
				case errors.Is(err, errNotThisRun):
					errs <- err // games of a stale network, or refused for good: stop
					return
				case err != nil && work.Err() == nil:
					w.logf("the new network: %v (playing on with step %d)", err, w.step.Load())
				case err == nil:
					w.latest.Publish(m)
				}
			}
		}
	}()
	watchDone := make(chan struct{})
	go w.watch(work, watchDone)
	select {
	case <-ctx.Done():
		err = nil
	case err = <-errs:
	}
	stop()
	wg.Wait()
	<-watchDone
	w.pub.Close() // what is queued goes to the server, or the outbox
	w.logf("%s: stopped after %s (%d published, %d in the outbox)", w.opt.Name, nouns(int(w.stats.Games.Load()), "game"), w.pub.Published.Load(), w.outbox.Len())
	return err
}

// fetch gets the newest network and loads it (checked against this build's game); first, a
// worker waits for the trainer to publish one, and tries again (up to fetchTries times in a
// row) when a download fails: the trainer replaces the object at every publication, and a
// download that meets a replacement, or a server slowed by a busy machine, times out.
func (w *remote[S]) fetch(ctx context.Context, first bool) (*net.Model, error) {
	path := filepath.Join(w.opt.Dir, workerWeights)
	waited, failed, waits := false, 0, 0
	for {
		_, err := w.weights.GetWeights(ctx, path)
		if err == nil {
			ck, err := net.Load(models.ReadDisk, path, w.spec)
			if err != nil {
				return nil, fmt.Errorf("%w: its network does not fit this build: %w", errNotThisRun, err)
			}
			if ck.Header.Net != w.cfg.Net {
				return nil, fmt.Errorf("%w: its network is %+v, its configuration says %+v", errNotThisRun, ck.Header.Net, w.cfg.Net)
			}
			// The file's own step: the object's metadata is read apart from it, and a
			// publication in between made it the previous network's.
			w.step.Store(ck.Header.Step)
			return net.NewModel(ck.Weights), nil
		}
		if !first {
			return nil, err
		}
		if !errors.Is(err, dist.ErrNoWeights) && w.weights.Connected() {
			if failed++; failed >= fetchTries {
				return nil, err
			}
			w.logf("the network: %v (trying again)", err)
		} else if waits++; !waited || waits%30 == 0 {
			// Again every 30 tries: a wait that lasts says so, and why.
			w.logf("waiting for the trainer's network (%v; connected %v, try %d)", err, w.weights.Connected(), waits)
			waited = true
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(w.retry):
		}
	}
}

// watch shows the worker's progress until ctx ends: a bar of games on a terminal, else a line
// every LogEvery.
func (w *remote[S]) watch(ctx context.Context, done chan<- struct{}) {
	defer close(done)
	var bar *progressbar.ProgressBar
	if f, ok := w.opt.Out.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		bar = progressbar.NewOptions64(-1, progressbar.OptionSetWriter(f), progressbar.OptionSetDescription("self-play"),
			progressbar.OptionShowCount(), progressbar.OptionSetItsString("games"), progressbar.OptionShowIts(),
			progressbar.OptionThrottle(500*time.Millisecond), progressbar.OptionFullWidth(), progressbar.OptionClearOnFinish())
		w.console.mu.Lock()
		w.console.bar = bar
		w.console.mu.Unlock()
		defer func() {
			w.console.mu.Lock()
			bar.Finish()
			w.console.bar = nil
			w.console.mu.Unlock()
		}()
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	lastAt := time.Now()
	lastGames, lastSamples := int64(0), int64(0)
	logAt := time.Now().Add(w.opt.LogEvery)
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			games, samples := w.stats.Games.Load(), w.stats.Samples.Load()
			status := fmt.Sprintf("network step %d, outbox %d", w.step.Load(), w.outbox.Len())
			if w.pub.Paused() {
				status += ", waiting for the trainer"
			}
			if bar != nil {
				w.console.withBar(func(b *progressbar.ProgressBar) {
					b.Describe(status)
					b.Set64(games)
				})
			}
			if now.Before(logAt) {
				continue
			}
			secs := now.Sub(lastAt).Seconds()
			if bar == nil {
				w.logf("%d games, %.2f games/s, %.0f samples/s | %s | %d published", games,
					float64(games-lastGames)/secs, float64(samples-lastSamples)/secs, status, w.pub.Published.Load())
			}
			lastGames, lastSamples, lastAt, logAt = games, samples, now, now.Add(w.opt.LogEvery)
		}
	}
}

// nouns is n and noun, in the plural unless n is 1.
func nouns(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
