package configs

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/zerogames/zero/internal/games"
	"github.com/zerogames/zero/train"
)

// TestPresets: every game has a preset named after it that loads, and tiny exists.
func TestPresets(t *testing.T) {
	names := Names()
	for _, want := range append(games.Names(), "tiny") {
		if !slices.Contains(names, want) {
			t.Errorf("no preset %s", want)
		}
	}
	for _, n := range names {
		c, err := Load(n)
		if err != nil {
			t.Error(err)
			continue
		}
		if n != "tiny" && c.Game != n {
			t.Errorf("configs/%s.yaml is for %s", n, c.Game)
		}
	}
	if _, err := Load("chess"); err == nil {
		t.Error("an unknown preset loaded")
	}
}

// TestExperiments: every configuration of configs/experiments/ (the measurements of
// docs/BENCHMARKS.md name them in their commands) and of models/recipes/ still loads, so that
// those commands still run.
func TestExperiments(t *testing.T) {
	var files []string
	for _, dir := range []string{"experiments", "../models/recipes"} {
		f, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
		if err != nil || len(f) == 0 {
			t.Fatalf("%s: no configurations (%v)", dir, err)
		}
		files = append(files, f...)
	}
	for _, f := range files {
		if _, err := train.LoadConfig(f); err != nil {
			t.Error(err)
		}
	}
}
