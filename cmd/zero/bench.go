package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zerogames/zero/configs"
	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/internal/games"
	"github.com/zerogames/zero/internal/games/gamestrain"
	"github.com/zerogames/zero/models"
	"github.com/zerogames/zero/net"
	"github.com/zerogames/zero/net/linalg"
	"github.com/zerogames/zero/net/nettrain"
	"github.com/zerogames/zero/train"
)

// benchCmd is `zero bench WHAT`: speed measurements. WHAT is net for now.
func benchCmd(fs *flag.FlagSet) func(context.Context, []string, io.Reader, io.Writer, io.Writer) error {
	return func(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
		if len(args) == 0 {
			fs.Usage()
			return errors.New("bench: say what to measure: net, selfplay, search or ingest")
		}
		switch args[0] {
		case "net":
			return benchNet(ctx, args[1:], stdout, stderr)
		case "selfplay":
			return benchSelfPlay(ctx, args[1:], stdout, stderr)
		case "search":
			return benchSearch(ctx, args[1:], stdout, stderr)
		case "ingest":
			return benchIngest(ctx, args[1:], stdout, stderr)
		}
		return fmt.Errorf("bench: unknown benchmark %q (net, selfplay, search, ingest)", args[0])
	}
}

// syntheticNet is the net `zero bench net --shape` measures: a dense policy head reads every
// cell of its few planes. docs/BENCHMARKS.md's synthetic lines were taken with it.
func syntheticNet() net.Config {
	return net.Config{Blocks: 4, Channels: 64, PolicyChannels: 4, ValueChannels: 2, ValueHidden: 128}
}

