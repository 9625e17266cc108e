package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/zerogames/zero/internal/report"
)

func reportCmd(fs *flag.FlagSet) func(context.Context, []string, io.Reader, io.Writer, io.Writer) error {
	run := fs.String("run", "", "the run folder (with its metrics.jsonl)")
	out := fs.String("out", "", "where to write the PNG charts (default: RUN/plots)")
	return func(_ context.Context, args []string, _ io.Reader, stdout, _ io.Writer) error {
		if err := noArgs(args); err != nil {
			return err
		}
		if *run == "" {
			return errors.New("--run: give the run folder")
		}
		dir := *out
		if dir == "" {
			dir = filepath.Join(*run, "plots")
		}
		files, err := report.Write(*run, dir)
		if err != nil {
			return fmt.Errorf("%s: %w", *run, err)
		}
		for _, f := range files {
			fmt.Fprintln(stdout, f)
		}
		return nil
	}
}
