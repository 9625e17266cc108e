package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/zerogames/zero/internal/report"
)

func reportCmd(fs *flag.FlagSet) func(context.Context, []string, io.Reader, io.Writer, io.Writer) error {
	var runs stringsFlag
	fs.Var(&runs, "run", "a run `DIR` (with its metrics.jsonl); give it again for each run to draw over the first")
	out := fs.String("out", "", "where to write the PNG charts and summary.txt (default with one run: DIR/plots)")
	return func(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
		if err := noArgs(args); err != nil {
			return err
		}
		if len(runs) == 0 {
			return errors.New("--run: give the run folder")
		}
		dir := *out
		switch {
		case dir != "":
		case len(runs) == 1:
			dir = filepath.Join(runs[0], "plots")
		default:
			// Not the first run's folder: a comparison belongs to no one run.
			return errors.New("--out: give the folder for the charts of several runs")
		}
		opened, err := report.Open(runs...)
		if err != nil {
			return err
		}
		for _, r := range opened {
			if r.Skipped > 0 {
				// A line cut short by a crash is expected at the end; anything else is damage.
				fmt.Fprintf(stderr, "%s: damaged lines left out: %d\n", filepath.Join(r.Dir, "metrics.jsonl"), r.Skipped)
			}
		}
		files, err := report.Write(dir, opened...)
		if err != nil {
			return fmt.Errorf("%s: %w", strings.Join(runs, ", "), err)
		}
		for _, f := range files {
			fmt.Fprintln(stdout, f)
		}
		return nil
	}
}
