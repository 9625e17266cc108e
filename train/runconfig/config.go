package runconfig

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/zerogames/zero/mcts"
	"github.com/zerogames/zero/net"
	"github.com/zerogames/zero/selfplay"
	"github.com/zerogames/zero/train/replay"
	"github.com/zerogames/zero/train/worker"
)

// Config is a training run's configuration: a YAML file (configs/*.yaml), decoded strictly over
// the defaults of its game. Every field is documented where it is declared, the sections that
// are another package's type there (net.Config, net.OptimizerConfig, mcts.Params in selfplay,
// replay.Window); DefaultConfig gives the defaults.
type Config struct {
	// Game is the game and variant to learn ("yinsh-blitz").
	Game string `yaml:"game" json:"game"`
	// Seed seeds the network's initialisation, the sampling of minibatches and self-play.
	Seed uint64 `yaml:"seed" json:"seed"`
	// Net is the network's architecture (net.Config).
	Net net.Config `yaml:"net" json:"net"`
	// Init is a checkpoint whose weights start the run instead of random ones: of this game,
	// or of another variant of its board with the same net (yinsh-blitz weights for yinsh), or
	// with fewer residual blocks and the same otherwise, which grow into the run's net as blocks
	// that start as the identity (net.Weights.Deepen: the run starts from the checkpoint's play).
	// It is read once, when the run starts; the optimizer starts afresh. "": random weights.
	Init string `yaml:"init,omitempty" json:"init,omitempty"`
	// Optimizer is how it learns (net.OptimizerConfig).
	Optimizer net.OptimizerConfig `yaml:"optimizer" json:"optimizer"`
	SelfPlay  SelfPlayConfig      `yaml:"selfplay" json:"selfplay"`
	Replay    ReplayConfig        `yaml:"replay" json:"replay"`
	Trainer   TrainerConfig       `yaml:"trainer" json:"trainer"`
	Eval      EvalConfig          `yaml:"eval" json:"eval"`
	Stop      StopConfig          `yaml:"stop" json:"stop"`
}

// SelfPlayConfig is how the games are played: the workers and their batcher, the budgets of
// playout cap randomization, and the search itself, mcts.Params, whose keys sit in the same
// section (selfplay.c_puct, selfplay.in_flight, …) and are documented there, on each field.
type SelfPlayConfig struct {
	// Workers is the number of self-play goroutines (0: one per core).
	Workers int `yaml:"workers" json:"workers"`
	// GamesPerWorker is the number of games each worker plays at once.
	GamesPerWorker int `yaml:"games_per_worker" json:"games_per_worker"`
	// InferenceWorkers is the number of inference engines the batcher runs (0: one per core).
	InferenceWorkers int `yaml:"inference_workers" json:"inference_workers"`
	// BatchSize is the most positions the batcher evaluates at once.
	BatchSize int `yaml:"batch_size" json:"batch_size"`
	// MaxWait is how long a batch that is not full waits for more requests once an engine is
	// free for it ("0s", the presets': a free engine takes what is queued at once, and
	// requests queue while every engine is busy).
	MaxWait Duration `yaml:"max_wait" json:"max_wait"`
	// Simulations is the budget of a full search, recorded as a training target.
	Simulations int `yaml:"simulations" json:"simulations"`
	// CheapSimulations is the budget of the other moves' search (playout cap randomization:
	// chosen by it, not recorded); 0 searches every move in full.
	CheapSimulations int `yaml:"cheap_simulations" json:"cheap_simulations"`
	// FullShare is the share of moves searched in full.
	FullShare float64 `yaml:"full_share" json:"full_share"`
	// Params is the search of the full moves (the cheap ones drop its root noise and Gumbel
	// sample: worker.Config), as it is: Gumbel's root or PUCT's with Dirichlet noise and a
	// temperature, the leaves in flight, the solver. Its defaults for self-play are
	// DefaultConfig's, not mcts.DefaultParams' (which are for play).
	mcts.Params `yaml:",inline"`
	// CacheMB bounds each worker's cache of the network's answers, in megabytes (0: none).
	CacheMB int `yaml:"cache_mb" json:"cache_mb"`
	// ResignThreshold lets a player resign below −threshold (0: never, the default).
	ResignThreshold float64 `yaml:"resign_threshold" json:"resign_threshold"`
	// ResignPlaythrough is the share of games played out whatever the value.
	ResignPlaythrough float64 `yaml:"resign_playthrough" json:"resign_playthrough"`
}

