package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/zerogames/zero/internal/games"
	"github.com/zerogames/zero/internal/ui"
	uiterm "github.com/zerogames/zero/internal/ui/term"
	"github.com/zerogames/zero/models"
	"github.com/zerogames/zero/selfplay"
)

// savedGames is the folder zero play saves games to by default, under the working folder
// (the repository's .gitignore covers it).
const savedGames = "games"

// checkModels checks a --models folder: given, it must be a folder (a mistyped one would
// silently play without its models).
func checkModels(dir string) error { return checkFolder("--models", dir) }

// checkFolder checks that the folder a flag names ("" for none) is there.
func checkFolder(flag, dir string) error {
	if dir == "" {
		return nil
	}
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%s %s: no such folder", flag, dir)
	case err != nil:
		return fmt.Errorf("%s: %w", flag, err)
	case !st.IsDir():
		return fmt.Errorf("%s %s: not a folder", flag, dir)
	}
	return nil
}

func playCmd(fs *flag.FlagSet) func(context.Context, []string, io.Reader, io.Writer, io.Writer) error {
	var cfg uiterm.Config
	fs.StringVar(&cfg.Game, "game", defaultGame, "the game: "+joinNames())
	fs.StringVar(&cfg.Opponent, "opponent", "", "the agent to play: "+selfplay.KindsHelp()+" (default: the game's model, --models' GAME.zck or the shipped "+models.Dir+"/GAME.zck, at "+fmt.Sprint(ui.ModelSimulations)+" simulations, else "+ui.DefaultOpponent+")")
	fs.StringVar(&cfg.Models, "models", "", "a `DIR` of models whose GAME.zck is the default opponent before the shipped one (which is in the binary)")
	fs.StringVar(&cfg.Side, "as", "", "your side: one of the game's players ("+joinSides()+") or random (default the first player, or your side in --load's record)")
	fs.StringVar(&cfg.Load, "load", "", "a game record to replay and go on from: a saved game (zero's JSON or SGF), or game N of a file of several (an arena's games.jsonl or games.sgf) as FILE#N; its game replaces --game")
	fs.StringVar(&cfg.Record, "record", "", "where to save the game when it ends, on Ctrl-C or at the end of the input (default "+savedGames+"/zero-GAME-DATE-TIME.json, a folder .gitignore covers; a name ending in .sgf saves SGF; - not to save)")
	var seed optUint64
	fs.Var(&seed, "seed", "the seed `N` of the agent, the random side and chance draws (default: from the clock)")
	return func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
		if err := noArgs(args); err != nil {
			return err
		}
		if err := checkModels(cfg.Models); err != nil {
			return err
		}
		now := time.Now()
		cfg.Seed = seed.v
		if !seed.set {
			cfg.Seed = uint64(now.UnixNano())
		}
		switch cfg.Record {
		case "-":
			cfg.Record = ""
		case "":
			game := cfg.Game
			if cfg.Load != "" {
				game = "game"
			}
			cfg.Record = filepath.Join(savedGames, fmt.Sprintf("zero-%s-%s.json", game, now.Format("20060102-150405")))
		}
		if f, ok := stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			cfg.Spinner = stderr
		}
		return uiterm.Play(ctx, cfg, stdin, stdout)
	}
}

// joinSides names each game's players, "yinsh: white, black; …", games with the same players
// together.
func joinSides() string {
	var parts []string
	var names []string
	var last [2]string
	flush := func() {
		if len(names) > 0 {
			parts = append(parts, strings.Join(names, ", ")+": "+last[0]+", "+last[1])
		}
	}
	for _, g := range games.All() {
		p := g.Info().PlayerNames
		if p != last {
			flush()
			names, last = nil, p
		}
		names = append(names, g.Info().Name)
	}
	flush()
	return strings.Join(parts, "; ")
}
