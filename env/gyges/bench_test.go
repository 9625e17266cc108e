package gyges

import (
	"math/rand/v2"
	"testing"

	"github.com/zerogames/zero/env"
)

// The benchmarks run on the benchmark position (see benchPosition) with both rules. Leaves/s
// counts the states at the last ply: made (Perft) or counted without being made (PerftBulk, by
// the game's CountLegal as zero perft --bulk counts them).

var benchGames = []*Game{Basic, Advanced}

func benchState(b *testing.B, g *Game) State {
	b.Helper()
	s, err := g.ParsePosition(benchPosition)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

func benchPerft(b *testing.B, bulk bool) {
	for _, g := range benchGames {
		b.Run(g.info.Name, func(b *testing.B) {
			s := benchState(b, g)
			bufs := env.PerftBuffers(3, g.info.NumActions)
			var leaves uint64
			b.ReportAllocs()
			for b.Loop() {
				if bulk {
					leaves += env.PerftCount(g, s, 3, bufs)
				} else {
					leaves += env.Perft(s, 3, bufs)
				}
			}
			b.ReportMetric(float64(leaves)/b.Elapsed().Seconds(), "leaves/s")
		})
	}
}

// BenchmarkPerft is perft(3) of the benchmark position, every leaf made.
func BenchmarkPerft(b *testing.B) { benchPerft(b, false) }

// BenchmarkPerftBulk is perft(3) of the benchmark position, the last ply counted.
func BenchmarkPerftBulk(b *testing.B) { benchPerft(b, true) }

// BenchmarkRandomGame plays whole random games from the empty board (set-up included), as
// random playouts play them: each action drawn through the game's RandomPicker.
func BenchmarkRandomGame(b *testing.B) { benchRandomGame(b, true) }

// BenchmarkRandomGameListed plays the same games drawing each action from Legal's list.
func BenchmarkRandomGameListed(b *testing.B) { benchRandomGame(b, false) }

func benchRandomGame(b *testing.B, picked bool) {
	for _, g := range benchGames {
		b.Run(g.info.Name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			w := env.NewWalker[State](rng, g.info.NumActions)
			if picked {
				w = env.NewGameWalker[State](g, rng)
			}
			decisions := 0
			b.ReportAllocs()
			for b.Loop() {
				_, n := w.Playout(g.New())
				decisions += n
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "games/s")
			b.ReportMetric(float64(decisions)/float64(b.N), "decisions/game")
		})
	}
}

// BenchmarkLegal lists the legal actions of the benchmark position.
func BenchmarkLegal(b *testing.B) {
	for _, g := range benchGames {
		b.Run(g.info.Name, func(b *testing.B) {
			s := benchState(b, g)
			buf := make([]env.Action, 0, g.info.NumActions)
			b.ReportAllocs()
			for b.Loop() {
				buf = s.Legal(buf[:0])
			}
			b.ReportMetric(float64(len(buf)), "actions")
		})
	}
}

// BenchmarkLegalHard lists the legal actions of the position where Legal was slowest in a
// search over many positions (the bounces branch the most there).
func BenchmarkLegalHard(b *testing.B) {
	for _, g := range benchGames {
		b.Run(g.info.Name, func(b *testing.B) {
			s, err := g.ParsePosition("310000/013000/010030/010202/030020/000200 s")
			if err != nil {
				b.Fatal(err)
			}
			buf := make([]env.Action, 0, g.info.NumActions)
			b.ReportAllocs()
			for b.Loop() {
				buf = s.Legal(buf[:0])
			}
			b.ReportMetric(float64(len(buf)), "actions")
		})
	}
}

// BenchmarkPlay makes the legal actions of the benchmark position in turn.
func BenchmarkPlay(b *testing.B) {
	for _, g := range benchGames {
		b.Run(g.info.Name, func(b *testing.B) {
			s := benchState(b, g)
			legal := s.Legal(nil)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				_ = s.Play(legal[i])
				if i++; i == len(legal) {
					i = 0
				}
			}
		})
	}
}

// BenchmarkCanWin compares the solver's question "can the mover reach the goal now", asked
// of the positions after each move of the benchmark position, answered by the game's
// WinFinder (walking the reachable ends) and by playing every legal action (env.CanWin).
func BenchmarkCanWin(b *testing.B) {
	for _, g := range benchGames {
		s := benchState(b, g)
		var children []State
		for _, a := range s.Legal(nil) {
			children = append(children, s.Play(a))
		}
		b.Run(g.info.Name+"/finder", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, c := range children {
					g.CanWin(c, nil)
				}
			}
			b.ReportMetric(float64(b.N*len(children))/b.Elapsed().Seconds(), "positions/s")
		})
		b.Run(g.info.Name+"/play-all", func(b *testing.B) {
			buf := make([]env.Action, 0, g.info.NumActions)
			b.ReportAllocs()
			for b.Loop() {
				for _, c := range children {
					_, buf = env.CanWin(c, buf)
				}
			}
			b.ReportMetric(float64(b.N*len(children))/b.Elapsed().Seconds(), "positions/s")
		})
	}
}

// BenchmarkHeuristic is the evaluation of the positions after each move of the benchmark
// position (the horizon of an alpha-beta search), beside their observation (the network's
// input, the reach planes included) and listing their legal moves.
func BenchmarkHeuristic(b *testing.B) {
	for _, g := range benchGames {
		s := benchState(b, g)
		var children []State
		for _, a := range s.Legal(nil) {
			if c := s.Play(a); c.ToMove() != env.Terminal {
				children = append(children, c)
			}
		}
		b.Run(g.info.Name+"/heuristic", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, c := range children {
					g.Heuristic(c)
				}
			}
			b.ReportMetric(float64(b.N*len(children))/b.Elapsed().Seconds(), "positions/s")
		})
		b.Run(g.info.Name+"/observe", func(b *testing.B) {
			obs := make([]float32, numPlanes*numSquares)
			b.ReportAllocs()
			for b.Loop() {
				for _, c := range children {
					c.Observe(obs)
				}
			}
			b.ReportMetric(float64(b.N*len(children))/b.Elapsed().Seconds(), "positions/s")
		})
		b.Run(g.info.Name+"/legal", func(b *testing.B) {
			buf := make([]env.Action, 0, g.info.NumActions)
			b.ReportAllocs()
			for b.Loop() {
				for _, c := range children {
					buf = c.Legal(buf[:0])
				}
			}
			b.ReportMetric(float64(b.N*len(children))/b.Elapsed().Seconds(), "positions/s")
		})
	}
}
