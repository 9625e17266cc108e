package imbriqua

import "github.com/zerogames/zero/env"

// Read-only accessors for the user interfaces, which draw a position square by square and
// show the deck. They are off the hot path.

// The board and the deck, for drawing them.
const (
	// NumSquares is the number of squares, indexed as SquareName and ParseSquare name them.
	NumSquares = numSquares
	// NumTurns is the number of turns after the opening: 4 piles of PileSize cards.
	NumTurns = numTurns
	// PileSize is the number of cards in a pile: the 11 cards.
	PileSize = pileSize
)

// Pawn is what stands on a square.
type Pawn uint8

// The pawns.
const (
	Empty Pawn = iota
	LightPawn
	DarkPawn
)

// At is what stands on square sq.
func (s State) At(sq int) Pawn {
	switch {
	case has(s.pawns[0], sq):
		return LightPawn
	case has(s.pawns[1], sq):
		return DarkPawn
	}
	return Empty
}

// The lines through a square, as bits of Framed's answer.
const (
	LineColumn   = 1 << 0 // the file: the squares north and south
	LineDiagonal = 1 << 1 // the diagonal north-east to south-west (as a1-h8)
	LineRow      = 1 << 2 // the rank: the squares east and west
	LineAnti     = 1 << 3 // the diagonal south-east to north-west (as h1-a8)
)

// Framed is the set of lines (LineColumn | LineDiagonal | LineRow | LineAnti) along which
// player p frames square sq: sq is empty and its two neighbours on the line are p's. The
// number of lines, summed over the squares, is p's Score.
func (s State) Framed(p env.Player, sq int) uint8 {
	empty := ^(s.pawns[0] | s.pawns[1])
	var lines uint8
	for d := north; d <= southEast; d++ {
		if has(framed(s.pawns[p], empty, d), sq) {
			lines |= 1 << d
		}
	}
	return lines
}

// Phase is the kind of decision that comes next.
type Phase uint8

// The phases, in the order a turn goes through them.
const (
	PhaseOpening = Phase(phaseOpening) // the 8 opening placements
	PhasePlace   = Phase(phasePlace)   // a turn's placement
	PhaseDraw    = Phase(phaseDraw)    // chance turns the card over (the first pile's 10 cards)
	PhaseAct     = Phase(phaseAct)     // the card's action: a move, or the first jump of a capture
	PhaseChain   = Phase(phaseChain)   // a further jump of the chain, or stop
	PhaseBonus   = Phase(phaseBonus)   // card 11: the two extra placements
	PhasePenalty = Phase(phasePenalty) // the card is impossible: the opponent removes a pawn
	PhaseOver    = Phase(phaseOver)
)

// Phase is the kind of the next decision.
func (s State) Phase() Phase { return Phase(s.phase) }

// Mover is the player whose turn it is, who may not be the one to decide: chance turns his
// card over, and the opponent decides his penalty. In the opening it is the player to place;
// once the game is over, light.
func (s State) Mover() env.Player {
	if s.phase == phaseOpening {
		return s.toMove
	}
	return s.mover()
}

// Placed is the square of the pawn placed this turn (it follows the pawn through its chain of
// jumps), or -1 before the turn's placement and when the turn had none.
func (s State) Placed() int { return int(s.placed) }

// Chain is the square of the pawn that goes on with a chain of jumps (PhaseChain), else -1.
func (s State) Chain() int { return int(s.chain) }

// Bonus is the number of card 11's placements left (PhaseBonus), else 0.
func (s State) Bonus() int {
	if s.phase != phaseBonus {
		return 0
	}
	return int(s.bonus)
}
