package imbriqua

import (
	"math/bits"

	"github.com/zerogames/zero/env"
)

// The action space: 7307 indices. Within each kind, generating the legal actions by square,
// then direction, then distance lists them in ascending order.
//
//	   0 ..   63  place sq                  c3: the opening, a turn's placement, card 11
//	  64 ..   73  card k                    k = 1..10: chance, a card of the first pile drawn
//	  74 .. 3657  move    from·56 + d·7 + dist-1   c3-c5 (cards 1-4)
//	3658 .. 7241  capture from·56 + d·7 + dist-1   c3xc5 (cards 5-10, one jump)
//	7242          stop                      end a chain
//	7243 .. 7306  remove sq                 the penalty: the opponent takes the pawn on sq
//
// Directions d are numbered from north clockwise (north, north-east, east, …), so orthogonal
// directions are even and diagonal ones odd. Moves and captures that leave the board, and
// captures of distance 1, are holes: never legal, printed as "#N".
const (
	placeBase   = 0
	cardBase    = placeBase + numSquares
	moveBase    = cardBase + 10
	lineActions = numSquares * numDirs * maxDist
	captureBase = moveBase + lineActions
	stopAction  = captureBase + lineActions
	removeBase  = stopAction + 1
	// NumActions is the size of Imbriqua's action space.
	NumActions = removeBase + numSquares
)

// lineAction is the index of the move or capture (base) of the pawn on from, dist squares
// along direction d.
func lineAction(base, from, d, dist int) env.Action {
	return env.Action(base + from*numDirs*maxDist + d*maxDist + dist - 1)
}

// lineOf decodes a move or capture index i (base subtracted) into its start, direction and
// distance, and its landing square, or -1 when the action leaves the board (a hole).
func lineOf(i int) (from, d, dist, to int) {
	from, d, dist = i/(numDirs*maxDist), i/maxDist%numDirs, i%maxDist+1
	to = -1
	if dist <= int(rayLen[from][d]) {
		to = int(rays[from][d][dist-1])
	}
	return
}

// The game's length.
const (
	openingPlacements = 8  // 4 pawns each, placed alternately
	numTurns          = 44 // 4 piles of 11 cards
	pileSize          = 11
	numCards          = 11
	chanceCards       = 10 // the first pile's top 10 cards, shuffled; card 11 is its bottom
	placeTwo          = 11 // the card "Place 2 pawns"
)

// The phases of a state: what kind of decision comes next.
const (
	phaseOpening uint8 = iota // the 8 opening placements
	phasePlace                // a turn's placement
	phaseDraw                 // chance: the turn's card, from the unknown part of the first pile
	phaseAct                  // the card's first action (a move or the first jump of a capture)
	phaseChain                // a further jump of the chain, or stop
	phaseBonus                // card 11: a placement, bonus of them left
	phasePenalty              // the opponent removes one of the mover's pawns
	phaseOver
)

// State is an Imbriqua position. It is a plain value: copy it to keep it.
type State struct {
	pawns [2]bitboard // light's (player 0) and dark's (player 1)
	// order holds the first pile's cards in the order drawn; 0 for those not drawn yet. Every
	// later pile's order follows from it (cardOf).
	order   [chanceCards]uint8
	unknown uint16 // bit k set: card k (1..10) not drawn yet
	turn    uint8  // the turn in progress, 0..43 (0 in the opening), 44 at the end
	opening uint8  // opening placements made
	phase   uint8
	bonus   uint8 // card 11 placements left
	// placed is where the pawn placed this turn stands (it follows the pawn through a chain),
	// -1 if the turn had no placement or has not made it yet.
	placed int8
	chain  int8 // the pawn that continues the chain, -1 outside a chain
	toMove env.Player
	result env.Result
}

func newState() State {
	return State{unknown: 0x7fe, placed: -1, chain: -1}
}

// pileIndex is the position in the first pile (0..10) of the card played at turn t: piles
// alternate the first pile's order and its reverse, since each new pile is the previous
// discard pile turned over.
func pileIndex(t int) int {
	i := t % pileSize
	if t/pileSize%2 == 1 {
		i = pileSize - 1 - i
	}
	return i
}

// cardOf is the card played at turn t, or 0 while it is still unknown (in the first pile).
func (s *State) cardOf(t int) int {
	i := pileIndex(t)
	if i == chanceCards {
		return placeTwo
	}
	return int(s.order[i])
}

// mover is the player whose turn it is.
func (s *State) mover() env.Player { return env.Player(s.turn & 1) }

