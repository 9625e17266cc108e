package selfplay

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/mcts"
	"github.com/zerogames/zero/models"
	"github.com/zerogames/zero/net"
	"go.yaml.in/yaml/v3"
)

// Player is anything that chooses moves: the one abstraction of zero for it, behind arenas
// (PlayGame), the engine protocol's genmove and go, and the agent people play in `zero play`
// and `zero serve` (internal/games.Agent is a Player seen through positions in notation). The
// players are made from spec strings (Spec, NewPlayer): random, uct:N, ucb1:N, ab:D and
// mcts:N:CHECKPOINT. A player serves one game at a time; a match makes one per side and reuses
// it from game to game.
type Player[S env.State[S]] interface {
	// NewGame gets the player ready for a game starting at s, with its generators seeded by
	// seed (a game played twice with the same seeds is played alike).
	NewGame(s S, seed uint64)
	// Choose returns the player's decision at s, which is his to make; move is the number of
	// decisions made before in the game (chance's included).
	Choose(ctx context.Context, s S, move int) (env.Action, error)
	// Played tells the player that a was decided at s, by either side or by chance.
	Played(s S, a env.Action) error
	// Analyze thinks about s, which is a player's decision, as Choose would but for people and
	// the engine protocol: it returns the moves considered, ranked, the player's choice first,
	// within lim where lim sets the work (else the spec's). progress, if not nil, is called from
	// time to time with the work done and planned. A cancelled ctx stops a search early with
	// what it has.
	Analyze(ctx context.Context, s S, lim Limits, progress func(done, total int)) (Analysis, error)
}

// Limits sets the work of an analysis; a zero field leaves the spec's.
type Limits struct {
	// Simulations replaces the spec's N (searches that count simulations: uct, ucb1, mcts).
	Simulations int
	// Time caps the analysis (the searches; alpha-beta keeps its last complete depth).
	Time time.Duration
	// Untimed drops the spec's time a move when Time is 0: a timed search (uct:1s) then runs
	// exactly Simulations (the engine's go visits N).
	Untimed bool
	// Cap, if positive, bounds the time whatever the spec's, Time or Untimed say: the search
	// stops at the earlier of its own end and Cap (a server's bound on any one request; the
	// searches keep what they found, alpha-beta its last complete depth).
	Cap time.Duration
}

// capped is t bounded by cap where cap is positive (t = 0: no bound of its own).
func capped(t, cap time.Duration) time.Duration {
	if cap > 0 && (t <= 0 || t > cap) {
		return cap
	}
	return t
}

// Analysis is what a player thinks of a position.
type Analysis struct {
	// Moves are the moves considered, in the game's notation, the chosen one first.
	Moves []MoveStat
	// Value is the expected result for the player to decide, in [-1, 1] (0 where the player
	// has no opinion: NoValue).
	Value float64
	// NoValue tells that the player has no opinion of the position (random, a chance
	// decision): its Value, 0, means nothing.
	NoValue bool
	// Work is the simulations (alpha-beta: the nodes) spent.
	Work int
	// PV is the principal variation: the chosen move, then the continuation the search
	// expects (both players' decisions, up to chance's), in the game's notation.
	PV []string
}

// maxPV bounds the principal variation of an analysis.
const maxPV = 32

// MoveStat is one move of an analysis.
type MoveStat struct {
	Move string
	// Share is the share of the search spent on it (the policy), in [0, 1].
	Share float64
	// WinProb is the chance of winning after it for the player to decide, (value+1)/2, or -1
	// when unknown.
	WinProb float64
	// Visits is the simulations through it (tree searches; 0 for other players), Prior its
	// prior in the search (-1 where the player has none), Proven that the solver proved its
	// value (WinProb is then 0 or 1, or a proven draw's 0.5).
	Visits int
	Prior  float64
	Proven bool
	// PV is the line the search expects after it, the move first, for a tree search's moves
	// with visits (up to maxMovePV decisions); the chosen move's is the Analysis' PV.
	PV []string
}

// maxMovePV bounds the line of each move of an analysis.
const maxMovePV = 16

// LCB is a lower confidence bound of the move's WinProb, -1 when unknown: a proven value
// itself; else the 95% normal bound of a mean of Visits results, w − 1.96·√(w(1−w)/Visits)
// (the search keeps no variance; w(1−w) is held above 0.01 so that a few equal results do
// not make a narrow bound), at least 0.
func (m MoveStat) LCB() float64 {
	switch {
	case m.WinProb < 0:
		return -1
	case m.Proven:
		return m.WinProb
	case m.Visits == 0:
		return 0
	}
	v := max(m.WinProb*(1-m.WinProb), 0.01)
	return max(m.WinProb-1.96*math.Sqrt(v/float64(m.Visits)), 0)
}

// Best is the move chosen.
func (a Analysis) Best() string { return a.Moves[0].Move }

