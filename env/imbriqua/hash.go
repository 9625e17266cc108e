package imbriqua

import "github.com/zerogames/zero/env"

var _ env.Hasher[State] = Game

// Hash is s's key for transposition tables (env.Hasher): each player's pawns, the first pile's
// cards in the order drawn (every later pile's order follows from it) and the cards not drawn
// yet, the turn, the opening placements made, the phase, card 11's placements left, the pawn
// placed this turn and the pawn of a chain, the player to decide and the result, mixed. No
// other count of moves is needed: the turn only grows, and within a turn every jump takes a
// pawn. It allocates nothing.
func (g *Rules) Hash(s State) uint64 { return s.hash() }

func (s *State) hash() uint64 {
	deck := uint64(s.unknown) << 40
	for i, c := range s.order {
		deck |= uint64(c&15) << (4 * i)
	}
	meta := uint64(s.turn) | uint64(s.opening)<<8 | uint64(s.phase)<<16 | uint64(s.bonus)<<24 |
		uint64(uint8(s.placed))<<32 | uint64(uint8(s.chain))<<40 | uint64(uint8(s.toMove))<<48 |
		uint64(uint8(s.result))<<56
	h := mix(meta)
	h = mix(h ^ deck)
	h = mix(h ^ s.pawns[0])
	return mix(h ^ s.pawns[1])
}

// mix is splitmix64's finalizer: a bijection of 64 bits whose every output bit depends on
// every input bit.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
