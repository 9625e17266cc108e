package yinsh

import (
	"testing"

	"github.com/zerogames/zero/env"
)

// TestMoverInOpening: view.go documents Mover as "the player to move" outside PhaseRow and
// PhaseRing (and the last mover once the game is over). In the opening the engine did not update
// mover when placements alternate (playOther's place branch only flips toMove), so Mover()
// said white while black placed. The web view reports it (internal/ui/yinsh.go: Mover).
func TestMoverInOpening(t *testing.T) {
	tests := []struct {
		moves string
	}{
		{"place f6"},
		{"place f6;place e5;place a2"},
		{"place f6;place e5;place a2;place k10;place g11;place e1;place b1;place a5;place k7"},
	}
	for _, tt := range tests {
		s, _, err := env.Replay[State](Normal, tt.moves)
		if err != nil {
			t.Fatal(err)
		}
		if s.Phase() != PhasePlace {
			t.Fatalf("%q: phase %d, want the opening", tt.moves, s.Phase())
		}
		if s.Mover() != s.ToMove() {
			t.Errorf("after %q: Mover() = %d, ToMove() = %d; the doc says they agree outside the row phases",
				tt.moves, s.Mover(), s.ToMove())
		}
	}
}