// ChoiceValue is the expected result of the chosen move for the player to decide, in [-1, 1]
// (2·WinProb−1), or Value where the move's is unknown: the value of the moves people are shown.
// Value, a search's root mean, averages every simulation, exploration included: spread over
// many moves (uct's equal priors, YINSH's 85 placements) it sits near 0 above moves winning 55%
// and more.
func (a Analysis) ChoiceValue() float64 {
	if len(a.Moves) > 0 && a.Moves[0].WinProb >= 0 {
		return 2*a.Moves[0].WinProb - 1
	}
	return a.Value
}

// Spec is a player described by a spec string:
//
//	random              uniform among the legal actions
//	uct:N               Monte Carlo tree search without knowledge: N simulations, each valued
//	                    by one random game from its leaf, PUCT with equal priors, no solver
//	uct:TIME            the same, searching TIME a move (1s, 250ms) whatever the simulations
//	ucb1:N              the same with classic UCT's UCB1 selection (weaker: docs/BENCHMARKS.md)
//	ab:D                alpha-beta to D turns (1 to mcts.MaxABDepth; mcts.AlphaBeta): ab:1
//	                    takes every win in one, ab:2 never allows a loss in one; the positions
//	                    past D turns valued by the game's heuristic where it has one (then a
//	                    classical engine's search, mcts.AlphaBeta), else 0
//	ab:D:TIME           the same, iterative deepening stopped after TIME a move (1s, 250ms)
//	ab:D:eval=none      the same valuing only the ends of the game (every position past D turns
//	ab:D:eval=none:TIME is worth 0, whatever the game's heuristic): the ab:D of the figures
//	                    measured before the games had heuristics
//	mcts:N:CHECKPOINT   AlphaZero search: N simulations of PUCT guided by the network of a
//	                    checkpoint file, one leaf evaluated at a time, with
//	                    the solver (mcts.Params.Solver); no noise and the most visited move,
//	                    so arenas of such players want an ArenaConfig.Opening
//	mcts:TIME:CHECKPOINT the same, searching TIME a move
//	mcts:N:KEY=VALUE:…:CHECKPOINT  the same with search parameters changed (mcts.Params'
//	                    keys of configuration files: mcts:400:c_puct=1.25:models/imbriqua.zck);
//	                    without them, the game's PlayParams. One more key, symmetries=K, has
//	                    the network evaluate each leaf turned by the game's first K symmetries
//	                    and the search take the mean (mcts.Symmetric): K evaluations a leaf
//	uct:TIME:threads=K  (and ucb1, mcts: the setting threads=K, mcts:N:threads=K:CHECKPOINT)
//	                    the search grows its tree from K goroutines at once, each with an
//	                    oracle of its own (mcts.Search.SetHelpers). Without it a search bounded
//	                    by time alone (uct:TIME, mcts:TIME, the engine's go infinite and go
//	                    movetime) takes every core (GOMAXPROCS), an arena's player its share of
//	                    them (ArenaConfig.Workers), and a search of N simulations one goroutine,
//	                    reproducibly
//
// A player given TIME instead of N plays as fast as the machine is: its games depend on the
// machine and its load, and are not reproduced by their seeds.
//
// Every number has a bound, so that no spec makes a player allocate or run without end: N is
// 1 to MaxSimulations, TIME (and ab's) at most MaxMoveTime, D 1 to mcts.MaxABDepth, and the
// settings are held to mcts.Params.Validate's bounds (in_flight at most mcts.MaxInFlight).
type Spec struct {
	// Text is the spec as given, which names the player in tables and records.
	Text string
	// Kind is "random", "uct", "ucb1", "ab" or "mcts".
	Kind string
	// Simulations is N (uct, ucb1 and mcts; 0 when they search for Time).
	Simulations int
	// Depth is D (ab). Time is the cap on a move's search (ab), or the time of a move's search
	// (uct, ucb1 and mcts given TIME instead of N).
	Depth int
	Time  time.Duration
	// EndsOnly is an ab player's setting eval=none: only the ends of the game count, not the
	// game's heuristic (mcts.AlphaBeta.EndsOnly).
	EndsOnly bool
	// Checkpoint is the checkpoint file (mcts).
	Checkpoint string
	// Settings are an mcts player's changes to its game's search parameters (PlayParams), as
	// given: KEY=VALUE fields joined by ":", the keys those of mcts.Params in configuration
	// files (c_puct=0.6:fpu_reduction=0), and symmetries. "" for none.
	Settings string
	// Symmetries is an mcts player's setting symmetries=K: the network evaluates each leaf in
	// the game's first K symmetries (mcts.Symmetric). 0 when not set: one, the identity.
	Symmetries int
	// Threads is the setting threads=K of uct, ucb1 and mcts: the goroutines a search grows
	// its tree from. 0 when not set: every core for a search bounded by time alone (see
	// SearchThreads), one for any other.
	Threads int
}

