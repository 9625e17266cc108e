package selfplay

import (
	"context"
	"testing"
	"time"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/gyges"
	"github.com/zerogames/zero/env/imbriqua"
	"github.com/zerogames/zero/env/yinsh"
)

// A search cancelled before its first simulation has nothing to answer: Analyze says so with
// the context's error, whatever the player's kind. The engine then runs its least search, one
// simulation in a nanosecond, which must make that simulation: a uct search ended it on the
// clock once the rollout had expanded the root, and the engine answered "visits 0 value
// 1.000" (the rollout's result) with every move at the uniform share.
func TestAnalyzeStoppedBeforeASimulation(t *testing.T) {
	for _, spec := range []string{"uct:50", "uct:1s", "ucb1:50"} {
		checkStopped(t, spec, yinsh.Blitz)
		checkStopped(t, spec, gyges.Basic)
		checkStopped(t, spec, imbriqua.Game)
	}
}

func checkStopped[S env.State[S]](t *testing.T, spec string, g env.Game[S]) {
	t.Helper()
	sp, err := ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPlayer(g, sp)
	if err != nil {
		t.Fatal(err)
	}
	s := g.New()
	p.NewGame(s, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	an, err := p.Analyze(ctx, s, Limits{}, nil)
	if err == nil {
		t.Errorf("%s, %s: stopped before a simulation, answered %d simulations, value %.3f, %d moves", spec, g.Info().Name, an.Work, an.Value, len(an.Moves))
	}
	least := Limits{Simulations: 1, Time: time.Nanosecond} // the engine's leastSearch
	if an, err = p.Analyze(context.Background(), s, least, nil); err != nil || an.Work < 1 {
		t.Errorf("%s, %s: the least search answered %d simulations (%v)", spec, g.Info().Name, an.Work, err)
	}
}
