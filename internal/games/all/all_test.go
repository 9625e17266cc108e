package all

import (
	"testing"

	"github.com/zerogames/zero/internal/games"
	"github.com/zerogames/zero/internal/games/gamestrain"
)

// TestRegister: every game is in both registries, under the same name, and a second Register
// changes nothing (a game registered twice would panic).
func TestRegister(t *testing.T) {
	Register()
	Register()
	names := games.Names()
	if len(names) == 0 {
		t.Fatal("no game registered")
	}
	for _, name := range names {
		g, err := gamestrain.Lookup(name)
		if err != nil {
			t.Fatalf("%s is in the play registry, not in the training registry: %v", name, err)
		}
		if g.Info().Name != name {
			t.Errorf("training registry: %s gives %s", name, g.Info().Name)
		}
	}
	if _, err := gamestrain.Lookup("chess"); err == nil {
		t.Error("the training registry knows chess")
	}
}