// The largest budgets of a spec.
const (
	// MaxSimulations is the most simulations a spec's N asks, as the engine's go visits N.
	MaxSimulations = 1_000_000_000
	// MaxMoveTime is the longest time a move a spec's TIME asks.
	MaxMoveTime = 24 * time.Hour
)

// symmetriesKey and threadsKey are the settings of Spec.Symmetries and Spec.Threads, which
// are not search parameters.
const (
	symmetriesKey = "symmetries"
	threadsKey    = "threads"
)

// MaxThreads bounds a spec's threads=K.
const MaxThreads = 256

// SearchThreads is the number of goroutines a search bounded by time alone grows its tree
// from when its spec does not say (threads=K): runtime.GOMAXPROCS(0), the machine's cores
// unless told otherwise. An arena playing several games at once shares them out.
func SearchThreads() int { return min(runtime.GOMAXPROCS(0), MaxThreads) }

// readThreads reads the value of a setting threads=K.
func readThreads(text, f, value string) (int, error) {
	k, err := strconv.Atoi(value)
	if err != nil || k < 1 || k > MaxThreads || value[0] == '+' {
		return 0, fmt.Errorf("player %q: the setting %q: %q is not a whole number of threads from 1 to %d", text, f, value, MaxThreads)
	}
	return k, nil
}

