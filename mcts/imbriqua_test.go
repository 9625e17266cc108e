package mcts

import (
	"context"
	"fmt"
	"testing"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/imbriqua"
	"github.com/zerogames/zero/internal/testgames"
)

// Imbriqua's last turns decide the game by the framed squares. Both positions come from
// seeded random games (env.Walker, PCG(seed, 1)), stopped at a placement of the last turns and
// kept because one placement is much better than the others; the test checks by exhaustive
// search (no chance is left: the deck is known after its 10th draw) that they are what these
// comments say.

// imbriquaFrame: dark places the 44th and last pawn (then plays card 5), light leads on
// framed squares 10 to 3. One placement of the 11 wins for dark; the other 10 lose.
//
//	  a b c d e f g h
//	8 . . . . L . L D 8
//	7 . . L . D . . . 7
//	6 . D L . L D L . 6
//	5 D L L . L L L L 5
//	4 . . D D . L D . 4
//	3 . L D D D . L D 3
//	2 . D L . D D . . 2
//	1 L . . . . . L L 1
const imbriquaFrame = "a8;g1;g7;c8;c3;e8;b7;h1;c5;card 5;remove c5;f7;card 1;f7-e7;d4;card 7;remove c3;e6;card 8;remove h1;d3;card 2;g7-h8;f2;card 10;remove c8;d7;card 6;d7xf5;d2;card 4;g1-h2;e2;card 9;remove f5;e6;card 3;f2-g2;f5;c2;h3;d5;b2;f2;f7;h8-g8;g4;remove g4;g6;h3-g4;g5;remove e7;g3;remove e2;d7;d5-e4;f6;f6xh4;c3;c3xe3;e3xh3;stop;g3;g6-f6;c4;e6xg6;e5;d4xf4;d4;g6-g7;e7;e7xc7;c7xc3;b6;remove d2;d7;b7-c6;b3;remove h2;g6;c3xa1;e3;g7-h8;b5;remove a8;c4;b3-c3;e6;h5;g1;d3;a5;d6;f3;g4-g5;e2;remove e8;b3;f7-e8;b2;e2xg4;c5;remove h4;e2;d6-e7;e4;e4xh1;d6;d6xf6;stop;e6;d7-c7"

// imbriquaBlock: light places on turn 43, the second last, before dark's last turn; framed
// squares are 5 each. Nine of light's 10 placements lose; one wins.
//
//	  a b c d e f g h
//	8 D . D . . . D . 8
//	7 D . L D D L . . 7
//	6 . D . D L L . L 6
//	5 . D . L L . L . 5
//	4 . D L L D D . . 4
//	3 . L . . D L L . 3
//	2 L L D . L D D D 2
//	1 . D . . . . . . 1
const imbriquaBlock = "f8;c7;c1;b3;g4;h2;g2;f4;d3;card 8;remove c1;b5;card 10;remove c7;b2;card 2;f8-e7;f7;card 1;h2-h3;f6;card 3;f6-g6;e4;card 6;h3xf5;f5xh7;f6;card 5;f6xf8;g7;card 4;h7-f5;b6;card 9;remove d3;e6;card 7;e6xa6;g3;c4;b4;d7;h5;a5;c5;c5xg5;stop;e5;remove e5;d3;g2-f3;c2;d7xf7;g2;d3xb1;c2;h5-h2;f2;f2-e2;b7;f7-g8;d5;remove e2;e7;e7xh4;h4xf2;e7;remove d5;d6;remove g8;d5;e7-f6;e7;a6-a7;e6;d5-d4;c6;a5xc3;stop;d5;g2xe2;g2;d6-a3;e5;remove c4;d7;remove c3;g3;f5;f7;d6;e8;g8;c3;c3xc7;stop;b6;remove a3;c4;b1-a2;f2;b3xb1;b3;f8xh6;b4;e8-c8;b2;f5-g5;e3;b7-a8"

func TestImbriquaTactics(t *testing.T) {
	g := imbriqua.Game
	frame, block := replay(t, g, imbriquaFrame), replay(t, g, imbriquaBlock)
	// The positions are what their comments say.
	outcomes := func(s imbriqua.State) (win, lose int, best []env.Action) {
		p := s.ToMove()
		for _, a := range s.Legal(nil) {
			switch v := testgames.Expectimax(s.Play(a)) * sign(p); {
			case v > 0.5:
				win++
				best = append(best, a)
			case v < -0.5:
				lose++
			}
		}
		return win, lose, best
	}
	if frame.ToMove() != 1 || frame.Turn() != 43 {
		t.Fatalf("imbriquaFrame: %v", frame)
	}
	if win, lose, _ := outcomes(frame); win != 1 || lose != 10 {
		t.Fatalf("imbriquaFrame: %d placements win, %d lose", win, lose)
	}
	win, lose, best := outcomes(block)
	if block.ToMove() != 0 || block.Turn() != 42 || win != 1 || lose != 9 {
		t.Fatalf("imbriquaBlock: %d placements win, %d lose", win, lose)
	}
	gumbel := DefaultParams()
	gumbel.Gumbel, gumbel.GumbelScale = true, 0
	searches := []struct {
		name          string
		o             func() Oracle[imbriqua.State]
		p             Params
		frame, defend int // simulations
	}{
		{"puct-uniform", func() Oracle[imbriqua.State] { return Uniform[imbriqua.State]{} }, DefaultParams(), 400, 5000},
		{"ucb1-uniform", func() Oracle[imbriqua.State] { return Uniform[imbriqua.State]{} }, UCTParams(), 400, 5000},
		{"puct-rollout", func() Oracle[imbriqua.State] { return NewRollout(g, 1, 1) }, DefaultParams(), 400, 5000},
		{"ucb1-rollout", func() Oracle[imbriqua.State] { return NewRollout(g, 1, 1) }, UCTParams(), 400, 5000},
		{"gumbel-rollout", func() Oracle[imbriqua.State] { return NewRollout(g, 1, 1) }, gumbel, 2000, 2000},
	}
	for _, sc := range searches {
		t.Run(sc.name, func(t *testing.T) {
			s := mustSearch(t, g, sc.o(), sc.p, 1)
			if end := playTurn(t, s, frame, sc.frame); end.Result() != env.Win1 {
				t.Errorf("last-turn framing: dark's turn ended at\n%v", end)
			}
			s.Reset(block)
			if err := s.Run(context.Background(), Budget{Simulations: sc.defend}); err != nil {
				t.Fatal(err)
			}
			if a, _ := s.Choose(0); a != best[0] {
				var stats string
				for _, c := range s.Children(nil) {
					stats += fmt.Sprintf(" %s:%d/%.2f", env.ActionString(block, c.Action), c.Visits, c.Q)
				}
				t.Errorf("stop the framing: light chose %s, want %s;%s", env.ActionString(block, a),
					env.ActionString(block, best[0]), stats)
			}
		})
	}
}
