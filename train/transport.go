package train

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zerogames/zero/internal/atomicfile"
	"github.com/zerogames/zero/net"
	"github.com/zerogames/zero/train/dist"
	"github.com/zerogames/zero/train/metrics"
	"github.com/zerogames/zero/train/replay"
	"github.com/zerogames/zero/train/runfolder"
)

// Transport is how a run meets its workers (Options.Transport). The zero value is the
// embedded server with no socket: the run's own workers only.
type Transport struct {
	// Listen, if set, is the HOST:PORT where the embedded server also takes remote workers
	// (zero worker), who authenticate with the run folder's worker.token.
	Listen string
	// TLSCert and TLSKey are PEM files: with them remote workers must speak TLS.
	TLSCert, TLSKey string
	// NATS, if set, is the URL of an existing NATS server or cluster to use instead of an
	// embedded server; Auth is how the trainer authenticates there, Replicas the copies of
	// each stream (3 in a 3-node cluster).
	NATS     string
	Auth     dist.Auth
	Replicas int
	// Limits, if not zero, replace dist.DefaultLimits.
	Limits dist.Limits
}

// weightsEvery is the least time between two publications of the network to remote workers
// (the run's own workers get every one at once).
const weightsEvery = time.Second

// transport is a session's end of the transport.
type transport struct {
	server *dist.Server // nil with an external server
	conn   *dist.Conn
	cons   *dist.Consumer
	pub    *dist.Publisher // the run's own workers'

	paused bool // what the workers were last told

	// Remote weights: the trainer saves a checkpoint file when the uploader is idle.
	upload   sync.Mutex
	uploaded time.Time
	upWG     sync.WaitGroup

	ingest ingestStats
}

// ingestStats count the games the trainer took and refused, in all and by worker and host,
// since the last metrics record.
type ingestStats struct {
	mu                  sync.Mutex
	games, samples      int64
	refused, duplicates int64
	bytes               int64
	latencies           []float64 // the workers' publications, ms (bounded)
	byWorker, byHost    map[string]int64
	refusedTotal        atomic.Int64 // since the session began
}

// maxNames bounds the workers and hosts told apart in metrics (the rest are "other"): a
// worker may name itself anything.
const maxNames = 256

func (s *ingestStats) add(d *dist.Delivery, samples int, dup bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if dup {
		s.duplicates++
		return
	}
	s.games++
	s.samples += int64(samples)
	s.bytes += int64(d.Bytes)
	if d.Latency > 0 && len(s.latencies) < 1<<16 {
		s.latencies = append(s.latencies, float64(d.Latency.Microseconds())/1000)
	}
	count(&s.byWorker, d.Worker)
	count(&s.byHost, d.Host)
}

func count(m *map[string]int64, name string) {
	if *m == nil {
		*m = map[string]int64{}
	}
	if _, ok := (*m)[name]; !ok && len(*m) >= maxNames {
		name = "other"
	}
	if name == "" {
		name = "unnamed"
	}
	(*m)[name]++
}

// record is the period's ingest record (per second over secs), and resets the counts.
func (s *ingestStats) record(secs float64, waiting uint64) map[string]float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := map[string]float64{
		"games": float64(s.games), "games_per_s": float64(s.games) / secs, "samples_per_s": float64(s.samples) / secs,
		"bytes_per_s": float64(s.bytes) / secs, "refused": float64(s.refused), "duplicates": float64(s.duplicates),
		"refused_total": float64(s.refusedTotal.Load()), "waiting": float64(waiting),
		"workers": float64(len(s.byWorker)), "hosts": float64(len(s.byHost)),
	}
	if l := s.latencies; len(l) > 0 {
		slices.Sort(l)
		v["publish_ms_p50"], v["publish_ms_p90"], v["publish_ms_max"] = l[len(l)/2], l[len(l)*9/10], l[len(l)-1]
	}
	for name, n := range s.byWorker {
		v["worker/"+name+"/games_per_s"] = float64(n) / secs
	}
	for name, n := range s.byHost {
		v["host/"+name+"/games_per_s"] = float64(n) / secs
	}
	s.games, s.samples, s.refused, s.duplicates, s.bytes = 0, 0, 0, 0, 0
	s.latencies, s.byWorker, s.byHost = s.latencies[:0], nil, nil
	return v
}

// localSyncEvery is how often the embedded server of a run without --listen syncs its store.
// Its only publishers are the run's own workers, in the same process: a game they published is
// no safer for a sync than a game still in progress, which a crash loses anyway, and the buffer
// is synced before a game is acknowledged, so a crash loses no game the buffer had and keeps
// none twice (the server delivers again what it forgot was acknowledged; the trainer keeps a
// game once, by id). Syncing every write instead cost 0.3 ms of CPU a game and capped the path
// at about 430 games a second (BenchmarkPublishIngest): 6% of Gygès' self-play. A server that
// listens syncs every write: remote workers drop a game once the server has it.
const localSyncEvery = time.Second

