package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/zerogames/zero/internal/games"
	"github.com/zerogames/zero/models"
	"github.com/zerogames/zero/net"
	"github.com/zerogames/zero/train"
)

// netCmd is `zero net info CHECKPOINT`, `zero net init --config C --out F` and `zero net
// average --out F CHECKPOINT...`.
func netCmd(fs *flag.FlagSet) func(context.Context, []string, io.Reader, io.Writer, io.Writer) error {
	return func(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
		if len(args) == 0 {
			fs.Usage()
			return errors.New("net: give an action: info CHECKPOINT, init --config C --out F, or average --out F CHECKPOINT...")
		}
		switch args[0] {
		case "info":
			sub := newFlagSet("net info", "CHECKPOINT", "check a checkpoint file whole and print its header: game, encoding, net, step, parameters")
			if help, err := parseFlags(sub, args[1:], stdout, stderr); help || err != nil {
				return err
			}
			if sub.NArg() != 1 {
				return errors.New("net info: give one checkpoint file")
			}
			return netInfo(stdout, sub.Arg(0))
		case "init":
			sub := newFlagSet("net init", "[flags]", "write a checkpoint of random weights for a configuration's game and net")
			config := sub.String("config", "", "the configuration file (game, net, optimizer)")
			out := sub.String("out", "", "the checkpoint file to write")
			seed := sub.Uint64("seed", 1, "the seed of the random initial weights")
			force := sub.Bool("force", false, "overwrite --out if it exists")
			if help, err := parseFlags(sub, args[1:], stdout, stderr); help || err != nil {
				return err
			}
			if err := noArgs(sub.Args()); err != nil {
				return err
			}
			return netInit(stdout, *config, *out, *seed, *force)
		case "average":
			sub := newFlagSet("net average", "--out F CHECKPOINT...", "write the mean of checkpoints of one game and one net, parameter by parameter (weight averaging; no optimizer state)")
			out := sub.String("out", "", "the checkpoint file to write")
			force := sub.Bool("force", false, "overwrite --out if it exists")
			if help, err := parseFlags(sub, args[1:], stdout, stderr); help || err != nil {
				return err
			}
			return netAverage(stdout, *out, sub.Args(), *force)
		}
		return fmt.Errorf("net: unknown action %q (info, init, average)", args[0])
	}
}

// netInfo prints a checkpoint's header and size, after checking the whole file as the
// loaders do (net.Inspect: its checksum, its header, every value finite).
func netInfo(w io.Writer, path string) error {
	h, size, err := net.Inspect(models.ReadFile, path)
	if err != nil {
		return err
	}
	c := h.Net
	pool := "no"
	if c.GlobalPool {
		pool = "yes"
	}
	policy := "dense"
	if h.PolicyPlanes > 0 {
		policy = fmt.Sprintf("spatial, %s + %d off the grid", nouns(h.PolicyPlanes, "plane"), h.OffGrid)
	}
	var stats, trained int64
	for _, t := range h.Tensors {
		n := int64(1)
		for _, d := range t.Shape {
			n *= int64(d)
		}
		switch {
		case strings.HasPrefix(t.Name, "optimizer."):
		case strings.HasSuffix(t.Name, ".mean"), strings.HasSuffix(t.Name, ".var"):
			stats += n
		default:
			trained += n
		}
	}
	where := ""
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		if _, ok := models.ShippedName(path); ok {
			where = "the binary's own shipped model, no such file here; "
		}
	}
	fmt.Fprintf(w, "file         %s (%s%d bytes, checksum ok, every value finite)\n", path, where, size)
	fmt.Fprintf(w, "format       %d\n", h.Format)
	fmt.Fprintf(w, "game         %s (%s)\n", h.Game, versions(h))
	fmt.Fprintf(w, "shape        observation %v, %d actions, policy %s\n", h.Observation, h.NumActions, policy)
	fmt.Fprintf(w, "net          %s × %s; policy head %s; value head %s → %d; global pooling %s\n",
		nouns(c.Blocks, "block"), nouns(c.Channels, "channel"), nouns(c.PolicyChannels, "plane"), nouns(c.ValueChannels, "plane"), c.ValueHidden, pool)
	fmt.Fprintf(w, "parameters   %d trained, %d batchnorm statistics\n", trained, stats)
	fmt.Fprintf(w, "step         %d\n", h.Step)
	fmt.Fprintf(w, "created      %s\n", h.Created.Format(time.RFC3339))
	if o := h.Optimizer; o != nil {
		fmt.Fprintf(w, "optimizer    %s, learning rate %g, l2 %g, at step %d (state saved)\n", o.Method, o.LearningRate, o.L2, h.OptimizerStep)
	} else {
		fmt.Fprintf(w, "optimizer    none saved\n")
	}
	return nil
}

