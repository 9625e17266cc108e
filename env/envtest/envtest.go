// Package envtest is the conformance suite of the env contract. Every game runs it from its
// own tests with one call:
//
//	func TestConformance(t *testing.T) { envtest.Run(t, yinsh.Normal) }
//
// On many seeded random games it checks, at every state reached: legal actions sorted, unique,
// in range, and empty exactly at the end; the result set exactly at the end; chance outcomes
// matching the legal actions with positive probabilities summing to 1; play leaving the parent
// unchanged; every legal action printing and parsing back to itself; garbage, mutated and
// illegal actions refused by parsing or by env.Apply, with the state unchanged; observations
// fully written, deterministic, and equal for equal states; every symmetry mapping legal actions
// onto legal actions, chance probabilities onto the same probabilities, and commuting with play;
// games ending within Info.MaxLength; a game's CountLegal and RandomLegal (env.LegalCounter,
// env.RandomPicker) agreeing with Legal. It also checks that notation is injective over the
// whole action space, and that Legal, CountLegal, RandomLegal, Chances, Play and Observe
// allocate nothing.
//
// Two checks need what only the game knows. [CheckObservationSymmetry], given a
// game's map of its observation cells under each symmetry, checks that the
// observation of a turned position is the position's own moved cell by cell, and
// each legal action's policy cell with it: what the trainer's augmentation relies
// on (each game's symmetry_obs_test.go). [CheckHash], given the state's fields,
// checks that the states of seeded random games all hash apart, and apart from
// each with one field changed.
package envtest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/zerogames/zero/env"
)

// Config tunes the suite. The zero value means the defaults.
type Config struct {
	// Games is the number of random games (default 100; a quarter with -short).
	Games int
	// Seed seeds the random games (default 1).
	Seed uint64
	// SymmetryEvery checks symmetries at every n-th state (default 1: all). Games whose
	// symmetry checks are expensive may thin them.
	SymmetryEvery int
	// Garbage adds game-specific strings that must not parse to a legal action anywhere
	// (the suite has its own generic list and mutations).
	Garbage []string
}

// Run runs the suite with the default Config.
func Run[S env.State[S]](t *testing.T, g env.Game[S]) {
	t.Helper()
	RunWith(t, g, Config{})
}

// RunWith runs the suite.
func RunWith[S env.State[S]](t *testing.T, g env.Game[S], cfg Config) {
	t.Helper()
	if cfg.Games == 0 {
		cfg.Games = 100
		if testing.Short() {
			cfg.Games = 25
		}
	}
	if cfg.Seed == 0 {
		cfg.Seed = 1
	}
	if cfg.SymmetryEvery == 0 {
		cfg.SymmetryEvery = 1
	}
	info := g.Info()
	t.Run("plain-value", func(t *testing.T) { checkPlain(t, reflect.TypeFor[S](), "S") })
	t.Run("info", func(t *testing.T) { checkInfo(t, g) })
	t.Run("notation-injective", func(t *testing.T) { checkInjective(t, g) })
	t.Run("symmetry-permutations", func(t *testing.T) { checkPermutations(t, g) })
	t.Run("random-games", func(t *testing.T) {
		var samples []S
		moved := make([]bool, info.Symmetries) // whether symmetry k moved some state
		bounded := 0                           // decisions with a positive EndBound
		for i := 0; i < cfg.Games; i++ {
			c := &checker[S]{t: t, g: g, info: info, cfg: cfg, moved: moved,
				rng: rand.New(rand.NewPCG(cfg.Seed, uint64(i)))}
			c.play()
			if t.Failed() {
				return
			}
			if f, ok := g.(env.EndBound[S]); ok {
				bounded += checkEndBound(t, g, f, c.actions)
			}
			samples = append(samples, c.samples...)
		}
		if _, ok := g.(env.EndBound[S]); ok && bounded == 0 {
			t.Errorf("EndBound's TurnsToEnd was 0 at every decision of %d games: the check proved nothing", cfg.Games)
		}
		for k := 1; k < info.Symmetries; k++ {
			if !moved[k] {
				t.Errorf("symmetry %d left every state of %d games unchanged: it is the identity", k, cfg.Games)
			}
		}
		t.Run("zero-allocations", func(t *testing.T) { checkAllocs(t, g, samples) })
		if f, ok := g.(env.WinFinder[S]); ok {
			t.Run("win-finder", func(t *testing.T) { checkWinFinder(t, f, samples) })
		}
	})
}

