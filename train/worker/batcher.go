package worker

import (
	"errors"
	"fmt"
	"github.com/zerogames/zero/env"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zerogames/zero/mcts"
	"github.com/zerogames/zero/net"
)

// Batcher is the one door to the network during self-play: every worker's leaves come to it,
// and it runs them through the network in batches as full as it can make them, on one or more
// inference engines (one per inference worker, each single-threaded, built and run on the
// worker's own OS thread), routing each answer back to its caller. Before each batch it asks
// its WeightsSource for the newest network and swaps it in (the hot swap of new weights).
//
// A worker calls Evaluate (the batcher is an mcts.Evaluator) and blocks until its positions
// are evaluated. A batch is formed when an engine is free: it takes every request queued by
// then, up to MaxBatch positions, and waits at most MaxWait more for others to join if it is
// not full. While every engine is busy, requests queue and the next batch merges them; an
// engine never waits for a batch to fill while positions are queued. Once warm it allocates
// nothing per request.
type Batcher struct {
	obsSize, numActions int
	maxBatch            int
	maxWait             time.Duration

	requests chan *request
	pool     sync.Pool // *request, each with its done channel
	groups   chan []*request
	ready    chan struct{}   // a token from each inference worker waiting for a group
	free     chan []*request // group slices handed back by the inference workers
	mu       sync.RWMutex    // Evaluate sends under the read lock; Close closes under the lock
	weights  WeightsSource
	backend  string // what the engines run on
	wg       sync.WaitGroup
	closed   atomic.Bool

	// Counters for the metrics, updated by the inference workers.
	batches, positions atomic.Int64
	busy               atomic.Int64 // nanoseconds spent in the network
	netCPU             atomic.Int64 // CPU nanoseconds of the forward passes
	// Where the goroutines wait, in nanoseconds summed over them: callers blocked in Evaluate
	// (from the request to its answer), inference workers waiting for a group.
	callerWait, engineIdle atomic.Int64
}

type request struct {
	obs, logits, values []float32
	// legal and ends, for EvaluateActions: the positions' actions, logits aligned with legal
	// (nil for Evaluate: logits of every action).
	legal []env.Action
	ends  []int32
	n     int
	err   error
	done  chan struct{}
}

// BatcherConfig sizes a Batcher.
type BatcherConfig struct {
	// MaxBatch is the most positions evaluated at once.
	MaxBatch int
	// MaxWait is how long a batch that is not full waits for more requests once an engine
	// is free for it (0: it takes what is queued and goes).
	MaxWait time.Duration
	// Workers is the number of inference workers (engines).
	Workers int
}

// Model is the network the batcher runs now (its WeightsSource's newest): a batch evaluated
// after a call is answered by it or a newer one.
func (b *Batcher) Model() *net.Model { return b.weights.Model() }

// NewBatcher starts a batcher running the networks of weights, which must have one already.
// Close stops it.
func NewBatcher(weights WeightsSource, cfg BatcherConfig) (*Batcher, error) {
	if cfg.MaxBatch < 1 || cfg.Workers < 1 || cfg.MaxWait < 0 {
		return nil, fmt.Errorf("batcher: max batch %d, workers %d, max wait %v", cfg.MaxBatch, cfg.Workers, cfg.MaxWait)
	}
	model := weights.Model()
	if model == nil {
		return nil, errors.New("batcher: no network to start with")
	}
	spec := model.Spec()
	b := &Batcher{
		obsSize:    spec.Observation.Size(),
		numActions: spec.NumActions,
		maxBatch:   cfg.MaxBatch,
		maxWait:    cfg.MaxWait,
		requests:   make(chan *request, 1024),
		groups:     make(chan []*request, cfg.Workers),
		ready:      make(chan struct{}, cfg.Workers),
		free:       make(chan []*request, cfg.Workers+2),
		weights:    weights,
	}
	for range cap(b.free) {
		b.free <- make([]*request, 0, 64)
	}
	b.pool.New = func() any { return &request{done: make(chan struct{}, 1)} }
	b.wg.Add(1 + cfg.Workers)
	go b.gather()
	built := make(chan string)
	for range cfg.Workers {
		go b.infer(model, built)
	}
	for range cfg.Workers {
		b.backend = <-built
	}
	return b, nil
}

// Backend says what the inference workers run on (net.Engine.Describe): the backend, its
// library and kernels.
func (b *Batcher) Backend() string { return b.backend }

var _ mcts.ActionEvaluator = (*Batcher)(nil)

