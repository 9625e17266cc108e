package imbriqua_test

import (
	"flag"
	"math/rand/v2"
	"testing"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/imbriqua"
)

var randomGames = flag.Int("random-games", 0, "play this many seeded random games and report the results (TestRandomResults)")

// TestRandomResults measures the share of results of uniformly random play (chance by its
// probabilities), game i seeded (i, 0):
//
//	go test ./env/imbriqua -run TestRandomResults -random-games 10000 -v
func TestRandomResults(t *testing.T) {
	if *randomGames == 0 {
		t.Skip("a measurement: give -random-games N")
	}
	var results [4]int
	decisions, longest := 0, 0
	var framed [2]int
	w := env.NewWalker[imbriqua.State](nil, imbriqua.NumActions)
	for i := range *randomGames {
		w.Rng = rand.New(rand.NewPCG(uint64(i), 0))
		s, n := w.Playout(imbriqua.Game.New())
		if s.Result() == env.Ongoing || n > imbriqua.MaxLength {
			t.Fatalf("game %d: result %d after %d decisions", i, s.Result(), n)
		}
		results[s.Result()]++
		decisions += n
		longest = max(longest, n)
		score := s.Score()
		framed[0] += score[0]
		framed[1] += score[1]
	}
	g := float64(*randomGames)
	t.Logf("%d random games: light %.1f%%, dark %.1f%%, draw %.1f%%; %.1f decisions a game (longest %d, bound %d); framed squares at the end: light %.2f, dark %.2f",
		*randomGames, 100*float64(results[env.Win0])/g, 100*float64(results[env.Win1])/g, 100*float64(results[env.Draw])/g,
		float64(decisions)/g, longest, imbriqua.MaxLength, float64(framed[0])/g, float64(framed[1])/g)
}
