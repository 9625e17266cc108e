package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/zerogames/zero/internal/atomicfile"
	"github.com/zerogames/zero/internal/games"
	"github.com/zerogames/zero/train"
	"github.com/zerogames/zero/train/replay"
)

// replayCmd is `zero replay ACTION`: what a run's replay buffer holds. ACTION is dump.
func replayCmd(fs *flag.FlagSet) func(context.Context, []string, io.Reader, io.Writer, io.Writer) error {
	return func(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
		if len(args) == 0 {
			fs.Usage()
			return errors.New("replay: say what to do: dump")
		}
		switch args[0] {
		case "dump":
			return replayDump(args[1:], stdout, stderr)
		}
		return fmt.Errorf("replay: unknown action %q (dump)", args[0])
	}
}

// replayDump writes a run's self-play games as game lines (selfplay.Record, the layout of an
// arena's games.jsonl), which `zero play --load FILE#N` and every reader of arena output read.
// It only reads the run folder, so it may run while the run trains.
func replayDump(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("replay dump", "--run DIR [flags]", "write a training run's self-play games (its replay buffer) as game records, one a line, as an arena's games.jsonl")
	run := fs.String("run", "", "the run folder `DIR` (its replay/ shards are read, nothing is changed: the run may be training)")
	out := fs.String("out", "-", "the `FILE` to write (- for standard output); zero play --load FILE#N plays its game N")
	last := fs.Int("last", 0, "only the newest `N` games (0: every game in the buffer)")
	if help, err := parseFlags(fs, args, stdout, stderr); help || err != nil {
		return err
	}
	if err := noArgs(fs.Args()); err != nil {
		return err
	}
	switch {
	case *run == "":
		return errors.New("replay dump: give the run folder, --run DIR")
	case *last < 0:
		return fmt.Errorf("--last %d: want a number of games ≥ 0", *last)
	}
	dir := filepath.Join(*run, train.ReplayDir)
	read := replay.ReadGames
	if *last > 0 { // the newest shards only
		read = func(dir string) (string, []*replay.Game, error) { return replay.ReadNewest(dir, *last) }
	}
	name, recorded, err := read(dir)
	if err != nil {
		return fmt.Errorf("--run %s: %w", *run, err)
	}
	g, err := games.Lookup(name)
	if err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	var lines []byte
	n, skipped := 0, 0
	for i, game := range recorded {
		rec, err := games.ActionRecord(g, game.Actions, game.Result, [2]string{games.SelfPlay, games.SelfPlay})
		if err != nil {
			// A run from before a change of the rules may hold games today's rules refuse:
			// they are left out, each said, and the others written.
			fmt.Fprintf(stderr, "zero replay dump: %s: game %d of %d left out: %v\n", dir, i+1, len(recorded), err)
			skipped++
			continue
		}
		lines = append(lines, rec.MarshalLine()...)
		n++
	}
	if *out == "-" {
		if _, err := stdout.Write(lines); err != nil {
			return err
		}
	} else if err := atomicfile.WriteBytes(*out, lines); err != nil {
		return err
	}
	where := "standard output"
	if *out != "-" {
		where = *out
	}
	games := "games"
	if n == 1 {
		games = "game"
	}
	fmt.Fprintf(stderr, "zero replay dump: %d %s of %s from %s written to %s", n, games, name, dir, where)
	if skipped > 0 {
		fmt.Fprintf(stderr, " (%d left out)", skipped)
	}
	fmt.Fprintln(stderr)
	return nil
}
