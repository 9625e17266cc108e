package gyges

import (
	"math"
	"math/bits"

	"github.com/zerogames/zero/env"
)

// The static evaluation behind the ab:D players (env.Heuristic), from the game's own ideas, as
// Helios (the strongest public engine) values a position: what each player's pieces that may
// move reach, worked out for both players whoever is to move. A player's reach is that of the
// pieces of his nearest occupied row (or the next row if none there can move), each walked as
// Legal walks it: the empty squares where its moves end, the goal, and the pieces it lands on
// (bounces, and with the advanced rule replacements). The terms, each the player to move's
// minus the opponent's:
//
//   - mobility: the moves' ends summed over his pieces (a square reached by two pieces counts
//     twice), and the pieces landed on, also summed;
//   - the empty squares only he reaches;
//   - the pieces only he reaches (landed on, or on his own row that may move, which he can
//     pick up), by size: a single, which moves one step and can be bounced on from anywhere
//     next to it, counts most;
//   - the opponent reaching the goal: the player to move must stop him now.
//
// The sum goes through tanh into (-0.9, 0.9). A player to move who reaches the goal wins at
// once: that is worth goalValue, above every other value. Positions of the set-up are worth 0.
//
// Both players' terms are computed alike, so that with neither reaching the goal the value of
// a board for one player is exactly minus its value for the other with the other to move; the
// mirror gives the same value.

// weights are the evaluation's weights, per unit of each term (evalWeights are those played).
type weights struct {
	ends, lands float64    // per end of a move, per piece landed on, summed over pieces
	squares     float64    // per empty square only one player reaches
	pieces      [4]float64 // per piece only one player reaches, by size (index 1..3)
	threat      float64    // the opponent of the player to move reaches the goal
}

// evalWeights were chosen by matches of ab:2 against ab:2 with other weights, 100 games each
// under the advanced rule from random set-ups (docs/BENCHMARKS.md, "A classical yardstick"):
// from a first guess (lands 0.05, threat 2), lands 0.15 won 63.5% and threat 0.5 63.5%; about
// the weights below, each weight doubled or halved (or the reach's squares and pieces dropped)
// scored 45–53%, within the noise.
var evalWeights = weights{
	ends:    0.02,
	lands:   0.15,
	squares: 0.05,
	pieces:  [4]float64{0, 0.5, 0.15, 0.1},
	threat:  0.5,
}

// goalValue is the value of a position whose player to move can enter the goal.
const goalValue = 0.99

// sideReach is what the pieces a player may move reach, in his frame.
type sideReach struct {
	goal        bool
	ends, lands int    // the ends of the moves (the goal left out) and the pieces landed on, summed over pieces
	squares     uint64 // the empty squares where some move ends
	pieces      uint64 // the pieces landed on and those of the row that may move
	landed      uint64 // the pieces landed on
	row         uint64 // the pieces of the row that may move
}

// reachOf works out the reach of the player to move (s is in his frame): the pieces of his
// nearest occupied row, or of the next row if none of them has a legal move, and so on. With
// stopAtGoal it stops at the first piece that reaches the goal, the rest left unfinished.
// If counts is not nil (36 squares, zeroed), it adds 1/4 at each empty square for each piece
// whose moves end there, at the square turned over if flip (the observation's reach planes).
func (s *State) reachOf(out *sideReach, stopAtGoal bool, counts []float32, flip bool) {
	*out = sideReach{}
	occ := s.occupied()
	r := reach{lo: s.lo, hi: s.hi, advanced: s.advanced, limits: searchLimits{boundAfter, carefulAfter}}
	for rows := occ; rows != 0; {
		row := occ & rowMask[lowest(rows)/6]
		rows &^= row
		r.row, r.bounded = row, false
		*out = sideReach{pieces: row, row: row}
		if counts != nil {
			clear(counts[:numSquares])
		}
		movable := false
		for m := row; m != 0; m &= m - 1 {
			p := lowest(m)
			r.start(occ, p)
			r.walk(p, s.size(p), 0)
			ends := r.ends &^ (1 << p)
			if ends&goalBit != 0 {
				out.goal = true
				if stopAtGoal {
					return
				}
			}
			out.ends += bits.OnesCount64(ends &^ goalBit)
			out.lands += bits.OnesCount64(r.lands)
			out.squares |= ends &^ goalBit
			out.pieces |= r.lands
			out.landed |= r.lands
			for m := ends &^ goalBit; counts != nil && m != 0; m &= m - 1 {
				q := lowest(m)
				if flip {
					q = numSquares - 1 - q
				}
				counts[q] += 0.25
			}
			movable = movable || ends != 0 || s.advanced && s.canReplace(occ, p, r.lands)
		}
		if movable {
			return
		}
	}
	*out = sideReach{}
	if counts != nil {
		clear(counts[:numSquares])
	}
}

// turned is s with the board turned over: the opponent's frame, the same player to move.
func (s *State) turned() State {
	t := *s
	t.lo, t.hi = turn(s.lo), turn(s.hi)
	return t
}

// evaluate is the heuristic value of s for the player to move, with weights w.
func (s *State) evaluate(w *weights) float64 {
	if s.result != env.Ongoing || bits.OnesCount64(s.occupied()) < numPieces {
		return 0
	}
	var me, them sideReach
	if s.reachOf(&me, true, nil, false); me.goal {
		return goalValue
	}
	t := s.turned()
	t.reachOf(&them, false, nil, false)
	theirSquares, theirPieces := turn(them.squares), turn(them.pieces)
	x := w.ends*float64(me.ends-them.ends) + w.lands*float64(me.lands-them.lands) +
		w.squares*float64(bits.OnesCount64(me.squares&^theirSquares)-bits.OnesCount64(theirSquares&^me.squares))
	mine, theirs := me.pieces&^theirPieces, theirPieces&^me.pieces
	for k := 1; k <= 3; k++ {
		m := s.sizeMask(k)
		x += w.pieces[k] * float64(bits.OnesCount64(mine&m)-bits.OnesCount64(theirs&m))
	}
	if them.goal {
		x -= w.threat
	}
	return 0.9 * math.Tanh(x)
}

// Heuristic is the static evaluation of s for the player to move, in (-1, 1) (see
// evalWeights): the reach of each player's pieces that may move, and the goal.
func (g *Game) Heuristic(s State) float64 { return s.evaluate(&evalWeights) }

// Hash is s's key for transposition tables: the board, the player to move, the moves made (a
// position near the move cap is not the same position further from it), the cap, the rule and
// the result, mixed.
func (g *Game) Hash(s State) uint64 { return s.hash() }

func (s *State) hash() uint64 {
	adv := uint64(0)
	if s.advanced {
		adv = 1
	}
	meta := uint64(s.moves) | uint64(s.moveCap)<<16 | uint64(uint8(s.side))<<32 | uint64(uint8(s.result))<<40 | adv<<48
	return mix(s.lo ^ mix(s.hi^mix(meta)))
}

// mix is splitmix64's finalizer: a bijection of 64 bits whose every output bit depends on
// every input bit.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