// checkEndBound: at each decision of a player in the game played by actions, the game's
// TurnsToEnd is at most the changes of decider between players (chance's decisions skipped)
// from there to the end; it returns how many of those decisions had a positive bound.
func checkEndBound[S env.State[S]](t *testing.T, g env.Game[S], f env.EndBound[S], actions []env.Action) int {
	t.Helper()
	states := make([]S, 0, len(actions)+1)
	s := g.New()
	for _, a := range actions {
		states = append(states, s)
		s = s.Play(a)
	}
	if s.ToMove() != env.Terminal {
		return 0 // a game cut short: its end is unknown
	}
	positive := 0
	changes, next := 0, env.Terminal // the changes from states[i+1] on, and its player decider
	for i := len(states) - 1; i >= 0; i-- {
		d := states[i].ToMove()
		if d != 0 && d != 1 {
			continue
		}
		if next != env.Terminal && next != d {
			changes++
		}
		next = d
		b := f.TurnsToEnd(states[i])
		if b > changes {
			t.Fatalf("TurnsToEnd = %d at decision %d, but the game ended %d changes of decider later, at\n%v", b, i, changes, states[i])
		}
		if b > 0 {
			positive++
		}
	}
	return positive
}

// checkWinFinder: a game's WinFinder agrees with playing every legal action (env.CanWin) at
// every state of the random games, and allocates nothing.
func checkWinFinder[S env.State[S]](t *testing.T, f env.WinFinder[S], samples []S) {
	var buf, fbuf []env.Action
	wins := 0
	for _, s := range samples {
		var want, got bool
		want, buf = env.CanWin(s, buf)
		if got, fbuf = f.CanWin(s, fbuf); got != want {
			t.Fatalf("CanWin = %v, playing every action says %v, at\n%v", got, want, s)
		}
		if want {
			wins++
		}
	}
	if wins == 0 {
		t.Errorf("no state of %d could be won at once: the check proved nothing", len(samples))
	}
	for _, s := range samples[:min(len(samples), 200)] {
		if n := testing.AllocsPerRun(5, func() { _, fbuf = f.CanWin(s, fbuf) }); n != 0 {
			t.Fatalf("CanWin allocates %v times per call at %v", n, s)
		}
	}
}

// checkPlain: a state is fixed arrays, integers, booleans and structs of them, so that copying
// it copies everything and == compares everything.
func checkPlain(t *testing.T, typ reflect.Type, path string) {
	switch typ.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
	case reflect.Array:
		checkPlain(t, typ.Elem(), path+"[]")
	case reflect.Struct:
		for i := 0; i < typ.NumField(); i++ {
			checkPlain(t, typ.Field(i).Type, path+"."+typ.Field(i).Name)
		}
	default:
		t.Errorf("%s is a %s: a state must be a plain value (fixed arrays and integers)", path, typ.Kind())
	}
}

