package worker

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/gyges"
	"github.com/zerogames/zero/env/imbriqua"
	"github.com/zerogames/zero/mcts"
	"github.com/zerogames/zero/train/replay"
)

// TestPlayTargetsOfTheGames plays self-play games of Imbriqua (chance: the deck's draws) and of
// Gygès with a move cap of 6 (most games drawn by the cap), with resignations allowed in half the games,
// as the presets search (Gumbel root, cheap searches), and checks each target as the trainer
// takes it: at a player's decision with a choice (never chance's, never a forced move), its
// policy over the legal actions summing to 1 under every symmetry, its value the game's result
// from the decider's side; and the games pass the trainer's check.
func TestPlayTargetsOfTheGames(t *testing.T) {
	short, err := gyges.NewGame(gyges.Config{MoveCap: 6})
	if err != nil {
		t.Fatal(err)
	}
	playTargets[imbriqua.State](t, imbriqua.Game, 4, false)
	playTargets[gyges.State](t, short, 8, true)
}

func playTargets[S env.State[S]](t *testing.T, g env.Game[S], games int, wantDraws bool) {
	info := g.Info()
	b, _ := NewBatcher(NewLatest(tinyModel(t, info, g, 3)), BatcherConfig{MaxBatch: 64, MaxWait: time.Millisecond, Workers: 1})
	defer b.Close()
	p := mcts.DefaultParams()
	p.Gumbel, p.GumbelActions, p.InFlight, p.ScanDepth, p.RootProof = true, 8, 2, 1, 0
	cfg := Config{Games: 4, Params: p, Simulations: 16, CheapSimulations: 4, FullShare: 0.3,
		ResignThreshold: 0.9, ResignPlaythrough: 0.5}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var played []*replay.Game
	err := Play(ctx, g, b, cfg, 5, &Stats{}, GameSinkFunc(func(_ context.Context, gm *replay.Game) error {
		if played = append(played, gm); len(played) == games {
			cancel()
		}
		return nil
	}))
	if err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	obs := make([]float32, info.Observation.Size())
	targets, chance, draws := 0, 0, 0
	for _, gm := range played {
		if err := replay.Check(g, gm); err != nil {
			t.Fatalf("%s: %v", info.Name, err)
		}
		if gm.Result == env.Draw {
			draws++
		}
		s, next := g.New(), 0
		for ply, a := range gm.Actions {
			if s.ToMove() == env.Chance {
				chance++
			}
			if next < len(gm.Targets) && gm.Targets[next].Ply == ply {
				if d := s.ToMove(); d != 0 && d != 1 || len(s.Legal(nil)) < 2 {
					t.Fatalf("%s: a target at decision %d, %s's with %d legal actions", info.Name, ply+1, info.PlayerName(d), len(s.Legal(nil)))
				}
				for k := range info.Symmetries {
					legal, policy, v, err := replay.MaterializeLegal(g, replay.Sample{Game: gm, Target: next}, k, obs, nil, nil)
					if err != nil {
						t.Fatal(err)
					}
					sum := float32(0)
					for _, x := range policy {
						sum += x
					}
					if len(legal) != len(s.Legal(nil)) || sum < 0.999 || sum > 1.001 {
						t.Fatalf("%s: symmetry %d: a target of %d actions (the position has %d) summing to %v", info.Name, k, len(legal), len(s.Legal(nil)), sum)
					}
					if v != gm.Result.Value(s.ToMove()) {
						t.Fatalf("%s: value target %v, the result %v for %s", info.Name, v, gm.Result, info.PlayerName(s.ToMove()))
					}
				}
				next++
				targets++
			}
			s = s.Play(a)
		}
	}
	t.Logf("%s: %d games (%d draws), %d targets, %d chance decisions", info.Name, len(played), draws, targets, chance)
	if targets == 0 || info.HasChance && chance == 0 || wantDraws && draws == 0 {
		t.Errorf("%s: %d targets, %d chance decisions, %d draws: not what the test is for", info.Name, targets, chance, draws)
	}
}