// benchNet measures every inference backend side by side against the machine's GEMM speed,
// and optionally a training step.
func benchNet(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench net", "[flags]", "measure the inference engine (positions/s by batch size and workers) against the machine's GEMM peak, and optionally a training step")
	game := fs.String("game", defaultGame, "the game to measure the benchmark net (6 blocks × 64 channels) on: "+joinNames())
	shape := fs.String("shape", "", "measure a synthetic game instead: PLANESxHEIGHTxWIDTH:ACTIONS (dense policy head), e.g. 7x6x6:300")
	config := fs.String("config", "", "take the net, and the game, from this configuration file instead (a preset's: configs/GAME.yaml)")
	batches := fs.String("batch", "1,2,4,8,16,32,64,128,256", "batch sizes, comma-separated")
	workers := fs.String("workers", "1,2", "numbers of workers (goroutines, one engine each), comma-separated")
	per := fs.Duration("time", time.Second, "time to measure each line")
	trainBatch := fs.Int("train", 0, "also measure training steps on batches of this size (0: no)")
	backendList := fs.String("backends", "", "inference backends to measure side by side, comma-separated ("+knownBackends()+"; default: every one this build and CPU can run)")
	if help, err := parseFlags(fs, args, stdout, stderr); help || err != nil {
		return err
	}
	if err := noArgs(fs.Args()); err != nil {
		return err
	}
	if err := durations(durationFlag{"time", *per, ""}); err != nil {
		return err
	}
	backends, err := backendsFlag(*backendList)
	if err != nil {
		return err
	}
	if *trainBatch < 0 || *trainBatch > maxBenchBatch {
		return fmt.Errorf("--train %d: want a batch size from 0 (none) to %d", *trainBatch, maxBenchBatch)
	}
	bs, err := intList("--batch", *batches, maxBenchBatch)
	if err != nil {
		return err
	}
	ws, err := intList("--workers", *workers, maxBenchWorkers)
	if err != nil {
		return err
	}
	var spec *net.Spec
	cfg := net.BenchConfig()
	opt := net.DefaultOptimizer()
	var file *train.Config
	if *config != "" {
		f, err := train.LoadConfig(*config)
		if err != nil {
			return err
		}
		file = &f
		// The configuration's net is its game's: measured on that game's input and actions.
		if *shape == "" && flagGiven(fs, "game") && *game != file.Game {
			return fmt.Errorf("--game %s: the configuration %s is of %s", *game, *config, file.Game)
		}
		*game = file.Game
	}
	if *shape != "" && flagGiven(fs, "game") {
		return fmt.Errorf("--game %s with --shape %s: the shape is measured instead of a game; give one of the two", *game, *shape)
	}
	switch {
	case *shape != "":
		if spec, err = syntheticSpec(*shape); err != nil {
			return err
		}
		cfg = syntheticNet()
	default:
		g, err := games.Lookup(*game)
		if err != nil {
			return fmt.Errorf("--game: %w", err)
		}
		if spec, err = g.NetSpec(); err != nil {
			return err
		}
	}
	if file != nil {
		cfg, opt = file.Net, file.Optimizer
	}
	// A net no checkpoint could hold is not made (a synthetic shape's dense head can be huge).
	if size := net.CheckpointBytes(spec, cfg, false); size > models.MaxBytes {
		return fmt.Errorf("the net of %s would hold %d bytes of weights, more than the %d of the largest checkpoint (models.MaxBytes)", spec.Game, size, models.MaxBytes)
	}
	w, err := net.NewWeights(spec, cfg, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		return err
	}
	m := net.NewModel(w)
	fmt.Fprintf(stdout, "net %s: observation %v, %d actions; %s × %s, global pooling %v; %.1f MFLOP a position\n",
		spec.Game, spec.Observation, spec.NumActions, nouns(cfg.Blocks, "block"), nouns(cfg.Channels, "channel"), cfg.GlobalPool, m.FLOPs()/1e6)
	fmt.Fprintf(stdout, "BLAS %s (%s kernels, OPENBLAS_CORETYPE=%q); CPU %s\n", linalg.Name, linalg.Kernels(), linalg.CoreType(), cpuName())
	// The machine may be shared: the backends run interleaved, batch by batch, in the same
	// workers, with the yardstick's GEMMs (see net.MeasureEngines).
	described := false
	for _, nw := range ws {
		for _, b := range bs {
			if err := ctx.Err(); err != nil {
				return err
			}
			speeds, err := net.MeasureEngines(m, backends, b, nw, *per)
			if err != nil {
				return err
			}
			if !described {
				for _, s := range speeds {
					fmt.Fprintf(stdout, "backend %s\n", s.Engine)
				}
				described = true
				fmt.Fprintf(stdout, "%6s %8s %-12s %12s %9s %12s %8s %7s %10s %7s  %s\n", "batch", "workers", "backend", "positions/s", "GFLOP/s", "GEMM GFLOP/s", "of GEMM", "× last", "per CPU s", "× last", "GEMM: the fastest of its precision")
			}
			for _, s := range speeds {
				last := speeds[len(speeds)-1]
				fmt.Fprintf(stdout, "%6d %8d %-12s %12.0f %9.1f %12.1f %7.0f%% %7.2f %10.0f %7.2f  %s\n", b, nw, s.Backend, s.Positions, s.GFLOPS, s.GEMM, 100*s.GFLOPS/s.GEMM,
					s.Positions/last.Positions, s.PositionsCPU, s.PositionsCPU/last.PositionsCPU, s.Yardstick)
			}
		}
	}
	if *trainBatch > 0 {
		sp, err := nettrain.MeasureTraining(spec, cfg, opt, *trainBatch, 8)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "training (gorgonia, %s), batch %d: %.1f samples/s, %.1f per CPU s, %.1f MB and %.0f allocations a step; convolutions and batchnorms on %s\n",
			opt.Method, *trainBatch, sp.SamplesPerSec, sp.SamplesPerCPUSec, sp.BytesPerStep/1e6, sp.AllocsPerStep, sp.Ops)
	}
	return nil
}

// backendsFlag reads --backends: the backends named, or every one this build and CPU can run
// (net.Backends), the Go engine last: the others' speed is given as a multiple of the last one's.
func backendsFlag(list string) ([]net.Backend, error) {
	if list == "" {
		return net.Backends(), nil
	}
	var out []net.Backend
	for _, name := range strings.Split(list, ",") {
		b, err := net.ParseBackend(name)
		if err == nil {
			err = b.Available()
		}
		if err != nil {
			return nil, fmt.Errorf("--backends: %w", err)
		}
		out = append(out, b)
	}
	return out, nil
}

// cpuName is the CPU's model name (/proc/cpuinfo), for the record beside a measurement.
func cpuName() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return fmt.Sprintf("%s, %d cores", strings.TrimSpace(v), runtime.NumCPU())
		}
	}
	return runtime.GOARCH
}

// The bounds of bench net's numbers: its batches (those of training, trainer.batch_size), and
// its workers (those of self-play, selfplay.workers).
const (
	maxBenchBatch   = 4096
	maxBenchWorkers = 256
)

// intList parses "1,2,4" into whole numbers from 1 to hi.
func intList(flagName, s string, hi int) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > hi {
			return nil, fmt.Errorf("%s: %q is not a whole number from 1 to %d", flagName, f, hi)
		}
		out = append(out, n)
	}
	return out, nil
}

// The largest synthetic game of bench net --shape.
var (
	maxShape   = env.Shape{Planes: 1024, Height: 64, Width: 64}
	maxActions = 1 << 16
)

