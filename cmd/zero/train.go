package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zerogames/zero/configs"
	"github.com/zerogames/zero/internal/games"
	"github.com/zerogames/zero/internal/games/gamestrain"
	"github.com/zerogames/zero/models"
	znet "github.com/zerogames/zero/net"
	"github.com/zerogames/zero/train"
	"github.com/zerogames/zero/train/dist"
)

// trainCmd is `zero train`: start or resume a training run.
func trainCmd(fs *flag.FlagSet) func(context.Context, []string, io.Reader, io.Writer, io.Writer) error {
	game := fs.String("game", "", "start from this game's preset (configs/GAME.yaml): "+joinNames())
	config := fs.String("config", "", "start from this configuration file instead; given with the --run of a run, its changes are printed and recorded in the run's config-history/")
	runDir := fs.String("run", "", "the run folder (default runs/GAME); a folder holding a run resumes it")
	var steps optInt64
	var total optDuration
	fs.Var(&steps, "steps", "stop at training step `N` (this session, instead of the configuration's stop.steps; 0: never)")
	fs.Var(&total, "time", "stop when the run has worked this `duration` over all its sessions (this session, instead of stop.time; 0: never)")
	session := fs.Duration("for", 0, "stop this session after this long (0: when the run stops)")
	logEvery := fs.Duration("log", 30*time.Second, "period of the log lines and self-play metrics")
	initFrom := fs.String("init", "", "start the new run from this checkpoint's weights (of the game, or of another variant with the same net: yinsh-blitz's for yinsh; a net with fewer residual blocks grows into the run's, its new blocks starting as the identity)")
	listen := fs.String("listen", "", "also take remote workers (zero worker) at this `HOST:PORT` of the embedded server; they authenticate with the run folder's worker.token")
	tlsCert := fs.String("tls-cert", "", "with --listen, the server's certificate (PEM `file`): remote workers must then speak TLS")
	tlsKey := fs.String("tls-key", "", "the key (PEM `file`) of --tls-cert")
	natsURL := fs.String("nats", "", "use this NATS server or cluster (`URL`, nats://host:4222, several comma-separated) instead of the embedded one")
	creds := fs.String("creds", "", "with --nats, the NATS credentials `file` (a user JWT and seed) or a file holding a token")
	tlsCA := fs.String("tls-ca", "", "with --nats, the authority (PEM `file`) that signed the server's certificate (default: the system's)")
	replicas := fs.Int("replicas", 1, "with --nats, the copies of the run's streams in the cluster (3 in a 3-node cluster)")
	return func(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
		if err := noArgs(args); err != nil {
			return err
		}
		if err := durations(durationFlag{"for", *session, "until the run stops"}, durationFlag{"log", *logEvery, ""}); err != nil {
			return err
		}
		cfg, dir, err := trainConfig(*game, *config, *runDir)
		if err != nil {
			return err
		}
		if *initFrom != "" {
			if exists(filepath.Join(dir, "config.yaml")) {
				return fmt.Errorf("--init starts a new run, and the run folder %s holds one: give another --run", dir)
			}
			cfg.Init = *initFrom
		}
		// --steps and --time hold for this session; the run keeps its configured stop.
		opts := train.Options{Out: stdout, LogEvery: *logEvery, Command: commandLine(fs)}
		tr, err := transportFlags(*listen, *tlsCert, *tlsKey, *natsURL, *creds, *tlsCA, *replicas)
		if err != nil {
			return err
		}
		opts.Transport = tr
		if steps.set || total.set {
			stop := cfg.Stop
			if steps.set {
				stop.Steps = steps.v
			}
			if total.set {
				stop.Time = train.Duration(total.v)
			}
			opts.Stop = &stop
		}
		if err := cfg.Validate(); err != nil {
			return err
		}
		g, err := gamestrain.Lookup(cfg.Game)
		if err != nil && *config != "" {
			return fmt.Errorf("%s: game: %w", *config, presetWithoutGame(cfg.Game, err)) // as LoadConfig names a field
		}
		if err != nil {
			return err
		}
		// A new run's init checkpoint is read before the run folder is touched: one that is
		// missing, not a checkpoint file, damaged or of another shape leaves the folder as it
		// was (train.Run, which reads it again, would have locked the folder first).
		if cfg.Init != "" && !exists(filepath.Join(dir, "state.json")) {
			if err := checkInit(cfg); err != nil {
				return fmt.Errorf("init: %w", err)
			}
		}
		if *session > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, *session)
			defer cancel()
		}
		err = g.Train(ctx, cfg, dir, opts)
		if errors.Is(err, context.DeadlineExceeded) {
			err = nil // --for elapsed: a clean stop
		}
		if err == nil || errors.Is(err, context.Canceled) {
			fmt.Fprintf(stderr, "resume with: %s train --run %s\n", self(), dir)
		}
		return err
	}
}

// checkInit reads cfg.Init as the run will start from it (znet.LoadTransfer).
func checkInit(cfg train.Config) error {
	g, err := games.Lookup(cfg.Game)
	if err != nil {
		return err
	}
	spec, err := g.NetSpec()
	if err != nil {
		return err
	}
	_, err = znet.LoadTransfer(models.ReadFile, cfg.Init, spec)
	return err
}

