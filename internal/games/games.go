// Package games is the binary's registry of games for playing: it maps a name ("yinsh-blitz")
// to the game and gives the engine protocol, the user interfaces and the subcommands what they
// need of it to play, without knowing its state type.
//
// The hot code (perft, search) is generic over the state type; the subcommands only have a
// name. A Game bridges the two: it is implemented once, generically, by Of[S], and each of its
// methods calls generic code with S known, so no state is ever boxed on a hot path. The
// text-level Position (engine protocol, terminal, browser) is off the hot path, and so are the
// Agent (a selfplay.Player seen through positions) and the game records' check against the
// rules (ReadRecords, LoadRecord, Replay).
//
// This is the play side of the registry: it imports no training code and links no gorgonia.
// Training's per-game operations are package gamestrain's; package all holds the list of games
// and registers each in both (Register here), once, before anything looks a game up.
package games

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/mcts"
	"github.com/zerogames/zero/net"
	"github.com/zerogames/zero/selfplay"
)

// Game is a registered game and variant.
type Game interface {
	// Info is the game's static facts; Info().Name is its registry name.
	Info() *env.Info
	// Play is what the game's registration added to its rules for playing it (OfPlay).
	Play() Play
	// NewPosition starts a game at its beginning.
	NewPosition() *Position
	// PositionOf plays actions (indices in the game's action space, as a training run's
	// replay buffer keeps a game) from the beginning, each checked by the rules; the error
	// names the first refused one and its number (from 1).
	PositionOf(actions []env.Action) (*Position, error)
	// Perft counts the leaves at each depth from 1 to depth below pos (see env.Perft; bulk
	// counts the last ply without playing it) and reports each depth as it is done. It stops
	// early, with ctx's error, when ctx ends.
	Perft(ctx context.Context, pos *Position, depth int, bulk bool, report func(depth int, leaves uint64)) error
	// Divide counts the leaves at depth below each legal action of pos.
	Divide(ctx context.Context, pos *Position, depth int, bulk bool) ([]DivideLine, error)
	// NewAgent builds a player from its spec string ("random", "uct:1000", …; selfplay.Spec)
	// and a seed.
	NewAgent(spec string, seed uint64) (Agent, error)
	// Arena plays a round robin between players given by spec strings (selfplay.Arena).
	Arena(ctx context.Context, cfg selfplay.ArenaConfig) (*selfplay.ArenaResult, error)
	// NetSpec describes the game to the network (net.Spec): its shapes and policy layout.
	NetSpec() (*net.Spec, error)
}

// DivideLine is one legal action and the leaves below it.
type DivideLine struct {
	Move   string
	Leaves uint64
}

// Registry is a list of games by name, in the order they were registered (the order help
// texts show). The play registry is one (Register, Lookup); package gamestrain's is another.
// It is safe for concurrent use.
type Registry[G interface{ Info() *env.Info }] struct {
	mu    sync.RWMutex
	games []G
}

// Register adds games; a name registered twice panics (two games under one name is a mistake
// in the program, not in its input).
func (r *Registry[G]) Register(gs ...G) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, g := range gs {
		name := g.Info().Name
		if slices.ContainsFunc(r.games, func(h G) bool { return h.Info().Name == name }) {
			panic("games: " + name + " registered twice")
		}
		r.games = append(r.games, g)
	}
}

// All returns the registered games.
func (r *Registry[G]) All() []G {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.games)
}

// Names lists the registered games' names.
func (r *Registry[G]) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.namesLocked()
}

// Lookup finds a game by name.
func (r *Registry[G]) Lookup(name string) (G, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, g := range r.games {
		if g.Info().Name == name {
			return g, nil
		}
	}
	var zero G
	return zero, fmt.Errorf("unknown game %q (known: %s)", name, strings.Join(r.namesLocked(), ", "))
}

func (r *Registry[G]) namesLocked() []string {
	names := make([]string, len(r.games))
	for i, g := range r.games {
		names[i] = g.Info().Name
	}
	return names
}

// registry is the play registry.
var registry Registry[Game]

// Register adds games to the play registry (package all registers the binary's), and each
// game's search settings to its mcts players (selfplay.SetPlayParams).
func Register(gs ...Game) {
	registry.Register(gs...)
	for _, g := range gs {
		if tune := g.Play().Search; tune != nil {
			selfplay.SetPlayParams(g.Info().Name, tune)
		}
	}
}

// All returns the registered games.
func All() []Game { return registry.All() }

// Names lists the registered games' names.
func Names() []string { return registry.Names() }

// Lookup finds a game by name.
func Lookup(name string) (Game, error) { return registry.Lookup(name) }

// Play is what a game brings to playing beyond its rules, given where it is registered
// (package all), so that no shared code names a game.
type Play struct {
	// Search changes mcts.DefaultParams for the game's mcts:N players (selfplay.PlayParams):
	// the settings measured to play it better. Nil: the defaults.
	Search func(*mcts.Params)
	// SGF is the game's number in FF[4]'s GM property, "" if it has none (its records then
	// name it in ZG alone).
	SGF string
}

// Of adapts a game to the registry, with nothing added for playing it.
func Of[S env.State[S]](g env.Game[S]) Game { return generic[S]{g: g} }

// OfPlay adapts a game to the registry with what play adds to its rules.
func OfPlay[S env.State[S]](g env.Game[S], play Play) Game { return generic[S]{g: g, play: play} }

type generic[S env.State[S]] struct {
	g    env.Game[S]
	play Play
}

func (e generic[S]) Play() Play { return e.play }

func (e generic[S]) Info() *env.Info { return e.g.Info() }

func (e generic[S]) Arena(ctx context.Context, cfg selfplay.ArenaConfig) (*selfplay.ArenaResult, error) {
	return selfplay.Arena(ctx, e.g, cfg)
}

func (e generic[S]) NewPosition() *Position {
	return &Position{impl: &history[S]{g: e.g, states: []S{e.g.New()}}}
}

func (e generic[S]) PositionOf(actions []env.Action) (*Position, error) {
	h := &history[S]{g: e.g, states: []S{e.g.New()}}
	n := env.Action(e.Info().NumActions)
	for i, a := range actions {
		if a < 0 || a >= n {
			return nil, fmt.Errorf("decision %d: action %d is outside %s's actions (0 to %d)", i+1, a, e.Info().Name, n-1)
		}
		s, err := env.Apply(h.current(), a)
		if err != nil {
			return nil, fmt.Errorf("decision %d: %w", i+1, err)
		}
		h.states = append(h.states, s)
		h.actions = append(h.actions, a)
	}
	return &Position{impl: h}, nil
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
	counter, _ := e.g.(env.LegalCounter[S]) // bulk counting by the game's count, if it has one
	var lines []DivideLine
	for _, a := range s.Legal(nil) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var n uint64 = 1 // bulk at depth 1: counted, not played
		switch {
		case bulk && depth > 1 && counter != nil:
			n = env.PerftCount(counter, s.Play(a), depth-1, bufs)
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
