package yinsh_test

import (
	"testing"

	"github.com/zerogames/zero/env"

	"github.com/zerogames/zero/env/envtest"
	"github.com/zerogames/zero/env/yinsh"
)

func TestConformance(t *testing.T) {
	for _, g := range []*yinsh.Game{yinsh.Normal, yinsh.Blitz} {
		t.Run(g.Info().Name, func(t *testing.T) {
			envtest.RunWith(t, g, envtest.Config{Garbage: []string{
				"place f0", "place l5", "move f6-g8", "move f6-f6", "row c8-c4", "row c4-c9",
				"ring", "Place f6", "place  f6", "place f6 ", "move f6 f9", "pass ",
			}})
		})
	}
}

func TestPolicyCells(t *testing.T) {
	g := yinsh.Normal
	seen := map[[2]int]env.Action{}
	for a := env.Action(0); a < yinsh.NumActions; a++ {
		plane, cell, ok := g.PolicyCell(a)
		if !ok {
			if yinsh.ActionString(a) != "pass" {
				t.Errorf("%s is off the policy grid", yinsh.ActionString(a))
			}
			continue
		}
		if plane < 0 || plane >= g.PolicyPlanes() || cell < 0 || cell >= 121 {
			t.Fatalf("action %d at plane %d cell %d: out of range", a, plane, cell)
		}
		if b, dup := seen[[2]int{plane, cell}]; dup {
			t.Fatalf("actions %d and %d share plane %d cell %d", b, a, plane, cell)
		}
		seen[[2]int{plane, cell}] = a
	}
}
