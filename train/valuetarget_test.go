package train

import (
	"testing"

	"github.com/zerogames/zero/train/replay"
)

// TestValueTarget: the blend of the result and the search's value, except where the search
// proved its value, which is then the target whatever the result.
func TestValueTarget(t *testing.T) {
	for _, c := range []struct {
		result, search float32
		proven         bool
		lambda         float64
		want           float32
	}{{1, 0.2, false, 0, 1}, {-1, 0.2, false, 1, 0.2}, {1, -0.5, false, 0.5, 0.25}, {0, 0.8, false, 0.25, 0.2},
		{1, -1, true, 0, -1}, {-1, 0.25, true, 0.5, 0.25}, {0, 1, true, 1, 1}} {
		tg := replay.Target{Value: c.search, Proven: c.proven}
		if got := valueTarget(c.result, tg, c.lambda); got < c.want-1e-6 || got > c.want+1e-6 {
			t.Errorf("valueTarget(%v, %+v, %v) = %v, want %v", c.result, tg, c.lambda, got, c.want)
		}
	}
}
