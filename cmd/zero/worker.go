package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/zerogames/zero/internal/games/gamestrain"
	"github.com/zerogames/zero/train"
	"github.com/zerogames/zero/train/dist"
)

// workerCmd is `zero worker`: self-play for a run on another machine.
func workerCmd(fs *flag.FlagSet) func(context.Context, []string, io.Reader, io.Writer, io.Writer) error {
	connect := fs.String("connect", "", "the trainer's server: `URL` nats://HOST:PORT (tls://HOST:PORT with TLS), as zero train --listen prints it, or a NATS cluster's")
	creds := fs.String("creds", "", "the `file` to authenticate with: the run folder's worker.token (copied here), or NATS credentials")
	tlsCA := fs.String("tls-ca", "", "the authority (PEM `file`) that signed the server's certificate (default: the system's)")
	workers := fs.Int("workers", 0, "self-play workers, one inference engine each (0: the run's selfplay.workers, one per core where it says 0)")
	dir := fs.String("dir", "zero-worker", "the worker's `folder`: its outbox (games the server could not take yet) and the network in use")
	name := fs.String("name", "", "the worker's name in game ids and the trainer's metrics (default: this host's name)")
	logEvery := fs.Duration("log", 30*time.Second, "period of the log lines (when the output is not a terminal)")
	journal := fs.String("journal", "", "append the id of every game the server took to this `file`, a line each")
	return func(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
		if err := noArgs(args); err != nil {
			return err
		}
		if err := durations(durationFlag{"log", *logEvery, ""}); err != nil {
			return err
		}
		if *connect == "" {
			return errors.New("give --connect nats://HOST:PORT: the address zero train --listen printed")
		}
		if *workers < 0 || *workers > 256 {
			return fmt.Errorf("--workers %d: want 0 to 256", *workers)
		}
		if *name != "" && !dist.ValidName(*name) {
			return fmt.Errorf("--name %q: want 1 to 64 letters, digits, '.', '_' or '-'", *name)
		}
		logf := func(format string, a ...any) { fmt.Fprintf(stdout, format+"\n", a...) }
		// A server that does not answer yet may be a trainer starting, or restarting.
		c, err := dist.Connect(*connect, dist.Auth{Creds: *creds, CA: *tlsCA}, "zero worker "+*name, logf)
		for waited := false; errors.Is(err, dist.ErrUnreachable); c, err = dist.Connect(*connect, dist.Auth{Creds: *creds, CA: *tlsCA}, "zero worker "+*name, logf) {
			if !waited {
				logf("%v: waiting for it", err)
				waited = true
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Second):
			}
		}
		if err != nil {
			return err
		}
		defer c.Close()
		// A trainer that is starting has its server up before the run is on it.
		run, config, err := c.Run(ctx)
		for tries := 0; errors.Is(err, dist.ErrNoRun); run, config, err = c.Run(ctx) {
			switch tries++; {
			case tries == 1:
				logf("waiting for the trainer to set the run up on %s", *connect)
			case tries%30 == 0: // a wait that lasts says so, and why
				logf("still waiting for the trainer to set the run up on %s (%v, %d tries)", *connect, err, tries)
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Second):
			}
		}
		if err != nil {
			return err
		}
		g, err := gamestrain.Lookup(run.Game)
		if err != nil {
			return fmt.Errorf("the run plays %s, which this build of zero does not know: %w", run.Game, err)
		}
		return g.Work(ctx, c, run, config, train.WorkerOptions{Workers: *workers, Dir: *dir, Name: *name,
			Out: stdout, LogEvery: *logEvery, Journal: *journal})
	}
}
