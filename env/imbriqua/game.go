package imbriqua

import (
	"fmt"
	"strings"

	"github.com/zerogames/zero/env"
)

// Names are the players' names: light (player 0, who begins) and dark.
var Names = [2]string{"light", "dark"}

// Rules is the type of Game: Imbriqua's static facts and the action side of its symmetries.
type Rules struct{ info env.Info }

// Game is Imbriqua.
var Game = &Rules{info: env.Info{
	Name:        "imbriqua",
	PlayerNames: Names,
	NumActions:  NumActions,
	Observation: env.Shape{Planes: numPlanes, Height: 8, Width: 8},
	MaxLength:   MaxLength,
	Symmetries:  numSymmetries,
	Rules:       1,
	Encoding:    1,
	HasChance:   true,
}}

// MaxLength bounds a game's decisions: the 8 opening placements, 44 turn placements, 10 draws,
// at most 2 more decisions a turn besides captures (a move, a removal, a stop, or card 11's two
// placements, 4 turns of which add one each), and at most one capture decision per pawn ever
// placed (8 + 44 + 8 = 60), since each removes at least one.
const MaxLength = openingPlacements + numTurns + chanceCards + numTurns + 4 + 60

// Info returns the game's static facts.
func (g *Rules) Info() *env.Info { return &g.info }

// New returns the empty board, light to place the first pawn of the opening, the deck shuffled
// but unknown.
func (g *Rules) New() State { return newState() }

// MapAction maps action a by symmetry k: k < 4 turns the board k quarter turns
// counterclockwise (a1 → h1 → h8 → a8), k ≥ 4 mirrors it first (file a ↔ file h). Cards and
// stop are unchanged: every card is symmetric under the square's symmetries.
func (g *Rules) MapAction(k int, a env.Action) env.Action {
	i := int(a)
	switch {
	case k == 0 || i < 0 || i >= NumActions:
		return a
	case i < cardBase:
		return env.Action(placeBase + symSquare(k, i-placeBase))
	case i < moveBase:
		return a
	case i < stopAction:
		base := moveBase
		if i >= captureBase {
			base = captureBase
		}
		from, d, dist, _ := lineOf(i - base)
		return lineAction(base, symSquare(k, from), symDir(k, d), dist)
	case i == stopAction:
		return a
	}
	return env.Action(removeBase + symSquare(k, i-removeBase))
}

// Observation planes, each 8×8 with cell rank·8 + file (a1 first), from the point of view of the
// player to decide ("own" is his, "their" the opponent's); at a chance node, of the player whose
// card is being drawn; once the game is over, of light. The board is never flipped: the rules
// have no direction of play, so the planes only trade colours.
const (
	planeOwn      = iota // own pawns
	planeTheir           // the opponent's pawns
	planePlaced          // the pawn placed this turn, where it stands
	planeChain           // the pawn that must jump again or stop
	planeOpening         // all 1 in the opening
	planePlace           // all 1 when a turn's placement is due
	planeDraw            // all 1 at a chance node
	planeAct             // all 1 when the card's first action is due
	planeChaining        // all 1 in a chain
	planeBonus           // card 11's placements left / 2
	planePenalty         // all 1 when the decider removes an opponent's pawn
	// planeCard + k - 1: all 1 for the card of this turn, once turned over (k = 1..11).
	planeCard
	// planeUnknown + k - 1: all 1 while card k (1..10) is unknown, not drawn from the first pile.
	planeUnknown = planeCard + numCards
	// planeNextOwn + k - 1: when the decider next plays card k: 1 - turns/44 (1 for this turn's
	// card), or 0 if never again or unknown. With planeNextTheir, the opponent's, these give the
	// order of every known card to come: each card's plays alternate between the players at
	// odd intervals summing to 22 for two in a row, so each of the next 22 turns plays its card
	// for the first time from now by one of the players (and turn u + 22 plays turn u's card).
	planeNextOwn     = planeUnknown + chanceCards
	planeNextTheir   = planeNextOwn + numCards
	planeTurn        = planeNextTheir + numCards // the turn in progress / 44
	planeLight       = planeTurn + 1             // all 1 when the decider is light
	planeFramedOwn   = planeLight + 1            // on each empty square: own lines framing it / 4
	planeFramedTheir = planeFramedOwn + 1
	planeScoreOwn    = planeFramedTheir + 1 // own framed squares / 32
	planeScoreTheir  = planeScoreOwn + 1
	planePawnsOwn    = planeScoreTheir + 1 // own pawns / 64 (the tie-break)
	planePawnsTheir  = planePawnsOwn + 1
	numPlanes        = planePawnsTheir + 1
)