// ReplayConfig is the replay buffer's.
type ReplayConfig struct {
	// Window sizes the window of recent samples drawn from (replay.Window).
	Window replay.Window `yaml:"window" json:"window"`
	// TrainRatio is the number of samples drawn for training per new sample from self-play:
	// the trainer waits when it is ahead, so self-play and training keep pace.
	TrainRatio float64 `yaml:"train_ratio" json:"train_ratio"`
	// MinSamples is the number of samples self-play makes before training starts.
	MinSamples int `yaml:"min_samples" json:"min_samples"`
}

// TrainerConfig is the trainer's.
type TrainerConfig struct {
	// BatchSize is the minibatch size.
	BatchSize int `yaml:"batch_size" json:"batch_size"`
	// PublishEvery is the number of steps between hot swaps of self-play's network.
	PublishEvery int `yaml:"publish_every" json:"publish_every"`
	// CheckpointEvery is the number of steps between checkpoints (and evaluations).
	CheckpointEvery int `yaml:"checkpoint_every" json:"checkpoint_every"`
	// KeepLast is the number of recent checkpoints kept: the older ones are deleted whenever a
	// checkpoint is written and whenever a rating ends, except the best rated and, while it is
	// rated, the checkpoint under evaluation and its eval.previous opponents (the games read
	// them). So up to keep_last + 2 + eval.previous files are on disk (TestTrimKeeps,
	// TestTrimWhileRating).
	KeepLast int `yaml:"keep_last" json:"keep_last"`
	// ValueFromSearch is the weight λ of the search's root value in the value target:
	// (1−λ)·result + λ·root value, both from the decider's side. Game results alone are a
	// noisy target early on; the search's value is a denoised one, biased by the net itself
	// (0: results only, AlphaZero; 0.5: the averaging of "Lessons from AlphaZero").
	ValueFromSearch float64 `yaml:"value_from_search" json:"value_from_search"`
}

// EvalConfig is the evaluation of each checkpoint: a short match against the previous
// checkpoints and fixed baselines, rated with all the run's games (the Elo ladder).
type EvalConfig struct {
	// Games is the number of games against each opponent (0: no evaluation).
	Games int `yaml:"games" json:"games"`
	// Simulations is the checkpoints' search budget in evaluation games.
	Simulations int `yaml:"simulations" json:"simulations"`
	// Previous is the number of previous checkpoints each new one plays.
	Previous int `yaml:"previous" json:"previous"`
	// Baselines are fixed opponents by player spec ("random", "uct:200", "ab:2:eval=none").
	Baselines []string `yaml:"baselines" json:"baselines"`
	// Opening is the number of random decisions that open each game, shared by the two games
	// that swap sides, so that deterministic players do not repeat one game.
	Opening int `yaml:"opening" json:"opening"`
	// Workers is the number of evaluation games played at once.
	Workers int `yaml:"workers" json:"workers"`
}

// StopConfig says when a run stops by itself (besides Ctrl-C); zero values mean never.
type StopConfig struct {
	Steps int64    `yaml:"steps" json:"steps"`
	Time  Duration `yaml:"time" json:"time"`
}

// Duration is a time.Duration written as "2ms", "1h30m" in YAML.
type Duration time.Duration

// UnmarshalYAML reads a duration string.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	var text string
	if err := n.Decode(&text); err != nil {
		return err
	}
	v, err := time.ParseDuration(text)
	if err != nil {
		return fmt.Errorf("line %d: %q is not a duration (as 2ms, 90s, 1h30m)", n.Line, text)
	}
	*d = Duration(v)
	return nil
}

// MarshalYAML writes a duration string.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// MarshalText writes a duration string (JSON).
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// UnmarshalText reads a duration string (JSON).
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	*d = Duration(v)
	return err
}

