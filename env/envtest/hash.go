package envtest

import (
	"math/rand/v2"
	"testing"

	"github.com/zerogames/zero/env"
)

// HashChange changes one field of a state: a key that leaves the field out hashes the changed
// state as the original.
type HashChange[S any] struct {
	Field  string
	Change func(*S)
}

// CheckHash holds a game's env.Hasher to its contract: the states of seeded random games (game
// i of games(i), walked from its start, chance included), want distinct ones, all hash apart,
// and apart from each of them with one field changed by each of changes. It fails if 5000
// games give fewer states.
func CheckHash[S env.State[S]](t *testing.T, games func(i int) env.Game[S], want int, changes []HashChange[S]) {
	t.Helper()
	hashOf := func(g env.Game[S]) func(S) uint64 {
		h, ok := g.(env.Hasher[S])
		if !ok {
			t.Fatalf("%s has no Hash", g.Info().Name)
		}
		return h.Hash
	}
	hash := hashOf(games(0))
	seen := map[uint64]S{}
	for i := 0; len(seen) < want; i++ {
		if i == 5000 {
			t.Fatalf("%d games gave %d states only", i, len(seen))
		}
		g := games(i)
		gh := hashOf(g)
		w := env.NewWalker[S](rand.New(rand.NewPCG(uint64(i), 7)), g.Info().NumActions)
		for s := g.New(); ; s = s.Play(w.Step(s)) {
			h := gh(s)
			if y, ok := seen[h]; ok && y != s {
				t.Fatalf("%s and %s hash alike", y.String(), s.String())
			}
			seen[h] = s
			if s.ToMove() == env.Terminal {
				break
			}
		}
	}
	for h, s := range seen {
		for _, c := range changes {
			x := s
			c.Change(&x)
			if hx := hash(x); hx == h {
				t.Fatalf("%s: %s hashes as with the %s changed", c.Field, s.String(), c.Field)
			} else if y, ok := seen[hx]; ok && y != x {
				t.Fatalf("%s: %s with the %s changed hashes as %s", c.Field, s.String(), c.Field, y.String())
			}
		}
	}
}
