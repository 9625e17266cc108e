package configs

import (
	"slices"
	"testing"

	"github.com/zerogames/zero/internal/games"
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
