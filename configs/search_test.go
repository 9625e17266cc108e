package configs

import (
	"reflect"
	"strings"
	"testing"

	"github.com/zerogames/zero/mcts"
	"github.com/zerogames/zero/train"
	"github.com/zerogames/zero/train/worker"
)

// TestPresetSearch pins what each preset, and a run folder's config.yaml written before the
// configuration history, makes self-play search with: the full mcts.Params and the worker's budgets, written out as the code computed them when self-play's configuration
// still copied its search settings into mcts.Params by hand. A change to the presets, to
// mcts.DefaultParams or to how a configuration becomes a search shows here.
func TestPresetSearch(t *testing.T) {
	// Every preset's search: mcts.DefaultParams with self-play's settings over it.
	base := mcts.Params{
		Rule: mcts.PUCT, CPuct: 1.25, CPuctBase: 19652, FPUReduction: 0.25, UCBC: 1,
		DirichletAlpha: 0.3, NoiseFraction: 0.25, Temperature: mcts.Schedule{{From: 0, Value: 1}, {From: 20, Value: 0}},
		Gumbel: true, GumbelInterior: false, GumbelActions: 16, GumbelScale: 1, CVisit: 50, CScale: 0.1,
		InFlight: 4, VirtualLoss: 1, MaxNodes: 1 << 23, SampleChance: false,
		Solver: true, ScanDepth: 1, RootProof: 0, RootProofNodes: 200_000,
	}
	with := func(change func(p *mcts.Params)) mcts.Params {
		p := base
		p.Temperature = append(mcts.Schedule(nil), base.Temperature...)
		change(&p)
		return p
	}
	const cache = 64 << 20
	for _, tc := range []struct {
		preset string
		params mcts.Params
		worker worker.Config // without Params
	}{
		{"yinsh", with(func(p *mcts.Params) { p.InFlight = 1 }),
			worker.Config{Games: 128, Simulations: 64, CheapSimulations: 16, FullShare: 0.25, CacheBytes: cache}},
		{"yinsh-blitz", with(func(p *mcts.Params) { p.InFlight = 1 }),
			worker.Config{Games: 128, Simulations: 64, CheapSimulations: 16, FullShare: 0.25, CacheBytes: cache}},
		{"imbriqua", with(func(p *mcts.Params) { p.InFlight = 1 }),
			worker.Config{Games: 128, Simulations: 64, CheapSimulations: 16, FullShare: 0.25, CacheBytes: cache}},
		{"gyges", base,
			worker.Config{Games: 32, Simulations: 64, CheapSimulations: 16, FullShare: 0.25, CacheBytes: cache}},
		{"gyges-advanced", with(func(p *mcts.Params) { p.ScanDepth = 2 }),
			worker.Config{Games: 32, Simulations: 64, CheapSimulations: 16, FullShare: 0.25, CacheBytes: cache}},
		{"tiny", with(func(p *mcts.Params) { p.GumbelActions = 4 }),
			worker.Config{Games: 4, Simulations: 8, CheapSimulations: 4, FullShare: 0.5, CacheBytes: cache}},
		{"tictactoe", with(func(p *mcts.Params) { p.GumbelActions = 9 }),
			worker.Config{Games: 16, Simulations: 32, CheapSimulations: 0, FullShare: 1, CacheBytes: cache}},
		{"testdata/run-config-6f32f0e.yaml", with(func(p *mcts.Params) { p.ScanDepth = 2 }),
			worker.Config{Games: 32, Simulations: 64, CheapSimulations: 16, FullShare: 0.25, CacheBytes: cache}},
	} {
		var c train.Config
		var err error
		if strings.HasSuffix(tc.preset, ".yaml") {
			c, err = train.LoadConfig(tc.preset)
		} else {
			c, err = Load(tc.preset)
		}
		if err != nil {
			t.Fatal(err)
		}
		w := c.SelfPlay.Worker(nil)
		if !reflect.DeepEqual(w.Params, tc.params) {
			t.Errorf("%s: the search's parameters are\n%+v\nwant\n%+v", tc.preset, w.Params, tc.params)
		}
		w.Params = mcts.Params{}
		if !reflect.DeepEqual(w, tc.worker) {
			t.Errorf("%s: the worker's configuration is\n%+v\nwant\n%+v", tc.preset, w, tc.worker)
		}
	}
}
