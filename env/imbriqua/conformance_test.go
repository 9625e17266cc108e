package imbriqua_test

import (
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
