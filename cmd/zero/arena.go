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

	"github.com/zerogames/zero/internal/atomicfile"
	"github.com/zerogames/zero/internal/duration"
	"github.com/zerogames/zero/internal/games"
	"github.com/zerogames/zero/internal/ui"
	"github.com/zerogames/zero/selfplay"
)

func arenaCmd(fs *flag.FlagSet) func(context.Context, []string, io.Reader, io.Writer, io.Writer) error {
	game := fs.String("game", defaultGame, "the game: "+joinNames())
	players := fs.String("players", "", "the players, separated by commas: "+selfplay.KindsHelp()+" (default: the game's model, --models' GAME.zck or the shipped models/GAME.zck, at 200 simulations, uct:1000 and ab:2:eval=none, with --opening 4)")
	modelsDir := fs.String("models", "", "a `DIR` of models whose GAME.zck the default players rate before the shipped one (which is in the binary)")
	n := fs.Int("games", 40, "the games each pair plays, sides alternating")
	seed := fs.Uint64("seed", 1, "the seed of every game's chance and players (same seed, same games)")
	opening := fs.Int("opening", 0, "decisions that open each game at random, the same for both sides of a pair (varies the games of deterministic players)")
	workers := fs.Int("workers", 0, "games played at once (0: one per core)")
	anchor := fs.String("anchor", "", "the player rated 0 (default: the first)")
	out := fs.String("out", "", "the folder for ratings.json, games.jsonl and games.sgf (the games as SGF) (default: runs/arena/GAME-TIME)")
	return func(ctx context.Context, args []string, _ io.Reader, stdout, _ io.Writer) error {
		if err := noArgs(args); err != nil {
			return err
		}
		g, err := games.Lookup(*game)
		if err != nil {
			return fmt.Errorf("--game: %w", err)
		}
		if err := checkModels(*modelsDir); err != nil {
			return err
		}
		var list []string
		if *players == "" {
			if list, err = defaultPlayers(*modelsDir, g.Info().Name); err != nil {
				return err
			}
			if !flagGiven(fs, "opening") {
				*opening = 4
			}
		} else {
			list = strings.Split(*players, ",")
			for i := range list {
				list[i] = strings.TrimSpace(list[i])
			}
		}
		if *n < 1 || *n > selfplay.MaxArenaGames {
			return fmt.Errorf("--games %d: want 1 to %d", *n, selfplay.MaxArenaGames)
		}
		if *workers < 0 || *workers > selfplay.MaxArenaWorkers {
			return fmt.Errorf("--workers %d: want 0 (one per core) to %d", *workers, selfplay.MaxArenaWorkers)
		}
		if *opening < 0 || *opening > selfplay.MaxOpening {
			return fmt.Errorf("--opening %d: want 0 to %d random decisions", *opening, selfplay.MaxOpening)
		}
		dir := *out
		fresh := dir == ""
		made := false // the --out folder is this arena's: an arena that plays nothing removes it
		if fresh {
			dir = filepath.Join("runs", "arena", g.Info().Name+"-"+time.Now().Format("20060102-150405"))
		} else {
			_, statErr := os.Stat(dir)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				// Before the games: not after hours of them.
				return fmt.Errorf("--out: %w", err)
			}
			made = errors.Is(statErr, os.ErrNotExist)
		}
		pairs := len(list) * (len(list) - 1) / 2
		progress := ui.NewProgress(stdout, pairs**n, "arena "+g.Info().Name)
		start := time.Now()
		res, err := g.Arena(ctx, selfplay.ArenaConfig{
			Players: list, Games: *n, Seed: *seed, Workers: *workers, Anchor: *anchor, Opening: *opening,
			Progress: progress.Game,
		})
		if res == nil {
			if made {
				os.Remove(dir) // empty: nothing was played (a player refused, a bad setting)
			}
			return err
		}
		stopped := err // Ctrl-C: the games played are rated and written, then the command fails
		if stopped != nil {
			fmt.Fprintln(stdout) // off the progress bar's line
		}
		if err := res.WriteTable(stdout); err != nil {
			return err
		}
		for _, p := range res.Players {
			if e, ok := res.Engines[p]; ok {
				fmt.Fprintf(stdout, "%s: network on %s\n", p, e)
			}
		}
		if fresh {
			// Another arena may have started in the same second: never write into its folder.
			if dir, err = freshDir(dir); err != nil {
				return err
			}
		}
		if err := res.WriteFiles(dir); err != nil {
			return err
		}
		sgfText, err := games.MarshalSGF(res.Records...)
		if err != nil {
			return err
		}
		if err := atomicfile.WriteBytes(filepath.Join(dir, "games.sgf"), sgfText); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "\n%d games in %s; ratings and games written to %s\n", len(res.Records),
			duration.Format(time.Since(start)), dir)
		return stopped
	}
}

// defaultPlayers are the players of an arena given none: the game's model (ui.ModelPath: the
// --models folder's, else the shipped one) at 200 simulations against the baselines. They
// are a list, not a --players text: the folder's name may hold a comma.
func defaultPlayers(modelsDir, game string) ([]string, error) {
	m := ui.ModelPath(modelsDir, game)
	if m == "" {
		return nil, fmt.Errorf("--players: give at least two players, as --players random,uct:200 (no model %s.zck to default to)", game)
	}
	return []string{"mcts:200:" + filepath.ToSlash(m), "uct:1000", "ab:2:eval=none"}, nil
}

// freshDir makes a new folder named base, or base-2, base-3… if that exists, and returns it.
func freshDir(base string) (string, error) {
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return "", err
	}
	for i := 1; ; i++ {
		dir := base
		if i > 1 {
			dir = fmt.Sprintf("%s-%d", base, i)
		}
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return dir, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return "", err
		}
	}
}
