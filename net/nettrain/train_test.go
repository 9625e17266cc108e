package nettrain

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/net"
)

// randomBatch is n positions with random observations, random legal actions (at least one each),
// a random target distribution over them and random results.
func randomBatch(rng *rand.Rand, n int, s *net.Spec) *net.Batch {
	b := &net.Batch{N: n, Obs: randomObs(rng, n, s), Value: make([]float32, n), LegalEnd: make([]int32, n)}
	for i := range n {
		var sum float32
		start := len(b.Legal)
		for a := range s.NumActions {
			if rng.IntN(4) == 0 || (a == s.NumActions-1 && len(b.Legal) == start) {
				b.Legal = append(b.Legal, env.Action(a))
				p := rng.Float32()
				b.Policy = append(b.Policy, p)
				sum += p
			}
		}
		for j := start; j < len(b.Legal); j++ {
			b.Policy[j] /= sum
		}
		b.LegalEnd[i] = int32(len(b.Legal))
		b.Value[i] = float32(rng.IntN(3) - 1)
	}
	return b
}

func testOptimizer(method string) net.OptimizerConfig {
	o := net.DefaultOptimizer()
	o.Method = method
	o.LearningRate = 1e-2
	if method == "sgd" {
		o.LearningRate = 1e-2
	}
	return o
}

// TestTrainingLearns overfits one small batch: the loss must fall well below where it starts,
// with Adam on every architecture, with SGD on two (SGD needs a learning rate tuned per net,
// and the tiniest nets saturate their value head at any rate that learns in 40 steps).
func TestTrainingLearns(t *testing.T) {
	for _, arch := range architectures(t) {
		for _, method := range []string{"adam", "sgd"} {
			if method == "sgd" && arch.name != "yinsh" && arch.name != "dense6x6" {
				continue
			}
			t.Run(arch.name+"/"+method, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(3, 4))
				w, err := net.NewWeights(arch.spec, arch.cfg, rng)
				if err != nil {
					t.Fatal(err)
				}
				tr, err := NewTrainer(w, testOptimizer(method), nil)
				if err != nil {
					t.Fatal(err)
				}
				defer tr.Close()
				b := randomBatch(rng, 8, arch.spec)
				first, err := tr.Step(b)
				if err != nil {
					t.Fatal(err)
				}
				var last Loss
				for range 40 {
					if last, err = tr.Step(b); err != nil {
						t.Fatal(err)
					}
				}
				// The policy loss cannot fall below the target's entropy: what must shrink is the
				// excess, the Kullback-Leibler divergence.
				h := entropy(b)
				t.Logf("loss %.3f → %.3f (policy KL %.3f → %.3f, value %.3f → %.3f)", first.Total, last.Total, first.Policy-h, last.Policy-h, first.Value, last.Value)
				if !(last.Policy-h < 0.5*(first.Policy-h)) || !(last.Value < 0.5*first.Value) {
					t.Errorf("40 steps on one batch: policy KL %.3f → %.3f, value loss %.3f → %.3f", first.Policy-h, last.Policy-h, first.Value, last.Value)
				}
				if tr.Optimizer().Step != 41 {
					t.Errorf("optimizer at step %d after 41 steps", tr.Optimizer().Step)
				}
			})
		}
	}
}

// TestGradient holds the training graph's gradient (through the masked softmax and the
// scattered targets) to finite differences of its own loss, on a few weights of each kind; with
// 4 channels, and with 16, which built with the tag dnnl keeps the tower in oneDNN's blocked
// layout.
func TestGradient(t *testing.T) {
	for _, channels := range []int{4, 16} {
		t.Run(fmt.Sprintf("channels=%d", channels), func(t *testing.T) { testGradient(t, channels) })
	}
}

