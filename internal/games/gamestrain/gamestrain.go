// Package gamestrain is the training side of the game registry: a game's name → what zero train
// and zero bench selfplay need of it (train.Run, train.BenchSelfPlay), each called with the
// game's state type known, as package games does for playing. It imports train, and so
// gorgonia; package games, which the engine and the user interfaces use, does not.
//
// The list of games is package all's: its Register adds every game here and to package games.
package gamestrain

import (
	"context"
	"time"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/internal/games"
	"github.com/zerogames/zero/net"
	"github.com/zerogames/zero/train"
	"github.com/zerogames/zero/train/dist"
)

// Game is a registered game and variant, as training sees it.
type Game interface {
	// Info is the game's static facts; Info().Name is its registry name.
	Info() *env.Info
	// Train runs or resumes a training run in a run folder (train.Run).
	Train(ctx context.Context, cfg train.Config, dir string, opt train.Options) error
	// BenchSelfPlay measures a configuration's self-play (train.BenchSelfPlay), its games
	// through an embedded NATS server or not.
	BenchSelfPlay(ctx context.Context, cfg train.Config, w *net.Weights, warm, d time.Duration, viaNATS bool) (train.SelfPlaySpeed, error)
	// BenchIngest measures how many games a trainer takes from simulated workers
	// (train.BenchIngest).
	BenchIngest(ctx context.Context, b train.IngestBench) (train.IngestSpeed, error)
	// Work plays self-play for the run on the server c is connected to (train.Work): the
	// run's info and configuration as the server gave them.
	Work(ctx context.Context, c *dist.Conn, run dist.RunInfo, config []byte, opt train.WorkerOptions) error
}

// registry holds the games, in the order they were registered.
var registry games.Registry[Game]

// Register adds games to the training registry; a name registered twice panics.
func Register(gs ...Game) { registry.Register(gs...) }

// Lookup finds a game by name.
func Lookup(name string) (Game, error) { return registry.Lookup(name) }

// Of adapts a game to the training registry.
func Of[S env.State[S]](g env.Game[S]) Game { return generic[S]{g} }

type generic[S env.State[S]] struct{ g env.Game[S] }

func (e generic[S]) Info() *env.Info { return e.g.Info() }

// Train runs or resumes a training run of the game in dir (train.Run).
func (e generic[S]) Train(ctx context.Context, cfg train.Config, dir string, opt train.Options) error {
	return train.Run(ctx, e.g, cfg, dir, opt)
}

// BenchSelfPlay measures self-play as cfg's run plays it (train.BenchSelfPlay), with the
// network w or random weights.
func (e generic[S]) BenchSelfPlay(ctx context.Context, cfg train.Config, w *net.Weights, warm, d time.Duration, viaNATS bool) (train.SelfPlaySpeed, error) {
	return train.BenchSelfPlay(ctx, e.g, cfg, w, warm, d, viaNATS)
}

// BenchIngest measures a trainer's intake of the game's games (train.BenchIngest).
func (e generic[S]) BenchIngest(ctx context.Context, b train.IngestBench) (train.IngestSpeed, error) {
	return train.BenchIngest(ctx, e.g, b)
}

// Work plays self-play for a run (train.Work).
func (e generic[S]) Work(ctx context.Context, c *dist.Conn, run dist.RunInfo, config []byte, opt train.WorkerOptions) error {
	return train.Work(ctx, e.g, c, run, config, opt)
}