// DefaultConfig is the configuration of a game before its file changes anything: sized for a
// small machine (a few cores, no GPU).
func DefaultConfig(game string) Config {
	return Config{
		Game:      game,
		Seed:      1,
		Net:       net.DefaultConfig(),
		Optimizer: net.DefaultOptimizer(),
		SelfPlay: SelfPlayConfig{
			GamesPerWorker: 32, BatchSize: 128, MaxWait: 0,
			Simulations: 64, CheapSimulations: 16, FullShare: 0.25,
			Params: selfPlayParams(), CacheMB: 64,
		},
		Replay: ReplayConfig{
			Window:     replay.Window{Min: 50_000, Max: 1_000_000, Exponent: 0.75, Growth: 0.4},
			TrainRatio: 4, MinSamples: 2_000,
		},
		Trainer: TrainerConfig{BatchSize: 128, PublishEvery: 50, CheckpointEvery: 500, KeepLast: 5},
		Eval:    EvalConfig{Games: 20, Simulations: 64, Previous: 1, Baselines: []string{"random", "uct:200", "ab:2:eval=none"}, Opening: 4, Workers: 1},
	}
}

// selfPlayParams is self-play's search before a file changes it: play's (mcts.DefaultParams)
// with Gumbel's root, root noise and a temperature for the PUCT root, 4 leaves in flight for
// the batcher, the solver's scan at the root only (2 cost 12% of self-play's simulations/s)
// and no root proofs (too slow for these budgets), their nodes bounded if a file turns them on.
func selfPlayParams() mcts.Params {
	p := mcts.DefaultParams()
	p.Gumbel, p.DirichletAlpha = true, 0.3
	p.Temperature = mcts.Schedule{{From: 0, Value: 1}, {From: 20, Value: 0}}
	p.InFlight, p.ScanDepth, p.RootProof, p.RootProofNodes = 4, 1, 0, 200_000
	return p
}

// Worker is a self-play worker's configuration; step gives the network's training step (nil:
// none recorded).
func (c *SelfPlayConfig) Worker(step func() int64) worker.Config {
	return worker.Config{
		Games: c.GamesPerWorker, Params: c.Params, Simulations: c.Simulations,
		CheapSimulations: c.CheapSimulations, FullShare: c.FullShare,
		ResignThreshold: c.ResignThreshold, ResignPlaythrough: c.ResignPlaythrough,
		Step: step, CacheBytes: c.CacheMB << 20,
	}
}

// Batcher is the batcher's configuration.
func (c *SelfPlayConfig) Batcher() worker.BatcherConfig {
	return worker.BatcherConfig{MaxBatch: c.BatchSize, MaxWait: time.Duration(c.MaxWait), Workers: c.InferenceWorkers}
}

// Cores fills the per-core defaults (0) with the machine's number of cores.
func (c *Config) Cores() {
	if c.SelfPlay.Workers == 0 {
		c.SelfPlay.Workers = runtime.GOMAXPROCS(0)
	}
	if c.SelfPlay.InferenceWorkers == 0 {
		c.SelfPlay.InferenceWorkers = runtime.GOMAXPROCS(0)
	}
}

