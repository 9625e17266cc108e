// Command zero learns board games by self-play and plays them: see `zero help`.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/zerogames/zero/internal/games/all"
	"github.com/zerogames/zero/net/linalg"
)

func main() {
	// First: with OpenBLAS on an AVX-512 CPU this re-executes the binary with the faster kernels.
	if err := linalg.Setup(); err != nil {
		fmt.Fprintln(os.Stderr, "zero: choosing OpenBLAS's kernels:", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// The first Ctrl-C asks the work to stop cleanly; from then on the signal's default
		// applies, so a second one kills at once.
		<-ctx.Done()
		stop()
	}()
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	switch {
	case err == nil:
	case errors.Is(err, flag.ErrHelp):
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(os.Stderr, "zero: interrupted")
		os.Exit(130)
	case errors.Is(err, errUsage):
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "zero:", err)
		os.Exit(1)
	}
}

// errUsage marks an error already explained by a usage message.
var errUsage = errors.New("usage")

// subcommand is one of zero's commands; its work is done in run, from parsed flags.
type subcommand struct {
	name     string
	synopsis string // what follows the name in its usage line
	summary  string
	// flags declares the subcommand's flags on fs and returns the function that does the work
	// once they are parsed, with the arguments left over.
	flags func(fs *flag.FlagSet) func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error
}

func subcommands() []subcommand {
	return []subcommand{
		{"train", "[flags]", "learn a game by self-play: start or resume a run (train --game G, or --config FILE --run DIR)", trainCmd},
		{"worker", "--connect URL [flags]", "play self-play games for a run on another machine (zero train --listen)", workerCmd},
		{"perft", "[flags]", "count the positions reached at each depth (a move-generator check and speed test)", perftCmd},
		{"engine", "[flags]", "speak the engine protocol on stdin/stdout (docs/ENGINE.md)", engineCmd},
		{"analysis", "[flags]", "the JSON analysis engine: a query a line on stdin, an answer a line on stdout (docs/ENGINE.md)", analysisCmd},
		{"analyse", "[flags] FILE", "search every decision of a game record again: each move's win rate against the player's choice, written back as SGF comments", analyseCmd},
		{"games", "", "list the games", gamesCmd},
		{"arena", "[flags]", "play a round robin between players and rate them (Elo with 95% intervals)", arenaCmd},
		{"play", "[flags]", "play a game against the agent in the terminal", playCmd},
		{"serve", "[flags]", "play against the agent in a browser, and watch training runs with --runs (a local web server)", serveCmd},
		{"report", "--run DIR [--run DIR ...] [flags]", "draw a training run's charts (losses, Elo, throughput) as PNG files, or several runs' over each other", reportCmd},
		{"net", "info CHECKPOINT | init [flags] | average --out F CHECKPOINT...", "inspect a network checkpoint (net info), create one with random weights (net init), or average checkpoints of one net (net average)", netCmd},
		{"replay", "dump|check|repair --run DIR [flags]", "a training run's self-play games: write them as game records (dump: one a line, as an arena's games.jsonl, or SGF), list the damage in its replay buffer (check) or rewrite its damaged shards (repair)", replayCmd},
		{"bench", "net [flags] | selfplay [flags] | search [flags] | ingest [flags]", "measure speed: every inference backend side by side against the GEMM peak (bench net), self-play as training plays it (bench selfplay), one timed search by its threads (bench search), a trainer's intake of games from many workers (bench ingest)", benchCmd},
	}
}

// run is the whole program, from its arguments to its exit status, so tests can drive it.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	all.Register() // the games, in the play and the training registries
	if len(args) == 0 {
		usage(stderr)
		return errUsage
	}
	if isHelp(args[0]) {
		// zero help help, zero -h --help: the words asking for help are one request, not a
		// command to ask help of (run with "-h" appended re-entered this branch for ever).
		rest := args[1:]
		for len(rest) > 0 && isHelp(rest[0]) {
			rest = rest[1:]
		}
		if len(rest) > 0 {
			return run(ctx, append(slices.Clone(rest), "-h"), stdin, stdout, stderr)
		}
		usage(stdout)
		return nil
	}
	for _, c := range subcommands() {
		if c.name != args[0] {
			continue
		}
		fs := newFlagSet(c.name, c.synopsis, c.summary)
		work := c.flags(fs)
		if help, err := parseFlags(fs, args[1:], stdout, stderr); help || err != nil {
			return err
		}
		return work(ctx, fs.Args(), stdin, stdout, stderr)
	}
	usage(stderr)
	return fmt.Errorf("unknown command %q", args[0])
}

// isHelp tells whether arg asks for help in the place of a command.
func isHelp(arg string) bool {
	return arg == "help" || arg == "-h" || arg == "--help" || arg == "-help"
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "zero learns board games by self-play and plays them.\n\nusage: zero COMMAND [flags]\n\ncommands:")
	cmds := subcommands()
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].name < cmds[j].name })
	for _, c := range cmds {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\n`zero help COMMAND` (or `zero COMMAND -h`) shows a command's flags; `zero help bench selfplay` an action's.")
}

// newFlagSet is the flag set of a command or of a command's action (name "bench selfplay"),
// with zero's one usage format: the usage line, the summary, and the flags if it has any.
func newFlagSet(name, synopsis, summary string) *flag.FlagSet {
	fs := flag.NewFlagSet("zero "+name, flag.ContinueOnError)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "usage: %s", fs.Name())
		if synopsis != "" {
			fmt.Fprintf(w, " %s", synopsis)
		}
		fmt.Fprintf(w, "\n\n%s\n", summary)
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprintln(w, "\nflags:")
			fs.PrintDefaults()
		}
	}
	return fs
}

// parseFlags parses args into fs. Parse prints the usage itself, on -h as on a bad flag: held
// here, it goes once to stdout when asked for (help is then true, err nil) and to stderr with
// an error (errUsage). Afterwards fs writes to stderr.
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (help bool, err error) {
	var parsing bytes.Buffer
	fs.SetOutput(&parsing)
	err = fs.Parse(args)
	fs.SetOutput(stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		stdout.Write(parsing.Bytes())
		return true, nil
	case err != nil:
		stderr.Write(parsing.Bytes())
		return false, errUsage
	}
	return false, nil
}

// noArgs refuses arguments left after the flags.
// durations checks duration flags: each must be > 0, or ≥ 0 where 0 means something (said in
// the message). Negative ones were taken as 0 (--for -1h: no limit), and a log period ≤ 0
// silently as the default.
func durations(flags ...durationFlag) error {
	for _, f := range flags {
		switch {
		case f.d > 0:
		case f.zero != "" && f.d == 0:
		case f.zero != "":
			return fmt.Errorf("--%s %v: want a duration ≥ 0 (0: %s)", f.name, f.d, f.zero)
		default:
			return fmt.Errorf("--%s %v: want a duration > 0", f.name, f.d)
		}
	}
	return nil
}

// durationFlag is a duration flag's name and value, and what 0 means ("" if nothing).
type durationFlag struct {
	name string
	d    time.Duration
	zero string
}

func noArgs(args []string) error {
	if n := len(args); n > 1 && isHelp(args[n-1]) {
		// zero help games extra: the help asked of a command that takes no argument, which
		// run's help branch passed on with -h after the word.
		return fmt.Errorf("unexpected argument %q: the command takes none (zero help COMMAND shows its flags)", strings.Join(args[:n-1], " "))
	}
	if len(args) > 0 {
		return fmt.Errorf("unexpected argument %q (flags go before, as --depth 4)", strings.Join(args, " "))
	}
	return nil
}
