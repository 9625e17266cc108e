package train

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/mcts"
	"github.com/zerogames/zero/net"
	"github.com/zerogames/zero/train/dist"
	"github.com/zerogames/zero/train/replay"
	"github.com/zerogames/zero/train/worker"
)

// SelfPlaySpeed is what BenchSelfPlay measured.
type SelfPlaySpeed struct {
	Backend     string  // what the network ran on (net.Engine.Describe)
	Seconds     float64 // wall time measured
	CPUSeconds  float64 // the process's CPU time over it (user + system)
	Games       int64   // games finished
	Decisions   int64   // decisions played
	Samples     int64   // decisions searched in full (training targets)
	Simulations int64   // simulations of finished searches
	Resigned    int64   // games ended by a resignation
	Batches     int64   // inference batches
	Positions   int64   // positions evaluated
	NetSeconds  float64 // CPU time of the network's forward passes
	BatchSize   int     // the batcher's most positions per batch
	// Workers and Engines are the self-play workers and inference workers; WorkerWait is the
	// time the workers spent blocked on the network's answers and EngineIdle the time the
	// inference workers spent waiting for a batch, each summed over them.
	Workers, Engines       int
	WorkerWait, EngineIdle float64
	// CacheLookups and CacheHits count the leaves looked up in the workers' caches and those
	// answered without the network.
	CacheLookups, CacheHits int64
}

// CacheHitRate is the share of the leaves the caches answered.
func (s SelfPlaySpeed) CacheHitRate() float64 {
	if s.CacheLookups == 0 {
		return 0
	}
	return float64(s.CacheHits) / float64(s.CacheLookups)
}

// BatchFill is the mean batch size over the most allowed.
func (s SelfPlaySpeed) BatchFill() float64 {
	if s.Batches == 0 {
		return 0
	}
	return float64(s.Positions) / float64(s.Batches) / float64(s.BatchSize)
}

// NetShare is the share of the process's CPU time spent in the network's forward pass: the rest
// is search, rules, observation and batching, the overhead.
func (s SelfPlaySpeed) NetShare() float64 {
	if s.CPUSeconds == 0 {
		return 0
	}
	return min(s.NetSeconds/s.CPUSeconds, 1)
}

// WorkerWaitShare is the share of the self-play workers' time spent blocked on the network.
func (s SelfPlaySpeed) WorkerWaitShare() float64 {
	return s.WorkerWait / max(1e-9, s.Seconds*float64(s.Workers))
}

// EngineIdleShare is the share of the inference workers' time spent waiting for a batch.
func (s SelfPlaySpeed) EngineIdleShare() float64 {
	return s.EngineIdle / max(1e-9, s.Seconds*float64(s.Engines))
}

// BenchSelfPlay plays self-play as cfg's run would (its workers, batcher, search budget), with a
// network of random weights (or w), for d after a warm-up of warm, and measures it. The games
// go to a replay buffer in a temporary folder: with viaNATS through the run's path (published
// to an embedded server, taken, checked through the rules, synced to the buffer and
// acknowledged), else added to it directly.
func BenchSelfPlay[S env.State[S]](ctx context.Context, g env.Game[S], cfg Config, w *net.Weights, warm, d time.Duration, viaNATS bool) (SelfPlaySpeed, error) {
	cfg.Cores()
	if err := cfg.Validate(); err != nil {
		return SelfPlaySpeed{}, err
	}
	if w == nil {
		spec, err := net.SpecOf(g.Info(), g)
		if err != nil {
			return SelfPlaySpeed{}, err
		}
		if w, err = net.NewWeights(spec, cfg.Net, rand.New(rand.NewPCG(cfg.Seed, 1))); err != nil {
			return SelfPlaySpeed{}, err
		}
	}
	sp := cfg.SelfPlay
	b, err := worker.NewBatcher(worker.NewLatest(net.NewModel(w)), sp.Batcher())
	if err != nil {
		return SelfPlaySpeed{}, err
	}
	defer b.Close()
	wc := sp.Worker(nil)
	var stats worker.Stats
	work, stop := context.WithCancel(ctx)
	defer stop()
	var wg sync.WaitGroup
	errs := make(chan error, sp.Workers+1)
	tmp, err := os.MkdirTemp("", "zero-bench-")
	if err != nil {
		return SelfPlaySpeed{}, err
	}
	defer os.RemoveAll(tmp)
	buffer, err := replay.Open(filepath.Join(tmp, "replay"), g.Info().Name, cfg.Replay.Window, 0)
	if err != nil {
		return SelfPlaySpeed{}, err
	}
	defer buffer.Close()
	var sink worker.GameSink = worker.GameSinkFunc(func(_ context.Context, gm *replay.Game) error {
		if len(gm.Targets) == 0 {
			return nil
		}
		return buffer.Add(gm)
	})
	if viaNATS {
		pub, stopNATS, err := benchTransport(work, g, tmp, buffer, &wg, errs)
		if err != nil {
			return SelfPlaySpeed{}, err
		}
		defer stopNATS()
		sink = pub
	}
	for i := range sp.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := worker.Play(work, g, mcts.Evaluator(b), wc, cfg.Seed+uint64(i), &stats, sink)
			if err != nil && work.Err() == nil {
				errs <- err
			}
		}()
	}
	wait := func(d time.Duration) error {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-errs:
			return err
		case <-time.After(d):
			return nil
		}
	}
	var s SelfPlaySpeed
	if err = wait(warm); err == nil {
		m0 := readMark(&stats, b)
		if err = wait(d); err == nil {
			s = readMark(&stats, b).since(m0, sp.BatchSize)
			s.Backend = b.Backend()
			s.Workers, s.Engines = sp.Workers, sp.InferenceWorkers
		}
	}
	stop()
	wg.Wait()
	if err != nil {
		return SelfPlaySpeed{}, fmt.Errorf("self-play: %w", err)
	}
	return s, nil
}