// Observe writes the observation planes (see the plane constants) into dst.
func (s State) Observe(dst []float32) {
	dst = dst[:numPlanes*numSquares]
	clear(dst)
	me := s.toMove
	switch me {
	case env.Chance:
		me = s.mover()
	case env.Terminal:
		me = 0
	}
	them := me.Other()
	setPlane(dst, planeOwn, s.pawns[me])
	setPlane(dst, planeTheir, s.pawns[them])
	if s.placed >= 0 {
		dst[planePlaced*numSquares+int(s.placed)] = 1
	}
	if s.chain >= 0 {
		dst[planeChain*numSquares+int(s.chain)] = 1
	}
	switch s.phase {
	case phaseOpening:
		fill(dst, planeOpening, 1)
	case phasePlace:
		fill(dst, planePlace, 1)
	case phaseDraw:
		fill(dst, planeDraw, 1)
	case phaseAct:
		fill(dst, planeAct, 1)
	case phaseChain:
		fill(dst, planeChaining, 1)
	case phaseBonus:
		fill(dst, planeBonus, float32(s.bonus)/2)
	case phasePenalty:
		fill(dst, planePenalty, 1)
	}
	if k := s.Card(); k > 0 {
		fill(dst, planeCard+k-1, 1)
	}
	for u := s.unknown; u != 0; u &= u - 1 {
		fill(dst, planeUnknown+first(uint64(u))-1, 1)
	}
	if s.phase != phaseOver {
		var seen [2]uint16 // cards whose next play by own (0) and their (1) side is written
		t := int(s.turn)
		for u := t; u < numTurns; u++ {
			k := s.cardOf(u)
			side := 0
			if env.Player(u&1) != me {
				side = 1
			}
			if k == 0 || seen[side]>>k&1 != 0 {
				continue
			}
			seen[side] |= 1 << k
			fill(dst, planeNextOwn+side*numCards+k-1, 1-float32(u-t)/numTurns)
		}
		fill(dst, planeTurn, float32(t)/numTurns)
	} else {
		fill(dst, planeTurn, 1)
	}
	if me == 0 {
		fill(dst, planeLight, 1)
	}
	empty := ^(s.pawns[0] | s.pawns[1])
	for d := north; d < south; d++ {
		addPlane(dst, planeFramedOwn, framed(s.pawns[me], empty, d), 0.25)
		addPlane(dst, planeFramedTheir, framed(s.pawns[them], empty, d), 0.25)
	}
	fill(dst, planeScoreOwn, float32(frameCount(s.pawns[me], empty))/32)
	fill(dst, planeScoreTheir, float32(frameCount(s.pawns[them], empty))/32)
	fill(dst, planePawnsOwn, float32(count(s.pawns[me]))/64)
	fill(dst, planePawnsTheir, float32(count(s.pawns[them]))/64)
}

func setPlane(dst []float32, plane int, b bitboard) { addPlane(dst, plane, b, 1) }

func addPlane(dst []float32, plane int, b bitboard, v float32) {
	p := dst[plane*numSquares : (plane+1)*numSquares]
	for ; b != 0; b &= b - 1 {
		p[first(b)] += v
	}
}

func fill(dst []float32, plane int, v float32) {
	p := dst[plane*numSquares : (plane+1)*numSquares]
	for i := range p {
		p[i] = v
	}
}

// String draws the board, rank 8 at the top as light sees it (L light, D dark, . empty), then
// the turn, the score and the deck.
func (s State) String() string {
	var sb strings.Builder
	sb.WriteString("  a b c d e f g h\n")
	for y := 7; y >= 0; y-- {
		fmt.Fprintf(&sb, "%d", y+1)
		for x := 0; x < 8; x++ {
			c := "."
			switch sq := y*8 + x; {
			case has(s.pawns[0], sq):
				c = "L"
			case has(s.pawns[1], sq):
				c = "D"
			}
			sb.WriteString(" " + c)
		}
		fmt.Fprintf(&sb, " %d\n", y+1)
	}
	sb.WriteString("  a b c d e f g h\n")
	if s.phase != phaseOpening && s.phase != phaseOver {
		fmt.Fprintf(&sb, "turn %d of %d: ", s.turn+1, numTurns)
	}
	sb.WriteString(s.status())
	if s.placed >= 0 {
		fmt.Fprintf(&sb, "; placed %s", SquareName(int(s.placed)))
	}
	score := s.Score()
	fmt.Fprintf(&sb, "\nframed squares: light %d, dark %d; pawns: light %d, dark %d\nfirst pile:",
		score[0], score[1], count(s.pawns[0]), count(s.pawns[1]))
	for i := range chanceCards {
		if k := s.order[i]; k != 0 {
			fmt.Fprintf(&sb, " %d", k)
		} else {
			sb.WriteString(" ?")
		}
	}
	sb.WriteString(" 11")
	return sb.String()
}

