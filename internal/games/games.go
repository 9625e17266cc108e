// Package games is the binary's registry of games: it maps a name ("yinsh-blitz") to the game
// and gives the subcommands what they need of it without knowing its state type.
//
// The hot code (perft, search, self-play) is generic over the state type; the subcommands only
// have a name. A Game bridges the two: it is implemented once, generically, by Of[S], and each of
// its methods calls generic code with S known, so no state is ever boxed on a hot path. The
// text-level Position (engine protocol, terminal, browser) is off the hot path.
package games

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/gyges"
	"github.com/zerogames/zero/env/imbriqua"
	"github.com/zerogames/zero/env/yinsh"
	"github.com/zerogames/zero/net"
	"github.com/zerogames/zero/selfplay"
	"github.com/zerogames/zero/train"
)

// Game is a registered game and variant.
type Game interface {
	// Info is the game's static facts; Info().Name is its registry name.
	Info() *env.Info
	// NewPosition starts a game at its beginning.
	NewPosition() *Position
	// Perft counts the leaves at each depth from 1 to depth below pos (see env.Perft; bulk
	// counts the last ply without playing it) and reports each depth as it is done. It stops
	// early, with ctx's error, when ctx ends.
	Perft(ctx context.Context, pos *Position, depth int, bulk bool, report func(depth int, leaves uint64)) error
	// Divide counts the leaves at depth below each legal action of pos.
	Divide(ctx context.Context, pos *Position, depth int, bulk bool) ([]DivideLine, error)
	// NewAgent builds a player from its spec string ("random", "uct:1000", …) and a seed.
	NewAgent(spec string, seed uint64) (Agent, error)
	// Arena plays a round robin between players given by spec strings (selfplay.Arena).
	Arena(ctx context.Context, cfg selfplay.ArenaConfig) (*selfplay.ArenaResult, error)
	// NetSpec describes the game to the network (net.Spec): its shapes and policy layout.
	NetSpec() (*net.Spec, error)
	// Train runs or resumes a training run in a run folder (train.Run).
	Train(ctx context.Context, cfg train.Config, dir string, opt train.Options) error
	// BenchSelfPlay measures a configuration's self-play (train.BenchSelfPlay).
	BenchSelfPlay(ctx context.Context, cfg train.Config, w *net.Weights, warm, d time.Duration) (train.SelfPlaySpeed, error)
}

// DivideLine is one legal action and the leaves below it.
type DivideLine struct {
	Move   string
	Leaves uint64
}

// registry lists the games in the order help texts show them.
var registry = []Game{
	Of[yinsh.State](yinsh.Normal),
	Of[yinsh.State](yinsh.Blitz),
	Of[gyges.State](gyges.Basic),
	Of[gyges.State](gyges.Advanced),
	Of[imbriqua.State](imbriqua.Game),
}

// All returns the registered games.
func All() []Game { return slices.Clone(registry) }

// Names lists the registered games' names.
func Names() []string {
	names := make([]string, len(registry))
	for i, g := range registry {
		names[i] = g.Info().Name
	}
	return names
}

// Lookup finds a game by name.
func Lookup(name string) (Game, error) {
	for _, g := range registry {
		if g.Info().Name == name {
			return g, nil
		}
	}
	return nil, fmt.Errorf("unknown game %q (known: %s)", name, strings.Join(Names(), ", "))
}

// Of adapts a game to the registry.
func Of[S env.State[S]](g env.Game[S]) Game { return generic[S]{g} }

type generic[S env.State[S]] struct{ g env.Game[S] }

func (e generic[S]) Info() *env.Info { return e.g.Info() }

// Arena plays the round robin; mcts players load their checkpoints with Checkpoints unless
// cfg says otherwise.
func (e generic[S]) Arena(ctx context.Context, cfg selfplay.ArenaConfig) (*selfplay.ArenaResult, error) {
	if cfg.Networks == nil {
		cfg.Networks = Checkpoints{}
	}
	return selfplay.Arena(ctx, e.g, cfg)
}

func (e generic[S]) NewPosition() *Position {
	return &Position{impl: &history[S]{g: e.g, states: []S{e.g.New()}}}
}

func (e generic[S]) state(pos *Position) (S, error) {
	h, ok := pos.impl.(*history[S])
	if !ok || h.g.Info().Name != e.Info().Name {
		var zero S
		return zero, fmt.Errorf("position of %s given to %s", pos.Info().Name, e.Info().Name)
	}
	return h.current(), nil
}

func (e generic[S]) Perft(ctx context.Context, pos *Position, depth int, bulk bool, report func(int, uint64)) error {
	for d := 1; d <= depth; d++ {
		lines, err := e.Divide(ctx, pos, d, bulk)
		if err != nil {
			return err
		}
		var n uint64
		for _, l := range lines {
			n += l.Leaves
		}
		report(d, n)
	}
	return nil
}

// Divide counts below each root action in turn, checking ctx between them.
func (e generic[S]) Divide(ctx context.Context, pos *Position, depth int, bulk bool) ([]DivideLine, error) {
	s, err := e.state(pos)
	if err != nil {
		return nil, err
	}
	if depth < 1 {
		return nil, fmt.Errorf("divide needs a depth of at least 1")
	}
	bufs := env.PerftBuffers(depth, e.Info().NumActions)
	var lines []DivideLine
	for _, a := range s.Legal(nil) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var n uint64 = 1 // bulk at depth 1: counted, not played
		switch {
		case bulk && depth > 1:
			n = env.PerftBulk(s.Play(a), depth-1, bufs)
		case !bulk:
			n = env.Perft(s.Play(a), depth-1, bufs)
		}
		lines = append(lines, DivideLine{env.ActionString(s, a), n})
	}
	slices.SortFunc(lines, func(a, b DivideLine) int { return strings.Compare(a.Move, b.Move) })
	return lines, nil
}
