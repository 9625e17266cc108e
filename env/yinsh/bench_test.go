package yinsh_test

import (
	"math/rand/v2"
	"testing"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/yinsh"
)

// midgame is a position 40 decisions into a random game (seed 7), used by the benchmarks.
func midgame(tb testing.TB) yinsh.State {
	tb.Helper()
	w := env.NewWalker[yinsh.State](rand.New(rand.NewPCG(7, 7)), yinsh.NumActions)
	s := yinsh.Normal.New()
	for range 40 {
		s = s.Play(w.Step(s))
	}
	if s.ToMove() == env.Terminal {
		tb.Fatal("the benchmark game ended early")
	}
	return s
}

func BenchmarkPerft(b *testing.B) {
	s := midgame(b)
	bufs := env.PerftBuffers(4, yinsh.NumActions)
	var leaves uint64
	b.ReportAllocs()
	for b.Loop() {
		leaves += env.Perft(s, 4, bufs)
	}
	b.ReportMetric(float64(leaves)/b.Elapsed().Seconds(), "leaves/s")
}

func BenchmarkRandomGame(b *testing.B) {
	w := env.NewWalker[yinsh.State](rand.New(rand.NewPCG(1, 1)), yinsh.NumActions)
	b.ReportAllocs()
	decisions := 0
	for b.Loop() {
		_, n := w.Playout(yinsh.Normal.New())
		decisions += n
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "games/s")
	b.ReportMetric(float64(decisions)/float64(b.N), "decisions/game")
}

func BenchmarkLegal(b *testing.B) {
	s := midgame(b)
	buf := make([]env.Action, 0, yinsh.NumActions)
	b.ReportAllocs()
	for b.Loop() {
		buf = s.Legal(buf[:0])
	}
}

// BenchmarkLegalVaried lists the moves of each of the 15,088 positions three plies below the
// midgame in turn, as a perft or a search meets them: unlike BenchmarkLegal, which repeats one
// position, the branches of the generator cannot be learnt.
func BenchmarkLegalVaried(b *testing.B) {
	var states []yinsh.State
	var walk func(s yinsh.State, depth int)
	walk = func(s yinsh.State, depth int) {
		if depth == 0 {
			states = append(states, s)
			return
		}
		for _, a := range s.Legal(nil) {
			walk(s.Play(a), depth-1)
		}
	}
	walk(midgame(b), 3)
	buf := make([]env.Action, 0, yinsh.NumActions)
	b.ReportAllocs()
	for b.Loop() {
		for i := range states {
			buf = states[i].Legal(buf[:0])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(states)), "ns/position")
}

// BenchmarkLegalRandom lists the moves of 4,096 positions met in random games (ring moves to
// make, from the games of seed 3), one after the other: what a random playout asks.
func BenchmarkLegalRandom(b *testing.B) {
	var states []yinsh.State
	w := env.NewWalker[yinsh.State](rand.New(rand.NewPCG(3, 3)), yinsh.NumActions)
	for len(states) < 4096 {
		s := yinsh.Normal.New()
		for s.ToMove() != env.Terminal && len(states) < 4096 {
			if s.Phase() == yinsh.PhaseMove {
				states = append(states, s)
			}
			s = s.Play(w.Step(s))
		}
	}
	buf := make([]env.Action, 0, yinsh.NumActions)
	b.ReportAllocs()
	for b.Loop() {
		for i := range states {
			buf = states[i].Legal(buf[:0])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(states)), "ns/position")
}

func BenchmarkPlay(b *testing.B) {
	s := midgame(b)
	legal := s.Legal(nil)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		_ = s.Play(legal[i])
		i++
		if i == len(legal) {
			i = 0
		}
	}
}

// BenchmarkHeuristic values 4,096 positions met in random games (ring moves to make, from the
// games of seed 3), one after the other: what ab:D asks at its horizon.
func BenchmarkHeuristic(b *testing.B) {
	var states []yinsh.State
	w := env.NewWalker[yinsh.State](rand.New(rand.NewPCG(3, 3)), yinsh.NumActions)
	for len(states) < 4096 {
		s := yinsh.Normal.New()
		for s.ToMove() != env.Terminal && len(states) < 4096 {
			if s.Phase() == yinsh.PhaseMove {
				states = append(states, s)
			}
			s = s.Play(w.Step(s))
		}
	}
	b.ReportAllocs()
	sum := 0.0
	for b.Loop() {
		for i := range states {
			sum += yinsh.Normal.Heuristic(states[i])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(states)), "ns/position")
}
