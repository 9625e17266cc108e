package games

import (
	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/mcts"
	"github.com/zerogames/zero/net"
	"github.com/zerogames/zero/selfplay"
)

// Checkpoints gives mcts:N:CHECKPOINT players their network (selfplay.Networks): each player
// loads the checkpoint file and runs it on an inference engine of its own (net.Engine is for
// one goroutine), single-threaded BLAS like every engine.
type Checkpoints struct{}

var _ selfplay.Networks = Checkpoints{}

// Evaluator loads the checkpoint at path for the game info names and returns an engine
// running it. net.Load refuses a checkpoint of another game or shape, or a damaged one.
func (Checkpoints) Evaluator(path string, info *env.Info) (mcts.Evaluator, error) {
	g, err := Lookup(info.Name)
	if err != nil {
		return nil, err
	}
	spec, err := g.NetSpec()
	if err != nil {
		return nil, err
	}
	return net.LoadEngine(path, spec)
}
