package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/zerogames/zero/internal/engine"
	"github.com/zerogames/zero/internal/games"
	"github.com/zerogames/zero/models"
)

func engineCmd(fs *flag.FlagSet) func(context.Context, []string, io.Reader, io.Writer, io.Writer) error {
	game := fs.String("game", defaultGame, "the game to start with: "+joinNames())
	player := fs.String("player", engine.DefaultPlayer, "the player of genmove and go: random, uct:N, ab:D, mcts:N:CHECKPOINT, mcts:N:KEY=VALUE:…:CHECKPOINT (search parameters changed)")
	seed := fs.Uint64("seed", 1, "the seed of the player")
	return func(ctx context.Context, args []string, stdin io.Reader, stdout, _ io.Writer) error {
		if err := noArgs(args); err != nil {
			return err
		}
		s, err := engine.NewSession(*game)
		if err != nil {
			return err
		}
		if err := s.SetPlayer(*player, *seed); err != nil {
			return fmt.Errorf("--player: %w", err)
		}
		return s.Serve(ctx, stdin, stdout)
	}
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
