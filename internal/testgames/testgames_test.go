package testgames_test

import (
	"math"
	"testing"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/envtest"
	"github.com/zerogames/zero/internal/testgames"
	"github.com/zerogames/zero/net"
)

func TestConformance(t *testing.T) {
	t.Run("tictactoe", func(t *testing.T) {
		envtest.RunWith(t, testgames.TicTacToe, envtest.Config{Garbage: []string{"d1", "a4", "a0", "B2", "b2 "}})
	})
	t.Run("gamble", func(t *testing.T) {
		envtest.RunWith(t, testgames.Gamble, envtest.Config{Garbage: []string{"roll4", "fine", "Safe"}})
	})
}

func TestValues(t *testing.T) {
	gamble := func(moves string) testgames.Bet {
		s, _, err := env.Replay(testgames.Gamble, moves)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	ttt := func(moves string) testgames.Board {
		s, _, err := env.Replay(testgames.TicTacToe, moves)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	tests := []struct {
		name string
		got  float64
		want float64
	}{
		{"gamble start: risky is worth 1/5", testgames.Expectimax(gamble("")), 0.2},
		{"gamble safe: right is worth -2/5", testgames.Expectimax(gamble("safe")), -0.4},
		{"gamble safe;left", testgames.Expectimax(gamble("safe;left")), -0.5},
		{"gamble risky", testgames.Expectimax(gamble("risky")), 0.2},
		{"gamble risky;roll2: second fines a", testgames.Expectimax(gamble("risky;roll2")), -1},
		{"gamble risky;roll3", testgames.Expectimax(gamble("risky;roll3")), 0},
		{"tic-tac-toe is a draw", testgames.Expectimax(ttt("")), 0},
		{"x wins after a corner answered by an edge", testgames.Expectimax(ttt("a1;b1")), 1},
	}
	for _, tc := range tests {
		if math.Abs(tc.got-tc.want) > 1e-12 {
			t.Errorf("%s: %v, want %v", tc.name, tc.got, tc.want)
		}
	}
}

// TestTicTacToeSpatialPolicy: the policy head is one plane over the board, each action's logit
// at the cell it marks.
func TestTicTacToeSpatialPolicy(t *testing.T) {
	g := testgames.TicTacToe
	spec, err := net.SpecOf(g.Info(), g)
	if err != nil {
		t.Fatal(err)
	}
	if !spec.Spatial() || spec.PolicyPlanes != 1 || spec.OffGrid != 0 || spec.Outputs() != 9 {
		t.Fatalf("spec %+v: want one policy plane of 9 cells and nothing off the grid", spec)
	}
	for a := range env.Action(9) {
		if got := spec.OutputOf(a); got != int(a) {
			t.Errorf("%s: output %d, want %d", env.ActionString(g.New(), a), got, a)
		}
	}
}
