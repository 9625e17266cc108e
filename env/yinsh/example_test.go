package yinsh_test

import (
	"fmt"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/yinsh"
)

// A position is the list of moves from the empty board; Replay checks each.
func Example() {
	s, _, err := env.Replay[yinsh.State](yinsh.Blitz, "place f6;place e5;place a2;place k10;place g11;place e1;place b1;place a5;place k7;place j11")
	if err != nil {
		fmt.Println(err)
		return
	}
	legal := s.Legal(nil)
	fmt.Println(len(legal), "legal moves for", yinsh.Names[s.ToMove()]+", the first:", yinsh.ActionString(legal[0]))
	_, _, err = env.PlayText(s, "move f6-f11")
	fmt.Println(err)
	// Output:
	// 84 legal moves for white, the first: move a2-a3
	// "move f6-f11": there is no point f11 on the board (column f has rows 2-10)
}