// ToMove is who decides next: 0 light, 1 dark, env.Chance for the first 10 draws, or
// env.Terminal once the game is over.
func (s State) ToMove() env.Player { return s.toMove }

// Result is env.Ongoing until the 44th turn ends.
func (s State) Result() env.Result { return s.result }

// Turn is the turn in progress, from 0 (light's first, after the opening) to 43; 44 once the
// game is over. It is 0 during the opening.
func (s State) Turn() int { return int(s.turn) }

// Opening tells whether the opening placements are still being made.
func (s State) Opening() bool { return s.phase == phaseOpening }

// Card is the card of the turn in progress once turned over (1..11), else 0.
func (s State) Card() int {
	switch s.phase {
	case phaseAct, phaseChain, phaseBonus, phasePenalty:
		return s.cardOf(int(s.turn))
	}
	return 0
}

// CardOf is the card played at turn t (0..43) as far as it is known: 0 for a card of the first
// pile not drawn yet.
func (s State) CardOf(t int) int {
	if t < 0 || t >= numTurns {
		return 0
	}
	return s.cardOf(t)
}

// Unknown tells whether card k (1..10) is still unknown: not drawn yet from the first pile.
func (s State) Unknown(k int) bool { return k >= 1 && k <= chanceCards && s.unknown>>k&1 != 0 }

// Pawns is the number of player p's pawns on the board.
func (s State) Pawns(p env.Player) int { return count(s.pawns[p]) }

// Score is the number of framed squares of each player (light, dark) on the board as it is.
func (s State) Score() [2]int {
	empty := ^(s.pawns[0] | s.pawns[1])
	return [2]int{frameCount(s.pawns[0], empty), frameCount(s.pawns[1], empty)}
}

// Chances appends the outcomes of a draw: every card not drawn yet, equally likely.
func (s State) Chances(dst []env.Outcome) []env.Outcome {
	if s.phase != phaseDraw {
		return dst
	}
	p := 1 / float64(count(uint64(s.unknown)))
	for u := s.unknown; u != 0; u &= u - 1 {
		dst = append(dst, env.Outcome{Action: env.Action(cardBase + first(uint64(u)) - 1), Prob: p})
	}
	return dst
}

// Legal appends the legal actions in ascending order.
func (s State) Legal(dst []env.Action) []env.Action {
	empty := ^(s.pawns[0] | s.pawns[1])
	switch s.phase {
	case phaseOpening, phaseBonus:
		return appendSquares(dst, placeBase, empty)
	case phasePlace:
		if empty&inner != 0 {
			return appendSquares(dst, placeBase, empty&inner)
		}
		return appendSquares(dst, placeBase, empty)
	case phaseDraw:
		for u := s.unknown; u != 0; u &= u - 1 {
			dst = append(dst, env.Action(cardBase+first(uint64(u))-1))
		}
	case phaseAct:
		return s.appendActions(dst)
	case phaseChain:
		dst = s.appendJumps(dst, int(s.chain), s.cardOf(int(s.turn)))
		return append(dst, stopAction)
	case phasePenalty:
		return appendSquares(dst, removeBase, s.pawns[s.mover()])
	}
	return dst
}

func appendSquares(dst []env.Action, base int, b bitboard) []env.Action {
	for ; b != 0; b &= b - 1 {
		dst = append(dst, env.Action(base+first(b)))
	}
	return dst
}

// firstDir is the first direction of a card's kind: 0 (north) for the orthogonal cards, which
// are the odd ones, 1 (north-east) for the diagonal ones.
func firstDir(card int) int { return (card + 1) & 1 }

// appendActions appends the first actions of the turn's card (1..10) in ascending order: by
// square, then direction, then distance.
func (s *State) appendActions(dst []env.Action) []env.Action {
	card := s.cardOf(int(s.turn))
	if card >= 7 { // red: only the pawn placed this turn
		return s.appendJumps(dst, int(s.placed), card)
	}
	own, opp := s.pawns[s.mover()], s.pawns[1-s.mover()]
	empty := ^(own | opp)
	if card == 3 || card == 4 {
		return appendSlides(dst, own, ^empty, firstDir(card))
	}
	// Steps and adjacent captures: can[j] holds the pawns that have one in the j-th direction
	// of the card's kind (a pawn whose neighbour that way is empty, or is the opponent's with an
	// empty square behind).
	var can [4]bitboard
	var movers bitboard
	base, dist := moveBase, 1
	for j, d := 0, firstDir(card); d < numDirs; j, d = j+1, d+2 {
		back := (d + 4) % numDirs
		if card >= 5 {
			can[j] = own & shift(opp&shift(empty, back), back)
		} else {
			can[j] = own & shift(empty, back)
		}
		movers |= can[j]
	}
	if card >= 5 {
		base, dist = captureBase, 2
	}
	for b := movers; b != 0; b &= b - 1 {
		from := first(b)
		for j, d := 0, firstDir(card); d < numDirs; j, d = j+1, d+2 {
			if has(can[j], from) {
				dst = append(dst, lineAction(base, from, d, dist))
			}
		}
	}
	return dst
}

