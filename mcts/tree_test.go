package mcts

import (
	"context"
	"testing"

	"github.com/zerogames/zero/internal/testgames"
)

// TestTreePages: the nodes' pages change nothing but where nodes live. The same searches with
// pages of 16 nodes (every few expansions a hole and a new page; the first page growing) and
// with the game's own page size reach the same tree through a game of searches, Advance
// (keep: the subtree copied into the spare pages) and Release, and leave it sound.
func TestTreePages(t *testing.T) {
	g := testgames.TicTacToe
	for _, gumbel := range []bool{false, true} {
		p := DefaultParams()
		p.Gumbel, p.GumbelActions = gumbel, 4
		small := mustSearch(t, g, NewRollout(g, 1, 1), p, 3)
		small.t = tree[testgames.Board]{}
		small.t.setShift(4)
		small.t.reset(g.New())
		big := mustSearch(t, g, NewRollout(g, 1, 1), p, 3)
		st := g.New()
		for move := 0; st.ToMove() >= 0; move++ {
			for _, s := range []*Search[testgames.Board]{small, big} {
				if err := s.Run(context.Background(), Budget{Simulations: 300}); err != nil {
					t.Fatal(err)
				}
				if err := s.checkTree(); err != nil {
					t.Fatalf("gumbel %v, move %d: %v", gumbel, move, err)
				}
			}
			a, b := small.Children(nil), big.Children(nil)
			if len(a) != len(b) {
				t.Fatalf("gumbel %v, move %d: %d children in pages of 16, %d", gumbel, move, len(a), len(b))
			}
			for i := range a {
				if a[i] != b[i] {
					t.Fatalf("gumbel %v, move %d, child %d: %+v in pages of 16, %+v", gumbel, move, i, a[i], b[i])
				}
			}
			if move == 0 && len(small.t.pages) < 10 {
				t.Fatalf("gumbel %v: %d pages of 16 nodes: the test crosses no pages", gumbel, len(small.t.pages))
			}
			act, err := big.Choose(0)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range []*Search[testgames.Board]{small, big} {
				if err := s.Advance(act); err != nil {
					t.Fatal(err)
				}
			}
			st = st.Play(act)
			if move == 2 { // Release keeps the page size
				small.Release()
				big.Release()
				if small.t.shift != 4 {
					t.Fatalf("Release made pages of %d nodes", 1<<small.t.shift)
				}
			}
		}
	}
}
