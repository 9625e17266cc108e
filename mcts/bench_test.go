package mcts

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/gyges"
	"github.com/zerogames/zero/env/imbriqua"
	"github.com/zerogames/zero/env/yinsh"
	"github.com/zerogames/zero/internal/testgames"
)

// midgame is the position 40 decisions into a seeded random game of g (as env/yinsh's
// benchmarks use), or earlier if the game would end.
func midgame[S env.State[S]](g env.Game[S], decisions int) S {
	w := env.NewWalker[S](rand.New(rand.NewPCG(7, 7)), g.Info().NumActions)
	s := g.New()
	for range decisions {
		next := s.Play(w.Step(s))
		if next.ToMove() == env.Terminal {
			break
		}
		s = next
	}
	for s.ToMove() == env.Chance {
		s = s.Play(w.Step(s))
	}
	return s
}

// benchSearch runs searches of sims simulations from root, each from an empty tree, and
// reports the simulations run per second (a search the solver ends early runs fewer).
func benchSearch[S env.State[S]](b *testing.B, g env.Game[S], o Oracle[S], p Params, root S, sims int) {
	s, err := New(g, o, p, 1)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	done := 0
	b.ReportAllocs()
	for b.Loop() {
		s.Reset(root)
		if err := s.Run(ctx, Budget{Simulations: sims}); err != nil {
			b.Fatal(err)
		}
		done += s.Simulations()
	}
	b.ReportMetric(float64(done)/b.Elapsed().Seconds(), "sims/s")
}

// BenchmarkSearch measures the search alone: the uniform oracle, 800 simulations per search,
// PUCT, from the start and from a position 40 decisions into a random game.
func BenchmarkSearch(b *testing.B) {
	p := DefaultParams()
	b.Run("yinsh/start", func(b *testing.B) {
		benchSearch(b, yinsh.Normal, Uniform[yinsh.State]{}, p, yinsh.Normal.New(), 800)
	})
	b.Run("yinsh/midgame", func(b *testing.B) {
		benchSearch(b, yinsh.Normal, Uniform[yinsh.State]{}, p, midgame(yinsh.Normal, 40), 800)
	})
	b.Run("yinsh-blitz/midgame", func(b *testing.B) {
		benchSearch(b, yinsh.Blitz, Uniform[yinsh.State]{}, p, midgame(yinsh.Blitz, 40), 800)
	})
	b.Run("gyges/move4", func(b *testing.B) {
		benchSearch(b, gyges.Basic, Uniform[gyges.State]{}, p, midgame(gyges.Basic, 16), 800)
	})
	b.Run("gyges-advanced/move4", func(b *testing.B) {
		benchSearch(b, gyges.Advanced, Uniform[gyges.State]{}, p, midgame(gyges.Advanced, 16), 800)
	})
	b.Run("imbriqua/start", func(b *testing.B) {
		benchSearch(b, imbriqua.Game, Uniform[imbriqua.State]{}, p, imbriqua.Game.New(), 800)
	})
	b.Run("imbriqua/midgame", func(b *testing.B) {
		benchSearch(b, imbriqua.Game, Uniform[imbriqua.State]{}, p, midgame(imbriqua.Game, 40), 800)
	})
	b.Run("tictactoe/start", func(b *testing.B) {
		benchSearch(b, testgames.TicTacToe, Uniform[testgames.Board]{}, p, testgames.TicTacToe.New(), 800)
	})
	b.Run("gamble/start", func(b *testing.B) {
		benchSearch(b, testgames.Gamble, Uniform[testgames.Bet]{}, p, testgames.Gamble.New(), 800)
	})
}

