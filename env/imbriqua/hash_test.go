package imbriqua

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/zerogames/zero/env"
)

// hashChanges each change one field of a state (the first and the last card of the pile's order
// apart): a key that leaves the field out hashes the changed state as the original.
var hashChanges = []struct {
	field  string
	change func(*State)
}{
	{"light's pawns", func(s *State) { s.pawns[0] ^= 1 << 63 }},
	{"dark's pawns", func(s *State) { s.pawns[1] ^= 1 }},
	{"first card drawn", func(s *State) { s.order[0] ^= 1 }},
	{"tenth card drawn", func(s *State) { s.order[chanceCards-1] ^= 8 }},
	{"cards unknown", func(s *State) { s.unknown ^= 1 << chanceCards }},
	{"turn", func(s *State) { s.turn ^= 1 }},
	{"opening placements", func(s *State) { s.opening ^= 1 }},
	{"phase", func(s *State) { s.phase ^= 1 }},
	{"card 11's placements left", func(s *State) { s.bonus ^= 1 }},
	{"pawn placed", func(s *State) { s.placed ^= 1 }},
	{"chain", func(s *State) { s.chain ^= 1 }},
	{"player to decide", func(s *State) { s.toMove ^= 1 }},
	{"result", func(s *State) { s.result ^= 1 }},
}

// TestHash: the states of seeded random games, chance included, 100000 distinct ones, all hash
// apart, and apart from each of them with one field changed (hashChanges); a state reached by
// two orders of the same placements hashes alike, one with two pawns swapped apart, and so does
// one with another card drawn.
func TestHash(t *testing.T) {
	seen := map[uint64]State{}
	for i := 0; len(seen) < 100000; i++ {
		if i == 5000 {
			t.Fatalf("%d games gave %d states only", i, len(seen))
		}
		w := env.NewWalker[State](rand.New(rand.NewPCG(uint64(i), 7)), NumActions)
		for s := Game.New(); ; s = s.Play(w.Step(s)) {
			h := Game.Hash(s)
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
			if hx := Game.Hash(x); hx == h {
				t.Fatalf("%s: %s hashes as with the %s changed", c.field, s.String(), c.field)
			} else if y, ok := seen[hx]; ok && y != x {
				t.Fatalf("%s: %s with the %s changed hashes as %s", c.field, s.String(), c.field, y.String())
			}
		}
	}

	play := func(actions ...env.Action) State {
		s := Game.New()
		for _, a := range actions {
			if !slices.Contains(s.Legal(nil), a) {
				t.Fatalf("%v is not legal at %s", a, s.String())
			}
			s = s.Play(a)
		}
		return s
	}
	opening := []env.Action{0, 1, 2, 3, 4, 5, 6, 63}
	for _, c := range []struct {
		name  string
		a, b  []env.Action
		equal bool
	}{
		{"light's placements swapped", []env.Action{0, 1, 2}, []env.Action{2, 1, 0}, true},
		{"the opening's placements reversed", opening, []env.Action{6, 5, 4, 3, 2, 1, 0, 63}, true},
		{"a light and a dark pawn swapped", []env.Action{0, 1, 2}, []env.Action{0, 2, 1}, false},
		{"the same squares, the players swapped", []env.Action{0, 1}, []env.Action{1, 0}, false},
		// Turn 0's placement, then the first card; the cards drawn are the future's.
		{"card 3 drawn, not card 4", append(slices.Clone(opening), 27, cardBase+2), append(slices.Clone(opening), 27, cardBase+3), false},
	} {
		sa, sb := play(c.a...), play(c.b...)
		if (sa == sb) != c.equal || (Game.Hash(sa) == Game.Hash(sb)) != c.equal {
			t.Errorf("%s: states equal %v, keys equal %v; want %v", c.name, sa == sb, Game.Hash(sa) == Game.Hash(sb), c.equal)
		}
	}
}

// TestHashAllocs: the key allocates nothing.
func TestHashAllocs(t *testing.T) {
	states := heuristicPositions(2, 3)
	if n := testing.AllocsPerRun(5, func() {
		for _, s := range states {
			Game.Hash(s)
		}
	}); n != 0 {
		t.Errorf("%v allocations", n)
	}
}