// errClosed answers requests made after Close.
var errClosed = errors.New("batcher: closed")

// Evaluate evaluates n = len(value) observations, as mcts.Evaluator says, together with other
// callers' positions. It is safe for concurrent use.
func (b *Batcher) Evaluate(obs, policy, value []float32) error {
	n := len(value)
	if n == 0 {
		return nil
	}
	if len(obs) != n*b.obsSize || len(policy) != n*b.numActions {
		return fmt.Errorf("batcher: %d values but %d observation and %d policy floats", n, len(obs), len(policy))
	}
	return b.submit(obs, policy, value, nil, nil)
}

// EvaluateActions evaluates n = len(value) observations, as mcts.ActionEvaluator says (only
// the logits of the actions given), together with other callers' positions. It is safe for
// concurrent use.
func (b *Batcher) EvaluateActions(obs []float32, legal []env.Action, ends []int32, logits, value []float32) error {
	n := len(value)
	if n == 0 {
		return nil
	}
	if len(obs) != n*b.obsSize || len(ends) != n || len(logits) != int(ends[n-1]) || len(legal) != int(ends[n-1]) {
		return fmt.Errorf("batcher: %d values but %d observation floats, %d ends, %d actions and %d logits", n, len(obs), len(ends), len(legal), len(logits))
	}
	return b.submit(obs, logits, value, legal, ends)
}

// submit queues a request and waits for its answer.
func (b *Batcher) submit(obs, logits, value []float32, legal []env.Action, ends []int32) error {
	r := b.pool.Get().(*request)
	r.obs, r.logits, r.values, r.n, r.err = obs, logits, value, len(value), nil
	r.legal, r.ends = legal, ends
	start := time.Now()
	b.mu.RLock()
	if b.closed.Load() {
		b.mu.RUnlock()
		b.pool.Put(r)
		return errClosed
	}
	b.requests <- r
	b.mu.RUnlock()
	<-r.done
	b.callerWait.Add(int64(time.Since(start)))
	err := r.err
	r.obs, r.logits, r.values, r.legal, r.ends = nil, nil, nil, nil, nil
	b.pool.Put(r)
	return err
}

// Close stops the batcher once the requests made so far are answered.
func (b *Batcher) Close() {
	b.mu.Lock()
	if b.closed.Swap(true) {
		b.mu.Unlock()
		return
	}
	close(b.requests)
	b.mu.Unlock()
	b.wg.Wait()
}

// gather groups requests into batches: it waits for a first request and for a free engine
// (requests queue meanwhile), takes what is queued up to a full batch, waits up to MaxWait
// for more if it is not full, and hands the group to the free engine.
func (b *Batcher) gather() {
	defer b.wg.Done()
	defer close(b.groups)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var pending *request // a request that did not fit the last group
	for {
		first := pending
		pending = nil
		if first == nil {
			var ok bool
			if first, ok = <-b.requests; !ok {
				return
			}
		}
		<-b.ready
		group := append(<-b.free, first)
		n := first.n
		// What is queued, then, for a batch not full, what comes within maxWait: one loop, whose
		// wait is nil (take only what is queued) until the queue is empty, then the timer's.
		var wait <-chan time.Time
	fill:
		for n < b.maxBatch {
			var r *request
			var ok bool
			if wait == nil {
				select {
				case r, ok = <-b.requests:
				default:
					if b.maxWait <= 0 {
						break fill
					}
					timer.Reset(b.maxWait)
					wait = timer.C
					continue
				}
			} else {
				select {
				case r, ok = <-b.requests:
				case <-wait:
					wait = nil
					break fill
				}
			}
			if !ok {
				break
			}
			if n+r.n > b.maxBatch {
				pending = r
				break
			}
			group = append(group, r)
			n += r.n
		}
		if wait != nil && !timer.Stop() {
			select { // a value sent before Stop (timers of Go before 1.23)
			case <-timer.C:
			default:
			}
		}
		b.groups <- group
	}
}

