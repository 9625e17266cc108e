package train

import (
	"strings"
	"testing"
	"time"

	"github.com/zerogames/zero/mcts"
	"github.com/zerogames/zero/net"
)

// TestChanges: the settings that differ between two configurations, by key in the file's
// order, values on one line; and which of them a resume refuses.
func TestChanges(t *testing.T) {
	for _, tc := range []struct {
		name    string
		change  func(c *Config)
		want    []string
		refused []string // keys
	}{
		{"none", func(c *Config) {}, nil, nil},
		{"a learning-rate drop", func(c *Config) {
			c.Optimizer.Schedule = append(c.Optimizer.Schedule, net.LRStep{Step: 23000, Factor: 0.0625})
		}, []string{"optimizer.schedule: [{step: 6900, factor: 0.25}] → [{step: 6900, factor: 0.25}, {step: 23000, factor: 0.0625}]"}, nil},
		{"self-play and search", func(c *Config) {
			c.SelfPlay.GamesPerWorker, c.SelfPlay.InFlight = 128, 1
			c.SelfPlay.MaxWait = Duration(3 * time.Millisecond)
			c.SelfPlay.Temperature = mcts.Constant(1)
			c.Trainer.ValueFromSearch = 0.5
		}, []string{
			"selfplay.games_per_worker: 32 → 128", "selfplay.max_wait: 0s → 3ms",
			"selfplay.temperature: [{from: 0, value: 1}, {from: 20, value: 0}] → [{from: 0, value: 1}]",
			"selfplay.in_flight: 4 → 1", "trainer.value_from_search: 0 → 0.5",
		}, nil},
		{"lists and absent keys", func(c *Config) {
			c.Init = "models/yinsh-blitz.zck"
			c.Eval.Baselines = []string{"random"}
		}, []string{"init: (none) → models/yinsh-blitz.zck", "eval.baselines: [random, 'uct:200', 'ab:2:eval=none'] → [random]"}, nil},
		{"game", func(c *Config) { c.Game = "yinsh-blitz" }, []string{"game: yinsh → yinsh-blitz"}, []string{"game"}},
		{"net", func(c *Config) { c.Net.Blocks, c.Net.GlobalPool = 6, true }, []string{"net.blocks: 4 → 6", "net.global_pool: false → true"},
			[]string{"net.blocks", "net.global_pool"}},
		{"optimizer", func(c *Config) { c.Optimizer.Method, c.Optimizer.L2 = "sgd", 0 }, []string{"optimizer.method: adam → sgd", "optimizer.l2: 0.0001 → 0"},
			[]string{"optimizer.method"}},
	} {
		old := DefaultConfig("yinsh")
		old.Optimizer.Schedule = []net.LRStep{{Step: 6900, Factor: 0.25}}
		cfg := DefaultConfig("yinsh")
		cfg.Optimizer.Schedule = append([]net.LRStep(nil), old.Optimizer.Schedule...)
		tc.change(&cfg)
		cs, err := changes(&old, &cfg)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range cs {
			got = append(got, c.String())
		}
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s: changes\n%s\nwant\n%s", tc.name, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
		}
		err = refused("runs/x", cs)
		if (err != nil) != (len(tc.refused) > 0) {
			t.Errorf("%s: refused: %v, want the keys %v", tc.name, err, tc.refused)
		}
		for _, k := range tc.refused {
			if err != nil && !strings.Contains(err.Error(), "\n  "+k+": ") {
				t.Errorf("%s: the refusal does not name %s: %v", tc.name, k, err)
			}
		}
	}
}