// isSetting tells a KEY=VALUE field of an mcts spec from the start of its checkpoint's path:
// it holds "=" but no path separator and does not start with ".". (A checkpoint whose name holds
// "=" is written ./NAME.)
func isSetting(f string) bool {
	return strings.Contains(f, "=") && !strings.ContainsAny(f, `/\`) && !strings.HasPrefix(f, ".")
}

// apply sets the spec's Settings into p, refusing a key that is not a search parameter, a key
// given twice, or a value that is not one plain value of its key's type.
func (sp Spec) apply(p *mcts.Params) error {
	if sp.Settings == "" {
		return nil
	}
	keys := settingKeys()
	var seen []string
	for _, f := range strings.Split(sp.Settings, ":") {
		key, value, _ := strings.Cut(f, "=")
		var node yaml.Node
		switch {
		case !slices.Contains(keys, key) && key != symmetriesKey && key != threadsKey:
			return fmt.Errorf("player %q: the setting %q: %q is not a search parameter (%s, or %s, %s; a checkpoint whose name holds \"=\" is written ./NAME)", sp.Text, f, key, strings.Join(keys, ", "), symmetriesKey, threadsKey)
		case slices.Contains(seen, key):
			return fmt.Errorf("player %q: the setting %q: %s is set twice", sp.Text, f, key)
		case value == "":
			return fmt.Errorf("player %q: the setting %q has no value", sp.Text, f)
		case key == symmetriesKey || key == threadsKey:
			seen = append(seen, key)
			continue // not a search parameter: ParseSpec reads it into Symmetries or Threads
		case strings.ContainsAny(value, "#\n\r") || yaml.Unmarshal([]byte(value), &node) != nil ||
			len(node.Content) != 1 || node.Content[0].Kind != yaml.ScalarNode || node.Content[0].Tag == "!!null":
			return fmt.Errorf("player %q: the setting %q: %q is not one plain value", sp.Text, f, value)
		}
		seen = append(seen, key)
		if err := yaml.Unmarshal([]byte(key+": "+value+"\n"), p); err != nil {
			var te *yaml.TypeError
			if errors.As(err, &te) && len(te.Errors) > 0 {
				err = errors.New(te.Errors[0])
			}
			return fmt.Errorf("player %q: the setting %q: %q is not a value of %s: %v", sp.Text, f, value, key, err)
		}
	}
	return nil
}

// settingKeys lists the keys of mcts.Params in configuration files that take one plain value
// (not temperature, a list), in the order of its fields: those a spec's settings may set.
func settingKeys() []string {
	t := reflect.TypeFor[mcts.Params]()
	keys := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		if k, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); k != "" && k != "-" && f.Type.Kind() != reflect.Slice {
			keys = append(keys, k)
		}
	}
	return keys
}

// WithSetting is the text of the spec with the setting key=value in place of the spec's own
// (mcts: a search parameter, symmetries or threads; uct and ucb1: threads), checked as
// ParseSpec checks it: the engine's setoption.
func (sp Spec) WithSetting(key, value string) (string, error) {
	if key == "" || strings.ContainsAny(key, ":= ") || value == "" || strings.ContainsAny(value, ": ") {
		return "", fmt.Errorf("setting %q=%q: want a key and a value, without spaces, ':' or '='", key, value)
	}
	field := key + "=" + value
	var text string
	switch k := sp.KindInfo(); {
	case k.Network:
		var kept []string
		if sp.Settings != "" {
			for _, f := range strings.Split(sp.Settings, ":") {
				if k, _, _ := strings.Cut(f, "="); k != key {
					kept = append(kept, f)
				}
			}
		}
		budget, _, _ := strings.Cut(strings.TrimPrefix(sp.Text, "mcts:"), ":")
		text = strings.Join(append(append([]string{"mcts", budget}, kept...), field, sp.Checkpoint), ":")
	case k.Searches:
		if key != threadsKey {
			return "", fmt.Errorf("player %q: %s's only setting is threads=K", sp.Text, sp.Kind)
		}
		text = sp.Kind + ":" + sp.Budget() + ":" + field
	default:
		return "", fmt.Errorf("player %q: %s players have no settings (mcts has search parameters, uct and ucb1 threads)", sp.Text, sp.Kind)
	}
	if _, err := ParseSpec(text); err != nil {
		return "", err
	}
	return text, nil
}

// PlayParams returns the search parameters of game's mcts:N players, before a spec's
// Settings: mcts.DefaultParams, with the changes measured to play the game better, as the
// game's registration gave them (SetPlayParams).
func PlayParams(game string) mcts.Params {
	p := mcts.DefaultParams()
	playTuning.RLock()
	tune := playTuning.m[game]
	playTuning.RUnlock()
	if tune != nil {
		tune(&p)
	}
	return p
}

// SetPlayParams makes tune game's changes to mcts.DefaultParams in PlayParams (nil: none).
// The play registry calls it for each game registered with search settings (games.Play), so
// that no code below the games names one.
func SetPlayParams(game string, tune func(*mcts.Params)) {
	playTuning.Lock()
	defer playTuning.Unlock()
	if playTuning.m == nil {
		playTuning.m = map[string]func(*mcts.Params){}
	}
	if tune == nil {
		delete(playTuning.m, game)
		return
	}
	playTuning.m[game] = tune
}

var playTuning struct {
	sync.RWMutex
	m map[string]func(*mcts.Params)
}

// Budget is the spec's N or TIME (uct, ucb1, mcts), as given in a spec.
func (sp Spec) Budget() string {
	if sp.Simulations == 0 && sp.Time > 0 {
		return sp.Time.String()
	}
	return strconv.Itoa(sp.Simulations)
}

// ParseSpec reads a player spec, by its kind's parser (Kinds).
func ParseSpec(text string) (Spec, error) {
	name, rest, _ := strings.Cut(text, ":")
	k, ok := KindOf(name)
	if !ok {
		return Spec{}, fmt.Errorf("player %q: unknown kind %q (want %s)", text, name, strings.Join(KindForms(), ", "))
	}
	return k.parse(Spec{Text: text, Kind: name}, rest)
}

// parseBudget reads N, a number of simulations, or TIME, a duration (with its unit), of the
// spec text.
func parseBudget(text, field string) (int, time.Duration, error) {
	if strings.TrimLeft(field, "0123456789") != "" {
		t, err := time.ParseDuration(field)
		if err != nil || t <= 0 || field[0] == '+' {
			return 0, 0, fmt.Errorf("player %q: %q is neither a number of simulations ≥ 1 nor a time a move > 0 (1s, 250ms)", text, field)
		}
		if t > MaxMoveTime {
			return 0, 0, fmt.Errorf("player %q: the time a move %v is more than %v", text, t, MaxMoveTime)
		}
		return 0, t, nil
	}
	n, err := strconv.Atoi(field)
	if err != nil || n < 1 || n > MaxSimulations {
		return 0, 0, fmt.Errorf("player %q: the number of simulations %q is not a whole number from 1 to %d", text, field, MaxSimulations)
	}
	return n, 0, nil
}

func parseRandom(sp Spec, rest string) (Spec, error) {
	text := sp.Text
	if text != "random" {
		return Spec{}, fmt.Errorf("player %q: random takes no parameter", text)
	}
	return sp, nil
}

func parseRollout(sp Spec, rest string) (Spec, error) {
	text, kind := sp.Text, sp.Kind
	field, setting, more := strings.Cut(rest, ":")
	n, t, err := parseBudget(text, field)
	if err != nil {
		return Spec{}, err
	}
	sp.Simulations, sp.Time = n, t
	if more {
		value, ok := strings.CutPrefix(setting, threadsKey+"=")
		if !ok || strings.Contains(value, ":") {
			return Spec{}, fmt.Errorf("player %q: the setting %q: %s's only setting is threads=K (%s:N:threads=K)", text, setting, kind, kind)
		}
		if sp.Threads, err = readThreads(text, setting, value); err != nil {
			return Spec{}, err
		}
	}
	return sp, nil
}

func parseAlphaBeta(sp Spec, rest string) (Spec, error) {
	text := sp.Text
	field, cap, timed := strings.Cut(rest, ":")
	d, err := strconv.Atoi(field)
	if err != nil || field == "" || field[0] == '+' || d < 1 || d > mcts.MaxABDepth {
		return Spec{}, fmt.Errorf("player %q: the depth %q is not a whole number of turns from 1 to %d", text, field, mcts.MaxABDepth)
	}
	sp.Depth = d
	// The setting eval=none, then the time a move.
	for timed {
		f, after, more := strings.Cut(cap, ":")
		if !strings.Contains(f, "=") {
			break
		}
		cap, timed = after, more
		switch {
		case f != "eval=none" && strings.HasPrefix(f, "eval="):
			return Spec{}, fmt.Errorf("player %q: the setting %q: want eval=none (only the ends of the game count)", text, f)
		case f != "eval=none":
			return Spec{}, fmt.Errorf("player %q: the setting %q: an ab player's only setting is eval=none (only the ends of the game count)", text, f)
		case sp.EndsOnly:
			return Spec{}, fmt.Errorf("player %q: the setting %q is given twice", text, f)
		}
		sp.EndsOnly = true
	}
	if timed {
		t, err := time.ParseDuration(cap)
		if err != nil || t <= 0 {
			if _, after, ok := strings.Cut(cap, ":"); ok && strings.Contains(after, "=") {
				return Spec{}, fmt.Errorf("player %q: the setting %q comes before the time a move (ab:D:eval=none:TIME)", text, after)
			}
			return Spec{}, fmt.Errorf("player %q: the time a move %q is not a duration > 0 (1s, 250ms)", text, cap)
		}
		if t > MaxMoveTime {
			return Spec{}, fmt.Errorf("player %q: the time a move %v is more than %v", text, t, MaxMoveTime)
		}
		sp.Time = t
	}
	return sp, nil
}

func parseMCTS(sp Spec, rest string) (Spec, error) {
	text := sp.Text
	field, path, ok := strings.Cut(rest, ":")
	if !ok || path == "" {
		return Spec{}, fmt.Errorf("player %q: want mcts:N:CHECKPOINT or mcts:TIME:CHECKPOINT", text)
	}
	n, t, err := parseBudget(text, field)
	if err != nil {
		return Spec{}, err
	}
	// Settings: the fields KEY=VALUE between the budget and the checkpoint.
	var settings []string
	for {
		f, after, ok := strings.Cut(path, ":")
		if !ok || !isSetting(f) {
			break
		}
		settings, path = append(settings, f), after
	}
	if strings.HasPrefix(path, ":") {
		return Spec{}, fmt.Errorf("player %q: an empty field before the checkpoint", text)
	}
	if path == "" {
		return Spec{}, fmt.Errorf("player %q: want mcts:N:CHECKPOINT or mcts:TIME:CHECKPOINT", text)
	}
	if isSetting(path) {
		return Spec{}, fmt.Errorf("player %q: no checkpoint after the setting %q (mcts:N:KEY=VALUE:CHECKPOINT; a checkpoint whose name holds \"=\" is written ./NAME)", text, path)
	}
	sp.Simulations, sp.Time, sp.Checkpoint = n, t, path
	sp.Settings = strings.Join(settings, ":")
	for _, f := range settings {
		if value, ok := strings.CutPrefix(f, symmetriesKey+"="); ok {
			k, err := strconv.Atoi(value)
			if err != nil || k < 1 || value[0] == '+' {
				return Spec{}, fmt.Errorf("player %q: the setting %q: %q is not a whole number of symmetries ≥ 1", text, f, value)
			}
			sp.Symmetries = k
		}
		if value, ok := strings.CutPrefix(f, threadsKey+"="); ok {
			if sp.Threads, err = readThreads(text, f, value); err != nil {
				return Spec{}, err
			}
		}
	}
	p := mcts.DefaultParams()
	if err := sp.apply(&p); err != nil {
		return Spec{}, err
	}
	if err := p.Validate(); err != nil {
		return Spec{}, fmt.Errorf("player %q: %w", text, err)
	}
	return sp, nil
}

// PlayerCacheBytes bounds an mcts:N player's cache of its network's answers (mcts.Cache).
const PlayerCacheBytes = 32 << 20

// NewPlayer makes the player of spec for game g. An mcts:N:CHECKPOINT player loads its
// checkpoint (net.Load refuses one of another game or shape, or a damaged one) and runs it on
// an inference engine of its own (a net.Engine is for one goroutine).
func NewPlayer[S env.State[S]](g env.Game[S], sp Spec) (Player[S], error) {
	for i, k := range kinds {
		if k.Name == sp.Kind {
			return makers[S]()[i](g, sp)
		}
	}
	return nil, fmt.Errorf("player %q: unknown kind %q", sp.Text, sp.Kind)
}

func newRandom[S env.State[S]](g env.Game[S], sp Spec) (Player[S], error) {
	return &Random[S]{actions: make([]env.Action, 0, g.Info().NumActions)}, nil
}

func newRollout[S env.State[S]](g env.Game[S], sp Spec) (Player[S], error) {
	oracle := mcts.NewRollout(g, 0, 1)
	// PUCT with the rollouts' equal priors is stronger than UCB1 (docs/BENCHMARKS.md).
	// Both stay classic Monte Carlo tree search, without the solver, so that they remain
	// the yardsticks they were.
	p := mcts.DefaultParams()
	p.Solver = false
	if sp.Kind == "ucb1" {
		p = mcts.UCTParams()
	}
	sr, err := newSearchPlayer(g, oracle, p, mcts.Budget{Simulations: sp.Simulations, Time: sp.Time}, oracle.Seed)
	if err != nil {
		return nil, err
	}
	sr.threads = sp.Threads
	sr.newHelper = func(seed uint64) (mcts.Oracle[S], error) { return mcts.NewRollout(g, seed, 1), nil }
	return sr, nil
}

func newAlphaBeta[S env.State[S]](g env.Game[S], sp Spec) (Player[S], error) {
	ab, err := mcts.NewAlphaBeta(g, sp.Depth, sp.Time, 0)
	if err != nil {
		return nil, fmt.Errorf("player %q: %w", sp.Text, err)
	}
	if sp.EndsOnly {
		ab.EndsOnly()
	}
	return &AlphaBetaPlayer[S]{ab: ab, timeCap: sp.Time}, nil
}

func newMCTS[S env.State[S]](g env.Game[S], sp Spec) (Player[S], error) {
	spec, err := net.SpecOf(g.Info(), g)
	if err != nil {
		return nil, fmt.Errorf("player %q: %w", sp.Text, err)
	}
	// One leaf at a time (PlayParams' InFlight): at 200 simulations it beat 8 leaves in
	// flight (virtual loss) 57–1–42 with the same network (docs/BENCHMARKS.md, "selfplay
	// (arenas)").
	params := PlayParams(g.Info().Name)
	if err := sp.apply(&params); err != nil {
		return nil, err
	}
	if err := params.Validate(); err != nil {
		return nil, fmt.Errorf("player %q: %w", sp.Text, err)
	}
	e, err := net.LoadEngine(models.ReadFile, sp.Checkpoint, spec)
	if err != nil {
		return nil, fmt.Errorf("player %q: %w", sp.Text, err)
	}
	var oracle mcts.Oracle[S] = mcts.Observe(g, e)
	if sp.Symmetries > 1 {
		if oracle, err = mcts.NewSymmetric(g, oracle, sp.Symmetries); err != nil {
			e.Close()
			return nil, fmt.Errorf("player %q: %w", sp.Text, err)
		}
	}
	p, err := newSearchPlayer(g, oracle, params, mcts.Budget{Simulations: sp.Simulations, Time: sp.Time}, nil)
	if err != nil {
		e.Close()
		return nil, fmt.Errorf("player %q: %w", sp.Text, err)
	}
	// Made by the first search (reclaim): a player made and left unused (a web game whose
	// person moves first, or never) holds none of its tens of megabytes.
	p.newCache = func() *mcts.Cache[S] { return mcts.NewCache(g, PlayerCacheBytes) }
	p.released = true
	p.engine = e.Describe()
	p.threads = sp.Threads
	// A helper's engine runs the same model, read once (net.Engine is for one goroutine).
	model, backend := e.Model(), e.Backend()
	p.newHelper = func(uint64) (mcts.Oracle[S], error) {
		he, err := net.NewEngineOn(model, backend)
		if err != nil {
			return nil, err
		}
		var o mcts.Oracle[S] = mcts.Observe(g, he)
		if sp.Symmetries > 1 {
			if o, err = mcts.NewSymmetric(g, o, sp.Symmetries); err != nil {
				he.Close()
				return nil, err
			}
		}
		return o, nil
	}
	return p, nil
}

// Random plays uniformly among the legal actions.
type Random[S env.State[S]] struct {
	rng     *rand.Rand
	pcg     *rand.PCG // rng's source, when the player owns it
	actions []env.Action
}

// NewRandom returns a random player that draws from rng, which its owner seeds: NewGame
// leaves it alone. (internal/games shares one generator between the player and chance's
// draws.)
func NewRandom[S env.State[S]](rng *rand.Rand) *Random[S] { return &Random[S]{rng: rng} }

// NewGame reseeds the player's own generator.
func (r *Random[S]) NewGame(_ S, seed uint64) {
	switch {
	case r.pcg != nil:
		r.pcg.Seed(seed, 0)
	case r.rng == nil:
		r.pcg = rand.NewPCG(seed, 0)
		r.rng = rand.New(r.pcg)
	}
}

// Choose draws a legal action.
func (r *Random[S]) Choose(_ context.Context, s S, _ int) (env.Action, error) {
	if r.rng == nil {
		r.NewGame(s, 0)
	}
	r.actions = s.Legal(r.actions[:0])
	if len(r.actions) == 0 {
		return 0, errors.New("random player: no legal action")
	}
	return r.actions[r.rng.IntN(len(r.actions))], nil
}

// Played does nothing: a random player remembers nothing.
func (r *Random[S]) Played(S, env.Action) error { return nil }

// Analyze draws a legal action: all of the player's (random) thought.
func (r *Random[S]) Analyze(ctx context.Context, s S, _ Limits, _ func(int, int)) (Analysis, error) {
	a, err := r.Choose(ctx, s, 0)
	if err != nil {
		return Analysis{}, err
	}
	move := env.ActionString(s, a)
	return Analysis{Moves: []MoveStat{{Move: move, Share: 1, WinProb: -1, Prior: -1, PV: []string{move}}}, PV: []string{move}, NoValue: true}, nil
}

// Searcher plays the choice of a tree search, keeping the tree from move to move.
type Searcher[S env.State[S]] struct {
	search *mcts.Search[S]
	budget mcts.Budget  // the spec's
	seed   func(uint64) // reseeds the oracle, if it draws numbers
	policy []float32    // Analyze's buffer, over the action space
	engine string       // what its network runs on (net.Engine.Describe), "" without one
	// newCache makes the cache of the network's answers (nil: the search has none); released
	// tells that the search has none now (a new player, or Release gave it back), to be made
	// by the next search.
	newCache func() *mcts.Cache[S]
	released bool
	// threads is the spec's threads=K (0: SearchThreads for a search bounded by time alone,
	// one for any other); newHelper makes the oracle of one more goroutine, made as a search
	// first needs it and kept in helpers.
	threads   int
	newHelper func(seed uint64) (mcts.Oracle[S], error)
	helpers   []mcts.Oracle[S]
}

// threadsFor is the number of goroutines a search within b grows the tree from.
func (p *Searcher[S]) threadsFor(b mcts.Budget) int {
	switch {
	case p.newHelper == nil:
		return 1
	case p.threads > 0:
		return p.threads
	case b.Time > 0 && (b.Simulations <= 0 || b.Simulations == math.MaxInt):
		return SearchThreads()
	}
	return 1
}

// run searches within b from the threads threadsFor gives.
func (p *Searcher[S]) run(ctx context.Context, b mcts.Budget) error {
	n := p.threadsFor(b)
	for len(p.helpers) < n-1 {
		o, err := p.newHelper(uint64(len(p.helpers)) + 1)
		if err != nil {
			return err
		}
		p.helpers = append(p.helpers, o)
	}
	if err := p.search.SetHelpers(p.helpers[:n-1]); err != nil {
		return err
	}
	return p.search.Run(ctx, b)
}

// Release gives back the memory the player's thinking holds between moves, the search's tree
// and its cache of the network's answers (tens to hundreds of megabytes after a search of
// thousands of simulations); the next search makes them again, starting from a fresh tree.
// For a player idle long between its moves, as a web game's agent waiting on a person.
func (p *Searcher[S]) Release() {
	p.search.Release()
	if p.newCache != nil {
		p.search.SetCache(nil)
		p.released = true
	}
}

// reclaim makes again what Release gave back.
func (p *Searcher[S]) reclaim() {
	if p.released {
		p.search.SetCache(p.newCache())
		p.released = false
	}
}

// Engine says what the player's network runs on (backend, ISA: net.Engine.Describe), or ""
// for a search without a network.
func (p *Searcher[S]) Engine() string { return p.engine }

func newSearchPlayer[S env.State[S]](g env.Game[S], o mcts.Oracle[S], p mcts.Params, b mcts.Budget, seed func(uint64)) (*Searcher[S], error) {
	s, err := mcts.New(g, o, p, 0)
	if err != nil {
		return nil, err
	}
	return &Searcher[S]{search: s, budget: b, seed: seed, policy: make([]float32, g.Info().NumActions)}, nil
}

// NewGame starts a new tree at s and reseeds the search and its oracle.
func (p *Searcher[S]) NewGame(s S, seed uint64) {
	p.search.Seed(seed)
	if p.seed != nil {
		p.seed(seed ^ 0x9e3779b97f4a7c15)
	}
	p.search.Reset(s)
}

// Choose searches s within the budget and returns the search's choice.
func (p *Searcher[S]) Choose(ctx context.Context, s S, move int) (env.Action, error) {
	p.reclaim()
	p.search.SetRoot(s)
	if err := p.run(ctx, p.budget); err != nil {
		return 0, err
	}
	return p.search.Choose(move)
}

// Simulations is the number of simulations the last search ran.
func (p *Searcher[S]) Simulations() int { return p.search.Simulations() }

// Played moves the root of the tree along a, keeping its subtree.
func (p *Searcher[S]) Played(s S, a env.Action) error {
	if p.search.Root() != s {
		p.search.Reset(s.Play(a))
		return nil
	}
	return p.search.Advance(a)
}

// Analyze searches s and ranks the root's moves: the choice first, then by visits (and prior),
// each with its share of the search (the visits' shares, or the solver's proven choice) and,
// where visited or proven, its chance of winning. The tree is kept for the next search when s
// lies a few decisions below the last root. A search cancelled after some simulations answers
// with what it has.
func (p *Searcher[S]) Analyze(ctx context.Context, s S, lim Limits, progress func(done, total int)) (Analysis, error) {
	b := p.budget
	if lim.Simulations > 0 {
		b.Simulations = lim.Simulations
	}
	if lim.Time > 0 {
		b.Time = lim.Time
	} else if lim.Untimed {
		b.Time = 0
	}
	b.Time = capped(b.Time, lim.Cap)
	if progress != nil {
		total := b.Simulations
		b.Progress = func(done int) { progress(done, total) }
	}
	p.reclaim()
	search := p.search
	search.SetRoot(s)
	// Cancelled before its first simulation, the search has nothing to answer (a rollout's
	// root is visited once expanded, before any simulation): the caller runs a least search.
	if err := p.run(ctx, b); err != nil && (ctx.Err() == nil || search.Simulations() == 0) {
		return Analysis{}, err
	}
	best, err := search.Choose(0)
	if err != nil {
		return Analysis{}, err
	}
	children := search.Children(nil)
	search.Policy(p.policy)
	total := 0.0
	for _, c := range children {
		total += float64(p.policy[c.Action])
	}
	slices.SortStableFunc(children, func(x, y mcts.Child) int {
		switch {
		case x.Action == best:
			return -1
		case y.Action == best:
			return 1
		}
		return cmp.Or(cmp.Compare(y.Visits, x.Visits), cmp.Compare(y.Prior, x.Prior))
	})
	an := Analysis{Value: search.Value(), Work: search.Simulations()}
	st := s
	for _, a := range search.PV(best, maxPV, nil) {
		an.PV = append(an.PV, env.ActionString(st, a))
		st = st.Play(a)
	}
	for i, c := range children {
		m := MoveStat{Move: env.ActionString(s, c.Action), WinProb: -1, Visits: c.Visits, Prior: c.Prior, Proven: c.Proven}
		if total > 0 {
			m.Share = float64(p.policy[c.Action]) / total
		}
		if c.Visits > 0 || c.Proven {
			m.WinProb = (c.Q + 1) / 2
		}
		switch {
		case i == 0:
			m.PV = an.PV
		case c.Visits > 0:
			st := s
			for _, a := range search.PV(c.Action, maxMovePV, nil) {
				m.PV = append(m.PV, env.ActionString(st, a))
				st = st.Play(a)
			}
		}
		an.Moves = append(an.Moves, m)
	}
	return an, nil
}

// AlphaBetaPlayer plays the choice of an alpha-beta search (mcts.AlphaBeta), the tactical
// baseline: it keeps nothing from move to move.
type AlphaBetaPlayer[S env.State[S]] struct {
	ab      *mcts.AlphaBeta[S]
	timeCap time.Duration // the spec's
	last    mcts.ABResult // the last search's
}

// NewGame reseeds the search's tie-breaks.
func (p *AlphaBetaPlayer[S]) NewGame(_ S, seed uint64) { p.ab.Seed(seed) }

// Choose searches s and returns the best move found.
func (p *AlphaBetaPlayer[S]) Choose(ctx context.Context, s S, _ int) (env.Action, error) {
	res, err := p.ab.Search(ctx, s)
	if err != nil {
		return 0, err
	}
	p.last = res
	return res.Best, nil
}

// Played does nothing: each search starts afresh.
func (p *AlphaBetaPlayer[S]) Played(S, env.Action) error { return nil }

// Analyze searches s to the spec's depth, its time capped by lim.Time if set (else by the
// spec's, or by nothing if lim.Untimed), and by lim.Cap, and answers the best move with the search's value
// and principal variation; progress is told the depth completed out of the depth. An
// alpha-beta search is bounded by its depth, not by simulations: lim.Simulations is ignored.
func (p *AlphaBetaPlayer[S]) Analyze(ctx context.Context, s S, lim Limits, progress func(done, total int)) (Analysis, error) {
	if lim.Time > 0 || lim.Untimed || lim.Cap > 0 {
		t := p.timeCap
		if lim.Time > 0 || lim.Untimed {
			t = lim.Time // 0 when untimed: no cap
		}
		p.ab.Limit(0, capped(t, lim.Cap))
		defer p.ab.Limit(0, p.timeCap)
	}
	if _, err := p.Choose(ctx, s, 0); err != nil {
		return Analysis{}, err
	}
	res := p.last
	if progress != nil {
		progress(res.Depth, p.ab.Depth())
	}
	move := env.ActionString(s, res.Best)
	an := Analysis{Value: res.Value, Work: int(res.Nodes),
		Moves: []MoveStat{{Move: move, Share: 1, WinProb: (res.Value + 1) / 2, Prior: -1}}}
	st := s
	for _, a := range res.PV[:min(len(res.PV), maxPV)] {
		an.PV = append(an.PV, env.ActionString(st, a))
		st = st.Play(a)
	}
	an.Moves[0].PV = an.PV
	return an, nil
}
