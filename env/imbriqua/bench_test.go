package imbriqua_test

import (
	"math/rand/v2"
	"testing"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/imbriqua"
)

// midgame is a position 50 decisions into a random game (seed 7), used by the benchmarks.
func midgame(tb testing.TB) imbriqua.State {
	tb.Helper()
	w := env.NewWalker[imbriqua.State](rand.New(rand.NewPCG(7, 7)), imbriqua.NumActions)
	s := imbriqua.Game.New()
	for range 50 {
		s = s.Play(w.Step(s))
	}
	if s.ToMove() == env.Terminal {
		tb.Fatal("the benchmark game ended early")
	}
	return s
}

func BenchmarkPerft(b *testing.B) {
	s := midgame(b)
	bufs := env.PerftBuffers(4, imbriqua.NumActions)
	var leaves uint64
	b.ReportAllocs()
	for b.Loop() {
		leaves += env.Perft(s, 4, bufs)
	}
	b.ReportMetric(float64(leaves)/b.Elapsed().Seconds(), "leaves/s")
}

func BenchmarkRandomGame(b *testing.B) {
	w := env.NewWalker[imbriqua.State](rand.New(rand.NewPCG(1, 1)), imbriqua.NumActions)
	b.ReportAllocs()
	decisions := 0
	for b.Loop() {
		_, n := w.Playout(imbriqua.Game.New())
		decisions += n
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "games/s")
	b.ReportMetric(float64(decisions)/float64(b.N), "decisions/game")
}

// decisions is every decision of 20 random games (seed 7): the states and the actions played,
// so that Legal and Play are measured over the mix of phases real games have.
func decisions(tb testing.TB) ([]imbriqua.State, []env.Action) {
	tb.Helper()
	w := env.NewWalker[imbriqua.State](rand.New(rand.NewPCG(7, 8)), imbriqua.NumActions)
	var states []imbriqua.State
	var actions []env.Action
	for range 20 {
		for s := imbriqua.Game.New(); s.ToMove() != env.Terminal; {
			a := w.Step(s)
			states, actions = append(states, s), append(actions, a)
			s = s.Play(a)
		}
	}
	return states, actions
}

func BenchmarkLegal(b *testing.B) {
	states, _ := decisions(b)
	buf := make([]env.Action, 0, imbriqua.NumActions)
	n := 0
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		buf = states[i].Legal(buf[:0])
		n += len(buf)
		if i++; i == len(states) {
			i = 0
		}
	}
	b.ReportMetric(float64(n)/float64(b.N), "actions/op")
}

func BenchmarkPlay(b *testing.B) {
	states, actions := decisions(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		_ = states[i].Play(actions[i])
		if i++; i == len(states) {
			i = 0
		}
	}
}

func BenchmarkObserve(b *testing.B) {
	s := midgame(b)
	obs := make([]float32, imbriqua.Game.Info().Observation.Size())
	b.ReportAllocs()
	for b.Loop() {
		s.Observe(obs)
	}
}

// BenchmarkHeuristic values the players' decisions of 20 random games, one after the other:
// what ab:D asks at its horizon.
func BenchmarkHeuristic(b *testing.B) {
	all, _ := decisions(b)
	var states []imbriqua.State
	for _, s := range all {
		if s.ToMove() != env.Chance {
			states = append(states, s)
		}
	}
	b.ReportAllocs()
	sum := 0.0
	for b.Loop() {
		for i := range states {
			sum += imbriqua.Game.Heuristic(states[i])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(states)), "ns/position")
}
