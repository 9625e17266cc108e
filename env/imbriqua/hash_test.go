package imbriqua

import (
	"slices"
	"testing"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/envtest"
)

// hashChanges each change one field of a state (the first and the last card of the pile's order
// apart): a key that leaves the field out hashes the changed state as the original.
var hashChanges = []envtest.HashChange[State]{
	{Field: "light's pawns", Change: func(s *State) { s.pawns[0] ^= 1 << 63 }},
	{Field: "dark's pawns", Change: func(s *State) { s.pawns[1] ^= 1 }},
	{Field: "first card drawn", Change: func(s *State) { s.order[0] ^= 1 }},
	{Field: "tenth card drawn", Change: func(s *State) { s.order[chanceCards-1] ^= 8 }},
	{Field: "cards unknown", Change: func(s *State) { s.unknown ^= 1 << chanceCards }},
	{Field: "turn", Change: func(s *State) { s.turn ^= 1 }},
	{Field: "opening placements", Change: func(s *State) { s.opening ^= 1 }},
	{Field: "phase", Change: func(s *State) { s.phase ^= 1 }},
	{Field: "card 11's placements left", Change: func(s *State) { s.bonus ^= 1 }},
	{Field: "pawn placed", Change: func(s *State) { s.placed ^= 1 }},
	{Field: "chain", Change: func(s *State) { s.chain ^= 1 }},
	{Field: "player to decide", Change: func(s *State) { s.toMove ^= 1 }},
	{Field: "result", Change: func(s *State) { s.result ^= 1 }},
}

// TestHash: the states of seeded random games, chance included, 100000 distinct ones, all hash
// apart, and apart from each of them with one field changed (hashChanges); a state reached by
// two orders of the same placements hashes alike, one with two pawns swapped apart, and so does
// one with another card drawn.
func TestHash(t *testing.T) {
	envtest.CheckHash(t, func(int) env.Game[State] { return Game }, 100000, hashChanges)

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