func checkInfo[S env.State[S]](t *testing.T, g env.Game[S]) {
	info := g.Info()
	switch {
	case info.Name == "" || strings.ContainsAny(info.Name, " \t\n"):
		t.Errorf("Info.Name %q: want a non-empty name without blanks", info.Name)
	case info.NumActions <= 0:
		t.Errorf("Info.NumActions = %d", info.NumActions)
	case info.Observation.Size() <= 0:
		t.Errorf("Info.Observation = %v", info.Observation)
	case info.MaxLength <= 0:
		t.Errorf("Info.MaxLength = %d", info.MaxLength)
	case info.Symmetries <= 0:
		t.Errorf("Info.Symmetries = %d (the identity counts)", info.Symmetries)
	case info.PlayerNames[0] == "" || info.PlayerNames[1] == "" || info.PlayerNames[0] == info.PlayerNames[1]:
		t.Errorf("Info.PlayerNames = %q", info.PlayerNames)
	case info.NumActions > 1<<16:
		t.Errorf("Info.NumActions = %d: more than 65536 actions do not fit replay records", info.NumActions)
	case info.Rules < 1:
		t.Errorf("Info.Rules = %d: number the rules revisions from 1", info.Rules)
	case info.Encoding < 1:
		t.Errorf("Info.Encoding = %d: number the encodings from 1", info.Encoding)
	}
	s := g.New()
	if s.ToMove() == env.Terminal {
		t.Errorf("the start state is terminal")
	}
	if s.Symmetry(0) != s {
		t.Errorf("Symmetry(0) is not the identity on the start state")
	}
}

// checkInjective: no two actions print alike, and any printed action that parses back parses
// to itself, over the whole action space (holes in the layout may print unparsably).
func checkInjective[S env.State[S]](t *testing.T, g env.Game[S]) {
	s := g.New()
	seen := make(map[string]env.Action)
	for a := env.Action(0); int(a) < g.Info().NumActions; a++ {
		text := env.ActionString(s, a)
		if text == "" {
			t.Errorf("action %d prints as nothing", a)
			continue
		}
		if b, dup := seen[text]; dup {
			t.Errorf("actions %d and %d both print as %q", b, a, text)
		}
		seen[text] = a
		if b, err := s.ParseAction(text); err == nil && b != a {
			t.Errorf("action %d prints as %q, which parses as %d", a, text, b)
		}
	}
}

func checkPermutations[S env.State[S]](t *testing.T, g env.Game[S]) {
	n := g.Info().NumActions
	hit := make([]int, n)
	for k := 0; k < g.Info().Symmetries; k++ {
		for a := env.Action(0); int(a) < n; a++ {
			b := g.MapAction(k, a)
			if b < 0 || int(b) >= n {
				t.Fatalf("MapAction(%d, %d) = %d: out of range", k, a, b)
			}
			if k == 0 && b != a {
				t.Fatalf("MapAction(0, %d) = %d: symmetry 0 must be the identity", a, b)
			}
			if hit[b] == k+1 {
				t.Fatalf("MapAction(%d, ·) maps two actions to %d: not a permutation", k, b)
			}
			hit[b] = k + 1
		}
	}
}

type checker[S env.State[S]] struct {
	t       *testing.T
	g       env.Game[S]
	info    *env.Info
	cfg     Config
	rng     *rand.Rand
	history []string
	actions []env.Action
	samples []S
	moved   []bool
	errors  int
}

func (c *checker[S]) errorf(format string, args ...any) {
	c.t.Helper()
	c.errors++
	if c.errors > 10 {
		c.t.FailNow()
	}
	c.t.Errorf("after %q: %s", strings.Join(c.history, ";"), fmt.Sprintf(format, args...))
}

func (c *checker[S]) play() {
	s := c.g.New()
	for n := 0; ; n++ {
		if n > c.info.MaxLength {
			c.errorf("game longer than Info.MaxLength = %d", c.info.MaxLength)
			return
		}
		c.checkState(s, n)
		if c.errors > 0 {
			return
		}
		if n%7 == 0 {
			c.samples = append(c.samples, s)
		}
		if s.ToMove() == env.Terminal {
			return
		}
		legal := s.Legal(nil)
		var a env.Action
		if s.ToMove() == env.Chance {
			a = env.SampleOutcome(s.Chances(nil), c.rng.Float64())
		} else {
			a = legal[c.rng.IntN(len(legal))]
		}
		c.history = append(c.history, env.ActionString(s, a))
		c.actions = append(c.actions, a)
		s = s.Play(a)
	}
}

