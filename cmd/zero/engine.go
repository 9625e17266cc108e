package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/zerogames/zero/internal/engine"
	"github.com/zerogames/zero/internal/games"
	"github.com/zerogames/zero/internal/ui"
	"github.com/zerogames/zero/models"
	"github.com/zerogames/zero/selfplay"
)

func engineCmd(fs *flag.FlagSet) func(context.Context, []string, io.Reader, io.Writer, io.Writer) error {
	game := fs.String("game", defaultGame, "the game to start with: "+joinNames())
	player := fs.String("player", "", "the player of genmove and go: "+selfplay.KindsHelp()+" (default: each game's shipped model, mcts with the model, else "+engine.DefaultPlayer+")")
	seed := fs.Uint64("seed", 1, "the seed of the player")
	return func(ctx context.Context, args []string, stdin io.Reader, stdout, _ io.Writer) error {
		if err := noArgs(args); err != nil {
			return err
		}
		s, err := engine.NewSession(*game)
		if err != nil {
			return err
		}
		if *player == "" {
			err = s.FollowDefault(engineDefault, *seed)
		} else {
			err = s.SetPlayer(*player, *seed)
		}
		if err != nil {
			return fmt.Errorf("--player: %w", err)
		}
		return s.Serve(ctx, stdin, stdout)
	}
}

// engineDefault is the default player of zero engine and zero analysis for a game: its
// shipped model searched as in zero play, else engine.DefaultPlayer.
func engineDefault(game string) string {
	if spec := ui.DefaultSpec("", game); spec != ui.DefaultOpponent {
		return spec
	}
	return engine.DefaultPlayer
}

func gamesCmd(fs *flag.FlagSet) func(context.Context, []string, io.Reader, io.Writer, io.Writer) error {
	return func(_ context.Context, args []string, _ io.Reader, stdout, _ io.Writer) error {
		if err := noArgs(args); err != nil {
			return err
		}
		// Each game, its players, and its shipped model (in the binary) if it has one.
		for _, g := range games.All() {
			in := g.Info()
			model := "no shipped model"
			if models.Shipped(in.Name + models.Ext) {
				model = "model " + models.Path(in.Name+models.Ext)
			}
			io.WriteString(stdout, in.Name+"\t"+in.PlayerNames[0]+" vs "+in.PlayerNames[1]+"\t"+model+"\n")
		}
		return nil
	}
}

func joinNames() string { return strings.Join(games.Names(), ", ") }

// defaultGame is every command's --game when none is given (zero train has none: it asks).
const defaultGame = "yinsh"

func analysisCmd(fs *flag.FlagSet) func(context.Context, []string, io.Reader, io.Writer, io.Writer) error {
	game := fs.String("game", defaultGame, "the game of queries that name none: "+joinNames())
	player := fs.String("player", "", "the player of queries that name none (default: the game's shipped model, mcts with the model, else "+engine.DefaultPlayer+")")
	seed := fs.Uint64("seed", 1, "the seed of the players")
	workers := fs.Int("workers", 1, "the queries analysed at once, each with players of its own (a search by time uses every core: give threads=1 in the players' specs to share them)")
	return func(ctx context.Context, args []string, stdin io.Reader, stdout, _ io.Writer) error {
		if err := noArgs(args); err != nil {
			return err
		}
		if *workers < 1 || *workers > 256 {
			return fmt.Errorf("--workers %d: want 1 to 256", *workers)
		}
		g, err := games.Lookup(*game)
		if err != nil {
			return err
		}
		spec := *player
		if spec == "" {
			spec = engineDefault(g.Info().Name)
		}
		if _, err := g.NewAgent(spec, *seed); err != nil {
			return fmt.Errorf("--player: %w", err)
		}
		return engine.ServeAnalysis(ctx, stdin, stdout, engine.AnalysisOptions{Game: *game, Player: spec, Seed: *seed, Workers: *workers})
	}
}
