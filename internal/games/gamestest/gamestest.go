// Package gamestest holds what tests of the game registry and the packages above it share:
// a small untrained checkpoint, and an agent's move from a game's start.
package gamestest

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/zerogames/zero/internal/games"
	"github.com/zerogames/zero/net"
	"github.com/zerogames/zero/selfplay"
)

// Checkpoint writes a small untrained network of game g (1 block × 8 channels) to path.
func Checkpoint(t testing.TB, g games.Game, path string) {
	t.Helper()
	spec, err := g.NetSpec()
	if err != nil {
		t.Fatal(err)
	}
	cfg := net.Config{Blocks: 1, Channels: 8, PolicyChannels: 2, ValueChannels: 1, ValueHidden: 8}
	w, err := net.NewWeights(spec, cfg, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if err := net.Save(path, w, nil, 0, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
}

// MoveFromStart builds the agent spec for g, has it analyze g's start and checks that its
// choice is legal there; it returns the analysis.
func MoveFromStart(t testing.TB, g games.Game, spec string) selfplay.Analysis {
	t.Helper()
	a, err := g.NewAgent(spec, 1)
	if err != nil {
		t.Fatal(err)
	}
	p := g.NewPosition()
	an, err := a.Analyze(context.Background(), p, selfplay.Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Play(an.Best()); err != nil {
		t.Errorf("%s's move from the start of %s: %v", spec, g.Info().Name, err)
	}
	return an
}
