package replay

import (
	"strings"
	"testing"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/imbriqua"
	"github.com/zerogames/zero/env/yinsh"
)

// TestCheck: games as self-play records them pass, chance's decisions (Imbriqua's deck) and a
// resignation included; every kind of damage a buggy or hostile worker could send is refused,
// saying what.
func TestCheck(t *testing.T) {
	for seed := range uint64(10) {
		if err := Check(yinsh.Blitz, randomGame(seed)); err != nil {
			t.Fatalf("game %d: %v", seed, err)
		}
	}
	// Imbriqua: chance decides the first draws.
	s := imbriqua.Game.New()
	gm := &Game{}
	chance := -1
	for s.ToMove() != env.Terminal {
		if chance < 0 && s.ToMove() == env.Chance {
			chance = len(gm.Actions)
		}
		a := s.Legal(nil)[0]
		gm.Actions = append(gm.Actions, a)
		s = s.Play(a)
	}
	gm.Result = s.Result()
	if err := Check(imbriqua.Game, gm); err != nil {
		t.Fatalf("imbriqua: %v", err)
	}
	resigned := randomGame(1)
	resigned.Actions = resigned.Actions[:20]
	resigned.Targets = resigned.Targets[:5]
	st := yinsh.Blitz.New()
	for _, a := range resigned.Actions {
		st = st.Play(a)
	}
	resigned.Result = env.WinFor(st.ToMove().Other())
	if err := Check(yinsh.Blitz, resigned); err != nil {
		t.Fatalf("a resignation: %v", err)
	}

	bad := map[string]func(g *Game){
		"not legal":         func(g *Game) { g.Actions[3] = 5015 },
		"ended at decision": func(g *Game) { g.Actions = append(g.Actions, g.Actions[0]) },
		"the moves give": func(g *Game) {
			g.Result = map[env.Result]env.Result{env.Win0: env.Win1, env.Win1: env.Win0, env.Draw: env.Win0}[g.Result]
		},
		"no resignation":      func(g *Game) { g.Actions = g.Actions[:21]; g.Targets = g.Targets[:5]; g.Result = env.Draw },
		"no game's end":       func(g *Game) { g.Result = env.Ongoing },
		"more than a game":    func(g *Game) { g.Actions = make([]env.Action, yinsh.Blitz.Info().MaxLength+1) },
		"network step":        func(g *Game) { g.Step = -1 },
		"value":               func(g *Game) { g.Targets[2].Value = 1.5 },
		"of a":                func(g *Game) { g.Targets[len(g.Targets)-1].Ply = len(g.Actions) },
		"after decision":      func(g *Game) { g.Targets[1], g.Targets[2] = g.Targets[2], g.Targets[1] },
		"sum to":              func(g *Game) { g.Targets[0].Policy[0].Prob = 0.9 },
		"probability":         func(g *Game) { g.Targets[0].Policy[0].Prob = -0.5; g.Targets[0].Policy[1].Prob = 1 },
		"once each":           func(g *Game) { g.Targets[0].Policy[1].Action = g.Targets[0].Policy[0].Action },
		"policy: action 5015": func(g *Game) { g.Targets[0].Policy[2].Action = 5015 },
	}
	for want, damage := range bad {
		g := randomGame(2)
		damage(g)
		if err := Check(yinsh.Blitz, g); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", want, err)
		}
	}
	// A target at a chance decision.
	gm.Targets = []Target{{Ply: chance, Policy: []PolicyEntry{{gm.Actions[chance], 1}}}}
	if err := Check(imbriqua.Game, gm); err == nil || !strings.Contains(err.Error(), "chance's") {
		t.Errorf("a target at chance's decision: %v", err)
	}
}
