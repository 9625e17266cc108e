package all

import (
	"context"
	"testing"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/imbriqua"
	"github.com/zerogames/zero/mcts"
	"github.com/zerogames/zero/selfplay"
)

// imbriquaLateWin: the 40th turn of a game the model shipped on 2026-11-28 (now
// models/recipes/imbriqua-v6.zck) lost to uct:10000 (game 88 of its
// card's arena, seed 1): dark, to apply card 3, stood at 97% and played e8-d8, after which light
// wins by force; c2-c3 wins by force for dark (proved to the end by alpha-beta).
const imbriquaLateWin = "h4;g3;b6;f6;a3;f8;e1;h8;e6;card 4;e6-g8;c6;card 7;c6xa6;a6xa1;a1xh1;h1xh5;d6;card 8;d6xh2;f5;card 1;f8-e8;g5;card 3;g8-f8;c6;card 9;remove e8;c2;card 5;g5xe5;b3;card 10;remove f6;f7;card 2;c2-b1;f6;card 6;f6xd4;c3;d8;a4;f6;h6;c8;g2;c3xe5;e5xg7;f6;b3-a2;e6;remove a4;f3;c8xe8;e8xg8;g8xg6;g4;remove h2;f5;f5-a5;e7;b1-b2;f5;f5xh3;h3xc8;d6;d6xa6;a6xa3;a3xg3;g3xg8;g8xa8;a8xa1;f3;f3-a8;c7;b2-a3;d7;d7xa7;a7xa2;a2xh2;g7;g7xe5;f6;h5-h4;c4;f7-h7;c6;remove f6;c2;h7xh5;h5xh3;h3xh1;f6;remove f6;c7;e7-d8;b3;b3xd1;d5;a3;c1;f6;f8;h6;c5;d5xb7;c6;d1-c2;d3;remove a3;f4;c6xc8;c8xe8;f3;remove f3;c6"

// TestImbriquaPlayProvesTheEndgame: Imbriqua's play parameters prove the 40th turn to the end
// of the game (selfplay.PlayParams, registered here: root proofs of 5 turns, 30 M positions) and find the forced win at
// once, before any simulation; the default parameters (4 turns, 2 M positions) do not see the
// end from there. The oracle is uniform: the proofs alone decide.
func TestImbriquaPlayProvesTheEndgame(t *testing.T) {
	Register()
	g := imbriqua.Game
	st, _, err := env.Replay(g, imbriquaLateWin)
	if err != nil {
		t.Fatal(err)
	}
	win, err := st.ParseAction("c2-c3")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		params mcts.Params
		proven bool
	}{
		{"imbriqua's play parameters", selfplay.PlayParams("imbriqua"), true},
		{"the default parameters", mcts.DefaultParams(), false},
	} {
		s, err := mcts.New(g, mcts.Uniform[imbriqua.State]{}, tc.params, 1)
		if err != nil {
			t.Fatal(err)
		}
		s.SetRoot(st)
		if err := s.Run(context.Background(), mcts.Budget{Simulations: 50}); err != nil {
			t.Fatal(err)
		}
		v, proven := s.Proven()
		a, err := s.Choose(0)
		if err != nil {
			t.Fatal(err)
		}
		if proven != tc.proven || proven && (v != 1 || a != win) {
			t.Errorf("%s: root proven %v (value %v), chose %s; want proven %v, and if so c2-c3, a win", tc.name, proven, v, env.ActionString(st, a), tc.proven)
		}
	}
}