// embeddedServer is the configuration of a run's embedded server, its store in the run folder.
func embeddedServer(dir string, opt Transport) dist.ServerConfig {
	cfg := dist.ServerConfig{Dir: filepath.Join(dir, runfolder.NATSDir), Listen: opt.Listen, TLSCert: opt.TLSCert, TLSKey: opt.TLSKey}
	if opt.Listen == "" {
		cfg.SyncEvery = localSyncEvery
	}
	return cfg
}

// connectTransport starts the embedded server, or connects to the external one and checks
// that it holds no other run: before the run folder is written, so that a refused run changes
// nothing.
func (r *run[S]) connectTransport(ctx context.Context) error {
	tr := &transport{}
	opt := r.opt.Transport
	logf := func(format string, a ...any) { r.logf(format, a...) }
	if opt.NATS != "" {
		if opt.Listen != "" {
			return errors.New("--listen and --nats: the workers connect to the NATS server, the trainer listens for none")
		}
		c, err := dist.ConnectTrainer(opt.NATS, opt.Auth, "zero train "+r.dir, logf)
		if err != nil {
			return fmt.Errorf("nats: %w", err)
		}
		// A run not yet set up anywhere has no identity: any run on the server is another.
		id, err := readRunID(r.dir)
		if err == nil {
			err = c.CheckRun(ctx, id)
		}
		if err != nil {
			c.Close()
			return fmt.Errorf("nats: %w", err)
		}
		tr.conn = c
	} else {
		cfg := embeddedServer(r.dir, opt)
		if opt.Listen != "" {
			token, err := workerToken(r.dir)
			if err != nil {
				return err
			}
			cfg.WorkerToken = token
		}
		s, err := dist.StartServer(cfg)
		if err != nil {
			return err
		}
		tr.server = s
		if tr.conn, err = s.Connect("zero train", logf); err != nil {
			s.Shutdown()
			return err
		}
	}
	r.tr = tr
	return nil
}

// startTransport sets the run up on the server and publishes the run's info, configuration
// and network.
func (r *run[S]) startTransport(ctx context.Context, w *net.Weights) error {
	tr := r.tr
	opt := r.opt.Transport
	logf := func(format string, a ...any) { r.logf(format, a...) }
	lim := opt.Limits
	if lim == (dist.Limits{}) {
		lim = dist.DefaultLimits()
	}
	lim.Replicas = max(opt.Replicas, 1)
	ri := dist.InfoOf(r.g.Info(), r.cfg.Net)
	config, err := r.given.Marshal()
	if err == nil {
		ri.Run, err = runID(r.dir)
	}
	if err == nil {
		host, _ := os.Hostname()
		abs, _ := filepath.Abs(r.dir)
		ri.Trainer = host + ":" + abs
		err = tr.conn.CheckRun(ctx, ri.Run)
	}
	if err == nil {
		err = tr.conn.Setup(ctx, lim)
	}
	if err == nil {
		err = tr.conn.PutRun(ctx, ri, config)
	}
	if err == nil {
		err = tr.conn.SetPaused(ctx, false)
	}
	if err == nil {
		tr.cons, err = tr.conn.Consumer(ctx, r.cfg.Game, r.g.Info().Rules)
	}
	if err == nil {
		host, _ := os.Hostname()
		tr.pub, err = tr.conn.NewPublisher(dist.PublisherConfig{Game: r.cfg.Game, Rules: r.g.Info().Rules,
			// Session "": a random one, as a remote worker's. Ids the trainer's publisher would
			// use could otherwise be taken first by a worker (the server's deduplication goes by
			// id), and the trainer's own games dropped as duplicates.
			Worker: metrics.TrainerWorker, Host: host, Logf: logf})
	}
	if err == nil {
		err = r.publishWeights(ctx, w, r.step.Load(), true)
	}
	if err != nil {
		return fmt.Errorf("nats: %w", err)
	}
	if s := tr.server; s != nil && opt.Listen != "" {
		scheme := "nats"
		if opt.TLSCert != "" {
			scheme = "tls"
		}
		r.logf("remote workers: zero worker --connect %s://%s --creds %s (copy the file to their machine)", scheme, s.Addr(), filepath.Join(r.dir, runfolder.TokenFile))
	}
	return nil
}

// workerToken reads the run's worker token, writing a new one the first time.
func workerToken(dir string) (string, error) {
	return randomFile(filepath.Join(dir, runfolder.TokenFile), 0o600)
}

func runID(dir string) (string, error) {
	return randomFile(filepath.Join(dir, runfolder.RunIDFile), 0o644)
}

// readRunID is the run's identity, "" if it has none yet.
func readRunID(dir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(dir, runfolder.RunIDFile))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	return strings.TrimSpace(string(data)), err
}