// syntheticSpec reads PLANESxHEIGHTxWIDTH:ACTIONS, each at most maxShape (the net it makes
// is bounded too: benchNet).
func syntheticSpec(s string) (*net.Spec, error) {
	var p, h, w, a int
	if n, err := fmt.Sscanf(s, "%dx%dx%d:%d", &p, &h, &w, &a); err != nil || n != 4 || p < 1 || h < 1 || w < 1 || a < 1 ||
		fmt.Sprintf("%dx%dx%d:%d", p, h, w, a) != s { // as written, nothing after it
		return nil, fmt.Errorf("--shape %q: want PLANESxHEIGHTxWIDTH:ACTIONS, e.g. 7x6x6:300", s)
	}
	if p > maxShape.Planes || h > maxShape.Height || w > maxShape.Width || a > maxActions {
		return nil, fmt.Errorf("--shape %q: want at most %dx%dx%d:%d", s, maxShape.Planes, maxShape.Height, maxShape.Width, maxActions)
	}
	info := &env.Info{Name: "synthetic-" + s, NumActions: a, Observation: env.Shape{Planes: p, Height: h, Width: w}}
	return net.NewSpec(info, nil)
}

// benchSelfPlay measures self-play as a training run plays it: games, simulations and
// positions per second, how full the inference batches are, and the share of the CPU time
// spent in the network (the rest is search, rules and batching: the overhead).
func benchSelfPlay(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench selfplay", "[flags]", "measure self-play as a training run plays it: games, simulations and positions a second, batch fill, the network's share of the CPU")
	game := fs.String("game", defaultGame, "the game whose preset (configs/GAME.yaml) to measure: "+joinNames())
	config := fs.String("config", "", "measure this configuration file instead of the game's preset")
	checkpoint := fs.String("checkpoint", "", "play with this checkpoint's network (default: random weights)")
	warm := fs.Duration("warmup", 5*time.Second, "time played before measuring")
	per := fs.Duration("time", 30*time.Second, "time measured")
	via := fs.String("transport", "nats", "where the games go: nats (a training run's path: an embedded NATS server, checked, into a replay buffer), direct (into a replay buffer), or both, alternating, to compare")
	rounds := fs.Int("rounds", 1, "with --transport both, the number of rounds of the two")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the measured time (not the warm-up) to `FILE`, for go tool pprof")
	traceFile := fs.String("trace", "", "write a runtime trace of the measured time to `FILE`, for go tool trace (where the goroutines wait)")
	if help, err := parseFlags(fs, args, stdout, stderr); help || err != nil {
		return err
	}
	if err := noArgs(fs.Args()); err != nil {
		return err
	}
	if (*cpuProfile != "" || *traceFile != "") && *via == "both" {
		return errors.New("--cpuprofile and --trace measure one transport: give --transport nats or direct")
	}
	if err := durations(durationFlag{"warmup", *warm, "no warm-up"}, durationFlag{"time", *per, ""}); err != nil {
		return err
	}
	switch {
	case *rounds < 1:
		return fmt.Errorf("--rounds %d: want a number of rounds ≥ 1", *rounds)
	case flagGiven(fs, "rounds") && *via != "both":
		return fmt.Errorf("--rounds %d: only with --transport both (one transport is measured once)", *rounds)
	}
	var ways []bool // via NATS
	switch *via {
	case "nats":
		ways = []bool{true}
	case "direct":
		ways = []bool{false}
	case "both":
		for range *rounds {
			ways = append(ways, false, true)
		}
	default:
		return fmt.Errorf("--transport %q: want nats, direct or both", *via)
	}
	var cfg train.Config
	var err error
	if *config != "" {
		cfg, err = train.LoadConfig(*config)
	} else {
		cfg, err = configs.Load(*game)
	}
	if err != nil {
		return err
	}
	g, err := gamestrain.Lookup(cfg.Game)
	if err != nil {
		return err
	}
	var w *net.Weights
	if *checkpoint != "" {
		pg, err := games.Lookup(cfg.Game) // the play registry has the net's spec
		if err != nil {
			return err
		}
		spec, err := pg.NetSpec()
		if err != nil {
			return err
		}
		ck, err := net.Load(models.ReadFile, *checkpoint, spec)
		if err != nil {
			return fmt.Errorf("--checkpoint %s: %w", *checkpoint, err)
		}
		w = ck.Weights
	}
	cfg.Cores()
	sp := cfg.SelfPlay
	fmt.Fprintf(stdout, "%s: net %s × %s, BLAS %s kernels; %s × %s, %s, batch ≤ %d, %d simulations (cheap %d, full share %.2f), gumbel %v, solver %v (scan depth %d), cache %d MB a worker\n",
		cfg.Game, nouns(cfg.Net.Blocks, "block"), nouns(cfg.Net.Channels, "channel"), linalg.Kernels(), nouns(sp.Workers, "worker"), nouns(sp.GamesPerWorker, "game"), nouns(sp.InferenceWorkers, "inference worker"), sp.BatchSize,
		sp.Simulations, sp.CheapSimulations, sp.FullShare, sp.Gumbel, sp.Solver, sp.ScanDepth, sp.CacheMB)
	var sum [2]train.SelfPlaySpeed // direct, nats
	for _, nats := range ways {
		stopProfiles, err := profileAfter(ctx, *warm, *cpuProfile, *traceFile)
		if err != nil {
			return err
		}
		s, err := g.BenchSelfPlay(ctx, cfg, w, *warm, *per, nats)
		if perr := stopProfiles(); err == nil {
			err = perr
		}
		if err != nil {
			return err
		}
		way := "direct"
		if nats {
			way = "nats"
		}
		printSelfPlay(stdout, way, s)
		t := &sum[0]
		if nats {
			t = &sum[1]
		}
		t.Seconds += s.Seconds
		t.CPUSeconds += s.CPUSeconds
		t.Games += s.Games
		t.Simulations += s.Simulations
	}
	if *via == "both" {
		d, n := sum[0], sum[1]
		// On a shared machine the process gets what CPU the others leave: the CPU time a game
		// costs is the steadier measure.
		perGame := func(s train.SelfPlaySpeed) float64 { return 1000 * s.CPUSeconds / float64(max(s.Games, 1)) }
		fmt.Fprintf(stdout, "nats against direct over %d rounds: games/s %.3f vs %.3f (%+.1f%%), simulations/s %.0f vs %.0f (%+.1f%%); CPU %.2f vs %.2f cores, %.2f vs %.2f ms a game (%+.1f%%)\n",
			len(ways)/2, n.Rate(n.Games), d.Rate(d.Games), 100*(n.Rate(n.Games)/d.Rate(d.Games)-1),
			n.Rate(n.Simulations), d.Rate(d.Simulations), 100*(n.Rate(n.Simulations)/d.Rate(d.Simulations)-1),
			n.CPUSeconds/n.Seconds, d.CPUSeconds/d.Seconds, perGame(n), perGame(d), 100*(perGame(n)/perGame(d)-1))
	}
	return nil
}