// appendSlides appends the slides of the pawns own along the directions d0, d0+2, …: every
// distance up to the first occupied square.
func appendSlides(dst []env.Action, own, occupied bitboard, d0 int) []env.Action {
	for b := own; b != 0; b &= b - 1 {
		from := first(b)
		for d := d0; d < numDirs; d += 2 {
			n := int(rayLen[from][d])
			if c := nearest(from, d, occupied); c >= 0 {
				n = count(rayMask[from][d]&^rayMask[c][d]) - 1
			}
			a := lineAction(moveBase, from, d, 1)
			for k := range env.Action(n) {
				dst = append(dst, a+k)
			}
		}
	}
	return dst
}

// nearest is the nearest square of occupied from square from in direction d, or -1: the lowest
// one going up the board's bit order (north, north-east, east, north-west), the highest going
// down.
func nearest(from, d int, occupied bitboard) int {
	block := rayMask[from][d] & occupied
	switch {
	case block == 0:
		return -1
	case d <= east || d == northWest:
		return first(block)
	}
	return 63 - bits.LeadingZeros64(block)
}

// appendJumps appends the capture jumps of card (5..10) open to the mover's pawn on from.
func (s *State) appendJumps(dst []env.Action, from, card int) []env.Action {
	me := s.mover()
	opp := s.pawns[1-me]
	empty := ^(s.pawns[0] | s.pawns[1])
	for d := firstDir(card); d < numDirs; d += 2 {
		ray := &rays[from][d]
		n := int(rayLen[from][d])
		switch card {
		case 5, 6: // over the adjacent pawn to the square behind it
			if n >= 2 && has(opp, int(ray[0])) && has(empty, int(ray[1])) {
				dst = append(dst, lineAction(captureBase, from, d, 2))
			}
		case 7, 8: // over empty squares, one pawn, then any empty square beyond it
			c := nearest(from, d, ^empty)
			if c < 0 || !has(opp, c) {
				continue
			}
			a := lineAction(captureBase, from, d, 1)
			for k := count(rayMask[from][d] &^ rayMask[c][d]); k < n && has(empty, int(ray[k])); k++ {
				dst = append(dst, a+env.Action(k))
			}
		case 9, 10: // over two pawns side by side to the square behind them
			if n >= 3 && has(opp, int(ray[0])) && has(opp, int(ray[1])) && has(empty, int(ray[2])) {
				dst = append(dst, lineAction(captureBase, from, d, 3))
			}
		}
	}
	return dst
}

// canJump tells whether the mover's pawn on from has a capture jump of card (5..10).
func (s *State) canJump(from, card int) bool {
	if from < 0 {
		return false
	}
	opp := s.pawns[1-s.mover()]
	occupied := s.pawns[0] | s.pawns[1]
	for d := firstDir(card); d < numDirs; d += 2 {
		ray := &rays[from][d]
		n := int(rayLen[from][d])
		k := 0 // the pawn to jump: adjacent, or for a long capture the nearest
		if card == 7 || card == 8 {
			c := nearest(from, d, occupied)
			if c < 0 {
				continue
			}
			k = count(rayMask[from][d]&^rayMask[c][d]) - 1
		}
		if card >= 9 { // two side by side
			if n >= 3 && has(opp, int(ray[0])) && has(opp, int(ray[1])) && !has(occupied, int(ray[2])) {
				return true
			}
			continue
		}
		if k+1 < n && has(opp, int(ray[k])) && !has(occupied, int(ray[k+1])) {
			return true
		}
	}
	return false
}

