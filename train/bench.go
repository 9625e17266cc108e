package train

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"syscall"
	"time"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/mcts"
	"github.com/zerogames/zero/net"
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

// BenchSelfPlay plays self-play as cfg's run would (its workers, batcher, search budget), with a
// network of random weights (or w), for d after a warm-up of warm, and measures it.
func BenchSelfPlay[S env.State[S]](ctx context.Context, g env.Game[S], cfg Config, w *net.Weights, warm, d time.Duration) (SelfPlaySpeed, error) {
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
	errs := make(chan error, sp.Workers)
	for i := range sp.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := worker.Play(work, g, mcts.Evaluator(b), wc, cfg.Seed+uint64(i), &stats, worker.GameSinkFunc(discard))
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
	return mark{time.Now(), cpuSeconds(),
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
		NetSeconds: (m.batch.NetCPU - m0.batch.NetCPU).Seconds(), BatchSize: batchSize}
}

// Rate is n per second of wall time.
func (s SelfPlaySpeed) Rate(n int64) float64 { return float64(n) / s.Seconds }

// cpuSeconds is the process's CPU time so far.
func cpuSeconds() float64 {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano()).Seconds()
}

// discard drops a game: the benchmark keeps none.
func discard(context.Context, *replay.Game) error { return nil }
