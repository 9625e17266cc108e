package imbriqua_test

import (
	"math/rand/v2"
	"testing"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/envtest"
	"github.com/zerogames/zero/env/imbriqua"
)

func TestConformance(t *testing.T) {
	envtest.RunWith(t, imbriqua.Game, envtest.Config{Garbage: []string{
		"a9", "i1", "A1", "c3 ", " c3", "card 11", "card 01", "card +1", "card 1 ", "card  1",
		"c3-c3", "c3xc3", "c3-d5", "c3xd5", "c3xc4", "c3_c5", "c3-c5-c7", "remove", "remove  d4",
		"remove d9", "Stop", "stop ", "pass", "place c3", "move c3-c5",
	}})
}

func TestPolicyCells(t *testing.T) {
	g := imbriqua.Game
	seen := map[[2]int]env.Action{}
	for a := env.Action(0); a < imbriqua.NumActions; a++ {
		plane, cell, ok := g.PolicyCell(a)
		text := imbriqua.ActionString(a)
		if !ok {
			if text != "stop" && text[:5] != "card " {
				t.Errorf("%s is off the policy grid", text)
			}
			continue
		}
		if plane < 0 || plane >= g.PolicyPlanes() || cell < 0 || cell >= 64 {
			t.Fatalf("action %d at plane %d cell %d: out of range", a, plane, cell)
		}
		if b, dup := seen[[2]int{plane, cell}]; dup {
			t.Fatalf("actions %d and %d share plane %d cell %d", b, a, plane, cell)
		}
		seen[[2]int{plane, cell}] = a
	}
}

func TestScorer(t *testing.T) {
	var _ env.Scorer = imbriqua.State{}
}

// TestTurnsToEnd: Imbriqua's bound on the changes of decider left (env.EndBound, which the
// generic suite checks is never above the truth) is the truth itself wherever the board has
// empty squares enough for every turn left to begin with a placement: each turn after the one
// in progress brings exactly one change, and a penalty that ends the game one more. Seeded
// random games.
func TestTurnsToEnd(t *testing.T) {
	g := imbriqua.Game
	rng := rand.New(rand.NewPCG(7, 7))
	exact, counted := 0, 0
	for range 40 {
		var states []imbriqua.State
		s := g.New()
		for s.ToMove() != env.Terminal {
			states = append(states, s)
			if s.ToMove() == env.Chance {
				s = s.Play(env.SampleOutcome(s.Chances(nil), rng.Float64()))
				continue
			}
			legal := s.Legal(nil)
			s = s.Play(legal[rng.IntN(len(legal))])
		}
		// The last turn's penalty, if it ends the game, is a change no later turn absorbs.
		last := states[len(states)-1]
		tail := 0
		if last.Phase() == imbriqua.PhasePenalty {
			tail = 1
		}
		changes, next := 0, env.Terminal
		for i := len(states) - 1; i >= 0; i-- {
			st := states[i]
			d := st.ToMove()
			if d == env.Chance {
				continue
			}
			if next != env.Terminal && next != d {
				changes++
			}
			next = d
			got := g.TurnsToEnd(st)
			if got > changes {
				t.Fatalf("TurnsToEnd = %d, but the game ended %d changes later, at\n%v", got, changes, st)
			}
			empty := 64 - st.Pawns(0) - st.Pawns(1)
			if st.Opening() || (empty-1)/3 < 43-st.Turn() {
				continue
			}
			counted++
			want := changes
			if i < len(states)-1 {
				want -= tail
			}
			if got == want {
				exact++
			} else {
				t.Errorf("TurnsToEnd = %d where %d changes of decider followed (%d of them the last turn's penalty; turn %d, %d empty squares), at\n%v", got, changes, changes-want, st.Turn(), empty, st)
			}
		}
	}
	if counted < 1000 {
		t.Errorf("only %d decisions had empty squares enough to check the bound is exact", counted)
	}
	t.Logf("TurnsToEnd exact at %d decisions", exact)
}