// randomFile reads the random token in the file at path, first writing one there if the file
// is absent or empty.
func randomFile(path string, mode os.FileMode) (string, error) {
	data, err := os.ReadFile(path)
	if err == nil {
		if token := strings.TrimSpace(string(data)); token != "" {
			// A file others may read (from a build that wrote it so) is made private.
			if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&^mode != 0 {
				return token, os.Chmod(path, mode)
			}
			return token, nil
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	token, err := dist.NewToken()
	if err != nil {
		return "", err
	}
	// Written with its mode from the start: never readable by others, not even for a moment.
	return token, atomicfile.WriteBytesMode(path, []byte(token+"\n"), mode)
}

// stopTransport closes the connection and stops the embedded server, once the uploads are
// done; again, it does nothing.
func (r *run[S]) stopTransport() {
	tr := r.tr
	if tr == nil {
		return
	}
	r.tr = nil
	tr.upWG.Wait()
	if tr.pub != nil {
		tr.pub.Close()
	}
	tr.conn.Close()
	if tr.server != nil {
		tr.server.Shutdown()
	}
}

// publishWeights publishes the network for remote workers: at most every weightsEvery, and
// only when the last upload is done (a network is soon replaced by the next), unless now.
func (r *run[S]) publishWeights(ctx context.Context, w *net.Weights, step int64, now bool) error {
	tr := r.tr
	if !now && time.Since(tr.uploaded) < weightsEvery {
		return nil
	}
	if !tr.upload.TryLock() {
		return nil
	}
	path := filepath.Join(r.dir, runfolder.NATSDir, "weights.zck")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tr.upload.Unlock()
		return err
	}
	if err := net.Save(path, w, nil, step, time.Now()); err != nil {
		tr.upload.Unlock()
		return err
	}
	tr.uploaded = time.Now()
	upload := func() error {
		defer tr.upload.Unlock()
		return tr.conn.PutWeights(ctx, path, step)
	}
	if now {
		return upload()
	}
	tr.upWG.Add(1)
	go func() {
		defer tr.upWG.Done()
		if err := upload(); err != nil && ctx.Err() == nil {
			r.logf("publishing the network of step %d to remote workers: %v", step, err)
		}
	}()
	return nil
}

// ingest takes the games of the stream into the replay buffer until ctx ends (see
// dist.Consumer.Ingest): each is checked (its message, then its moves through the rules); a
// bad one is refused, logged and counted; a good one is added unless the buffer has it (a
// redelivery), and acknowledged once the buffer has synced it to disk.
func (r *run[S]) ingest(ctx context.Context) error {
	tr := r.tr
	return tr.cons.Ingest(ctx, tr.conn, dist.Ingest{
		Check: func(gm *replay.Game) error { return replay.Check(r.g, gm) },
		Add: func(d *dist.Delivery) (bool, error) {
			dup, err := r.addGame(d.Game)
			if err == nil {
				tr.ingest.add(d, len(d.Game.Targets), dup)
			}
			return dup, err
		},
		Sync:    r.buffer.Sync,
		Refused: r.refused,
		Failed:  func(err error) { r.logf("nats: %v", err) },
	})
}

// refused logs a refused game (the first ten, then one in a hundred) and counts it.
func (r *run[S]) refused(d *dist.Delivery, why error) {
	s := &r.tr.ingest
	n := s.refusedTotal.Add(1)
	s.mu.Lock()
	s.refused++
	s.mu.Unlock()
	if n <= 10 || n%100 == 0 {
		r.logf("refused game %q from worker %q on %q (%d refused so far): %v", d.ID(), d.Worker, d.Host, n, why)
	}
}

// addGame adds a checked game to the buffer unless the buffer has it already, and counts it.
func (r *run[S]) addGame(gm *replay.Game) (dup bool, err error) {
	// Under mu, so that a save of the state counts the games and the buffer's samples at the
	// same instant.
	r.mu.Lock()
	defer r.mu.Unlock()
	if gm.ID != "" && r.buffer.Has(gm.ID) {
		return true, nil
	}
	// A game with no targets is recorded too (its record is its actions): the buffer keeps its
	// id, so that a second delivery of it is known as one and not counted again.
	if err := r.buffer.Add(gm); err != nil {
		return false, err
	}
	r.games++
	return false, nil
}

// pace tells the workers to wait while self-play is ahead of training (see ahead) and to play
// again once it is half as far ahead, checking every 20ms until ctx ends.
func (r *run[S]) pace(ctx context.Context) {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		paused := r.ahead(!r.tr.paused)
		if paused == r.tr.paused {
			continue
		}
		if err := r.tr.conn.SetPaused(ctx, paused); err != nil {
			if ctx.Err() == nil {
				r.logf("nats: pacing the workers: %v", err)
			}
			continue
		}
		r.tr.paused = paused
	}
}
