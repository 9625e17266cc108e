package train

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/train/dist"
	"github.com/zerogames/zero/train/replay"
	"github.com/zerogames/zero/train/runfolder"
)

// IngestBench is what BenchIngest simulates: Workers workers, each with its own connection
// over loopback, publishing recorded games as fast as the flow control lets them, until
// Games have been taken or Time has passed.
type IngestBench struct {
	Workers int
	Games   int
	Time    time.Duration
	// SyncEvery, if set, syncs the server's store that often instead of at every write.
	SyncEvery time.Duration
}

// IngestSpeed is what BenchIngest measured.
type IngestSpeed struct {
	Seconds    float64
	CPUSeconds float64 // the process's: the workers', the server's and the trainer's
	Taken      int64   // games checked and in the buffer
	Refused    int64   // (none expected)
	Full       int64   // publications refused by a full stream
	Bytes      int64   // payload taken
	// Latency is the publications' (publish to the server's word), in ms: median, 90th and
	// 99th percentiles, most.
	Latency [4]float64
	// The trainer's time (seconds) checking games, adding them to the buffer, syncing it and
	// acknowledging: what its one goroutine is busy with.
	Check, Add, Sync, Ack float64
	// HeapBytes and StoreBytes: the process's Go heap (server included) and the server's
	// store on disk, at the end.
	HeapBytes, StoreBytes int64
}

