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
