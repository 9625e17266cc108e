package games

import (
	"context"
	"time"

	"github.com/zerogames/zero/net"
	"github.com/zerogames/zero/train"
)

// Train runs or resumes a training run of the game in dir (train.Run).
func (e generic[S]) Train(ctx context.Context, cfg train.Config, dir string, opt train.Options) error {
	return train.Run(ctx, e.g, cfg, dir, opt)
}

// BenchSelfPlay measures self-play as cfg's run plays it (train.BenchSelfPlay), with the
// network w or random weights.
func (e generic[S]) BenchSelfPlay(ctx context.Context, cfg train.Config, w *net.Weights, warm, d time.Duration) (train.SelfPlaySpeed, error) {
	return train.BenchSelfPlay(ctx, e.g, cfg, w, warm, d)
}
