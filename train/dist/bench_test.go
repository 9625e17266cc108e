package dist

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/zerogames/zero/env/yinsh"
	"github.com/zerogames/zero/train/replay"
)

func cpuNow() time.Duration {
	var u syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &u)
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// BenchmarkPublishIngest: the CPU cost of one game's way from a worker to the replay buffer
// through the embedded server: published, taken, checked through the rules, added, synced,
// acknowledged; with the store synced at every write (a server that listens for workers) and
// every second (a run's own server without --listen).
func BenchmarkPublishIngest(b *testing.B) {
	for _, sync := range []struct {
		name  string
		every time.Duration
	}{{"sync=write", 0}, {"sync=1s", time.Second}} {
		b.Run(sync.name, func(b *testing.B) { benchPublishIngest(b, sync.every) })
	}
}

func benchPublishIngest(b *testing.B, syncEvery time.Duration) {
	dir := b.TempDir()
	s, err := StartServer(ServerConfig{Dir: dir, SyncEvery: syncEvery})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Shutdown()
	c, err := s.Connect("bench", nil)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	c.Setup(ctx, DefaultLimits())
	c.SetPaused(ctx, false)
	cons, _ := c.Consumer(ctx, info().Name, info().Rules)
	buf, err := replay.Open(dir+"/replay", info().Name, replay.Window{Min: 100000, Max: 100000, Exponent: 1}, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer buf.Close()
	p, _ := c.NewPublisher(PublisherConfig{Game: info().Name, Rules: info().Rules, Worker: "b"})
	games := make([]*replay.Game, 64)
	for i := range games {
		games[i] = randomGame(uint64(i))
	}
	got := make(chan struct{}, b.N+1)
	ictx, stop := context.WithCancel(ctx)
	done := make(chan error)
	go func() {
		done <- cons.Ingest(ictx, c, Ingest{
			Check: func(g *replay.Game) error { return replay.Check(yinsh.Blitz, g) },
			Add: func(d *Delivery) (bool, error) {
				got <- struct{}{}
				return false, buf.Add(d.Game)
			},
			Sync: buf.Sync,
		})
	}()
	cpu0, t0 := cpuNow(), time.Now()
	b.ResetTimer()
	for i := range b.N {
		g := *games[i%len(games)]
		p.AddGame(ctx, &g)
	}
	for range b.N {
		<-got
	}
	b.StopTimer()
	b.ReportMetric(float64((cpuNow()-cpu0).Microseconds())/float64(b.N), "cpu-µs/game")
	b.ReportMetric(float64(b.N)/time.Since(t0).Seconds(), "games/s")
	p.Close()
	stop()
	<-done
}
