package yinsh

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/zerogames/zero/env"
)

// hashChanges each change one field of a state (both words of a bitboard apart): a key that
// leaves the field out hashes the changed state as the original.
var hashChanges = []struct {
	field  string
	change func(*State)
}{
	{"white rings, low word", func(s *State) { s.rings[0].lo ^= 1 }},
	{"white rings, high word", func(s *State) { s.rings[0].hi ^= 1 }},
	{"black rings, low word", func(s *State) { s.rings[1].lo ^= 1 }},
	{"black rings, high word", func(s *State) { s.rings[1].hi ^= 1 }},
	{"white markers, low word", func(s *State) { s.markers[0].lo ^= 1 }},
	{"white markers, high word", func(s *State) { s.markers[0].hi ^= 1 }},
	{"black markers, low word", func(s *State) { s.markers[1].lo ^= 1 }},
	{"black markers, high word", func(s *State) { s.markers[1].hi ^= 1 }},
	{"white's rings removed", func(s *State) { s.removed[0] ^= 1 }},
	{"black's rings removed", func(s *State) { s.removed[1] ^= 1 }},
	{"rings placed", func(s *State) { s.placed ^= 1 }},
	{"markers used", func(s *State) { s.used ^= 1 }},
	{"phase", func(s *State) { s.phase ^= 1 }},
	{"player to decide", func(s *State) { s.toMove ^= 1 }},
	{"mover", func(s *State) { s.mover ^= 1 }},
	{"passed", func(s *State) { s.passed = !s.passed }},
	{"variant", func(s *State) { s.blitz = !s.blitz }},
	{"result", func(s *State) { s.result ^= 1 }},
}

// TestHash: the states of seeded random games of both variants, 100000 distinct ones, all hash
// apart, and apart from each of them with one field changed (hashChanges); a state reached by
// two orders of the same placements hashes alike, one with two rings swapped apart.
func TestHash(t *testing.T) {
	seen := map[uint64]State{}
	for i := 0; len(seen) < 100000; i++ {
		if i == 5000 {
			t.Fatalf("%d games gave %d states only", i, len(seen))
		}
		g := []*Game{Normal, Blitz}[i%2]
		w := env.NewWalker[State](rand.New(rand.NewPCG(uint64(i), 7)), NumActions)
		for s := g.New(); ; s = s.Play(w.Step(s)) {
			h := g.Hash(s)
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
		for _, c := range hashChanges {
			x := s
			c.change(&x)
			if hx := Normal.Hash(x); hx == h {
				t.Fatalf("%s: %s hashes as with the %s changed", c.field, s.String(), c.field)
			} else if y, ok := seen[hx]; ok && y != x {
				t.Fatalf("%s: %s with the %s changed hashes as %s", c.field, s.String(), c.field, y.String())
			}
		}
	}

	play := func(actions ...env.Action) State {
		s := Normal.New()
		for _, a := range actions {
			if !slices.Contains(s.Legal(nil), a) {
				t.Fatalf("%v is not legal at %s", a, s.String())
			}
			s = s.Play(a)
		}
		return s
	}
	for _, c := range []struct {
		a, b  []env.Action
		equal bool
	}{
		{[]env.Action{0, 1, 2}, []env.Action{2, 1, 0}, true},
		{[]env.Action{0, 1, 2, 3, 40}, []env.Action{40, 3, 2, 1, 0}, true},
		{[]env.Action{0, 1, 2}, []env.Action{0, 2, 1}, false},
		{[]env.Action{0, 1}, []env.Action{1, 0}, false},
	} {
		sa, sb := play(c.a...), play(c.b...)
		if (sa == sb) != c.equal || (Normal.Hash(sa) == Normal.Hash(sb)) != c.equal {
			t.Errorf("placements %v and %v: states equal %v, keys equal %v; want %v", c.a, c.b,
				sa == sb, Normal.Hash(sa) == Normal.Hash(sb), c.equal)
		}
	}
}

// TestHashAllocs: the key allocates nothing.
func TestHashAllocs(t *testing.T) {
	states := heuristicPositions(Normal, 2, 3)
	if n := testing.AllocsPerRun(5, func() {
		for _, s := range states {
			Normal.Hash(s)
		}
	}); n != 0 {
		t.Errorf("%v allocations", n)
	}
}
