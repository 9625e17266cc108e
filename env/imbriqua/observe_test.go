package imbriqua

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/zerogames/zero/env"
)

// TestObserve reads the planes back along random games and checks each against what the state
// says, tracking the pawn placed this turn independently of the engine.
func TestObserve(t *testing.T) {
	obs := make([]float32, Game.Info().Observation.Size())
	plane := func(i int) []float32 { return obs[i*numSquares : (i+1)*numSquares] }
	constant := func(i int) (float32, bool) {
		p := plane(i)
		for _, v := range p {
			if v != p[0] {
				return 0, false
			}
		}
		return p[0], true
	}
	for g := 0; g < 40; g++ {
		rng := rand.New(rand.NewPCG(uint64(g), 5))
		w := env.NewWalker[State](rng, NumActions)
		s := Game.New()
		placed := -1 // where the pawn placed this turn stands, as the test follows it
		for n := 0; ; n++ {
			s.Observe(obs)
			fail := func(format string, args ...any) {
				t.Helper()
				t.Fatalf("game %d, decision %d: "+format+"\n%v", append([]any{g, n}, append(args, s)...)...)
			}
			me := s.ToMove()
			switch me {
			case env.Chance:
				me = env.Player(s.Turn() % 2)
			case env.Terminal:
				me = 0
			}
			for sq := 0; sq < numSquares; sq++ {
				if (plane(planeOwn)[sq] == 1) != has(s.pawns[me], sq) || (plane(planeTheir)[sq] == 1) != has(s.pawns[1-me], sq) {
					fail("pawn planes wrong on %s for %s", SquareName(sq), Names[me])
				}
				if (plane(planePlaced)[sq] == 1) != (sq == placed) {
					fail("placed plane on %s is %v; the pawn placed this turn is on %d", SquareName(sq), plane(planePlaced)[sq], placed)
				}
				chain := s.phase == phaseChain && strings.Contains(s.status(), "from "+SquareName(sq))
				if (plane(planeChain)[sq] == 1) != chain {
					fail("chain plane on %s is %v", SquareName(sq), plane(planeChain)[sq])
				}
			}
			phases := 0
			for i := planeOpening; i <= planePenalty; i++ {
				if v, ok := constant(i); !ok {
					fail("phase plane %d not constant", i)
				} else if v != 0 {
					phases++
				}
			}
			if phases != 1 && s.ToMove() != env.Terminal {
				fail("%d phase planes set", phases)
			}
			for k := 1; k <= numCards; k++ {
				if v, _ := constant(planeCard + k - 1); (v == 1) != (s.Card() == k) {
					fail("card plane %d is %v, the card is %d", k, v, s.Card())
				}
				if k <= chanceCards {
					if v, _ := constant(planeUnknown + k - 1); (v == 1) != s.Unknown(k) {
						fail("unknown plane %d is %v", k, v)
					}
				}
			}
			if s.ToMove() != env.Terminal {
				checkSchedule(t, s, me, constant, fail)
			}
			score := s.Score()
			framedOwn, framedTheir := float32(0), float32(0)
			for sq := 0; sq < numSquares; sq++ {
				framedOwn += plane(planeFramedOwn)[sq]
				framedTheir += plane(planeFramedTheir)[sq]
			}
			if int(framedOwn*4) != score[me] || int(framedTheir*4) != score[1-me] {
				fail("framed planes sum to %v, %v; score %v", framedOwn*4, framedTheir*4, score)
			}
			if v, _ := constant(planeScoreOwn); v != float32(score[me])/32 {
				fail("own score plane %v, score %v", v, score)
			}
			if v, _ := constant(planeLight); (v == 1) != (me == 0) {
				fail("light plane %v for %s", v, Names[me])
			}
			if s.ToMove() == env.Terminal {
				break
			}
			a := w.Step(s)
			i := int(a)
			switch {
			case s.phase == phasePlace:
				placed = i
			case i >= moveBase && i < stopAction:
				base := moveBase
				if i >= captureBase {
					base = captureBase
				}
				if from, _, _, to := lineOf(i - base); from == placed {
					placed = to
				}
			}
			turn := s.Turn()
			s = s.Play(a)
			if s.Turn() != turn {
				placed = -1
			}
		}
	}
}

// checkSchedule decodes the coming cards from the next-play planes: each of the next 22 turns
// (to the end of the game) must be the first play from now of its card by its player, so the
// planes give the whole known order.
func checkSchedule(t *testing.T, s State, me env.Player, constant func(int) (float32, bool), fail func(string, ...any)) {
	t.Helper()
	turn := s.Turn()
	for u := turn; u < min(turn+22, numTurns); u++ {
		side := 0
		if env.Player(u%2) != me {
			side = 1
		}
		want := 1 - float32(u-turn)/numTurns
		got := 0
		for k := 1; k <= numCards; k++ {
			if v, _ := constant(planeNextOwn + side*numCards + k - 1); v == want {
				if got != 0 {
					fail("turn %d: cards %d and %d both read as next", u, got, k)
				}
				got = k
			}
		}
		if got != s.CardOf(u) {
			fail("turn %d: the planes say card %d, the deck %d", u, got, s.CardOf(u))
		}
	}
}
