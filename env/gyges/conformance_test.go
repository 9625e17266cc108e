package gyges_test

import (
	"testing"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/envtest"
	"github.com/zerogames/zero/env/gyges"
)

// TestConformance runs the env suite on both rules, and on the advanced rule with a short cap
// so that more games end by it. Advanced positions have hundreds of legal actions, each of
// which the suite applies with a legality check, so those games are fewer.
func TestConformance(t *testing.T) {
	short, err := gyges.NewGame(gyges.Config{Advanced: true, MoveCap: 20})
	if err != nil {
		t.Fatal(err)
	}
	scale := 1
	if testing.Short() {
		scale = 4
	}
	for _, tt := range []struct {
		name  string
		g     *gyges.Game
		games int
	}{
		{"gyges", gyges.Basic, 100},
		{"gyges-advanced", gyges.Advanced, 8},
		{"gyges-advanced-cap-20", short, 32},
	} {
		t.Run(tt.name, func(t *testing.T) {
			envtest.RunWith(t, tt.g, envtest.Config{Games: tt.games / scale, Garbage: garbage})
		})
	}
}

// garbage is notation that must never play an illegal action.
var garbage = []string{
	"3@c2", "4@c1", "0@c1", "3@g1", "3@c1 ", " 3@c1", "3 @c1", "3@C1", "33@c1", "3@c1@c1", "b1-b7",
	"b1-g1", "b1-goal*c2", "b1-d4*", "b1-d4*e7", "b1-d4*e2*f3", "b1--d4", "b1-d4-e5", "b1-goals",
	"goal-b1", "b1-d4^d4-e5", "B1-d4", "b1-d4 ", "b1 d4", "b0-b1", "b1-GOAL", "b1-goal ",
}

func TestPolicyCells(t *testing.T) {
	for _, g := range []*gyges.Game{gyges.Basic, gyges.Advanced} {
		seen := map[[2]int]env.Action{}
		for a := env.Action(0); int(a) < g.Info().NumActions; a++ {
			plane, cell, ok := g.PolicyCell(a)
			if !ok {
				t.Fatalf("%s: action %d is off the policy grid", g.Info().Name, a)
			}
			if plane < 0 || plane >= g.PolicyPlanes() || cell < 0 || cell >= 36 {
				t.Fatalf("%s: action %d at plane %d cell %d: out of range", g.Info().Name, a, plane, cell)
			}
			if b, dup := seen[[2]int{plane, cell}]; dup {
				t.Fatalf("%s: actions %d and %d share plane %d cell %d", g.Info().Name, b, a, plane, cell)
			}
			seen[[2]int{plane, cell}] = a
		}
		if _, _, ok := g.PolicyCell(env.Action(g.Info().NumActions)); ok {
			t.Errorf("%s: an action past the space is on the grid", g.Info().Name)
		}
	}
}
