package net

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseFile(t *testing.T) {
	yinshDefault := DefaultConfig("yinsh")
	tests := []struct {
		name string
		text string
		want func(f File) bool
		err  string // part of the error; "" for success
	}{
		{"defaults of the game", "game: yinsh\n", func(f File) bool { return f.Net == yinshDefault && f.Optimizer.Method == "adam" }, ""},
		{"variant takes its game's defaults", "game: yinsh-blitz\n", func(f File) bool { return f.Net == yinshDefault }, ""},
		{"unknown game takes the generic defaults", "game: chess\n", func(f File) bool { return f.Net == genericDefault }, ""},
		{"override", "game: yinsh\nnet:\n  blocks: 3\n  global_pool: true\noptimizer:\n  method: sgd\n  learning_rate: 0.1\n  schedule:\n    - {step: 100, factor: 0.1}\n",
			func(f File) bool {
				return f.Net.Blocks == 3 && f.Net.Channels == yinshDefault.Channels && f.Net.GlobalPool &&
					f.Optimizer.Method == "sgd" && len(f.Optimizer.Schedule) == 1
			}, ""},
		{"no game", "net:\n  blocks: 3\n", nil, "game: missing"},
		{"empty", "", nil, "empty configuration"},
		{"unknown top-level key", "game: yinsh\nselfplay: {}\n", nil, "field selfplay not found"},
		{"unknown net key", "game: yinsh\nnet:\n  layers: 3\n", nil, "line 3: field layers not found in type net.Config"},
		{"wrong type", "game: yinsh\nnet:\n  blocks: many\n", nil, "cannot unmarshal !!str `many` into int"},
		{"negative blocks", "game: yinsh\nnet:\n  blocks: -1\n", nil, "net.blocks: must be in [0, 128], is -1"},
		{"zero channels", "game: yinsh\nnet:\n  channels: 0\n", nil, "net.channels: must be in [1, 1024], is 0"},
		{"two errors", "game: yinsh\nnet:\n  channels: 0\n  value_hidden: 0\n", nil, "net.value_hidden: must be in [1, 4096], is 0"},
		{"bad method", "game: yinsh\noptimizer:\n  method: rmsprop\n", nil, `optimizer.method: must be "adam" or "sgd", is "rmsprop"`},
		{"bad learning rate", "game: yinsh\noptimizer:\n  learning_rate: 0\n", nil, "optimizer.learning_rate: must be > 0"},
		{"bad momentum", "game: yinsh\noptimizer:\n  momentum: 1\n", nil, "optimizer.momentum: must be in [0, 1)"},
		{"schedule out of order", "game: yinsh\noptimizer:\n  schedule:\n    - {step: 10, factor: 0.5}\n    - {step: 10, factor: 0.1}\n", nil, "optimizer.schedule[1].step"},
		{"schedule bad factor", "game: yinsh\noptimizer:\n  schedule:\n    - {step: 10, factor: 0}\n", nil, "optimizer.schedule[0].factor: must be > 0"},
		{"bad batchnorm momentum", "game: yinsh\noptimizer:\n  batchnorm_momentum: 0\n", nil, "optimizer.batchnorm_momentum"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := ParseFile([]byte(tt.text))
			switch {
			case tt.err == "" && err != nil:
				t.Fatal(err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("error %v, want %q", err, tt.err)
			case tt.err == "" && !tt.want(f):
				t.Errorf("got %+v", f)
			}
		})
	}
}

func TestLoadFileNamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "yinsh.yaml")
	if err := os.WriteFile(path, []byte("game: yinsh\nnet:\n  blocks: -1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadFile(path)
	if err == nil || err.Error() != path+": net.blocks: must be in [0, 128], is -1" {
		t.Errorf("error %v", err)
	}
	if _, err := LoadFile(path + ".missing"); err == nil {
		t.Error("a missing file loaded")
	}
}

func TestLearningRateAt(t *testing.T) {
	o := DefaultOptimizer()
	o.LearningRate = 0.1
	o.Warmup = 10
	o.Schedule = []LRStep{{Step: 100, Factor: 0.1}, {Step: 200, Factor: 0.01}}
	for _, c := range []struct {
		step int64
		want float64
	}{{0, 0.01}, {4, 0.05}, {9, 0.1}, {50, 0.1}, {99, 0.1}, {100, 0.01}, {199, 0.01}, {200, 0.001}, {1e6, 0.001}} {
		if got := o.LearningRateAt(c.step); got < c.want*(1-1e-12) || got > c.want*(1+1e-12) {
			t.Errorf("step %d: learning rate %g, want %g", c.step, got, c.want)
		}
	}
}

// FuzzParseFile: any input is either refused with an error or gives a configuration that
// validates.
func FuzzParseFile(f *testing.F) {
	f.Add([]byte("game: yinsh\n"))
	f.Add([]byte("game: yinsh\nnet:\n  blocks: 3\noptimizer:\n  schedule:\n    - {step: 1, factor: 2}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseFile(data)
		if err != nil {
			return
		}
		if c.Game == "" || c.Net.Validate() != nil || c.Optimizer.Validate() != nil {
			t.Fatalf("accepted an invalid configuration %+v", c)
		}
	})
}

// FuzzCheckpoint: a damaged checkpoint is refused with an error, never a panic, and whatever
// loads has the game's shape.
func FuzzCheckpoint(f *testing.F) {
	spec := synthetic(f, "tiny", 1, 2, 2, 3)
	w, err := NewWeights(spec, Config{Blocks: 0, Channels: 1, PolicyChannels: 1, ValueChannels: 1, ValueHidden: 1}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		f.Fatal(err)
	}
	opt := NewOptimizer(w)
	opt.Config = DefaultOptimizer()
	path := filepath.Join(f.TempDir(), "seed.ckpt")
	if err := Save(path, w, opt, 0, time.Unix(0, 0)); err != nil {
		f.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	if _, err := decode(good, spec); err != nil {
		f.Fatalf("the seed does not load: %v", err)
	}
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := decode(data, spec)
		if err != nil {
			return
		}
		if !bytes.Equal(data, good) {
			// Only a checksum collision could get here; the header must still be consistent.
			if c.Weights.Spec != spec {
				t.Fatal("loaded weights of another spec")
			}
		}
	})
}