// BenchmarkUCT measures the search of the uct:N players: one random playout per leaf, PUCT with
// equal priors, 1000 simulations per search.
func BenchmarkUCT(b *testing.B) {
	p := DefaultParams()
	b.Run("yinsh/start", func(b *testing.B) {
		benchSearch(b, yinsh.Normal, NewRollout(yinsh.Normal, 1, 1), p, yinsh.Normal.New(), 1000)
	})
	b.Run("yinsh/midgame", func(b *testing.B) {
		benchSearch(b, yinsh.Normal, NewRollout(yinsh.Normal, 1, 1), p, midgame(yinsh.Normal, 40), 1000)
	})
	b.Run("yinsh-blitz/start", func(b *testing.B) {
		benchSearch(b, yinsh.Blitz, NewRollout(yinsh.Blitz, 1, 1), p, yinsh.Blitz.New(), 1000)
	})
	b.Run("imbriqua/start", func(b *testing.B) {
		benchSearch(b, imbriqua.Game, NewRollout(imbriqua.Game, 1, 1), p, imbriqua.Game.New(), 1000)
	})
	b.Run("gyges/move4", func(b *testing.B) {
		benchSearch(b, gyges.Basic, NewRollout(gyges.Basic, 1, 1), p, midgame(gyges.Basic, 16), 1000)
	})
	// Move 5, not 4: 16 decisions into this game the root is a proven win, and the search
	// ends at once.
	b.Run("gyges-advanced/move5", func(b *testing.B) {
		benchSearch(b, gyges.Advanced, NewRollout(gyges.Advanced, 1, 1), p, midgame(gyges.Advanced, 17), 1000)
	})
	// Classic UCT (UCB1), the method of the public engines it is compared with.
	b.Run("yinsh/start/ucb1", func(b *testing.B) {
		benchSearch(b, yinsh.Normal, NewRollout(yinsh.Normal, 1, 1), UCTParams(), yinsh.Normal.New(), 1000)
	})
	b.Run("yinsh/midgame/ucb1", func(b *testing.B) {
		benchSearch(b, yinsh.Normal, NewRollout(yinsh.Normal, 1, 1), UCTParams(), midgame(yinsh.Normal, 40), 1000)
	})
}

// abPositions are the players' decisions of seeded random games of g, every 5th, set-ups and
// openings included: what an ab:D player meets in an arena.
func abPositions[S env.State[S]](g env.Game[S], games int) []S {
	var out []S
	for i := range games {
		w := env.NewWalker[S](rand.New(rand.NewPCG(uint64(i), 11)), g.Info().NumActions)
		s := g.New()
		for n := 0; s.ToMove() != env.Terminal; n++ {
			if p := s.ToMove(); p >= 0 && n%5 == 0 {
				out = append(out, s)
			}
			s = s.Play(w.Step(s))
		}
	}
	return out
}

// benchAB times ab:D players of g, D in depths: valuing the ends of the game only
// (ab:D:eval=none) if endsOnly, else the game's heuristic if it has one.
func benchAB[S env.State[S]](b *testing.B, g env.Game[S], endsOnly bool, depths ...int) {
	positions := abPositions(g, 4)
	for _, d := range depths {
		name := fmt.Sprintf("%s/ab:%d", g.Info().Name, d)
		if endsOnly {
			name += ":eval=none"
		}
		b.Run(name, func(b *testing.B) {
			ab, err := NewAlphaBeta(g, d, 0, 1)
			if err != nil {
				b.Fatal(err)
			}
			if endsOnly {
				ab.EndsOnly()
			}
			var nodes int64
			var longest time.Duration
			k := 0
			for b.Loop() {
				start := time.Now()
				res, err := ab.Search(context.Background(), positions[k%len(positions)])
				if err != nil {
					b.Fatal(err)
				}
				longest = max(longest, time.Since(start))
				nodes += res.Nodes
				k++
			}
			b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N), "ms/move")
			b.ReportMetric(longest.Seconds()*1000, "max-ms")
			b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
		})
	}
}

// BenchmarkAlphaBeta is the time of an ab:D player's move, over the positions of four random
// games of each game (run with -benchtime=Nx, N a multiple of the positions, to weigh each
// alike): what "the deepest ab:D that moves in under a second" is measured by. ab:D values the
// positions past its depth by the game's heuristic; ab:D:eval=none (Gygès' rows), the ends
// only, is the ab:D of the figures measured before the games had heuristics.
func BenchmarkAlphaBeta(b *testing.B) {
	benchAB(b, gyges.Basic, true, 2, 3, 4, 5, 6, 7, 8)
	benchAB(b, gyges.Basic, false, 2, 3, 4, 5)
	benchAB(b, gyges.Advanced, true, 2, 3, 4, 5)
	benchAB(b, gyges.Advanced, false, 2, 3, 4)
	benchAB(b, yinsh.Blitz, false, 1, 2, 3)
	benchAB(b, yinsh.Normal, false, 1, 2, 3)
	benchAB(b, imbriqua.Game, false, 1, 2, 3, 4, 5) // ab:6 took up to 46 s a move here (the 39th turn)
}
