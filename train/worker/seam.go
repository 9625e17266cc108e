package worker

import (
	"context"
	"sync/atomic"

	"github.com/zerogames/zero/net"
	"github.com/zerogames/zero/train/replay"
)

// The two ends of self-play that a training run provides: where finished games go, and where
// the network comes from. In one process they are the run's replay buffer and the trainer's
// latest weights; self-play on other machines would put a transport behind the same two
// interfaces and leave the workers and the batcher as they are.

// GameSink is where a worker's finished games go. In a training run it is the run itself: the
// game goes to the replay buffer, and the worker is held back while self-play is ahead of
// training.
type GameSink interface {
	// AddGame takes a finished game. It may block to pace the worker, returning when ctx ends;
	// an error stops the worker.
	AddGame(ctx context.Context, g *replay.Game) error
}

// GameSinkFunc is a function used as a GameSink.
type GameSinkFunc func(ctx context.Context, g *replay.Game) error

// AddGame calls f.
func (f GameSinkFunc) AddGame(ctx context.Context, g *replay.Game) error { return f(ctx, g) }

// WeightsSource is where the batcher's network comes from. In a training run it is a Latest
// that the trainer publishes to every publish_every steps.
type WeightsSource interface {
	// Model returns the newest network, of the game and architecture the batcher was started
	// with, or nil if there is none yet. The batcher asks before every batch: it must be cheap.
	Model() *net.Model
}

// Latest is a WeightsSource in memory: the model published last. It is safe for concurrent use.
type Latest struct{ model atomic.Pointer[net.Model] }

// NewLatest is a Latest that holds model until the next Publish.
func NewLatest(model *net.Model) *Latest {
	l := &Latest{}
	l.model.Store(model)
	return l
}

// Publish makes model the network of every batch from now on (the hot swap of new weights).
func (l *Latest) Publish(model *net.Model) { l.model.Store(model) }

// Model is the model published last.
func (l *Latest) Model() *net.Model { return l.model.Load() }