// BenchIngest measures how many games one trainer takes: an embedded server listening on
// 127.0.0.1, b.Workers publishers on their own connections sending recorded games (random
// games of g with a target at each player's decision), the trainer's ingest checking them
// through the rules into a replay buffer, synced, acknowledged; everything in a temporary
// folder.
func BenchIngest[S env.State[S]](ctx context.Context, g env.Game[S], b IngestBench) (IngestSpeed, error) {
	var sp IngestSpeed
	tmp, err := os.MkdirTemp("", "zero-ingest-")
	if err != nil {
		return sp, err
	}
	defer os.RemoveAll(tmp)
	token, err := dist.NewToken()
	if err != nil {
		return sp, err
	}
	srv, err := dist.StartServer(dist.ServerConfig{Dir: filepath.Join(tmp, runfolder.NATSDir), Listen: "127.0.0.1:0", WorkerToken: token, SyncEvery: b.SyncEvery})
	if err != nil {
		return sp, err
	}
	defer srv.Shutdown()
	c, err := srv.Connect("bench trainer", nil)
	if err != nil {
		return sp, err
	}
	defer c.Close()
	info := g.Info()
	if err := c.Setup(ctx, dist.DefaultLimits()); err != nil {
		return sp, err
	}
	if err := c.SetPaused(ctx, false); err != nil {
		return sp, err
	}
	cons, err := c.Consumer(ctx, info.Name, info.Rules)
	if err != nil {
		return sp, err
	}
	buffer, err := replay.Open(filepath.Join(tmp, runfolder.ReplayDir), info.Name, replay.Window{Min: 1 << 30, Max: 1 << 30, Exponent: 1}, 0)
	if err != nil {
		return sp, err
	}
	defer buffer.Close()
	games := recordedGames(g, 64)
	creds := filepath.Join(tmp, runfolder.TokenFile)
	if err := os.WriteFile(creds, []byte(token+"\n"), 0o600); err != nil {
		return sp, err
	}

	var mu sync.Mutex
	var latencies []float64
	var taken, refused, bytes atomic.Int64
	var tCheck, tAdd, tSync, tAck time.Duration
	done := make(chan struct{})
	work, stop := context.WithCancel(ctx)
	defer stop()
	var wg sync.WaitGroup
	var pubs []*dist.Publisher
	for i := range b.Workers {
		wc, err := dist.Connect("nats://"+srv.Addr(), dist.Auth{Creds: creds}, fmt.Sprintf("bench worker %d", i), nil)
		if err != nil {
			return sp, err
		}
		defer wc.Close()
		p, err := wc.NewPublisher(dist.PublisherConfig{Game: info.Name, Rules: info.Rules, Worker: fmt.Sprintf("w%d", i), Host: "bench",
			Sent: func(_ string, d time.Duration) {
				mu.Lock()
				if len(latencies) < 1<<20 {
					latencies = append(latencies, float64(d.Microseconds())/1000)
				}
				mu.Unlock()
			}})
		if err != nil {
			return sp, err
		}
		pubs = append(pubs, p)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := i; work.Err() == nil; k++ {
				gm := *games[k%len(games)]
				if err := p.AddGame(work, &gm); err != nil {
					return
				}
			}
		}()
	}
	cpu0, t0 := CPUSeconds(), time.Now()
	var ingestErr error
	ingestDone := make(chan struct{})
	go func() {
		defer close(ingestDone)
		timed := func(t *time.Duration, f func() error) error {
			start := time.Now()
			err := f()
			*t += time.Since(start)
			return err
		}
		ingestErr = cons.Ingest(work, c, dist.Ingest{
			Check: func(gm *replay.Game) error { return timed(&tCheck, func() error { return replay.Check(g, gm) }) },
			Add: func(d *dist.Delivery) (bool, error) {
				err := timed(&tAdd, func() error { return buffer.Add(d.Game) })
				bytes.Add(int64(d.Bytes))
				if n := taken.Add(1); n == int64(b.Games) {
					close(done)
				}
				return false, err
			},
			Sync:    func() error { return timed(&tSync, buffer.Sync) },
			Refused: func(*dist.Delivery, error) { refused.Add(1) },
			Acked:   func(d time.Duration) { tAck += d },
		})
	}()
	select {
	case <-ctx.Done():
	case <-done:
	case <-time.After(b.Time):
	}
	sp.Seconds, sp.CPUSeconds = time.Since(t0).Seconds(), CPUSeconds()-cpu0
	sp.Taken, sp.Refused, sp.Bytes = taken.Load(), refused.Load(), bytes.Load()
	stop()
	<-ingestDone
	wg.Wait()
	var closing sync.WaitGroup
	for _, p := range pubs {
		sp.Full += p.Full.Load()
		closing.Go(p.Close) // each lets its queue drain a few seconds
	}
	closing.Wait()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	sp.HeapBytes = int64(m.HeapInuse)
	filepath.Walk(filepath.Join(tmp, runfolder.NATSDir), func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			sp.StoreBytes += fi.Size()
		}
		return nil
	})
	mu.Lock()
	slices.Sort(latencies)
	if n := len(latencies); n > 0 {
		sp.Latency = [4]float64{latencies[n/2], latencies[n*9/10], latencies[n*99/100], latencies[n-1]}
	}
	mu.Unlock()
	sp.Check, sp.Add, sp.Sync, sp.Ack = tCheck.Seconds(), tAdd.Seconds(), tSync.Seconds(), tAck.Seconds()
	return sp, ingestErr
}

// recordedGames are n random games of g, each with a target (all on the first legal action)
// at each player's decision with a choice: games as self-play records them, for the rules to
// check.
func recordedGames[S env.State[S]](g env.Game[S], n int) []*replay.Game {
	rng := rand.New(rand.NewPCG(1, 2))
	var games []*replay.Game
	var legal []env.Action
	var outcomes []env.Outcome
	for range n {
		s := g.New()
		gm := &replay.Game{}
		for s.ToMove() != env.Terminal {
			var a env.Action
			if s.ToMove() == env.Chance {
				outcomes = s.Chances(outcomes[:0])
				a = env.SampleOutcome(outcomes, rng.Float64())
			} else {
				legal = s.Legal(legal[:0])
				if len(legal) > 1 {
					gm.Targets = append(gm.Targets, replay.Target{Ply: len(gm.Actions), Policy: []replay.PolicyEntry{{Action: legal[0], Prob: 1}}})
				}
				a = legal[rng.IntN(len(legal))]
			}
			gm.Actions = append(gm.Actions, a)
			s = s.Play(a)
		}
		gm.Result = s.Result()
		games = append(games, gm)
	}
	return games
}