// status says what comes next, as "light to apply card 5".
func (s State) status() string {
	if s.phase == phaseOver {
		if s.result == env.Draw {
			return "game over: draw"
		}
		return "game over: " + Names[s.result.Winner()] + " wins"
	}
	if s.phase == phaseDraw {
		return "chance to turn over the card"
	}
	who := Names[s.toMove]
	card := s.cardOf(int(s.turn))
	switch s.phase {
	case phaseOpening:
		return who + " to place in the opening"
	case phasePlace:
		return who + " to place"
	case phaseAct:
		return fmt.Sprintf("%s to apply card %d (%s)", who, card, cardNames[card])
	case phaseChain:
		return fmt.Sprintf("%s to jump again from %s or stop", who, SquareName(int(s.chain)))
	case phaseBonus:
		return fmt.Sprintf("%s to place (card 11, %d left)", who, s.bonus)
	}
	return fmt.Sprintf("%s to remove a %s pawn (card %d impossible)", who, Names[s.mover()], card)
}

// PolicyPlanes is the number of policy planes over the 8×8 board: place (1), move (8
// directions × 7 distances), capture (the same), remove (1). Cards and stop are off the grid.
func (g *Rules) PolicyPlanes() int { return 2 + 2*numDirs*maxDist }

// PolicyCell places action a on the policy planes, at the cell of its (starting) square.
func (g *Rules) PolicyCell(a env.Action) (plane, cell int, ok bool) {
	i := int(a)
	switch {
	case i < 0 || i >= NumActions || (i >= cardBase && i < moveBase) || i == stopAction:
		return 0, 0, false
	case i < cardBase:
		return 0, i, true
	case i < stopAction:
		i -= moveBase // moves and captures are contiguous: capture planes follow the moves'
		lines := numDirs * maxDist
		return 1 + i%lines + i/lineActions*lines, i % lineActions / lines, true
	}
	return 1 + 2*numDirs*maxDist, i - removeBase, true
}

// CanWin tells whether the player to decide at s can win within his own decisions from s on
// (env.CanWin), for the search's solver. Only the last turn ends the game, and the decisions
// that lead into it without the other player's are those of the turn before's penalty (made by
// the last turn's mover), so every position before that answers at once.
func (g *Rules) CanWin(s State, buf []env.Action) (bool, []env.Action) {
	if s.turn < numTurns-2 || s.phase == phaseOpening {
		return false, buf
	}
	return env.CanWin(s, buf)
}

// TurnsToEnd is env.EndBound's: a lower bound on the changes of decider between s and the end of
// the game, which comes after the 44th turn. A turn that begins with an empty square begins with
// its mover's placement, and the movers alternate, so each such turn after the one in progress
// brings a change of decider (its placement, or the penalty its mover decides at the end of the
// turn before); one fewer while the opponent decides a penalty, whose next turn is his own. The
// board loses at most 3 empty squares a turn (a placement and card 11's two), so with E empty
// squares the next (E−1)/3 turns surely begin with one.
func (g *Rules) TurnsToEnd(s State) int {
	if s.phase == phaseOver {
		return 0
	}
	empty := count(^(s.pawns[0] | s.pawns[1]))
	if s.phase == phaseOpening {
		// The opening's placements left are made before turn 0; the turns after it count.
		empty -= openingPlacements - int(s.opening)
		return max(0, min(numTurns-1, (empty-1)/3))
	}
	m := max(0, min(numTurns-1-int(s.turn), (empty-1)/3))
	if s.toMove != s.mover() {
		m = max(0, m-1) // the penalty (or chance's draw, counted as the penalty's case)
	}
	return m
}
