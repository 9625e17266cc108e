package all

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/zerogames/zero/internal/games"
	"github.com/zerogames/zero/models"
	"github.com/zerogames/zero/net"
	"github.com/zerogames/zero/selfplay"
)

// StrengthModelsVar names a folder whose GAME.zck files the strength test plays in place of the
// shipped models: to try a candidate before shipping it, or to see the test fail on a broken one.
const strengthModelsVar = "ZERO_STRENGTH_MODELS"

// A strength match: strengthGames games, sides alternating, a random opening of 4 decisions
// shared by the two games that swap sides, seed 1; the model must win at least strengthWins.
// (Arenas of 100 games at 400 simulations, models/README.md, give every shipped model 85% or
// more against uct:10000 and 99% or more against ab:2:eval=none.)
const (
	strengthGames = 4
	strengthWins  = 3
	// The match against the same network with random weights is longer, its margin the same.
	noiseGames = 16
	noiseWins  = 12
)

// strengthCases are each shipped model's budgets: sims a move against uct:200 and ab:2:eval=none, small
// enough for CI; noise, if not 0, the budget of a match against the model's network with random
// weights, where uct:200 and ab:2:eval=none do not tell a model from noise. Measured with random weights in
// the model's place (ZERO_STRENGTH_MODELS, 2026-11-24): in YINSH blitz a random network at 32
// simulations beats uct:200 3 games of 4 and ab:2:eval=none 4 of 4, and in Gygès the solver alone beats
// both; there the match against random weights at 8 simulations tells them apart (the models
// won 8 and 7 of 8). 16 games since 2026-11-29, when the Gygès model of that day won 6 of the 8,
// at the bound: it won 13 of 16 and the YINSH blitz model 14, random weights in their place 9
// and 8 (ZERO_STRENGTH_MODELS with `zero net init` networks). In Gygès' advanced rule no small budget does: the model beats random
// weights 5–3 at 1, 2 and 8 simulations, the first player winning 7 games of 8, and the games
// are long (the root proofs, not the network, decide them); its model is held to uct:200 and
// ab:2:eval=none only, and its loading and engine are the basic rule's.
var strengthCases = map[string]struct{ sims, noise int }{
	"yinsh":          {32, 0},
	"yinsh-blitz":    {32, 8},
	"gyges":          {32, 8},
	"gyges-advanced": {32, 0},
	"imbriqua":       {16, 0}, // long games
}

// TestShippedModelsStrength: each shipped model, loaded as zero arena loads it, wins short
// matches by the margins above against uct:200 and ab:2:eval=none, and where those do not tell a model
// from noise, against its own network with random weights. A broken model or a broken loader
// fails it: ZERO_STRENGTH_MODELS=DIR with random networks in DIR shows it (models/README.md).
func TestShippedModelsStrength(t *testing.T) {
	if testing.Short() {
		t.Skip("plays about 60 games with the networks: not in -short")
	}
	Register()
	dir := os.Getenv(strengthModelsVar)
	for _, name := range models.Names() {
		game := name[:len(name)-len(models.Ext)]
		t.Run(game, func(t *testing.T) {
			c, ok := strengthCases[game]
			if !ok {
				t.Fatalf("%s ships a model: give it its budgets in strengthCases", game)
			}
			g, err := games.Lookup(game)
			if err != nil {
				t.Fatalf("%s ships a model but is not a game: %v", name, err)
			}
			model := "models/" + name
			if dir != "" {
				if model = filepath.Join(dir, name); !exists(model) {
					t.Skipf("%s=%s holds no %s", strengthModelsVar, dir, name)
				}
			}
			type match struct {
				player, opp string
				games, wins int
			}
			matches := []match{
				{fmt.Sprintf("mcts:%d:%s", c.sims, model), "uct:200", strengthGames, strengthWins},
				{fmt.Sprintf("mcts:%d:%s", c.sims, model), "ab:2:eval=none", strengthGames, strengthWins},
			}
			if c.noise > 0 {
				noise := fmt.Sprintf("mcts:%d:%s", c.noise, randomized(t, g, model))
				matches = append(matches, match{fmt.Sprintf("mcts:%d:%s", c.noise, model), noise, noiseGames, noiseWins})
			}
			for _, m := range matches {
				start := time.Now()
				res, err := g.Arena(context.Background(), selfplay.ArenaConfig{
					Players: []string{m.player, m.opp}, Games: m.games, Seed: 1, Opening: 4, Workers: 2,
				})
				if err != nil {
					t.Fatalf("%s vs %s: %v", m.player, m.opp, err)
				}
				p := res.Pairs[0]
				t.Logf("%s vs %s: won %d, drew %d, lost %d (%s)", m.player, m.opp, p.WinsA, p.Draws, p.WinsB,
					time.Since(start).Round(time.Millisecond))
				if p.WinsA < m.wins {
					t.Errorf("%s won %d of %d games against %s; want at least %d", m.player, p.WinsA, m.games, m.opp, m.wins)
				}
			}
		})
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// randomized writes a checkpoint of path's network with its weights drawn at random (seed 1)
// and returns its path.
func randomized(t *testing.T, g games.Game, path string) string {
	t.Helper()
	spec, err := g.NetSpec()
	if err != nil {
		t.Fatal(err)
	}
	ck, err := net.Load(models.ReadFile, path, spec)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	ck.Weights.Randomize(rand.New(rand.NewPCG(1, 2)))
	out := filepath.Join(t.TempDir(), "random"+models.Ext)
	if err := net.Save(out, ck.Weights, nil, 0, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	return out
}
