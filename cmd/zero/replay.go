package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/zerogames/zero/internal/atomicfile"
	"github.com/zerogames/zero/internal/games"
	"github.com/zerogames/zero/selfplay"
	"github.com/zerogames/zero/train"
	"github.com/zerogames/zero/train/replay"
	"github.com/zerogames/zero/train/runfolder"
)

// replayCmd is `zero replay ACTION`: what a run's replay buffer holds. ACTION is dump, check
// or repair.
func replayCmd(fs *flag.FlagSet) func(context.Context, []string, io.Reader, io.Writer, io.Writer) error {
	return func(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
		if len(args) == 0 {
			fs.Usage()
			return errors.New("replay: say what to do: dump, check or repair")
		}
		switch args[0] {
		case "dump":
			return replayDump(args[1:], stdout, stderr)
		case "check":
			return replayCheck(args[1:], stdout, stderr)
		case "repair":
			return replayRepair(args[1:], stdout, stderr)
		}
		return fmt.Errorf("replay: unknown action %q (dump, check or repair)", args[0])
	}
}

// replayCheck lists what does not read in a run's replay buffer, as a resume would find it;
// its exit status is 1 if anything is damaged. It changes nothing: the run may be training.
func replayCheck(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("replay check", "--run DIR", "list the damage in a training run's replay buffer (exit status 1 if there is any): each damaged span of its shards with its bytes and the games and samples lost")
	run := fs.String("run", "", "the run folder `DIR` (its replay/ shards and state.json are read, nothing is changed: the run may be training)")
	if help, err := parseFlags(fs, args, stdout, stderr); help || err != nil {
		return err
	}
	if err := noArgs(fs.Args()); err != nil {
		return err
	}
	if *run == "" {
		return errors.New("replay check: give the run folder, --run DIR")
	}
	r, err := train.CheckReplay(*run)
	if err != nil {
		return fmt.Errorf("--run %s: %w", *run, err)
	}
	dir := filepath.Join(*run, runfolder.ReplayDir)
	fmt.Fprintf(stdout, "%s: %s in %s of %s, %d samples ever added\n", dir, nouns(len(r.Games), "game"), nouns(r.Shards, "shard"), r.Game, r.Total)
	printDamage(stdout, r)
	if len(r.Damage) == 0 {
		fmt.Fprintln(stdout, "no damage")
		return nil
	}
	return fmt.Errorf("replay check: %s: %s (zero replay repair --run %s rewrites the shards with the records that read)", dir, lostSummary(r), *run)
}

// replayRepair rewrites the damaged shards of a run's replay buffer with their records that
// read, keeping each damaged file aside, under the run's lock.
func replayRepair(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("replay repair", "--run DIR", "rewrite the damaged shards of a training run's replay buffer with their records that read, each damaged file kept as NNNNNN.zrp.damaged (refused while the run trains)")
	run := fs.String("run", "", "the run folder `DIR` (not while a process trains in it)")
	if help, err := parseFlags(fs, args, stdout, stderr); help || err != nil {
		return err
	}
	if err := noArgs(fs.Args()); err != nil {
		return err
	}
	if *run == "" {
		return errors.New("replay repair: give the run folder, --run DIR")
	}
	r, did, err := train.RepairReplay(*run)
	if err != nil {
		for _, d := range did { // what was done before the failure
			fmt.Fprintln(stdout, d)
		}
		return fmt.Errorf("--run %s: %w", *run, err)
	}
	dir := filepath.Join(*run, runfolder.ReplayDir)
	printDamage(stdout, r)
	for _, d := range did {
		fmt.Fprintln(stdout, d)
	}
	if len(did) == 0 {
		fmt.Fprintf(stdout, "%s: no damage, nothing to do\n", dir)
		return nil
	}
	summary := "no game lost"
	if len(r.Damage) > 0 {
		summary = lostSummary(r)
	}
	fmt.Fprintf(stdout, "%s repaired: %s, %s kept\n", dir, summary, nouns(len(r.Games), "game"))
	return nil
}

// printDamage writes a line for each damage the report found, and its torn tail if any.
func printDamage(w io.Writer, r *replay.Report) {
	for _, d := range r.Damage {
		fmt.Fprintf(w, "damaged: %v\n", d)
	}
	if r.Torn != nil {
		fmt.Fprintf(w, "torn (not damage: what a crash, or a game being written, leaves; a resume cuts it off): %v\n", r.Torn)
	}
}

// lostSummary says how much is damaged and what it cost.
func lostSummary(r *replay.Report) string {
	return fmt.Sprintf("%s damaged, %s lost", nouns(len(r.Damage), "part"), r.Lost())
}

// replayDump writes a run's self-play games as game lines (selfplay.Record, the layout of an
// arena's games.jsonl) or as one SGF collection, which `zero play --load FILE#N` and every
// reader of arena output read.
// It only reads the run folder, so it may run while the run trains.
func replayDump(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("replay dump", "--run DIR [flags]", "write a training run's self-play games (its replay buffer) as game records: one a line, as an arena's games.jsonl, or SGF")
	run := fs.String("run", "", "the run folder `DIR` (its replay/ shards are read, nothing is changed: the run may be training)")
	out := fs.String("out", "-", "the `FILE` to write (- for standard output); zero play --load FILE#N plays its game N")
	format := fs.String("format", "", "the records' `FORMAT`: jsonl (game lines, as an arena's games.jsonl) or sgf (one SGF collection); default sgf for a --out ending in .sgf, else jsonl")
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
	case *format == "" && games.IsSGFName(*out):
		*format = "sgf"
	case *format == "":
		*format = "jsonl"
	case *format != "jsonl" && *format != "sgf":
		return fmt.Errorf("--format %s: want jsonl or sgf", *format)
	}
	dir := filepath.Join(*run, runfolder.ReplayDir)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("--run %s: not a run folder (no %s/ in it)", *run, runfolder.ReplayDir)
	}
	read := func(dir string) (*replay.Report, error) { return replay.Scan(dir, "", 0) }
	if *last > 0 { // the newest shards only
		read = func(dir string) (*replay.Report, error) { return replay.ScanNewest(dir, *last) }
	}
	r, err := read(dir)
	if err != nil {
		return fmt.Errorf("--run %s: %w", *run, err)
	}
	name, recorded := r.Game, r.Games
	for _, d := range r.Damage {
		fmt.Fprintf(stderr, "zero replay dump: warning: %v; left out (zero replay check --run %s lists the damage)\n", d, *run)
	}
	g, err := games.Lookup(name)
	if err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	var lines []byte
	var recs []selfplay.Record
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
		recs = append(recs, rec)
		n++
	}
	if *format == "sgf" {
		if lines, err = games.MarshalSGF(recs...); err != nil {
			return err
		}
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
