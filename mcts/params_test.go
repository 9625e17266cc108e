package mcts

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestParamsYAML: Params written as YAML (and JSON) reads back equal, strictly, with every
// field; the keys are the ones documented on Params.
func TestParamsYAML(t *testing.T) {
	training := DefaultParams()
	training.Gumbel, training.InFlight, training.ScanDepth, training.RootProof = true, 4, 1, 0
	training.DirichletAlpha, training.Temperature = 0.3, Schedule{{0, 1}, {20, 0}}
	odd := UCTParams()
	odd.GumbelInterior, odd.SampleChance, odd.GumbelScale, odd.CVisit, odd.CScale = true, true, 0, 25, 0.5
	odd.MaxNodes, odd.VirtualLoss, odd.CPuctBase, odd.UCBC, odd.Temperature = 1000, 3, 0, 2.5, Constant(0.5)
	odd.MinimaxWeight, odd.HeuristicWeight = 0.25, 0.5
	for _, tc := range []struct {
		name string
		p    Params
	}{{"default", DefaultParams()}, {"uct", UCTParams()}, {"training", training}, {"every field changed", odd}} {
		data, err := yaml.Marshal(&tc.p)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var back Params
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(&back); err != nil {
			t.Fatalf("%s: %v in\n%s", tc.name, err, data)
		}
		if !sameParams(back, tc.p) {
			t.Errorf("%s: YAML round trip\n%+v\nbecame\n%+v", tc.name, tc.p, back)
		}
		js, err := json.Marshal(&tc.p)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		back = Params{}
		if err := json.Unmarshal(js, &back); err != nil || !sameParams(back, tc.p) {
			t.Errorf("%s: JSON round trip (%v)\n%s\nbecame\n%+v", tc.name, err, js, back)
		}
	}
	var keys map[string]any
	data, _ := yaml.Marshal(DefaultParams())
	if err := yaml.Unmarshal(data, &keys); err != nil {
		t.Fatal(err)
	}
	want := []string{"rule", "c_puct", "c_puct_base", "fpu_reduction", "ucb_c", "dirichlet_alpha",
		"noise_fraction", "temperature", "gumbel", "gumbel_interior", "gumbel_actions", "gumbel_scale",
		"c_visit", "c_scale", "in_flight", "virtual_loss", "max_nodes", "sample_chance", "solver",
		"scan_depth", "root_proof", "root_proof_nodes", "minimax_weight", "heuristic_weight"}
	if len(keys) != len(want) {
		t.Errorf("keys %v, want %v", keys, want)
	}
	for _, k := range want {
		if _, ok := keys[k]; !ok {
			t.Errorf("no key %s in\n%s", k, data)
		}
	}
	if keys["rule"] != "puct" {
		t.Errorf("rule written as %v, want puct", keys["rule"])
	}
	for _, text := range []string{"rule: uct\n", "rule: 1\n", "temperature: [{from: 1, valeu: 2}]\n"} {
		var p Params
		dec := yaml.NewDecoder(strings.NewReader(text))
		dec.KnownFields(true)
		if err := dec.Decode(&p); err == nil {
			t.Errorf("%q decoded: %+v", text, p)
		}
	}
}

// sameParams compares parameters, an empty temperature schedule equal to none.
func sameParams(a, b Params) bool {
	if len(a.Temperature) == 0 && len(b.Temperature) == 0 {
		a.Temperature, b.Temperature = nil, nil
	}
	return reflect.DeepEqual(a, b)
}

// TestParamErrorKeys: Validate names the parameter out of range by its key in a file.
func TestParamErrorKeys(t *testing.T) {
	for _, tc := range []struct {
		key    string
		change func(p *Params)
	}{
		{"rule", func(p *Params) { p.Rule = 7 }},
		{"c_puct", func(p *Params) { p.CPuct = -1 }},
		{"gumbel_actions", func(p *Params) { p.Gumbel, p.GumbelActions = true, 0 }},
		{"c_scale", func(p *Params) { p.CScale = -1 }},
		{"in_flight", func(p *Params) { p.InFlight = 0 }},
		{"in_flight", func(p *Params) { p.InFlight = MaxInFlight + 1 }},
		{"max_nodes", func(p *Params) { p.MaxNodes = 0 }},
		{"max_nodes", func(p *Params) { p.MaxNodes = MaxTreeNodes + 1 }},
		{"gumbel_actions", func(p *Params) { p.GumbelActions = MaxGumbelActions + 1 }},
		{"root_proof_nodes", func(p *Params) { p.RootProofNodes = int(MaxRootProofNodes) + 1 }},
		{"c_puct", func(p *Params) { p.CPuct = math.Inf(1) }},
		{"fpu_reduction", func(p *Params) { p.FPUReduction = math.NaN() }},
		{"virtual_loss", func(p *Params) { p.VirtualLoss = 1e300 }},
		{"temperature[0].value", func(p *Params) { p.Temperature = Constant(101) }},
		{"scan_depth", func(p *Params) { p.ScanDepth = 9 }},
		{"root_proof_nodes", func(p *Params) { p.RootProofNodes = 0 }},
		{"temperature[1].from", func(p *Params) { p.Temperature = Schedule{{3, 1}, {2, 0}} }},
		{"temperature[0].value", func(p *Params) { p.Temperature = Constant(-1) }},
		{"minimax_weight", func(p *Params) { p.MinimaxWeight = 1.5 }},
		{"minimax_weight", func(p *Params) { p.MinimaxWeight = math.NaN() }},
		{"heuristic_weight", func(p *Params) { p.HeuristicWeight = -0.1 }},
	} {
		p := DefaultParams()
		tc.change(&p)
		var pe *ParamError
		if err := p.Validate(); !errors.As(err, &pe) || pe.Key != tc.key || !strings.Contains(err.Error(), tc.key) {
			t.Errorf("%s: Validate() = %v, want a ParamError naming it", tc.key, err)
		}
	}
}
