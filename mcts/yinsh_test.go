package mcts

import (
	"context"
	"fmt"
	"testing"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/yinsh"
)

// wins tells whether player p can win s within the decisions p makes from s on (his turn,
// or the rest of it), whatever the opponent answers: a brute-force check, for tests.
func wins[S env.State[S]](s S, p env.Player) bool {
	switch s.ToMove() {
	case env.Terminal:
		return s.Result() == env.WinFor(p)
	case p:
		for _, a := range s.Legal(nil) {
			if wins(s.Play(a), p) {
				return true
			}
		}
	}
	return false
}

// A YINSH blitz position after the opening and eight moves, white to move. White's markers
// stand on e2, e3, e5 and e6, black's on e4 (and h8-h10): the white ring on d4 jumping e4 to
// f4 turns it white and makes the row e2-e6, which wins the blitz game. It is the only one
// of white's 47 moves that makes a row.
const yinshRow = "place e2;place e4;place e5;place h8;place d4;place a5;place a2;place k7;place k10;place b7;" +
	"move e2-e3;move e4-f5;move e3-d2;move h8-h9;move e5-e6;move h9-h10;move e6-f7;move h10-i10"

// The same after a quiet white move (a2-a3): black must stop d4-f4. Of his 59 moves only
// f5-d5 does, turning e5 black; blocking f4 with f5-f4 opens the diagonal from k10, whose
// ring then jumps f5 and e4 to d3 and makes the row anyway.
const yinshDefend = yinshRow + ";move a2-a3"

// playTurn lets the search play the decisions of the player to move at st until the other
// player decides or the game ends, and returns the position reached.
func playTurn[S env.State[S]](t *testing.T, s *Search[S], st S, sims int) S {
	t.Helper()
	p := st.ToMove()
	s.Reset(st)
	for st.ToMove() == p {
		if err := s.Run(context.Background(), Budget{Simulations: sims}); err != nil {
			t.Fatal(err)
		}
		a, err := s.Choose(0)
		if err != nil {
			t.Fatal(err)
		}
		st = st.Play(a)
		if err := s.Advance(a); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

func TestYinshTactics(t *testing.T) {
	g := yinsh.Blitz
	row, defend := replay(t, g, yinshRow), replay(t, g, yinshDefend)
	// The positions are what their comments say.
	if !wins(row, 0) {
		t.Fatal("white cannot win in one in yinshRow")
	}
	saving := 0
	for _, a := range defend.Legal(nil) {
		if !wins(defend.Play(a), 0) {
			saving++
		}
	}
	if saving != 1 {
		t.Fatalf("%d of black's moves stop white's row in yinshDefend, want 1", saving)
	}
	gumbel := DefaultParams()
	gumbel.Gumbel, gumbel.GumbelScale, gumbel.GumbelActions = true, 0, 64
	searches := []struct {
		name        string
		o           func() Oracle[yinsh.State]
		p           Params
		win, defend int // simulations
	}{
		{"puct-uniform", func() Oracle[yinsh.State] { return Uniform[yinsh.State]{} }, DefaultParams(), 400, 20000},
		{"ucb1-uniform", func() Oracle[yinsh.State] { return Uniform[yinsh.State]{} }, UCTParams(), 400, 20000},
		{"puct-rollout", func() Oracle[yinsh.State] { return NewRollout(g, 1, 1) }, DefaultParams(), 400, 20000},
		{"ucb1-rollout", func() Oracle[yinsh.State] { return NewRollout(g, 1, 1) }, UCTParams(), 400, 20000},
		// Without the solver, sequential halving dropped the one saving move before its
		// rivals' refutations were found; the solver's proven losses leave it alone.
		{"gumbel-uniform", func() Oracle[yinsh.State] { return Uniform[yinsh.State]{} }, gumbel, 400, 20000},
		{"gumbel-rollout", func() Oracle[yinsh.State] { return NewRollout(g, 1, 1) }, gumbel, 400, 20000},
	}
	for _, sc := range searches {
		t.Run(sc.name, func(t *testing.T) {
			s := mustSearch(t, g, sc.o(), sc.p, 1)
			if end := playTurn(t, s, row, sc.win); end.Result() != env.Win0 {
				t.Errorf("win in one: white's turn ended at %v", end)
			}
			if sc.defend == 0 {
				return
			}
			s.Reset(defend)
			if err := s.Run(context.Background(), Budget{Simulations: sc.defend}); err != nil {
				t.Fatal(err)
			}
			a, _ := s.Choose(0)
			if got := env.ActionString(defend, a); got != "move f5-d5" {
				var stats string
				for _, c := range s.Children(nil) {
					stats += fmt.Sprintf(" %s:%d/%.2f", env.ActionString(defend, c.Action), c.Visits, c.Q)
				}
				t.Errorf("avoid the loss: black chose %s, want move f5-d5;%s", got, stats)
			}
		})
	}
}