// checkPicker checks that rp draws what Walker draws from Legal's list, with the same
// generator's same draws: a few seeds, the generators compared after the draw.
func (c *checker[S]) checkPicker(rp env.RandomPicker[S], s S, legal []env.Action, n uint64) {
	for seed := range uint64(4) {
		r1, r2 := rand.New(rand.NewPCG(seed, n)), rand.New(rand.NewPCG(seed, n))
		got, want := rp.RandomLegal(s, r1), legal[r2.IntN(len(legal))]
		if got != want {
			c.errorf("RandomLegal drew %q, but Legal's list at the same draw holds %q", env.ActionString(s, got), env.ActionString(s, want))
			return
		}
		if r1.Uint64() != r2.Uint64() {
			c.errorf("RandomLegal does not draw from its generator as rng.IntN(%d) does", len(legal))
			return
		}
	}
}

func (c *checker[S]) checkState(s S, n int) {
	c.t.Helper()
	before := s
	toMove := s.ToMove()
	if toMove != 0 && toMove != 1 && toMove != env.Chance && toMove != env.Terminal {
		c.errorf("ToMove() = %d", toMove)
		return
	}
	if s.String() == "" {
		c.errorf("String() is empty")
	}
	legal := s.Legal(nil)
	if (len(legal) == 0) != (toMove == env.Terminal) {
		c.errorf("%d legal actions but ToMove() = %d", len(legal), toMove)
		return
	}
	if (s.Result() == env.Ongoing) != (toMove != env.Terminal) {
		c.errorf("Result() = %d but ToMove() = %d", s.Result(), toMove)
	}
	for i, a := range legal {
		if a < 0 || int(a) >= c.info.NumActions {
			c.errorf("legal action %d out of range [0, %d)", a, c.info.NumActions)
		}
		if i > 0 && a <= legal[i-1] {
			c.errorf("legal actions not strictly ascending: %v", legal)
			break
		}
	}
	if lc, ok := c.g.(env.LegalCounter[S]); ok && lc.CountLegal(s) != len(legal) {
		c.errorf("CountLegal = %d, but Legal lists %d actions", lc.CountLegal(s), len(legal))
	}
	if rp, ok := c.g.(env.RandomPicker[S]); ok && toMove != env.Terminal && toMove != env.Chance {
		c.checkPicker(rp, s, legal, uint64(n))
	}
	// Appending must keep what the buffer held.
	if got := s.Legal([]env.Action{-7}); len(got) != len(legal)+1 || got[0] != -7 || !slices.Equal(got[1:], legal) {
		c.errorf("Legal does not append to dst")
	}
	c.checkChances(s, legal)

	for _, a := range legal {
		text := env.ActionString(s, a)
		b, err := s.ParseAction(text)
		switch {
		case err != nil:
			c.errorf("legal action %d prints as %q, which does not parse: %v", a, text, err)
		case b != a:
			c.errorf("legal action %d prints as %q, which parses as %d", a, text, b)
		}
		if _, err := env.Apply(s, a); err != nil {
			c.errorf("Apply(%q) of a legal action: %v", text, err)
		}
		_ = s.Play(a)
		if s != before {
			c.errorf("Play(%q) changed its receiver", text)
		}
	}
	c.checkIllegal(s, legal)
	c.checkObserve(s)
	if n%c.cfg.SymmetryEvery == 0 {
		c.checkSymmetries(s, legal)
	}
	if s != before {
		c.errorf("checks changed the state")
	}
}

func (c *checker[S]) checkChances(s S, legal []env.Action) {
	c.t.Helper()
	outcomes := s.Chances(nil)
	if s.ToMove() != env.Chance {
		if len(outcomes) != 0 {
			c.errorf("Chances at a non-chance node: %v", outcomes)
		}
		return
	}
	if !c.info.HasChance {
		c.errorf("chance node in a game whose Info.HasChance is false")
	}
	if len(outcomes) != len(legal) {
		c.errorf("%d chance outcomes for %d legal actions", len(outcomes), len(legal))
		return
	}
	sum := 0.0
	for i, o := range outcomes {
		if o.Action != legal[i] {
			c.errorf("chance outcome %d is action %d, legal action %d", i, o.Action, legal[i])
		}
		if !(o.Prob > 0) {
			c.errorf("chance outcome %d has probability %v", o.Action, o.Prob)
		}
		sum += o.Prob
	}
	if math.Abs(sum-1) > 1e-9 {
		c.errorf("chance probabilities sum to %v", sum)
	}
}

