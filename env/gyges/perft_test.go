package gyges

import (
	"testing"

	"github.com/zerogames/zero/env"
)

// benchPosition is the Rust engine's benchmark position (its first group is the mover's start
// row), written in our notation with south to move.
const benchPosition = "202110/000330/000000/000200/000100/030123 s"

const startPosition = "321123/000000/000000/000000/000000/321123 s"

// perftCounts are the engine's counts. Depths 1 and 2, and depth 3 of the basic rule's start
// position, are checked against the reference implementation below; the bigger counts, too slow
// for the naive reference, are held to the engine's own.
var perftCounts = []struct {
	game     *Game
	position string
	counts   [3]uint64
}{
	{Basic, startPosition, [3]uint64{24, 574, 16716}},
	{Basic, benchPosition, [3]uint64{56, 3287, 143644}},
	{Advanced, startPosition, [3]uint64{222, 56352, 16360280}},
	{Advanced, benchPosition, [3]uint64{602, 377020, 153750314}},
}

func TestPerft(t *testing.T) {
	for _, tt := range perftCounts {
		s, err := tt.game.ParsePosition(tt.position)
		if err != nil {
			t.Fatal(err)
		}
		for d := 1; d <= 3; d++ {
			want := tt.counts[d-1]
			if got := env.PerftBulk(s, d, nil); got != want {
				t.Errorf("%s %s: bulk perft(%d) = %d, want %d", tt.game.info.Name, tt.position, d, got, want)
			}
			if got := env.PerftCount(tt.game, s, d, nil); got != want {
				t.Errorf("%s %s: counted perft(%d) = %d, want %d", tt.game.info.Name, tt.position, d, got, want)
			}
			if want > 2e6 || want > 2e5 && testing.Short() {
				continue // counted in bulk only: making every leaf takes seconds
			}
			if got := env.Perft(s, d, nil); got != want {
				t.Errorf("%s %s: perft(%d) = %d, want %d", tt.game.info.Name, tt.position, d, got, want)
			}
		}
	}
}

// refPerft counts the leaves at depth below r, making every move.
func refPerft(r *ref, depth int) uint64 {
	moves := r.legal()
	if depth == 1 {
		return uint64(len(moves))
	}
	var n uint64
	for _, m := range moves {
		child := *r
		child.cached = nil
		child.play(m)
		n += refPerft(&child, depth-1)
	}
	return n
}

func TestPerftAgainstReference(t *testing.T) {
	for _, tt := range perftCounts {
		depth := 2
		if tt.counts[2] < 5e4 {
			depth = 3
		}
		for d := 1; d <= depth; d++ {
			if got := refPerft(refFrom(t, tt.position, tt.game), d); got != tt.counts[d-1] {
				t.Errorf("%s %s: the reference counts %d at depth %d, the table %d", tt.game.info.Name, tt.position, got, d, tt.counts[d-1])
			}
		}
	}
}