// canAct tells whether the mover can perform card (1..10): a pawn its colour allows has a move
// or a first jump.
func (s *State) canAct(card int) bool {
	own := s.pawns[s.mover()]
	empty := ^(s.pawns[0] | s.pawns[1])
	switch card {
	case 1, 2, 3, 4: // a step is possible exactly when a slide is
		for d := firstDir(card); d < numDirs; d += 2 {
			if shift(own, d)&empty != 0 {
				return true
			}
		}
		return false
	case 5, 6:
		opp := s.pawns[1-s.mover()]
		for d := firstDir(card); d < numDirs; d += 2 {
			if shift(shift(own, d)&opp, d)&empty != 0 {
				return true
			}
		}
		return false
	}
	return s.canJump(int(s.placed), card)
}

// Play returns the state after the legal action a.
func (s State) Play(a env.Action) State {
	switch i := int(a); {
	case i < cardBase:
		s.pawns[s.toMove] |= bit(i)
		switch s.phase {
		case phaseOpening:
			s.opening++
			if s.opening == openingPlacements {
				s.startTurn()
			} else {
				s.toMove = s.toMove.Other()
			}
		case phasePlace:
			s.placed = int8(i)
			s.turnOver()
		default: // phaseBonus
			s.bonus--
			if s.bonus == 0 {
				s.endTurn()
			}
		}
	case i < moveBase:
		k := i - cardBase + 1
		s.order[pileIndex(int(s.turn))] = uint8(k)
		s.unknown &^= 1 << k
		s.apply()
	case i < captureBase:
		from, _, _, to := lineOf(i - moveBase)
		s.pawns[s.toMove] ^= bit(from) | bit(to)
		s.endTurn()
	case i < stopAction:
		from, d, _, to := lineOf(i - captureBase)
		me := s.toMove
		s.pawns[1-me] &^= between(from, to, d)
		s.pawns[me] ^= bit(from) | bit(to)
		if int(s.placed) == from {
			s.placed = int8(to)
		}
		card := s.cardOf(int(s.turn))
		if card < 9 && s.canJump(to, card) {
			s.phase, s.chain = phaseChain, int8(to)
		} else {
			s.endTurn()
		}
	case i == stopAction:
		s.endTurn()
	default:
		s.pawns[s.mover()] &^= bit(i - removeBase)
		s.endTurn()
	}
	return s
}

// startTurn begins turn s.turn: its placement, skipped when the board is full.
func (s *State) startTurn() {
	s.toMove = s.mover()
	if s.pawns[0]|s.pawns[1] == ^bitboard(0) {
		s.turnOver()
		return
	}
	s.phase = phasePlace
}

// turnOver turns the card over: a chance decision while it is unknown, else its action.
func (s *State) turnOver() {
	if s.cardOf(int(s.turn)) == 0 {
		s.phase, s.toMove = phaseDraw, env.Chance
		return
	}
	s.apply()
}

// apply sets up the action of the turn's card, or the penalty if the mover cannot perform it.
func (s *State) apply() {
	card := s.cardOf(int(s.turn))
	me := s.mover()
	s.toMove = me
	switch {
	case card == placeTwo:
		if count(^(s.pawns[0] | s.pawns[1])) >= 2 {
			s.phase, s.bonus = phaseBonus, 2
			return
		}
	case s.canAct(card):
		s.phase = phaseAct
		return
	}
	if s.pawns[me] == 0 {
		s.endTurn() // nothing to remove
		return
	}
	s.phase, s.toMove = phasePenalty, me.Other()
}

func (s *State) endTurn() {
	s.turn++
	s.placed, s.chain = -1, -1
	if s.turn == numTurns {
		s.finish()
		return
	}
	s.startTurn()
}

// finish scores the game: more framed squares wins, then more pawns, else a draw.
func (s *State) finish() {
	s.phase, s.toMove = phaseOver, env.Terminal
	score := s.Score()
	l, d := score[0], score[1]
	if l == d {
		l, d = count(s.pawns[0]), count(s.pawns[1])
	}
	switch {
	case l > d:
		s.result = env.Win0
	case d > l:
		s.result = env.Win1
	default:
		s.result = env.Draw
	}
}

// Symmetry returns the position turned by symmetry k of the square (see Rules.MapAction).
func (s State) Symmetry(k int) State {
	if k == 0 {
		return s
	}
	s.pawns[0] = symBoard(k, s.pawns[0])
	s.pawns[1] = symBoard(k, s.pawns[1])
	if s.placed >= 0 {
		s.placed = int8(symSquare(k, int(s.placed)))
	}
	if s.chain >= 0 {
		s.chain = int8(symSquare(k, int(s.chain)))
	}
	return s
}