var garbage = []string{
	"", " ", "\t", "\n", ";", "-", "x", "?", "pass pass", "place", "move", "row", "ring", "card",
	"remove", "stop now", "a0", "a9", "z9", "k99", "aa1", "1a", "@", "3@", "@a1", "0@a1", "a1-",
	"-a1", "a1-a1-a1", "a1xx", "goal", "*", "a1*", "card 0", "card 12", "card -1", "\x00",
	"\xff\xfe", "ünïcode", strings.Repeat("a", 1000),
}

// checkIllegal: garbage and mutations of legal notation never play an illegal action, and a
// sample of illegal action indices is refused by Apply.
func (c *checker[S]) checkIllegal(s S, legal []env.Action) {
	c.t.Helper()
	before := s
	try := func(text string) {
		c.t.Helper()
		a, err := s.ParseAction(text)
		if err != nil {
			if err.Error() == "" {
				c.errorf("ParseAction(%q): empty error message", text)
			}
			return
		}
		if a < 0 || int(a) >= c.info.NumActions {
			c.errorf("ParseAction(%q) = %d, out of range", text, a)
			return
		}
		if back := env.ActionString(s, a); back != text {
			c.errorf("ParseAction(%q) = %q: the notation must be canonical (parse only what prints)", text, back)
			return
		}
		if _, ok := slices.BinarySearch(legal, a); ok {
			return // a mutation may well be another legal action
		}
		t, err := env.Apply(s, a)
		if err == nil {
			c.errorf("Apply(%q) accepted an action not in Legal", text)
		} else if t != before {
			c.errorf("Apply(%q) refused but changed the state", text)
		}
	}
	for _, text := range garbage {
		try(text)
	}
	for _, text := range c.cfg.Garbage {
		try(text)
	}
	// Mutations of a few legal actions' notation.
	for i := 0; i < 3 && len(legal) > 0; i++ {
		text := env.ActionString(s, legal[c.rng.IntN(len(legal))])
		j := c.rng.IntN(len(text))
		try(text[:j] + text[j+1:])
		try(text[:j] + string(rune('0'+c.rng.IntN(75))) + text[j+1:])
		try(strings.ToUpper(text))
		try(" " + text + " x")
		try(text + text)
	}
	// Illegal indices, which must print without panicking and be refused.
	for i := 0; i < 8; i++ {
		a := env.Action(c.rng.IntN(c.info.NumActions))
		if _, ok := slices.BinarySearch(legal, a); ok {
			continue
		}
		_ = env.ActionString(s, a)
		t, err := env.Apply(s, a)
		switch {
		case err == nil:
			c.errorf("Apply(%d) accepted an action not in Legal", a)
		case err.Error() == "":
			c.errorf("Apply(%d): empty error message", a)
		case t != before:
			c.errorf("Apply(%d) refused but changed the state", a)
		}
	}
	if s != before {
		c.errorf("illegal input changed the state")
	}
}

func (c *checker[S]) checkObserve(s S) {
	c.t.Helper()
	size := c.info.Observation.Size()
	a, b := make([]float32, size), make([]float32, size)
	for i := range a {
		a[i] = float32(math.NaN())
		b[i] = 7
	}
	s.Observe(a)
	s.Observe(b)
	for i := range a {
		if math.IsNaN(float64(a[i])) {
			c.errorf("Observe left element %d unwritten", i)
			return
		}
		if a[i] != b[i] {
			c.errorf("Observe element %d: %v then %v for the same state", i, a[i], b[i])
			return
		}
	}
	// An equal state made anew, by replaying the game from the start.
	t := c.g.New()
	for _, x := range c.actions {
		t = t.Play(x)
	}
	if t != s {
		c.errorf("replaying the game's actions from the start gives another state")
		return
	}
	t.Observe(b)
	if !slices.Equal(a, b) {
		c.errorf("Observe differs between equal states")
	}
}

