package net

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/gyges"
	"github.com/zerogames/zero/models"
)

// TestWidenEarlierEncoding: a Gygès checkpoint of encoding 1 (13 observation planes) loads for
// today's encoding, widened: the stem's weights over the reach planes appended since are zero
// (the optimizer's moments too), and the network computes on today's observation what the file's
// network computed on the first 13 planes, position by position.
func TestWidenEarlierEncoding(t *testing.T) {
	g := gyges.Advanced
	spec, err := SpecOf(g.Info(), g)
	if err != nil {
		t.Fatal(err)
	}
	if spec.Encoding != 2 || spec.Observation.Planes != 21 {
		t.Fatalf("today's Gygès: encoding %d, %d planes", spec.Encoding, spec.Observation.Planes)
	}
	old := *spec
	old.Encoding, old.Observation.Planes, old.earlier = 1, 13, nil
	for _, path := range []string{"../models/recipes/gyges-advanced-v5.zck", "../models/recipes/gyges-advanced-v1.zck"} {
		wide, err := Load(models.ReadFile, path, spec)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		file, err := Load(models.ReadFile, path, &old)
		if err != nil {
			t.Fatalf("%s as encoding 1: %v", path, err)
		}
		if wide.WidenedFrom != 1 || wide.Header.Encoding != 2 || wide.Header.Observation.Planes != 21 || file.WidenedFrom != 0 {
			t.Fatalf("%s: widened from %d to encoding %d with %d planes", path, wide.WidenedFrom, wide.Header.Encoding, wide.Header.Observation.Planes)
		}
		stem := wide.Weights.byName["stem.w"]
		if want := []int{file.Weights.Config.Channels, 21, 3, 3}; len(stem.Shape) != 4 || stem.Shape[1] != want[1] || stem.Shape[0] != want[0] {
			t.Fatalf("%s: stem %v, want %v", path, stem.Shape, want)
		}
		for o := range stem.Shape[0] {
			for i := 13 * 9; i < 21*9; i++ {
				if stem.Data[o*21*9+i] != 0 {
					t.Fatalf("%s: stem weight %d of channel %d over a new plane is %v", path, i, o, stem.Data[o*21*9+i])
				}
			}
		}
		if (wide.Optimizer == nil) != (file.Optimizer == nil) {
			t.Fatalf("%s: the optimizer's state lost or made", path)
		}
		if wide.Optimizer != nil {
			first := wide.Optimizer.First[0] // stem.w is the first trained tensor
			if len(first) != len(stem.Data) || first[13*9] != 0 || first[0] != file.Optimizer.First[0][0] {
				t.Fatalf("%s: the stem's moments were not widened", path)
			}
		}
		ew, err := NewEngineOn(NewModel(wide.Weights), Go)
		if err != nil {
			t.Fatal(err)
		}
		ef, err := NewEngineOn(NewModel(file.Weights), Go)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(5, 5))
		obs := make([]float32, 21*36)
		lw, lf := make([]float32, spec.NumActions), make([]float32, spec.NumActions)
		vw, vf := make([]float32, 1), make([]float32, 1)
		var buf []env.Action
		checked := 0
		for game := range 4 {
			for s := g.New(); s.ToMove() != env.Terminal && checked < 60; {
				s.Observe(obs)
				if err := ew.Evaluate(obs, lw, vw); err != nil {
					t.Fatal(err)
				}
				if err := ef.Evaluate(obs[:13*36], lf, vf); err != nil {
					t.Fatal(err)
				}
				if math.Abs(float64(vw[0]-vf[0])) > 1e-5 {
					t.Fatalf("%s game %d: value %v widened, %v in the file", path, game, vw[0], vf[0])
				}
				for _, a := range s.Legal(buf[:0]) {
					if math.Abs(float64(lw[a]-lf[a])) > 1e-4 {
						t.Fatalf("%s game %d: logit of %d %v widened, %v in the file", path, game, a, lw[a], lf[a])
					}
				}
				checked++
				buf = s.Legal(buf[:0])
				s = s.Play(buf[rng.IntN(len(buf))])
			}
		}
		ew.Close()
		ef.Close()
	}
	// Another game's spec still refuses the file, and a spec that serves no earlier encoding
	// refuses it as before.
	none := *spec
	none.earlier = nil
	if _, err := Load(models.ReadFile, "../models/recipes/gyges-advanced-v5.zck", &none); err == nil {
		t.Error("a spec without earlier encodings loaded an encoding-1 file")
	}
}