// Validate checks every field, returning all the problems found, each naming its field.
func (c *Config) Validate() error {
	var errs []error
	bad := func(field string, format string, a ...any) {
		errs = append(errs, fmt.Errorf("%s: "+format, append([]any{field}, a...)...))
	}
	intIn := func(field string, v, lo, hi int) {
		if v < lo || v > hi {
			bad(field, "must be in [%d, %d], is %d", lo, hi, v)
		}
	}
	floatIn := func(field string, v, lo, hi float64) {
		if !(v >= lo && v <= hi) {
			bad(field, "must be in [%v, %v], is %v", lo, hi, v)
		}
	}
	if err := c.Net.Validate(); err != nil {
		errs = append(errs, prefix("net.", err))
	}
	if err := c.Optimizer.Validate(); err != nil {
		errs = append(errs, prefix("optimizer.", err))
	}
	sp := &c.SelfPlay
	intIn("selfplay.workers", sp.Workers, 0, 256)
	intIn("selfplay.games_per_worker", sp.GamesPerWorker, 1, 4096)
	intIn("selfplay.inference_workers", sp.InferenceWorkers, 0, 256)
	intIn("selfplay.batch_size", sp.BatchSize, 1, 8192)
	if sp.MaxWait < 0 || time.Duration(sp.MaxWait) > time.Second {
		bad("selfplay.max_wait", "must be in [0, 1s], is %v", time.Duration(sp.MaxWait))
	}
	intIn("selfplay.in_flight", sp.InFlight, 1, 256)
	intIn("selfplay.simulations", sp.Simulations, 1, 1_000_000)
	intIn("selfplay.cheap_simulations", sp.CheapSimulations, 0, sp.Simulations)
	floatIn("selfplay.full_share", sp.FullShare, 0, 1)
	if sp.CheapSimulations > 0 && sp.FullShare == 0 {
		bad("selfplay.full_share", "must be above 0 when cheap_simulations is set (else nothing is recorded)")
	}
	intIn("selfplay.gumbel_actions", sp.GumbelActions, 1, 1024)
	floatIn("selfplay.c_puct", sp.CPuct, 0, 100)
	floatIn("selfplay.fpu_reduction", sp.FPUReduction, 0, 2)
	floatIn("selfplay.dirichlet_alpha", sp.DirichletAlpha, 0, 100)
	floatIn("selfplay.noise_fraction", sp.NoiseFraction, 0, 1)
	for i, t := range sp.Temperature {
		if t.From < 0 || (i > 0 && t.From <= sp.Temperature[i-1].From) {
			bad(fmt.Sprintf("selfplay.temperature[%d].from", i), "must be ≥ 0 and ascending, is %d", t.From)
		}
		floatIn(fmt.Sprintf("selfplay.temperature[%d].value", i), t.Value, 0, 10)
	}
	intIn("selfplay.scan_depth", sp.ScanDepth, 1, 8)
	intIn("selfplay.cache_mb", sp.CacheMB, 0, 1<<16)
	intIn("selfplay.root_proof", sp.RootProof, 0, mcts.MaxABDepth)
	intIn("selfplay.root_proof_nodes", sp.RootProofNodes, 1, 1<<40)
	floatIn("selfplay.resign_threshold", sp.ResignThreshold, 0, 0.999)
	floatIn("selfplay.resign_playthrough", sp.ResignPlaythrough, 0, 1)
	if err := c.Replay.Window.Validate(); err != nil {
		errs = append(errs, prefix("replay.window.", err))
	}
	floatIn("replay.train_ratio", c.Replay.TrainRatio, 0.01, 1000)
	intIn("replay.min_samples", c.Replay.MinSamples, 1, c.Replay.Window.Max)
	intIn("trainer.batch_size", c.Trainer.BatchSize, 1, 4096)
	intIn("trainer.publish_every", c.Trainer.PublishEvery, 1, 1_000_000)
	intIn("trainer.checkpoint_every", c.Trainer.CheckpointEvery, 1, 100_000_000)
	intIn("trainer.keep_last", c.Trainer.KeepLast, 2, 10_000)
	floatIn("trainer.value_from_search", c.Trainer.ValueFromSearch, 0, 1)
	intIn("eval.games", c.Eval.Games, 0, 100_000)
	if c.Eval.Games%2 != 0 {
		bad("eval.games", "must be even (each pair of games swaps sides), is %d", c.Eval.Games)
	}
	intIn("eval.simulations", c.Eval.Simulations, 1, 1_000_000)
	intIn("eval.previous", c.Eval.Previous, 0, 100)
	intIn("eval.opening", c.Eval.Opening, 0, 1000)
	intIn("eval.workers", c.Eval.Workers, 1, 256)
	for i, b := range c.Eval.Baselines {
		field := fmt.Sprintf("eval.baselines[%d]", i)
		if _, err := selfplay.ParseSpec(b); err != nil {
			bad(field, "%v", err)
		} else if slices.Contains(c.Eval.Baselines[:i], b) {
			bad(field, "%q is listed twice", b)
		}
	}
	if c.Stop.Steps < 0 {
		bad("stop.steps", "must be ≥ 0, is %d", c.Stop.Steps)
	}
	if c.Stop.Time < 0 {
		bad("stop.time", "must be ≥ 0, is %v", time.Duration(c.Stop.Time))
	}
	if len(errs) == 0 {
		// The search's own checks, for the keys the ranges above leave to it.
		var pe *mcts.ParamError
		if err := sp.Params.Validate(); errors.As(err, &pe) {
			bad("selfplay."+pe.Key, "must be %s, is %v", pe.Want, pe.Value)
		} else if err != nil {
			errs = append(errs, fmt.Errorf("selfplay: %w", err))
		}
	}
	return errors.Join(errs...)
}