func (c *checker[S]) checkSymmetries(s S, legal []env.Action) {
	c.t.Helper()
	outcomes := s.Chances(nil)
	for k := 1; k < c.info.Symmetries; k++ {
		t := s.Symmetry(k)
		if t != s {
			c.moved[k] = true
		}
		if t.ToMove() != s.ToMove() || t.Result() != s.Result() {
			c.errorf("symmetry %d changes who decides or the result", k)
			continue
		}
		want := make([]env.Action, len(legal))
		for i, a := range legal {
			want[i] = c.g.MapAction(k, a)
		}
		slices.Sort(want)
		if got := t.Legal(nil); !slices.Equal(got, want) {
			c.errorf("symmetry %d: legal actions of the image are not the image of the legal actions", k)
			continue
		}
		if len(outcomes) > 0 {
			mapped := t.Chances(nil)
			for _, o := range outcomes {
				b := c.g.MapAction(k, o.Action)
				i := slices.IndexFunc(mapped, func(m env.Outcome) bool { return m.Action == b })
				if i < 0 || math.Abs(mapped[i].Prob-o.Prob) > 1e-12 {
					c.errorf("symmetry %d: chance outcome %d does not keep its probability", k, o.Action)
				}
			}
		}
		for _, a := range legal {
			if s.Play(a).Symmetry(k) != t.Play(c.g.MapAction(k, a)) {
				c.errorf("symmetry %d does not commute with %q", k, env.ActionString(s, a))
				break
			}
		}
	}
}

func checkAllocs[S env.State[S]](t *testing.T, g env.Game[S], samples []S) {
	info := g.Info()
	actions := make([]env.Action, 0, info.NumActions)
	outcomes := make([]env.Outcome, 0, info.NumActions)
	obs := make([]float32, info.Observation.Size())
	var text []byte
	if len(samples) > 200 {
		samples = samples[:200]
	}
	for _, s := range samples {
		if n := testing.AllocsPerRun(5, func() { actions = s.Legal(actions[:0]) }); n != 0 {
			t.Fatalf("Legal allocates %v times per call at %v", n, s)
		}
		if lc, ok := g.(env.LegalCounter[S]); ok {
			if n := testing.AllocsPerRun(5, func() { _ = lc.CountLegal(s) }); n != 0 {
				t.Fatalf("CountLegal allocates %v times per call at %v", n, s)
			}
		}
		if rp, ok := g.(env.RandomPicker[S]); ok && s.ToMove() != env.Terminal && s.ToMove() != env.Chance {
			rng := rand.New(rand.NewPCG(1, 2))
			if n := testing.AllocsPerRun(5, func() { _ = rp.RandomLegal(s, rng) }); n != 0 {
				t.Fatalf("RandomLegal allocates %v times per call at %v", n, s)
			}
		}
		if n := testing.AllocsPerRun(5, func() { outcomes = s.Chances(outcomes[:0]) }); n != 0 {
			t.Fatalf("Chances allocates %v times per call", n)
		}
		if n := testing.AllocsPerRun(5, func() { s.Observe(obs) }); n != 0 {
			t.Fatalf("Observe allocates %v times per call", n)
		}
		actions = s.Legal(actions[:0])
		for _, a := range actions {
			if n := testing.AllocsPerRun(5, func() { _ = s.Play(a) }); n != 0 {
				t.Fatalf("Play(%q) allocates %v times per call", env.ActionString(s, a), n)
			}
		}
		if n := testing.AllocsPerRun(5, func() {
			for _, a := range actions {
				text = s.AppendAction(text[:0], a)
			}
		}); n != 0 {
			t.Errorf("AppendAction into a buffer allocates %v times", n)
		}
	}
}
