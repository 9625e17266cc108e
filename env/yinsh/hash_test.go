package yinsh

import (
	"slices"
	"testing"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/envtest"
)

// hashChanges each change one field of a state (both words of a bitboard apart): a key that
// leaves the field out hashes the changed state as the original.
var hashChanges = []envtest.HashChange[State]{
	{Field: "white rings, low word", Change: func(s *State) { s.rings[0].lo ^= 1 }},
	{Field: "white rings, high word", Change: func(s *State) { s.rings[0].hi ^= 1 }},
	{Field: "black rings, low word", Change: func(s *State) { s.rings[1].lo ^= 1 }},
	{Field: "black rings, high word", Change: func(s *State) { s.rings[1].hi ^= 1 }},
	{Field: "white markers, low word", Change: func(s *State) { s.markers[0].lo ^= 1 }},
	{Field: "white markers, high word", Change: func(s *State) { s.markers[0].hi ^= 1 }},
	{Field: "black markers, low word", Change: func(s *State) { s.markers[1].lo ^= 1 }},
	{Field: "black markers, high word", Change: func(s *State) { s.markers[1].hi ^= 1 }},
	{Field: "white's rings removed", Change: func(s *State) { s.removed[0] ^= 1 }},
	{Field: "black's rings removed", Change: func(s *State) { s.removed[1] ^= 1 }},
	{Field: "rings placed", Change: func(s *State) { s.placed ^= 1 }},
	{Field: "markers used", Change: func(s *State) { s.used ^= 1 }},
	{Field: "phase", Change: func(s *State) { s.phase ^= 1 }},
	{Field: "player to decide", Change: func(s *State) { s.toMove ^= 1 }},
	{Field: "mover", Change: func(s *State) { s.mover ^= 1 }},
	{Field: "passed", Change: func(s *State) { s.passed = !s.passed }},
	{Field: "variant", Change: func(s *State) { s.blitz = !s.blitz }},
	{Field: "result", Change: func(s *State) { s.result ^= 1 }},
}

// TestHash: the states of seeded random games of both variants, 100000 distinct ones, all hash
// apart, and apart from each of them with one field changed (hashChanges); a state reached by
// two orders of the same placements hashes alike, one with two rings swapped apart.
func TestHash(t *testing.T) {
	envtest.CheckHash(t, func(i int) env.Game[State] { return []*Game{Normal, Blitz}[i%2] }, 100000, hashChanges)

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
