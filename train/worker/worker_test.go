package worker

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/internal/testgames"
	"github.com/zerogames/zero/mcts"
	"github.com/zerogames/zero/net"
	"github.com/zerogames/zero/train/replay"
)

var tinyNet = net.Config{Blocks: 1, Channels: 8, PolicyChannels: 2, ValueChannels: 2, ValueHidden: 8}

func tinyModel(t testing.TB, info *env.Info, game any, seed uint64) *net.Model {
	t.Helper()
	spec, err := net.SpecOf(info, game)
	if err != nil {
		t.Fatal(err)
	}
	w, err := net.NewWeights(spec, tinyNet, rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		t.Fatal(err)
	}
	return net.NewModel(w)
}

// TestBatcherAnswersLikeTheEngine: positions evaluated through the batcher by many callers at
// once get exactly what the engine says of each alone, whatever batch they were put in: half
// the callers ask for every action's logits (Evaluate), half for their legal actions' only
// (EvaluateActions), so batches hold both kinds and batches of the second alone.
func TestBatcherAnswersLikeTheEngine(t *testing.T) {
	g := testgames.TicTacToe
	info := g.Info()
	model := tinyModel(t, info, g, 1)
	b, err := NewBatcher(NewLatest(model), BatcherConfig{MaxBatch: 16, MaxWait: time.Millisecond, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	size, n := info.Observation.Size(), info.NumActions
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for caller := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(caller), 2))
			walk := env.NewWalker[testgames.Board](rng, n)
			engine := net.NewEngine(model)
			for round := range 20 {
				k := 1 + round%5
				obs := make([]float32, k*size)
				var legal []env.Action
				var ends []int32
				for i := range k {
					s := g.New()
					for range rng.IntN(5) {
						s = s.Play(walk.Step(s))
					}
					s.Observe(obs[i*size : (i+1)*size])
					legal = s.Legal(legal)
					ends = append(ends, int32(len(legal)))
				}
				got, want := make([]float32, k*n), make([]float32, k*n)
				gotV, wantV := make([]float32, k), make([]float32, k)
				engine.Evaluate(obs, want, wantV)
				if caller%2 == 1 {
					got = make([]float32, len(legal))
					if err := b.EvaluateActions(obs, legal, ends, got, gotV); err != nil {
						errs <- err
						return
					}
					at := want[:0:0]
					start := int32(0)
					for i, end := range ends {
						for _, a := range legal[start:end] {
							at = append(at, want[i*n+int(a)])
						}
						start = end
					}
					want = at
				} else if err := b.Evaluate(obs, got, gotV); err != nil {
					errs <- err
					return
				}
				if !close32(got, want) || !close32(gotV, wantV) {
					errs <- errors.New("the batcher's answer differs from the engine's")
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	st := b.Stats()
	if st.Positions != 8*20*3 || st.Batches >= 8*20 {
		t.Fatalf("stats %+v: want 480 positions in fewer batches than the 160 requests", st)
	}
}

// close32: BLAS may sum in another order for another batch size.
func close32(a, b []float32) bool {
	for i := range a {
		if math.Abs(float64(a[i]-b[i])) > 1e-4*(1+math.Abs(float64(b[i]))) {
			return false
		}
	}
	return true
}

func TestBatcherPublishAndClose(t *testing.T) {
	g := testgames.TicTacToe
	info := g.Info()
	m1, m2 := tinyModel(t, info, g, 1), tinyModel(t, info, g, 2)
	latest := NewLatest(m1)
	b, _ := NewBatcher(latest, BatcherConfig{MaxBatch: 4, MaxWait: 0, Workers: 1})
	obs := make([]float32, info.Observation.Size())
	g.New().Play(4).Play(0).Observe(obs) // not the empty board, which a fresh net maps to 0
	p1, p2 := make([]float32, info.NumActions), make([]float32, info.NumActions)
	v := make([]float32, 1)
	b.Evaluate(obs, p1, v)
	latest.Publish(m2)
	b.Evaluate(obs, p2, v)
	if slices.Equal(p1, p2) {
		t.Fatal("the published network was not used")
	}
	want := make([]float32, info.NumActions)
	net.NewEngine(m2).Evaluate(obs, want, v)
	if !close32(p2, want) {
		t.Fatal("the batcher does not run the published network")
	}
	b.Close()
	if err := b.Evaluate(obs, p1, v); !errors.Is(err, errClosed) {
		t.Fatalf("Evaluate after Close: %v", err)
	}
	if err := b.Evaluate(obs[:1], p1, v); err == nil {
		t.Fatal("mismatched buffers were accepted")
	}
}

// TestBatcherSwapUnderLoad publishes new weights while eight callers keep the batcher busy:
// no request is lost or fails, each is answered by the old weights or the new ones, and every
// request made after the publication by the new ones (on whichever backend this build runs).
func TestBatcherSwapUnderLoad(t *testing.T) {
	g := testgames.TicTacToe
	info := g.Info()
	m1, m2 := tinyModel(t, info, g, 1), tinyModel(t, info, g, 2)
	latest := NewLatest(m1)
	b, err := NewBatcher(latest, BatcherConfig{MaxBatch: 8, MaxWait: 100 * time.Microsecond, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	t.Logf("the batcher's engines: %s", b.Backend())
	size, n := info.Observation.Size(), info.NumActions
	const k = 3
	obs := make([]float32, k*size)
	s := g.New().Play(4).Play(0) // not the empty board, which a fresh net maps to 0
	for i := range k {
		s.Observe(obs[i*size : (i+1)*size])
		s = s.Play(env.Action(1 + i))
	}
	want := func(m *net.Model) []float32 {
		p, v := make([]float32, k*n), make([]float32, k)
		net.NewEngine(m).Evaluate(obs, p, v)
		return append(p, v...)
	}
	old, fresh := want(m1), want(m2)
	if close32(old, fresh) {
		t.Fatal("the two models answer alike: the test would see nothing")
	}
	var published sync.WaitGroup
	published.Add(1)
	var done sync.WaitGroup
	var mu sync.Mutex
	answered, byOld, byNew := 0, 0, 0
	for caller := range 8 {
		done.Add(1)
		go func() {
			defer done.Done()
			for r := range 60 {
				if r == 30 {
					published.Wait() // the second half is asked after the publication
				}
				p, v := make([]float32, k*n), make([]float32, k)
				if err := b.Evaluate(obs, p, v); err != nil {
					t.Errorf("caller %d, request %d: %v", caller, r, err)
					return
				}
				got := append(p, v...)
				mu.Lock()
				answered++
				switch {
				case close32(got, fresh):
					byNew++
				case r >= 30:
					t.Errorf("caller %d, request %d, made after the publication: not the new weights' answer", caller, r)
				case close32(got, old):
					byOld++
				default:
					t.Errorf("caller %d, request %d: neither the old weights' answer nor the new ones'", caller, r)
				}
				mu.Unlock()
			}
		}()
	}
	time.Sleep(5 * time.Millisecond) // under load
	latest.Publish(m2)
	published.Done()
	done.Wait()
	if answered != 8*60 || byNew < 8*30 {
		t.Errorf("%d of %d requests answered, %d by the old weights and %d by the new (at least %d)", answered, 8*60, byOld, byNew, 8*30)
	}
	t.Logf("%d requests answered: %d by the old weights, %d by the new", answered, byOld, byNew)
}

// TestPlay: self-play through a batcher gives whole, legal games whose targets are at the
// recorded decisions, over their legal actions, summing to 1; playout cap randomization
// records about the share asked; the values the solver proved are the exact ones.
func TestPlay(t *testing.T) {
	for _, gumbel := range []bool{false, true} {
		g := testgames.TicTacToe
		info := g.Info()
		b, _ := NewBatcher(NewLatest(tinyModel(t, info, g, 3)), BatcherConfig{MaxBatch: 64, MaxWait: time.Millisecond, Workers: 1})
		params := mcts.DefaultParams()
		params.InFlight = 4
		params.DirichletAlpha = 0.3
		params.Gumbel = gumbel
		params.GumbelActions = 4
		params.Temperature = mcts.Schedule{{From: 0, Value: 1}, {From: 4, Value: 0}}
		cfg := Config{Games: 8, Params: params, Simulations: 16, CheapSimulations: 4, FullShare: 0.5,
			Step: func() int64 { return 7 }}
		ctx, cancel := context.WithCancel(context.Background())
		var mu sync.Mutex
		var games []*replay.Game
		var stats Stats
		var wg sync.WaitGroup
		for w := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := Play(ctx, g, b, cfg, uint64(w+10), &stats, GameSinkFunc(func(_ context.Context, gm *replay.Game) error {
					mu.Lock()
					defer mu.Unlock()
					games = append(games, gm)
					if len(games) == 60 {
						cancel()
					}
					return nil
				}))
				if err != nil && !errors.Is(err, context.Canceled) {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		cancel()
		b.Close()
		mu.Lock()
		targets, decisions, proven := 0, 0, 0
		for _, gm := range games {
			s := g.New()
			ti := 0
			for i, a := range gm.Actions {
				if ti < len(gm.Targets) && gm.Targets[ti].Ply == i {
					tg := gm.Targets[ti]
					legal := s.Legal(nil)
					sum := float32(0)
					for _, e := range tg.Policy {
						if !slices.Contains(legal, e.Action) {
							t.Fatalf("a target gives %d, not a legal action", e.Action)
						}
						sum += e.Prob
					}
					if math.Abs(float64(sum-1)) > 1e-3 {
						t.Fatalf("a target sums to %v", sum)
					}
					if tg.Proven {
						proven++
						exact := testgames.Expectimax(s)
						if s.ToMove() == 1 {
							exact = -exact
						}
						if math.Abs(float64(tg.Value)-exact) > 1e-6 {
							t.Fatalf("a target proven %v, the exact value is %v:\n%v", tg.Value, exact, s)
						}
					}
					ti++
				}
				if !env.IsLegal(s, a) {
					t.Fatalf("game plays an illegal action %d", a)
				}
				s = s.Play(a)
				decisions++
			}
			if ti != len(gm.Targets) || s.ToMove() != env.Terminal || s.Result() != gm.Result || gm.Step != 7 {
				t.Fatalf("game of %d actions: %d of %d targets placed, ends %v with %v, step %d", len(gm.Actions), ti, len(gm.Targets), s.Result(), gm.Result, gm.Step)
			}
			targets += len(gm.Targets)
		}
		mu.Unlock()
		share := float64(targets) / float64(decisions)
		if share < 0.3 || share > 0.6 {
			t.Errorf("gumbel %v: %d targets over %d decisions (%.2f); want about half of the searched decisions", gumbel, targets, decisions, share)
		}
		if proven == 0 {
			t.Errorf("gumbel %v: no target of %d proven", gumbel, targets)
		}
		if stats.Games.Load() < 60 || stats.Samples.Load() < int64(targets) {
			t.Errorf("stats: %d games, %d samples", stats.Games.Load(), stats.Samples.Load())
		}
	}
}

// swappable is an evaluator whose weights change when told (as a Batcher's on a publication):
// it answers zeros and counts the positions it was asked.
type swappable struct {
	model     atomic.Pointer[net.Model]
	positions atomic.Int64
}

func (e *swappable) Evaluate(obs, policy, value []float32) error {
	clear(policy)
	clear(value)
	e.positions.Add(int64(len(value)))
	return nil
}

func (e *swappable) Model() *net.Model { return e.model.Load() }

// TestPlayCacheForgetsOldWeights: the worker's cache answers for one network only. Once warm,
// tic-tac-toe's few positions come from the cache; after new weights, they are asked again.
func TestPlayCacheForgetsOldWeights(t *testing.T) {
	g := testgames.TicTacToe
	ev := &swappable{}
	ev.model.Store(new(net.Model))
	params := mcts.DefaultParams()
	params.Temperature = mcts.Schedule{{From: 0, Value: 1}}
	cfg := Config{Games: 4, Params: params, Simulations: 16, CheapSimulations: 16, FullShare: 1, CacheBytes: 1 << 20,
		Step: func() int64 { return 0 }}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const warm, window = 400, 20
	var counts []int64 // positions evaluated at games warm, warm+window, warm+2·window
	games := 0
	err := Play(ctx, g, ev, cfg, 1, &Stats{}, GameSinkFunc(func(context.Context, *replay.Game) error {
		games++
		switch games {
		case warm, warm + window:
			counts = append(counts, ev.positions.Load())
		case warm + 2*window:
			counts = append(counts, ev.positions.Load())
			cancel()
		}
		if games == warm+window {
			ev.model.Store(new(net.Model)) // new weights
		}
		return nil
	}))
	if !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	before, after := counts[1]-counts[0], counts[2]-counts[1]
	if after < 10*max(before, 1) {
		t.Errorf("positions evaluated in %d games: %d before new weights, %d after", window, before, after)
	}
}

// TestCheapSearchPlaysItsBest: a cheap search plays its most visited move whatever the
// temperature (a PUCT run's schedule drew cheap moves from a few simulations' visits, against
// Config's word): with every move cheap and the same network, every game is the same game.
func TestCheapSearchPlaysItsBest(t *testing.T) {
	g := testgames.TicTacToe
	info := g.Info()
	b, _ := NewBatcher(NewLatest(tinyModel(t, info, g, 3)), BatcherConfig{MaxBatch: 64, MaxWait: time.Millisecond, Workers: 1})
	defer b.Close()
	params := mcts.DefaultParams()
	params.Temperature = mcts.Schedule{{From: 0, Value: 1}}
	cfg := Config{Games: 4, Params: params, Simulations: 8, CheapSimulations: 8, FullShare: 1e-12}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	seen := map[string]bool{}
	n := 0
	err := Play(ctx, g, b, cfg, 1, &Stats{}, GameSinkFunc(func(_ context.Context, gm *replay.Game) error {
		seen[fmt.Sprint(gm.Actions)] = true
		if n++; n == 20 {
			cancel()
		}
		return nil
	}))
	if err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	if len(seen) != 1 {
		t.Errorf("%d games of cheap searches only, %d different: the temperature drew their moves", n, len(seen))
	}
}

// gatedWeights is a WeightsSource whose Model blocks, once armed, until released: the
// inference worker asks it before each batch, so a test can hold the engine busy.
type gatedWeights struct {
	model   *net.Model
	armed   atomic.Bool
	entered chan struct{}
	release chan struct{}
}

func (g *gatedWeights) Model() *net.Model {
	if g.armed.CompareAndSwap(true, false) {
		g.entered <- struct{}{}
		<-g.release
	}
	return g.model
}

// TestBatcherMergesWhatQueues: while the one engine is busy, the requests that arrive queue
// and the free engine then takes them all in one batch (it does not cut a batch from whatever
// came first, nor wait for a batch to fill while positions are queued); the time callers spent
// blocked and the engines idle is counted. Each row is a MaxWait: the first request fills a
// batch, and with a wait of an hour the second still goes at once, being full.
func TestBatcherMergesWhatQueues(t *testing.T) {
	g := testgames.TicTacToe
	info := g.Info()
	for _, wait := range []time.Duration{0, time.Hour} {
		t.Run(wait.String(), func(t *testing.T) {
			gate := &gatedWeights{model: tinyModel(t, info, g, 1), entered: make(chan struct{}), release: make(chan struct{})}
			const later = 3 // requests of one position arriving while the engine is busy: they fill a batch
			b, err := NewBatcher(gate, BatcherConfig{MaxBatch: later, MaxWait: wait, Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			var released sync.Once
			release := func() { released.Do(func() { close(gate.release) }) }
			defer release() // before Close, should the test fail with the engine held
			one := make([]float32, info.Observation.Size())
			g.New().Play(4).Observe(one)
			var wg sync.WaitGroup
			ask := func(n int) {
				obs := make([]float32, 0, n*len(one))
				for range n {
					obs = append(obs, one...)
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					if err := b.Evaluate(obs, make([]float32, n*info.NumActions), make([]float32, n)); err != nil {
						t.Error(err)
					}
				}()
			}
			gate.armed.Store(true)
			ask(later)
			<-gate.entered // the engine holds the first request's batch
			for range later {
				ask(1)
			}
			// gather takes one as its next batch's first and waits for the engine; the others
			// stay queued.
			deadline := time.Now().Add(5 * time.Second)
			for len(b.requests) < later-1 {
				if time.Now().After(deadline) {
					t.Fatalf("%d of %d requests queued while the engine was busy: a batch was cut before an engine was free", len(b.requests), later-1)
				}
				time.Sleep(time.Millisecond)
			}
			const hold = 20 * time.Millisecond
			time.Sleep(hold)
			release()
			wg.Wait()
			s := b.Stats()
			if s.Batches != 2 || s.Positions != 2*later {
				t.Fatalf("%d batches of %d positions, want 2 of %d: what queued was not merged", s.Batches, s.Positions, 2*later)
			}
			if s.CallerWait < hold {
				t.Errorf("callers waited %v in all, want at least the %v the engine was held", s.CallerWait, hold)
			}
			if s.EngineIdle <= 0 {
				t.Errorf("the engine's idle time is %v", s.EngineIdle)
			}
		})
	}
}
