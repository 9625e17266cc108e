package term

import (
	"os"
	"testing"

	"github.com/zerogames/zero/internal/games/all"
)

// TestMain fills the registries with the binary's games, as zero does before any command.
func TestMain(m *testing.M) {
	all.Register()
	os.Exit(m.Run())
}