// LoadConfig reads, decodes and checks a configuration file; errors name the file and the
// line or field: "configs/yinsh.yaml: net.blocks: must be in [0, 128], is -1".
func LoadConfig(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, err
	}
	c, err := ParseConfig(data)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// ParseConfig decodes a configuration strictly (an unknown field, a wrong type, a fraction for
// a whole number is an error, named by line and key) over the defaults of its game, and
// validates it.
func ParseConfig(data []byte) (Config, error) {
	// The defaults depend on the game: a first pass reads it, the second decodes over them.
	// Unknown keys and values of the wrong type first: a mistyped "game" is named as such, not
	// as a missing game, and "game: [yinsh]" by its key.
	if bad := unknownKeys(data); len(bad) > 0 {
		return Config{}, errors.New(strings.Join(bad, "; "))
	}
	var probe struct {
		Game string `yaml:"game"`
	}
	if err := yaml.Unmarshal(data, &probe); err != nil {
		return Config{}, yamlError(err, data)
	}
	if probe.Game == "" {
		return Config{}, errors.New("game: missing (the game to learn, as yinsh-blitz)")
	}
	c := DefaultConfig(probe.Game)
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		if errors.Is(err, io.EOF) {
			return Config{}, errors.New("empty configuration")
		}
		return Config{}, yamlError(err, data)
	}
	// Only the first document is decoded: a second one would be ignored, so it is refused.
	var next yaml.Node
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		line := next.Line
		if err != nil {
			return Config{}, yamlError(err, data)
		}
		return Config{}, fmt.Errorf("line %d: a second YAML document (after ---): a configuration is one document", line)
	}
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// Marshal writes the configuration as YAML, every field explicit.
func (c *Config) Marshal() ([]byte, error) { return yaml.Marshal(c) }

// yamlError makes yaml's messages shorter: "line 4: field blocs not found in type net.Config",
// and names a syntax error's true line in data: yaml.v3 counts a parser's error (an unclosed
// flow mapping, a key where none is expected) from line 0, a scanner's from line 1, so "{" left
// open on line 2 was said to be on line 1 (go-yaml/yaml#205); an error on the first line it
// says without a line.
func yamlError(err error, data []byte) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	msg = strings.ReplaceAll(msg, "unmarshal errors:\n  ", "")
	msg = strings.ReplaceAll(msg, "\n  ", "; ")
	line, problem := 0, msg
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		n, after, found := strings.Cut(rest, ": ")
		v, aerr := strconv.Atoi(n)
		if !found || aerr != nil {
			return errors.New(msg)
		}
		line, problem = v, after
	}
	if !slices.Contains(yamlParserProblems, problem) {
		return errors.New(msg) // a scanner's or a decoder's: counted from 1 already
	}
	// The document's last line at most: a problem found at the end of the stream is on it.
	lines := bytes.Count(data, []byte("\n"))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		lines++
	}
	return fmt.Errorf("line %d: %s", max(1, min(line+1, lines)), problem)
}

// yamlParserProblems are the problems yaml.v3's parser (not its scanner) reports, whose line it
// counts from 0 (parserc.go's yaml_parser_set_parser_error calls).
var yamlParserProblems = []string{
	"did not find expected ',' or ']'", "did not find expected ',' or '}'", "did not find expected key",
	"did not find expected node content", "did not find expected '-' indicator",
	"did not find expected <document start>", "did not find expected <stream-start>",
	"found duplicate %YAML directive", "found duplicate %TAG directive", "found incompatible YAML document",
	"found undefined tag handle",
}

func prefix(p string, err error) error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var errs []error
		for _, e := range j.Unwrap() {
			errs = append(errs, fmt.Errorf("%s%w", p, e))
		}
		return errors.Join(errs...)
	}
	return fmt.Errorf("%s%w", p, err)
}
