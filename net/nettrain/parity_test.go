package nettrain

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/gyges"
	"github.com/zerogames/zero/env/imbriqua"
	"github.com/zerogames/zero/env/yinsh"
	"github.com/zerogames/zero/net"
)

// synthetic is a game shape with a dense policy head, as Gygès's and Imbriqua's may be.
func synthetic(tb testing.TB, name string, planes, h, w, actions int) *net.Spec {
	tb.Helper()
	info := &env.Info{Name: name, NumActions: actions, Observation: env.Shape{Planes: planes, Height: h, Width: w}}
	s, err := net.NewSpec(info, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func yinshSpec(tb testing.TB) *net.Spec {
	tb.Helper()
	s, err := net.SpecOf(yinsh.Normal.Info(), yinsh.Normal)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// architectures are the shapes every test of the two implementations runs on: YINSH's spatial
// head, dense 6×6 and 8×8 games, each with and without global pooling.
func architectures(tb testing.TB) []struct {
	name string
	spec *net.Spec
	cfg  net.Config
} {
	small := net.Config{Blocks: 2, Channels: 16, PolicyChannels: 4, ValueChannels: 2, ValueHidden: 16}
	pooled := small
	pooled.GlobalPool = true
	pooled.ValueChannels = 8
	return []struct {
		name string
		spec *net.Spec
		cfg  net.Config
	}{
		{"yinsh", yinshSpec(tb), small},
		{"yinsh-pool", yinshSpec(tb), pooled},
		{"dense6x6", synthetic(tb, "six", 7, 6, 6, 300), small},
		{"dense8x8-pool", synthetic(tb, "eight", 12, 8, 8, 200), pooled},
		{"dense8x8-noblocks", synthetic(tb, "eight", 12, 8, 8, 200), net.Config{Blocks: 0, Channels: 8, PolicyChannels: 2, ValueChannels: 1, ValueHidden: 4}},
	}
}

func randomObs(rng *rand.Rand, n int, s *net.Spec) []float32 {
	obs := make([]float32, n*s.Observation.Size())
	for i := range obs {
		switch rng.IntN(3) {
		case 0:
			obs[i] = 0
		case 1:
			obs[i] = 1
		default:
			obs[i] = rng.Float32()*2 - 1
		}
	}
	return obs
}

// TestParity holds the inference engine to gorgonia's forward pass in evaluation mode, on random
// weights (batchnorm statistics included) and random inputs, for every architecture.
func TestParity(t *testing.T) {
	for _, arch := range architectures(t) {
		t.Run(arch.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			w, err := net.NewWeights(arch.spec, arch.cfg, rng)
			if err != nil {
				t.Fatal(err)
			}
			w.Randomize(rng)
			// 37 positions: several chunks of the engine (8 YINSH positions, 28 of 6×6, 16 of 8×8).
			const n = 37
			obs := randomObs(rng, n, arch.spec)
			wantOut, wantValue, err := forwardEval(w, n, obs)
			if err != nil {
				t.Fatal(err)
			}
			e := net.NewEngine(net.NewModel(w))
			s := arch.spec
			logits := make([]float32, n*s.NumActions)
			value := make([]float32, n)
			if err := e.Evaluate(obs, logits, value); err != nil {
				t.Fatal(err)
			}
			worst := 0.0
			for i := range n {
				for a := range s.NumActions {
					want := wantOut[i*s.Outputs()+s.OutputOf(env.Action(a))]
					got := logits[i*s.NumActions+a]
					worst = max(worst, relErr(got, want))
				}
				worst = max(worst, relErr(value[i], wantValue[i]))
			}
			t.Logf("worst relative error %.2g", worst)
			if worst > 1e-4 {
				t.Errorf("engine and gorgonia differ by %.2g (relative), more than 1e-4", worst)
			}

			// The comparison must see a difference in any weight: a model of other weights fails it.
			other := w.Clone()
			other.Randomize(rng)
			if err := net.NewEngine(net.NewModel(other)).Evaluate(obs, logits, value); err != nil {
				t.Fatal(err)
			}
			far := 0.0
			for i := range n * s.NumActions {
				a := env.Action(i % s.NumActions)
				far = max(far, relErr(logits[i], wantOut[(i/s.NumActions)*s.Outputs()+s.OutputOf(a)]))
			}
			if far < 1e-2 {
				t.Errorf("other weights give logits within %.2g of these: the comparison is blind", far)
			}
		})
	}
}

// relErr is |a−b| relative to max(1, |b|).
func relErr(a, b float32) float64 {
	return math.Abs(float64(a)-float64(b)) / max(1, math.Abs(float64(b)))
}

// TestParityGameSpecs holds the inference engine to gorgonia's forward pass on the policy
// heads of the games the architectures above do not cover: Gygès's spatial head with no
// off-grid output (and the advanced rule's 1,336 planes), and Imbriqua's with 11.
func TestParityGameSpecs(t *testing.T) {
	small := net.Config{Blocks: 1, Channels: 16, PolicyChannels: 4, ValueChannels: 2, ValueHidden: 16}
	for _, g := range []struct {
		info *env.Info
		game any
	}{{gyges.Basic.Info(), gyges.Basic}, {gyges.Advanced.Info(), gyges.Advanced}, {imbriqua.Game.Info(), imbriqua.Game}} {
		t.Run(g.info.Name, func(t *testing.T) {
			spec, err := net.SpecOf(g.info, g.game)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			w, err := net.NewWeights(spec, small, rng)
			if err != nil {
				t.Fatal(err)
			}
			w.Randomize(rng)
			const n = 9
			obs := randomObs(rng, n, spec)
			wantOut, wantValue, err := forwardEval(w, n, obs)
			if err != nil {
				t.Fatal(err)
			}
			logits, value := make([]float32, n*spec.NumActions), make([]float32, n)
			if err := net.NewEngine(net.NewModel(w)).Evaluate(obs, logits, value); err != nil {
				t.Fatal(err)
			}
			worst := 0.0
			for i := range n {
				for a := range spec.NumActions {
					worst = max(worst, relErr(logits[i*spec.NumActions+a], wantOut[i*spec.Outputs()+spec.OutputOf(env.Action(a))]))
				}
				worst = max(worst, relErr(value[i], wantValue[i]))
			}
			t.Logf("%d policy planes, %d off the grid: worst relative error %.2g", spec.PolicyPlanes, spec.OffGrid, worst)
			if worst > 1e-4 {
				t.Errorf("engine and gorgonia differ by %.2g (relative), more than 1e-4", worst)
			}
		})
	}
}
