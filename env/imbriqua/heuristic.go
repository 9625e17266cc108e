package imbriqua

import (
	"math"

	"github.com/zerogames/zero/env"
)

// The static evaluation the ab:D players use past their depth (env.Heuristic): the decider's
// standing by what the rules score at the end, scaled up as the end comes near, through tanh.
//
//   - the score margin: his framed squares less the opponent's, each counted once per line
//     that frames it, as the end scores them (Score);
//   - the pawn margin, the score's tie-break and the material of later frames and captures;
//   - the potential margin: the lines along which an empty square has one of his pawns on one
//     side and an empty square on the other, one placement from a frame;
//   - a penalty due: the decider is about to remove one of the mover's pawns.
//
// Nothing is certain before the 44th turn ends (a placement in a framed square undoes it, a
// capture takes a framing pawn), so the sum is divided by sqrt(1 + left/horizon), left the
// turns still to play, this one included: the margin weighs more the fewer turns can change it.
//
// The weights were tried in arenas of ab:1 and ab:2 (docs/BENCHMARKS.md): at ab:1 no weight set
// to 0, halved or doubled moved the score out of noise; at ab:2 the potential won 13-1-6
// against none, and the scaling by the turns left made no difference (11-0-9 against none,
// since an ab:2 search's horizon is at about the same turn everywhere).
type hweights struct {
	score, pawns, potential, penalty float64
	horizon                          float64 // in turns
}

var heuristicWeights = hweights{score: 0.35, pawns: 0.1, potential: 0.05, penalty: 0.3, horizon: 4}

// Heuristic estimates s, a decision of player 0 or 1, for its decider, in (-1, 1)
// (env.Heuristic): see hweights for what it weighs. It allocates nothing.
func (g *Rules) Heuristic(s State) float64 { return heuristic(&s, &heuristicWeights) }

func heuristic(s *State, w *hweights) float64 {
	p := s.toMove & 1
	mine, theirs := s.pawns[p], s.pawns[p^1]
	score, pot := margins(mine, theirs)
	x := w.score*float64(score) + w.potential*float64(pot) + w.pawns*float64(count(mine)-count(theirs))
	if s.phase == phasePenalty {
		x += w.penalty
	}
	left := numTurns - int(s.turn)
	x /= math.Sqrt(1 + float64(left)/w.horizon)
	return math.Tanh(max(-8, min(8, x)))
}

// margins returns the score margin of mine over theirs (their framed squares, as Score counts
// them) and the potential margin: the lines along which an empty square has one of a player's
// pawns on one side and an empty square on the other (once per line, as frames are counted).
// Each of the four lines through a square is written out, so that every shift is by a constant.
func margins(mine, theirs bitboard) (score, pot int) {
	e := ^(mine | theirs)
	s0, p0 := lineMargins(e, shift(mine, north), shift(mine, south), shift(theirs, north), shift(theirs, south), shift(e, north), shift(e, south))
	s1, p1 := lineMargins(e, shift(mine, northEast), shift(mine, southWest), shift(theirs, northEast), shift(theirs, southWest), shift(e, northEast), shift(e, southWest))
	s2, p2 := lineMargins(e, shift(mine, east), shift(mine, west), shift(theirs, east), shift(theirs, west), shift(e, east), shift(e, west))
	s3, p3 := lineMargins(e, shift(mine, southEast), shift(mine, northWest), shift(theirs, southEast), shift(theirs, northWest), shift(e, southEast), shift(e, northWest))
	return s0 + s1 + s2 + s3, p0 + p1 + p2 + p3
}

// lineMargins counts along one line: e the empty squares, and each set shifted one way (a) and
// the other (b) along it: mine, theirs and the empty squares.
func lineMargins(e, ma, mb, ta, tb, ea, eb bitboard) (score, pot int) {
	score = count(e&ma&mb) - count(e&ta&tb)
	pot = count(e&(ma&eb|ea&mb)) - count(e&(ta&eb|ea&tb))
	return score, pot
}

var _ env.Heuristic[State] = Game