// profileAfter starts, once warm has passed, a CPU profile into cpuFile and a runtime trace
// into traceFile (each if named); the function it returns stops them and closes the files
// (a profile never started, the measure cut short, leaves an empty file). The files are made
// at once, so a path that cannot be written fails before the measure.
func profileAfter(ctx context.Context, warm time.Duration, cpuFile, traceFile string) (stop func() error, err error) {
	var cpu, tr *os.File
	closeAll := func() error {
		var errs []error
		for _, f := range []*os.File{cpu, tr} {
			if f != nil {
				errs = append(errs, f.Close())
			}
		}
		return errors.Join(errs...)
	}
	if cpuFile != "" {
		if cpu, err = os.Create(cpuFile); err != nil {
			return nil, fmt.Errorf("--cpuprofile: %w", err)
		}
	}
	if traceFile != "" {
		if tr, err = os.Create(traceFile); err != nil {
			closeAll()
			return nil, fmt.Errorf("--trace: %w", err)
		}
	}
	if cpu == nil && tr == nil {
		return func() error { return nil }, nil
	}
	var mu sync.Mutex
	started, stopped := false, false
	timer := time.AfterFunc(warm, func() {
		mu.Lock()
		defer mu.Unlock()
		if stopped || ctx.Err() != nil {
			return
		}
		started = true
		if cpu != nil {
			pprof.StartCPUProfile(cpu)
		}
		if tr != nil {
			trace.Start(tr)
		}
	})
	return func() error {
		timer.Stop()
		mu.Lock()
		defer mu.Unlock()
		stopped = true
		if started {
			if cpu != nil {
				pprof.StopCPUProfile()
			}
			if tr != nil {
				trace.Stop()
			}
		}
		return closeAll()
	}, nil
}

