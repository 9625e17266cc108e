package yinsh_test

import (
	"testing"

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
