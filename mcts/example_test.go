package mcts_test

import (
	"context"
	"fmt"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/internal/testgames"
	"github.com/zerogames/zero/mcts"
)

// A search with random playouts finds tic-tac-toe's win in one, and its statistics say so.
func ExampleSearch() {
	g := testgames.TicTacToe
	// x: a1 b1, o: a3 b3; x to play.
	st, _, _ := env.Replay(g, "a1;a3;b1;b3")
	s, err := mcts.New(g, mcts.NewRollout(g, 1, 1), mcts.DefaultParams(), 1)
	if err != nil {
		panic(err)
	}
	s.Reset(st)
	if err := s.Run(context.Background(), mcts.Budget{Simulations: 400}); err != nil {
		panic(err)
	}
	a, _ := s.Choose(0)
	fmt.Println("play", env.ActionString(st, a))
	for _, c := range s.Children(nil) {
		if c.Action == a {
			fmt.Printf("its value %.2f for x\n", c.Q)
		}
	}
	// Output:
	// play c1
	// its value 1.00 for x
}