// infer runs groups through an engine of its own: one request in place, several copied into
// one batch. It says what the engine runs on to built once it is made.
func (b *Batcher) infer(model *net.Model, built chan<- string) {
	defer b.wg.Done()
	// Locked to its thread, the worker builds and runs its engine there (oneDNN's primitives
	// are made for the thread's one OpenMP thread), and can read the CPU time of its forward
	// passes.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	e := net.NewEngine(model)
	defer e.Close()
	built <- e.Describe()
	var obs, logits, values []float32
	var legal []env.Action
	var ends []int32
	for {
		idle := time.Now()
		b.ready <- struct{}{}
		group, ok := <-b.groups
		b.engineIdle.Add(int64(time.Since(idle)))
		if !ok {
			return
		}
		if m := b.weights.Model(); m != nil && e.Model() != m {
			if err := e.Swap(m); err != nil {
				b.answer(group, err)
				continue
			}
		}
		start := time.Now()
		var n int
		var err error
		// A group of EvaluateActions requests only runs the legal actions' logits; one with an
		// Evaluate request among them runs every action's, and gathers the others' from them.
		actions := true
		for _, r := range group {
			actions = actions && r.legal != nil
		}
		switch {
		case len(group) == 1 && actions:
			r := group[0]
			n = r.n
			cpu := threadCPU()
			err = e.EvaluateActions(r.obs, r.legal, r.ends, r.logits, r.values)
			b.netCPU.Add(threadCPU() - cpu)
		case len(group) == 1 && group[0].legal == nil:
			r := group[0]
			n = r.n
			cpu := threadCPU()
			err = e.Evaluate(r.obs, r.logits, r.values)
			b.netCPU.Add(threadCPU() - cpu)
		case actions:
			legal, ends = legal[:0], ends[:0]
			for _, r := range group {
				n += r.n
				base := int32(len(legal))
				legal = append(legal, r.legal...)
				for _, end := range r.ends {
					ends = append(ends, base+end)
				}
			}
			obs, logits, values = grow(obs, n*b.obsSize), grow(logits, len(legal)), grow(values, n)
			at := 0
			for _, r := range group {
				copy(obs[at*b.obsSize:], r.obs)
				at += r.n
			}
			cpu := threadCPU()
			err = e.EvaluateActions(obs, legal, ends, logits, values)
			b.netCPU.Add(threadCPU() - cpu)
			at, la := 0, 0
			for _, r := range group {
				la += copy(r.logits, logits[la:la+len(r.legal)])
				copy(r.values, values[at:at+r.n])
				at += r.n
			}
		default:
			for _, r := range group {
				n += r.n
			}
			obs, logits, values = grow(obs, n*b.obsSize), grow(logits, n*b.numActions), grow(values, n)
			at := 0
			for _, r := range group {
				copy(obs[at*b.obsSize:], r.obs)
				at += r.n
			}
			cpu := threadCPU()
			err = e.Evaluate(obs, logits, values)
			b.netCPU.Add(threadCPU() - cpu)
			at = 0
			for _, r := range group {
				full := logits[at*b.numActions : (at+r.n)*b.numActions]
				if r.legal == nil {
					copy(r.logits, full)
				} else {
					start := int32(0)
					for i, end := range r.ends {
						for j := start; j < end; j++ {
							r.logits[j] = full[i*b.numActions+int(r.legal[j])]
						}
						start = end
					}
				}
				copy(r.values, values[at:at+r.n])
				at += r.n
			}
		}
		b.busy.Add(int64(time.Since(start)))
		b.batches.Add(1)
		b.positions.Add(int64(n))
		b.answer(group, err)
	}
}

// answer wakes the group's callers and hands the group's slice back.
func (b *Batcher) answer(group []*request, err error) {
	for _, r := range group {
		r.err = err
		r.done <- struct{}{}
	}
	clear(group)
	b.free <- group[:0]
}

func grow(b []float32, n int) []float32 {
	if cap(b) < n {
		return make([]float32, n)
	}
	return b[:n]
}

// BatcherStats are a batcher's counters since it started.
type BatcherStats struct {
	Batches, Positions int64
	// Busy is the wall time the inference workers spent on batches (copies included), summed
	// over them.
	Busy time.Duration
	// NetCPU is the CPU time of the network's forward passes alone, summed over the workers.
	NetCPU time.Duration
	// CallerWait is the time callers spent blocked in Evaluate, summed over them; EngineIdle
	// the time the inference workers spent waiting for a batch, summed over them.
	CallerWait, EngineIdle time.Duration
}

// Stats reads the counters.
func (b *Batcher) Stats() BatcherStats {
	return BatcherStats{Batches: b.batches.Load(), Positions: b.positions.Load(), Busy: time.Duration(b.busy.Load()),
		NetCPU: time.Duration(b.netCPU.Load()), CallerWait: time.Duration(b.callerWait.Load()), EngineIdle: time.Duration(b.engineIdle.Load())}
}
