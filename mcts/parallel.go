package mcts

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/zerogames/zero/env"
)

// A search with helpers (SetHelpers) grows one tree from several goroutines, as KataGo's
// numSearchThreads and lc0's --threads do: each goroutine is a lane with leaves of its own in
// flight, which it collects and backs up holding the tree's lock and has its own oracle
// evaluate without it, so that one lane's network runs while another walks the tree. The
// lanes see each other's leaves through their virtual losses, as the leaves of one batch do.
// Such a search depends on the goroutines' timing: its results are not reproduced by its seed.

// lane is one goroutine's share of a search with helpers: the leaves it has in flight (the
// fields Collect and Apply work on, swapped into the Search while the lane holds the lock)
// and the buffers its oracle answers in.
type lane[S env.State[S]] struct {
	oracle   Oracle[S]
	leaves   []S
	leafNode []int32
	paths    []int32
	pathEnd  []int32
	policy   []float32
	value    []float32
	// The expansions of the leaves evaluated, worked out without the lock (prepare): leaf j's
	// legal actions and priors are acts and priors from off[j] to off[j+1], or errs[j].
	acts   []env.Action
	priors []float32
	off    []int32
	errs   []error
	// legal and legalPriors are one leaf's lists while prepare works them out.
	legal       []env.Action
	legalPriors []float32
}

// prepare works out the expansion of each leaf from the oracle's logits (legalPriors), the
// part of Apply that needs no lock.
func (l *lane[S]) prepare(leaves []S, numActions int) {
	l.acts, l.priors, l.off, l.errs = l.acts[:0], l.priors[:0], append(l.off[:0], 0), l.errs[:0]
	for j, st := range leaves {
		var err error
		l.legal, l.legalPriors, err = legalPriors(st, l.policy[j*numActions:(j+1)*numActions], l.legal, l.legalPriors)
		if err == nil {
			l.acts, l.priors = append(l.acts, l.legal...), append(l.priors, l.legalPriors...)
		}
		l.off = append(l.off, int32(len(l.acts)))
		l.errs = append(l.errs, err)
	}
}

// expansion is leaf j's expansion (prepare).
func (l *lane[S]) expansion(j int) ([]env.Action, []float32, error) {
	if l.errs[j] != nil {
		return nil, nil, l.errs[j]
	}
	lo, hi := l.off[j], l.off[j+1]
	return l.acts[lo:hi:hi], l.priors[lo:hi:hi], nil
}

// lanes is the state the lanes of one Run share, guarded by mu (with the tree).
type lanes struct {
	mu   sync.Mutex
	cond sync.Cond
	stop bool
	err  error
}

// fail ends the search with err (the first error wins).
func (ls *lanes) fail(err error) {
	if ls.err == nil {
		ls.err = err
	}
	ls.stop = true
	ls.cond.Broadcast()
}

// SetHelpers gives Run more oracles to search with, one goroutine each beside the caller's
// (nil or none: Run searches on the caller's goroutine alone, reproducibly). Each oracle
// serves its own goroutine only, as an Evaluator on a network engine of its own. A search
// with helpers is not reproduced by its seed: which lane reaches which leaf first depends on
// the goroutines' timing. Collect and Apply, driven by the caller, ignore the helpers.
func (s *Search[S]) SetHelpers(helpers []Oracle[S]) error {
	if len(s.leafNode) > 0 {
		return errors.New("mcts: SetHelpers with leaves in flight: Apply them first")
	}
	s.helpers = helpers
	for len(s.lanes) < len(helpers)+1 {
		s.lanes = append(s.lanes, &lane[S]{})
	}
	for k, o := range helpers {
		s.lanes[k+1].oracle = o
	}
	return nil
}

// Helpers is the number of helpers Run searches with beside the caller's goroutine.
func (s *Search[S]) Helpers() int { return len(s.helpers) }

// swap exchanges the leaves in flight of the Search and of lane l: called twice, it leaves
// both as they were.
func (s *Search[S]) swap(l *lane[S]) {
	s.leaves, l.leaves = l.leaves, s.leaves
	s.leafNode, l.leafNode = l.leafNode, s.leafNode
	s.paths, l.paths = l.paths, s.paths
	s.pathEnd, l.pathEnd = l.pathEnd, s.pathEnd
}

// runLanes goes on with a search whose root is expanded, from the caller's goroutine and one
// more for each helper, until the search is finished, its deadline passes (a search by time,
// at least one simulation done), ctx ends or an oracle fails. Every leaf put in flight is
// backed up (or dropped, on an error) before it returns.
func (s *Search[S]) runLanes(ctx context.Context, b Budget, deadline time.Time, reported *int) error {
	ls := &lanes{}
	ls.cond.L = &ls.mu
	main := s.lanes[0]
	main.oracle = s.oracle
	s.swap(main) // the Search's own leaf buffers are the caller's lane's while the lanes run
	for _, l := range s.lanes[:len(s.helpers)+1] {
		l.policy = resize(l.policy, s.p.InFlight*s.numActions)
		l.value = resize(l.value, s.p.InFlight)
	}
	var wg sync.WaitGroup
	for _, l := range s.lanes[1 : len(s.helpers)+1] {
		wg.Go(func() { s.runLane(ctx, ls, l, b, deadline, nil) })
	}
	s.runLane(ctx, ls, main, b, deadline, reported)
	wg.Wait()
	s.swap(main)
	main.oracle = nil
	return ls.err
}

// runLane is one lane's loop: collect leaves under the lock, evaluate them without it, back
// them up under it again. The caller's lane (reported non-nil) reports the progress.
func (s *Search[S]) runLane(ctx context.Context, ls *lanes, l *lane[S], b Budget, deadline time.Time, reported *int) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	for !ls.stop {
		root := s.t.at(0)
		if s.timed && s.done >= s.budget && root.inflight == 0 && now().Before(deadline) {
			s.extendTimed() // time is left: the last phase goes on
		}
		if root.inflight == 0 && (s.done >= s.budget || s.full() || root.solved) {
			ls.stop = true
			ls.cond.Broadcast()
			return
		}
		if err := ctx.Err(); err != nil {
			ls.fail(err)
			return
		}
		if b.Time > 0 && s.done > 0 && now().After(deadline) {
			ls.stop = true
			ls.cond.Broadcast()
			return
		}
		if reported != nil && b.Progress != nil && s.done-*reported >= progressEvery {
			*reported = s.done
			b.Progress(s.done)
		}
		done, started := s.done, s.started
		s.swap(l)
		leaves := s.Collect()
		s.swap(l)
		n := len(leaves)
		if n == 0 {
			if s.done == done && s.started == started {
				if root := s.t.at(0); root.inflight == 0 {
					// Nothing in flight and nothing to do: the search cannot go on.
					ls.stop = true
					ls.cond.Broadcast()
					return
				}
				// Blocked by another lane's leaves (a leaf in flight on the way, or the
				// Gumbel halving's end of phase): wait for one to come back.
				ls.cond.Wait()
			}
			continue
		}
		ls.mu.Unlock()
		err := l.oracle.Evaluate(leaves, l.policy[:n*s.numActions], l.value[:n])
		if err == nil {
			l.prepare(leaves, s.numActions)
		}
		ls.mu.Lock()
		s.swap(l)
		if err != nil {
			s.dropLeaves()
		} else {
			s.pre = l
			err = s.Apply(l.policy[:n*s.numActions], l.value[:n])
			s.pre = nil
		}
		s.swap(l)
		ls.cond.Broadcast()
		if err != nil {
			ls.fail(err)
			return
		}
	}
}