// transportFlags checks the transport's flags and makes them a train.Transport.
func transportFlags(listen, cert, key, natsURL, creds, ca string, replicas int) (train.Transport, error) {
	t := train.Transport{Listen: listen, TLSCert: cert, TLSKey: key, NATS: natsURL, Replicas: replicas,
		Auth: dist.Auth{Creds: creds, CA: ca}}
	switch {
	case listen != "" && natsURL != "":
		return t, errors.New("--listen and --nats: with --nats the workers connect to the NATS servers, not to zero train")
	case (cert != "" || key != "") && listen == "":
		return t, errors.New("--tls-cert and --tls-key are for --listen (with --nats, the NATS servers have the certificates)")
	case (cert == "") != (key == ""):
		return t, errors.New("--tls-cert and --tls-key go together")
	case (creds != "" || ca != "" || replicas != 1) && natsURL == "":
		return t, errors.New("--creds, --tls-ca and --replicas are for --nats")
	case replicas < 1 || replicas > 5:
		return t, fmt.Errorf("--replicas %d: want 1 to 5", replicas)
	}
	if listen != "" {
		if _, _, err := net.SplitHostPort(listen); err != nil {
			return t, fmt.Errorf("--listen %q: want HOST:PORT (0.0.0.0:4222 for every interface, 127.0.0.1:4222 for this machine)", listen)
		}
	}
	return t, nil
}

// trainConfig chooses a run's configuration and folder: --config, else the run folder's own
// configuration when it holds a run, else the game's preset.
func trainConfig(game, config, dir string) (train.Config, string, error) {
	var cfg train.Config
	var err error
	switch {
	case config != "":
		if cfg, err = train.LoadConfig(config); err != nil {
			return cfg, "", err
		}
		if game != "" && game != cfg.Game {
			return cfg, "", fmt.Errorf("--game %s, but %s is a configuration for %s", game, config, cfg.Game)
		}
	case dir != "" && exists(filepath.Join(dir, "config.yaml")):
		if cfg, err = train.ReadConfig(dir); err != nil {
			return cfg, "", err
		}
		if game != "" && game != cfg.Game {
			return cfg, "", fmt.Errorf("--game %s, but the run folder %s holds a %s run", game, dir, cfg.Game)
		}
	case game != "":
		if _, err := games.Lookup(game); err != nil {
			return cfg, "", fmt.Errorf("--game: %w", presetWithoutGame(game, err))
		}
		if dir == "" {
			dir = filepath.Join("runs", game)
		}
		if exists(filepath.Join(dir, "config.yaml")) {
			// The default folder of the game holds a run: resume it as it was configured.
			cfg, err = train.ReadConfig(dir)
			return cfg, dir, err
		}
		if cfg, err = configs.Load(game); err != nil {
			return cfg, "", err
		}
	case dir != "":
		return cfg, "", notARun(dir)
	default:
		return cfg, "", errors.New("give --game GAME, --config FILE, or --run DIR of a run to resume")
	}
	if dir == "" {
		dir = filepath.Join("runs", cfg.Game)
	}
	return cfg, dir, nil
}

// presetWithoutGame is err, the lookup's of game, saying so when configs/ has a preset for a
// game this binary does not ship (tictactoe: docs/NEW_GAME.md's example, which only its test
// registers).
func presetWithoutGame(game string, err error) error {
	if slices.Contains(configs.Names(), game) {
		return fmt.Errorf("%w; configs/%s.yaml is the preset of a game this binary does not register (docs/NEW_GAME.md's example is added by cmd/zero's TestNewGame)", err, game)
	}
	return err
}

// notARun is the error of --run DIR alone, where DIR holds no config.yaml: what the folder is,
// and what to give.
func notARun(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("--run %s: no such folder; give --game GAME or --config FILE to start a new run in it", dir)
	case err != nil:
		return fmt.Errorf("--run: %w", err)
	case !fi.IsDir():
		return fmt.Errorf("--run %s: not a folder", dir)
	}
	records, _ := filepath.Glob(filepath.Join(dir, "config-history", "session-*.yaml"))
	if len(records) > 0 {
		// Session numbers have 4 digits or more: the longest names, then the last, are the newest.
		newest := slices.MaxFunc(records, func(a, b string) int { return cmp.Or(cmp.Compare(len(a), len(b)), cmp.Compare(a, b)) })
		return fmt.Errorf("--run %s: the run folder has lost its config.yaml; resume with --config %s (its last session's configuration), or restore the file", dir, newest)
	}
	if exists(filepath.Join(dir, "state.json")) {
		return fmt.Errorf("--run %s: the run folder has lost its config.yaml; restore it, or give the run's configuration with --config FILE", dir)
	}
	return fmt.Errorf("--run %s holds no run (no config.yaml): give --game GAME or --config FILE to start one there", dir)
}

// commandLine is the command as parsed, for the run's configuration history: "zero train
// --run runs/imbriqua --for 50m0s" (flag values as the flags print them).
func commandLine(fs *flag.FlagSet) string {
	words := []string{fs.Name()} // "zero train"
	fs.Visit(func(f *flag.Flag) {
		v := f.Value.String()
		if v == "" || strings.ContainsAny(v, " \t\n'\"$`\\;&|<>*?()") {
			v = strconv.Quote(v)
		}
		words = append(words, "--"+f.Name, v)
	})
	return strings.Join(words, " ")
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// self is the command that runs this binary again from the current folder: as it was invoked
// when that was a path (bin/zero, ./zero), else zero (found on the PATH).
func self() string {
	if len(os.Args) > 0 && strings.ContainsRune(os.Args[0], filepath.Separator) && !strings.Contains(os.Args[0], "go-build") &&
		!strings.HasSuffix(os.Args[0], ".test") {
		return os.Args[0]
	}
	return "zero"
}