// printSelfPlay prints what one measure of self-play found.
func printSelfPlay(stdout io.Writer, way string, s train.SelfPlaySpeed) {
	fmt.Fprintf(stdout, "network on %s; CPU %s\n", s.Backend, cpuName())
	fmt.Fprintf(stdout, "%s, %.1f s: %.2f games/s, %.1f decisions/s, %.1f samples/s, %.0f simulations/s, %.0f positions/s; %.2f ms of CPU a game\n",
		way, s.Seconds, s.Rate(s.Games), s.Rate(s.Decisions), s.Rate(s.Samples), s.Rate(s.Simulations), s.Rate(s.Positions), 1000*s.CPUSeconds/float64(max(s.Games, 1)))
	fmt.Fprintf(stdout, "batches: %.1f positions on average (%.0f%% full); CPU %.2f cores; net %.0f%% of the CPU time, search+batching overhead %.0f%%\n",
		float64(s.Positions)/max(1, float64(s.Batches)), 100*s.BatchFill(), s.CPUSeconds/s.Seconds, 100*s.NetShare(), 100*(1-s.NetShare()))
	fmt.Fprintf(stdout, "waiting: the %d self-play workers %.0f%% of their time for the network's answers, the %d inference workers %.0f%% of theirs for a batch\n",
		s.Workers, 100*s.WorkerWaitShare(), s.Engines, 100*s.EngineIdleShare())
	if s.CacheLookups > 0 {
		fmt.Fprintf(stdout, "cache: %.1f%% of %d leaves answered without the network (%.0f per game)\n",
			100*s.CacheHitRate(), s.CacheLookups, float64(s.CacheHits)/max(1, float64(s.Games)))
	}
}

// benchIngest measures how many games one trainer takes from many workers, simulated on
// loopback.
func benchIngest(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench ingest", "[flags]", "measure a trainer's intake of games: simulated workers publish recorded games over loopback to an embedded server, the trainer checks them into a replay buffer")
	game := fs.String("game", defaultGame, "the game whose games are sent: "+joinNames())
	workers := fs.Int("workers", 64, "simulated workers, each on its own connection")
	n := fs.Int("games", 20000, "stop once the trainer has taken this many games")
	per := fs.Duration("time", 30*time.Second, "stop after this long at most")
	syncEvery := fs.Duration("sync-every", 0, "sync the server's store this often instead of at every write, as zero train does (to measure what syncing costs; JetStream's default is 2m)")
	if help, err := parseFlags(fs, args, stdout, stderr); help || err != nil {
		return err
	}
	if err := noArgs(fs.Args()); err != nil {
		return err
	}
	if err := durations(durationFlag{"time", *per, ""}, durationFlag{"sync-every", *syncEvery, "sync at every write"}); err != nil {
		return err
	}
	if *workers < 1 || *workers > 1024 {
		return fmt.Errorf("--workers %d: want 1 to 1024", *workers)
	}
	g, err := gamestrain.Lookup(*game)
	if err != nil {
		return fmt.Errorf("--game: %w", err)
	}
	s, err := g.BenchIngest(ctx, train.IngestBench{Workers: *workers, Games: *n, Time: *per, SyncEvery: *syncEvery})
	if err != nil {
		return err
	}
	sync := "synced at every write"
	if *syncEvery > 0 {
		sync = "synced every " + syncEvery.String()
	}
	fmt.Fprintf(stdout, "%s, %d workers on loopback, store %s, %.1f s: %d games taken (%.0f games/s, %.1f MB/s), %d refused, %d publications refused by a full stream\n",
		*game, *workers, sync, s.Seconds, s.Taken, float64(s.Taken)/s.Seconds, float64(s.Bytes)/s.Seconds/1e6, s.Refused, s.Full)
	fmt.Fprintf(stdout, "publication latency: median %.1f ms, 90%% %.1f ms, 99%% %.1f ms, most %.1f ms\n", s.Latency[0], s.Latency[1], s.Latency[2], s.Latency[3])
	fmt.Fprintf(stdout, "CPU %.2f cores (workers, server and trainer in this process); the trainer's goroutine: checking %.0f%%, adding %.0f%%, syncing %.0f%%, acknowledging %.0f%% of the time\n",
		s.CPUSeconds/s.Seconds, 100*s.Check/s.Seconds, 100*s.Add/s.Seconds, 100*s.Sync/s.Seconds, 100*s.Ack/s.Seconds)
	fmt.Fprintf(stdout, "memory: Go heap %.0f MB (server included); the server's store on disk %.1f MB\n", float64(s.HeapBytes)/1e6, float64(s.StoreBytes)/1e6)
	return nil
}

// knownBackends lists the backends net knows (net.Known), for the help text.
func knownBackends() string {
	var names []string
	for _, b := range net.Known() {
		names = append(names, string(b))
	}
	return strings.Join(names, ", ")
}