// mark is self-play's counters at a moment.
type mark struct {
	at    time.Time
	cpu   float64
	stats [7]int64 // games, decisions, samples, simulations, resigned, cache lookups, cache hits
	batch worker.BatcherStats
}

func readMark(s *worker.Stats, b *worker.Batcher) mark {
	return mark{time.Now(), CPUSeconds(),
		[7]int64{s.Games.Load(), s.Decisions.Load(), s.Samples.Load(), s.Simulations.Load(), s.Resigned.Load(),
			s.CacheLookups.Load(), s.CacheHits.Load()}, b.Stats()}
}

// since is the work done from m0 to m.
func (m mark) since(m0 mark, batchSize int) SelfPlaySpeed {
	return SelfPlaySpeed{Seconds: m.at.Sub(m0.at).Seconds(), CPUSeconds: m.cpu - m0.cpu,
		Games: m.stats[0] - m0.stats[0], Decisions: m.stats[1] - m0.stats[1], Samples: m.stats[2] - m0.stats[2],
		Simulations: m.stats[3] - m0.stats[3], Resigned: m.stats[4] - m0.stats[4],
		CacheLookups: m.stats[5] - m0.stats[5], CacheHits: m.stats[6] - m0.stats[6],
		Batches: m.batch.Batches - m0.batch.Batches, Positions: m.batch.Positions - m0.batch.Positions,
		NetSeconds: (m.batch.NetCPU - m0.batch.NetCPU).Seconds(), BatchSize: batchSize,
		WorkerWait: (m.batch.CallerWait - m0.batch.CallerWait).Seconds(), EngineIdle: (m.batch.EngineIdle - m0.batch.EngineIdle).Seconds()}
}

// Rate is n per second of wall time.
func (s SelfPlaySpeed) Rate(n int64) float64 { return float64(n) / s.Seconds }

// CPUSeconds is the process's CPU time so far, user and system (zero bench's "cores used").
func CPUSeconds() float64 {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano()).Seconds()
}

// benchTransport starts an embedded server with its store in dir, and a goroutine that takes
// its games into buffer as a run does (checked, synced, acknowledged) until ctx ends; it
// returns the publisher the workers give their games to, and what stops the server once the
// workers and wg are done.
func benchTransport[S env.State[S]](ctx context.Context, g env.Game[S], dir string, buffer *replay.Buffer, wg *sync.WaitGroup, errs chan<- error) (*dist.Publisher, func(), error) {
	srv, err := dist.StartServer(embeddedServer(dir, Transport{})) // as a run without --listen
	if err != nil {
		return nil, nil, err
	}
	info := g.Info()
	c, err := srv.Connect("zero bench", nil)
	var cons *dist.Consumer
	var pub *dist.Publisher
	if err == nil {
		err = c.Setup(ctx, dist.DefaultLimits())
	}
	if err == nil {
		err = c.SetPaused(ctx, false)
	}
	if err == nil {
		cons, err = c.Consumer(ctx, info.Name, info.Rules)
	}
	if err == nil {
		pub, err = c.NewPublisher(dist.PublisherConfig{Game: info.Name, Rules: info.Rules, Worker: "bench"})
	}
	if err != nil {
		srv.Shutdown()
		return nil, nil, err
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		err := cons.Ingest(ctx, c, dist.Ingest{
			Check: func(gm *replay.Game) error { return replay.Check(g, gm) },
			Add: func(d *dist.Delivery) (bool, error) {
				if buffer.Has(d.Game.ID) || len(d.Game.Targets) == 0 {
					return true, nil
				}
				return false, buffer.Add(d.Game)
			},
			Sync:    buffer.Sync,
			Refused: func(d *dist.Delivery, err error) { errs <- fmt.Errorf("game %s: %w", d.ID(), err) },
		})
		if err != nil {
			errs <- err
		}
	}()
	return pub, func() {
		pub.Close()
		c.Close()
		srv.Shutdown()
	}, nil
}
