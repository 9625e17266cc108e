package net_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/yinsh"
	"github.com/zerogames/zero/net"
)

// A fresh YINSH network evaluates the empty board: a policy over the 85 placements and a value.
func Example() {
	spec, err := net.SpecOf(yinsh.Normal.Info(), yinsh.Normal)
	if err != nil {
		panic(err)
	}
	w, err := net.NewWeights(spec, net.DefaultConfig(), rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		panic(err)
	}
	engine := net.NewEngine(net.NewModel(w))

	s := yinsh.Normal.New()
	b := &net.Batch{N: 1, Obs: make([]float32, spec.Observation.Size()), Value: make([]float32, 1)}
	s.Observe(b.Obs)
	b.Legal = s.Legal(nil)
	b.LegalEnd = []int32{int32(len(b.Legal))}
	b.Policy = make([]float32, len(b.Legal))
	if err := engine.EvaluateLegal(b); err != nil {
		panic(err)
	}
	var sum float32
	for _, p := range b.Policy {
		sum += p
	}
	fmt.Printf("%d legal actions, the first %s; probabilities sum to %.3f; value in [-1, 1]: %v\n",
		len(b.Legal), env.ActionString(s, b.Legal[0]), sum, b.Value[0] >= -1 && b.Value[0] <= 1)
	fmt.Printf("%s: %d trained parameters, %.0f MFLOP a position\n", spec.Game, w.Count(), engine.Model().FLOPs()/1e6)
	// Output:
	// 85 legal actions, the first place a2; probabilities sum to 1.000; value in [-1, 1]: true
	// yinsh: 95585 trained parameters, 19 MFLOP a position
}