// netInit writes a fresh network for the configuration's game.
func netInit(w io.Writer, config, out string, seed uint64, force bool) error {
	if config == "" {
		return errors.New("--config: give the configuration file")
	}
	if out == "" {
		return errors.New("--out: give the checkpoint file to write")
	}
	if !force {
		if _, err := os.Stat(out); err == nil {
			return fmt.Errorf("--out %s: the file exists (--force overwrites it)", out)
		}
	}
	f, err := train.LoadConfig(config)
	if err != nil {
		return err
	}
	g, err := games.Lookup(f.Game)
	if err != nil {
		return fmt.Errorf("%s: game: %w", config, err)
	}
	spec, err := g.NetSpec()
	if err != nil {
		return err
	}
	weights, err := net.NewWeights(spec, f.Net, rand.New(rand.NewPCG(seed, 0)))
	if err != nil {
		return fmt.Errorf("%s: net.%w", config, err)
	}
	opt := net.NewOptimizer(weights)
	opt.Config = f.Optimizer
	if err := net.Save(out, weights, opt, 0, time.Now()); err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %s: a fresh %s net, %d trained parameters\n", out, f.Game, weights.Count())
	return nil
}

// netAverage writes the mean of the checkpoints at paths (net.Average) to out, with the newest
// step among them and no optimizer state: a run started from it (--init) starts a fresh
// optimizer, as from any checkpoint of another run. The mean is labelled with this program's
// revision of the game's rules, so every checkpoint must have learned under it: one of an older
// revision (which still loads when its encoding is the same) is refused, not relabelled.
func netAverage(w io.Writer, out string, paths []string, force bool) error {
	if out == "" {
		return errors.New("--out: give the checkpoint file to write")
	}
	if len(paths) == 0 {
		return errors.New("net average: give the checkpoints to average")
	}
	// A file named twice would weigh twice, silently: a slip of the shell's braces more often
	// than a wish. The same file under two names counts too.
	seen := make([]os.FileInfo, len(paths)) // nil where the file is not there: net.Inspect says so below
	for i, path := range paths {
		st, err := os.Stat(path)
		if err != nil {
			continue
		}
		if j := slices.IndexFunc(seen[:i], func(o os.FileInfo) bool { return o != nil && os.SameFile(o, st) }); j >= 0 {
			return fmt.Errorf("net average: %s is %s again: each checkpoint counts once", path, paths[j])
		}
		seen[i] = st
	}
	if !force {
		if _, err := os.Stat(out); err == nil {
			return fmt.Errorf("--out %s: the file exists (--force overwrites it)", out)
		}
	}
	var (
		nets     []*net.Weights
		spec     *net.Spec
		first    net.Header
		low, top int64
	)
	for i, path := range paths {
		h, _, err := net.Inspect(models.ReadFile, path)
		if err != nil {
			return err
		}
		if i == 0 {
			g, err := games.Lookup(h.Game)
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			if spec, err = g.NetSpec(); err != nil {
				return err
			}
			first, low, top = h, h.Step, h.Step
		}
		if h.Net != first.Net {
			return fmt.Errorf("%s: net %+v, where %s has %+v: only nets of one architecture average", path, h.Net, paths[0], first.Net)
		}
		if h.Normalize(); h.Game == spec.Game && h.Rules != spec.Rules {
			return fmt.Errorf("%s: learned under revision %d of %s's rules, this program plays revision %d: a mean would be labelled with a revision none of its nets learned (train from it with --init instead)", path, h.Rules, spec.Game, spec.Rules)
		}
		c, err := net.Load(models.ReadFile, path, spec)
		if err != nil {
			return err
		}
		nets = append(nets, c.Weights)
		low, top = min(low, h.Step), max(top, h.Step)
	}
	mean, err := net.Average(nets...)
	if err != nil {
		return err
	}
	if err := net.Save(out, mean, nil, top, time.Now()); err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %s: the mean of %s of %s, steps %d to %d\n", out, nouns(len(nets), "checkpoint"), spec.Game, low, top)
	return nil
}

// versions says which revision of the rules and which encoding a checkpoint has, and how they
// compare with this program's game of that name.
func versions(h net.Header) string {
	var notes []string
	switch {
	case h.Rules == 0:
		notes = append(notes, "versions not recorded: 1")
	case h.Encoding == 0:
		notes = append(notes, "encoding not recorded: that of its rules version")
	}
	h.Normalize()
	s := fmt.Sprintf("rules revision %d, encoding %d", h.Rules, h.Encoding)
	if g, err := games.Lookup(h.Game); err == nil {
		in := g.Info()
		var planes int
		widened := false
		if spec, err := g.NetSpec(); err == nil {
			planes, widened = spec.EarlierPlanes(h.Encoding)
		}
		if widened {
			notes = append(notes, fmt.Sprintf("this program writes encoding %d and plays this net widened to it (its %d observation planes are the first of today's %d)", in.Encoding, planes, in.Observation.Planes))
		} else if in.Encoding != h.Encoding {
			notes = append(notes, fmt.Sprintf("this program writes encoding %d: it cannot play this net", in.Encoding))
		} else if in.Rules != h.Rules {
			notes = append(notes, fmt.Sprintf("this program plays rules revision %d; the net learned revision %d and reads the same encoding", in.Rules, h.Rules))
		}
	}
	if len(notes) > 0 {
		s += "; " + strings.Join(notes, "; ")
	}
	return s
}

// nouns is n and the noun, plural unless n is 1: "1 block", "6 blocks".
func nouns(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