func testGradient(t *testing.T, channels int) {
	spec := synthetic(t, "six", 3, 6, 6, 40)
	cfg := net.Config{Blocks: 1, Channels: channels, PolicyChannels: 2, ValueChannels: 1, ValueHidden: 4}
	rng := rand.New(rand.NewPCG(5, 6))
	w, err := net.NewWeights(spec, cfg, rng)
	if err != nil {
		t.Fatal(err)
	}
	// float64 would be better; float32 with a wide step and a loose bound still catches a wrong
	// sign, a missing term or a misplaced target.
	opt := testOptimizer("adam")
	opt.L2 = 0 // the penalty is added outside the graph
	tr, err := NewTrainer(w, opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	b := randomBatch(rng, 6, spec)
	if _, err := tr.lossAndGrad(b); err != nil {
		t.Fatal(err)
	}
	grads := make([][]float32, len(tr.grads))
	for i, g := range tr.grads {
		grads[i] = append([]float32(nil), g...)
	}
	checked := 0
	k := 0
	for _, p := range w.Params {
		if !p.Trained() {
			continue
		}
		g := grads[k]
		k++
		for _, i := range []int{0, len(p.Data) / 2, len(p.Data) - 1} {
			const h = 1e-3
			orig := p.Data[i]
			p.Data[i] = orig + h
			up, err := tr.lossAndGrad(b)
			if err != nil {
				t.Fatal(err)
			}
			p.Data[i] = orig - h
			down, err := tr.lossAndGrad(b)
			if err != nil {
				t.Fatal(err)
			}
			p.Data[i] = orig
			numeric := (up.Total - down.Total) / (2 * h)
			if d := math.Abs(numeric - float64(g[i])); d > 2e-3+0.05*math.Abs(numeric) {
				t.Errorf("%s[%d]: gradient %.5f, finite differences %.5f", p.Name, i, g[i], numeric)
			}
			checked++
		}
	}
	if checked < 30 {
		t.Fatalf("only %d gradients checked", checked)
	}
}

// TestTrainingUpdatesWeights checks that a step changes the Weights themselves (the graph is
// backed by them) and their batchnorm statistics, and that an engine built after sees it.
func TestTrainingUpdatesWeights(t *testing.T) {
	arch := architectures(t)[2]
	rng := rand.New(rand.NewPCG(7, 8))
	w, err := net.NewWeights(arch.spec, arch.cfg, rng)
	if err != nil {
		t.Fatal(err)
	}
	before := w.Clone()
	tr, err := NewTrainer(w, testOptimizer("adam"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if _, err := tr.Step(randomBatch(rng, 4, arch.spec)); err != nil {
		t.Fatal(err)
	}
	for i, p := range w.Params {
		same := true
		for j := range p.Data {
			same = same && p.Data[j] == before.Params[i].Data[j]
		}
		if same {
			t.Errorf("%s unchanged by a training step", p.Name)
		}
	}
}

// entropy is the mean entropy of the batch's target distributions.
func entropy(b *net.Batch) float64 {
	var h float64
	for _, p := range b.Policy {
		if p > 0 {
			h -= float64(p) * math.Log(float64(p))
		}
	}
	return h / float64(b.N)
}

// TestGradientDoesNotAccumulate: gorgonia adds each run's gradient into the weights' dual
// values, so a reused training graph must clear them; the gradient of a batch after another
// batch must be the gradient of a fresh graph.
func TestGradientDoesNotAccumulate(t *testing.T) {
	spec := synthetic(t, "six", 7, 6, 6, 300)
	w, err := net.NewWeights(spec, smallConfig(), rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(21, 22))
	b1, b2 := randomBatch(rng, 4, spec), randomBatch(rng, 4, spec)
	reused, err := NewTrainer(w, testOptimizer("adam"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer reused.Close()
	fresh, err := NewTrainer(w, testOptimizer("adam"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	for _, step := range []func() error{
		func() error { _, err := reused.lossAndGrad(b1); return err },
		func() error { _, err := reused.lossAndGrad(b2); return err },
		func() error { _, err := fresh.lossAndGrad(b2); return err },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	for k := range reused.grads {
		if !slices.Equal(reused.grads[k], fresh.grads[k]) {
			t.Fatalf("gradient %d of a reused graph differs from a fresh graph's", k)
		}
	}
}

// TestOwnOpsMatchGorgonias holds the training graph with this package's convolution and
// batchnorm ops to the same graph with gorgonia's Conv2d and BatchNorm: equal loss, gradients
// and updated batchnorm statistics, on every architecture.
func TestOwnOpsMatchGorgonias(t *testing.T) {
	for _, arch := range architectures(t) {
		t.Run(arch.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(31, 32))
			w, err := net.NewWeights(arch.spec, arch.cfg, rng)
			if err != nil {
				t.Fatal(err)
			}
			w.Randomize(rng)
			b := randomBatch(rng, 11, arch.spec)
			var losses [2]Loss
			var grads [2][][]float32
			var after [2]*net.Weights
			for i, own := range []bool{true, false} {
				after[i] = w.Clone()
				tr, err := NewTrainer(after[i], testOptimizer("adam"), nil)
				if err != nil {
					t.Fatal(err)
				}
				tr.ownOps = own
				if losses[i], err = tr.lossAndGrad(b); err != nil {
					t.Fatal(err)
				}
				grads[i] = tr.grads
				tr.Close()
			}
			if d := math.Abs(losses[0].Total - losses[1].Total); d > 1e-4*max(1, math.Abs(losses[1].Total)) {
				t.Errorf("loss %v with our convolutions, %v with gorgonia's", losses[0], losses[1])
			}
			worst := 0.0
			for k := range grads[0] {
				for j := range grads[0][k] {
					worst = max(worst, relErr(grads[0][k][j], grads[1][k][j]))
				}
			}
			t.Logf("worst gradient difference %.2g", worst)
			if worst > 1e-4 {
				t.Errorf("gradients differ by %.2g", worst)
			}
			for i, p := range after[0].Params {
				if p.Trained() {
					continue
				}
				for j := range p.Data {
					if d := relErr(p.Data[j], after[1].Params[i].Data[j]); d > 1e-5 {
						t.Fatalf("%s[%d] = %g after a run, gorgonia's %g", p.Name, j, p.Data[j], after[1].Params[i].Data[j])
					}
				}
				if slices.Equal(p.Data, w.Params[i].Data) {
					t.Errorf("%s not updated by a training run", p.Name)
				}
			}
		})
	}
}

// TestStepDense: the dense form of a batch (the target over the whole action space, the legal
// actions as flags) trains exactly as the sparse one; without flags every action enters the
// softmax, which gives another loss.
func TestStepDense(t *testing.T) {
	for _, arch := range architectures(t)[:3] {
		t.Run(arch.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(41, 42))
			w, err := net.NewWeights(arch.spec, arch.cfg, rng)
			if err != nil {
				t.Fatal(err)
			}
			b := randomBatch(rng, 5, arch.spec)
			actions := arch.spec.NumActions
			policy := make([]float32, b.N*actions)
			legal := make([]float32, b.N*actions)
			start := int32(0)
			for i := range b.N {
				for j := start; j < b.LegalEnd[i]; j++ {
					policy[i*actions+int(b.Legal[j])] = b.Policy[j]
					legal[i*actions+int(b.Legal[j])] = 1
				}
				start = b.LegalEnd[i]
			}
			sparse, dense, unmasked := w.Clone(), w.Clone(), w.Clone()
			var losses [3]Loss
			for k, step := range []func(tr *Trainer) (Loss, error){
				func(tr *Trainer) (Loss, error) { return tr.Step(b) },
				func(tr *Trainer) (Loss, error) { return tr.StepDense(b.Obs, policy, legal, b.Value) },
				func(tr *Trainer) (Loss, error) { return tr.StepDense(b.Obs, policy, nil, b.Value) },
			} {
				tr, err := NewTrainer([]*net.Weights{sparse, dense, unmasked}[k], testOptimizer("adam"), nil)
				if err != nil {
					t.Fatal(err)
				}
				if losses[k], err = step(tr); err != nil {
					t.Fatal(err)
				}
				tr.Close()
			}
			if losses[0] != losses[1] {
				t.Errorf("sparse loss %+v, dense %+v", losses[0], losses[1])
			}
			for i, p := range sparse.Params {
				if !slices.Equal(p.Data, dense.Params[i].Data) {
					t.Errorf("%s differs after a sparse and a dense step", p.Name)
				}
			}
			if !(losses[2].Policy > losses[0].Policy) {
				t.Errorf("unmasked policy loss %g, masked %g: the softmax over every action must cost more", losses[2].Policy, losses[0].Policy)
			}
			tr, err := NewTrainer(w.Clone(), testOptimizer("adam"), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			if _, err := tr.StepDense(b.Obs, policy[:10], nil, b.Value); err == nil || !strings.Contains(err.Error(), "policy values") {
				t.Errorf("a short policy: %v", err)
			}
		})
	}
}
