package yinsh

import "github.com/zerogames/zero/env"

var _ env.Hasher[State] = Normal

// Hash is s's key for transposition tables (env.Hasher): the rings and markers of each colour,
// the rings removed, the rings placed and the markers used, the phase, the player to decide and
// the mover whose rows are being resolved, whether the last turn was a pass, the variant and the
// result, mixed. No count of moves is needed: every move adds a marker and every row removes a
// ring, so a position cannot come back. It allocates nothing.
func (g *Game) Hash(s State) uint64 { return s.hash() }

func (s *State) hash() uint64 {
	flags := uint64(0)
	if s.passed {
		flags |= 1
	}
	if s.blitz {
		flags |= 2
	}
	meta := uint64(s.removed[0]) | uint64(s.removed[1])<<8 | uint64(s.placed)<<16 | uint64(s.used)<<24 |
		uint64(s.phase)<<32 | uint64(uint8(s.toMove))<<40 | uint64(uint8(s.mover))<<48 |
		(flags|uint64(uint8(s.result))<<2)<<56
	h := mix(meta)
	h = mix(h ^ s.rings[0].lo)
	h = mix(h ^ s.rings[0].hi)
	h = mix(h ^ s.rings[1].lo)
	h = mix(h ^ s.rings[1].hi)
	h = mix(h ^ s.markers[0].lo)
	h = mix(h ^ s.markers[0].hi)
	h = mix(h ^ s.markers[1].lo)
	return mix(h ^ s.markers[1].hi)
}

// mix is splitmix64's finalizer: a bijection of 64 bits whose every output bit depends on
// every input bit.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
