package yinsh

import (
	"math"
	"math/bits"

	"github.com/zerogames/zero/env"
)

// The static evaluation the ab:D players use past their depth (env.Heuristic): a weighted sum
// of the decider's features less the opponent's, through tanh.
//
//   - rings removed, with the rows and ring waiting to be removed (a row on the board at a row
//     or ring decision is a ring removed: its owner cannot be kept from it), dominant; a sure
//     result, the winning count reached by what is waiting in the order it is removed, is
//     worth almost 1 or -1;
//   - markers of his colour on the board;
//   - fours: the 5 points of a line holding 4 of his markers and no marker or ring of the
//     opponent's. A four whose fifth point is one of his rings is a row in one move (the ring
//     moves off and leaves its marker), and the decider, who moves first, makes it: it is
//     weighed apart for each side;
//   - threes: 3 of his markers, the other 2 points empty or his rings;
//   - ring mobility: the ring moves he has, counted along the rings' lines as Legal finds them.
//
// The weights are per variant: blitz ends at the first row, so its threats weigh more and its
// removals never come up but as a sure win. They were picked by arenas of ab:2 against ab:2
// (docs/BENCHMARKS.md): rings weigh 1.2 (0.8 lost 42-10-68 to it in 120 games), the markers
// 0.05 in blitz; ring mobility is weighed 0 in both, since no weight of it (0.002 to 0.008, or
// the moves counted up to 1, 2, 3 or 6 a ring) won measurably more than it lost, and it costs
// three times the rest: the count stays for a deeper search to weigh.
type hweights struct {
	ring, marker        float64
	fourNow, theirFour  float64 // a four with a ring of its owner in it: the decider's, the opponent's
	four, three, moving float64
}

var heuristicWeights = [2]hweights{
	{ring: 1.2, marker: 0.02, fourNow: 0.5, theirFour: 0.3, four: 0.1, three: 0.03},  // normal
	{ring: 1.2, marker: 0.05, fourNow: 1.5, theirFour: 0.6, four: 0.25, three: 0.06}, // blitz
}

// sureWin is the value of a position its decider has won for sure: below 1, as env.Heuristic
// wants, and above anything the features reach.
var sureWin = math.Tanh(8)

// Heuristic estimates s, a decision of player 0 or 1, for its decider, in (-1, 1)
// (env.Heuristic): see hweights for what it weighs. It allocates nothing.
func (g *Game) Heuristic(s State) float64 {
	w := &heuristicWeights[0]
	if s.blitz {
		w = &heuristicWeights[1]
	}
	return heuristic(&s, w)
}

func heuristic(s *State, w *hweights) float64 {
	p := s.toMove & 1
	q := p ^ 1
	// The rows waiting to be removed: a ring decision's (its row is off already), and a row on
	// the board, whose owner removes it before the opponent moves again. At a move there is none.
	var waiting [2]int
	ringDue := 0 // the decider's ring to remove after a row
	if s.phase == phaseRing {
		ringDue = 1
		waiting[p]++
	}
	if s.phase == phaseRow || s.phase == phaseRing {
		for i := range 2 {
			if hasRow(s.markers[i]) {
				waiting[i]++
			}
		}
	}
	target := int(s.target())
	rp, rq := int(s.removed[p])+waiting[p], int(s.removed[q])+waiting[q]
	if rp >= target {
		// The decider removes his rows first (his move made them), or is the only one with any
		// (the opponent's move made them and he has removed his own).
		return sureWin
	}
	if rq >= target && waiting[q] > 0 {
		// The opponent's rows come after the decider's, which cannot break them (they are of
		// the other colour): the decider loses unless his own reach the count first, and he
		// has at most as many as the 5 in a row of his markers start.
		rs := rowStarts(s.markers[p])
		if int(s.removed[p])+ringDue+rs[0].or(rs[1]).or(rs[2]).count() < target {
			return -sureWin
		}
	}
	x := w.ring * float64(rp-rq)
	x += w.marker * float64(s.markers[p].count()-s.markers[q].count())
	var f [2]lineCounts
	for i := range 2 {
		f[i] = countLines(s.markers[i], s.rings[i], s.markers[i^1].or(s.rings[i^1]))
	}
	x += w.fourNow*float64(f[p].fourNow) - w.theirFour*float64(f[q].fourNow)
	x += w.four*float64(f[p].four-f[q].four) + w.three*float64(f[p].three-f[q].three)
	if w.moving != 0 {
		occupied := s.markers[0].or(s.markers[1]).or(s.rings[0]).or(s.rings[1])
		markers := s.markers[0].or(s.markers[1])
		x += w.moving * float64(mobility(s.rings[p], occupied, markers)-mobility(s.rings[q], occupied, markers))
	}
	return math.Tanh(max(-8, min(8, x)))
}

// lineCounts counts one player's windows: the 5 points from a point along a positive direction,
// all on the board, without the opponent's markers or rings.
type lineCounts struct {
	fourNow int // 4 of his markers and one of his rings
	four    int // 4 of his markers and an empty point
	three   int // 3 of his markers, the rest empty or his rings
}

// windowStarts[d] is the set of cells from which 5 points run along positive direction d. It
// is made from the geometry alone (package variables are made before init builds the tables).
var windowStarts = func() (w [3]bitboard) {
	for x := range gridSize {
		for y := range gridSize {
			for d := range 3 {
				ok := true
				for k := range 5 {
					ok = ok && onBoard(x+k*dirDX[d], y+k*dirDY[d])
				}
				switch c := cellOf(x, y); {
				case !ok:
				case c < 64:
					w[d].lo |= 1 << c // not set: cellBits is not made yet either
				default:
					w[d].hi |= 1 << (c - 64)
				}
			}
		}
	}
	return w
}()

// countLines counts the windows of markers m and rings r where the opponent has nothing (his
// pieces are them), the three directions one after the other on the bitboards: the 5 points of
// every window are brought onto its first cell (windowCells), and the markers there added
// bit-sliced.
func countLines(m, r, them bitboard) lineCounts {
	var c lineCounts
	for d := range 3 {
		m1, m2, m3, m4 := windowCells(m, d)
		r1, r2, r3, r4 := windowCells(r, d)
		t1, t2, t3, t4 := windowCells(them, d)
		clean := windowStarts[d].andNot(them.or(t1).or(t2).or(t3).or(t4))
		ring := r.or(r1).or(r2).or(r3).or(r4)
		// The sum of the five bits at each cell: s (ones), c1 + c2 (twos).
		s1 := m.xor(m1).xor(m2)
		c1 := m.and(m1).or(m.and(m2)).or(m1.and(m2))
		s := s1.xor(m3).xor(m4)
		c2 := s1.and(m3).or(s1.and(m4)).or(m3.and(m4))
		fours := clean.and(c1.and(c2)).andNot(s) // 4: two twos, no one
		threes := clean.and(s).and(c1.xor(c2))   // 3: a one and a two
		c.fourNow += fours.and(ring).count()
		c.four += fours.andNot(ring).count()
		c.three += threes.count()
	}
	return c
}

// windowCells returns the sets whose cell c holds the point 1, 2, 3 and 4 steps from c along
// positive direction d in b, by the layout's steps (see cellOf): along a column 1 bit on in the
// same word; along a row from an even column 1 bit on in the odd columns' word and from an odd
// one 10 bits on in the even columns', 11 bits two columns on in the same word; along the
// diagonal 2, 11 and 13. Only for the first cells of windows (windowStarts) are the 4 cells a
// line's points.
func windowCells(b bitboard, d int) (b1, b2, b3, b4 bitboard) {
	lo, hi := b.lo, b.hi
	switch d {
	case 0:
		return bitboard{lo >> 1, hi >> 1}, bitboard{lo >> 2, hi >> 2}, bitboard{lo >> 3, hi >> 3}, bitboard{lo >> 4, hi >> 4}
	case 1:
		return bitboard{hi >> 1, lo >> 10}, bitboard{lo >> 11, hi >> 11}, bitboard{hi >> 12, lo >> 21}, bitboard{lo >> 22, hi >> 22}
	}
	return bitboard{hi >> 2, lo >> 11}, bitboard{lo >> 13, hi >> 13}, bitboard{hi >> 15, lo >> 24}, bitboard{lo >> 26, hi >> 26}
}

// mobility is the number of moves of the rings, as ringMoves finds them (slides up to the first
// ring or marker, and the jump over the markers that follow), counted without listing them.
func mobility(rings, occupied, markers bitboard) int {
	n := 0
	for m := rings.lo; m != 0; m &= m - 1 {
		n += ringMobility(int(cellPoint[bits.TrailingZeros64(m)]), occupied, markers)
	}
	for m := rings.hi; m != 0; m &= m - 1 {
		n += ringMobility(int(cellPoint[64+bits.TrailingZeros64(m)]), occupied, markers)
	}
	return n
}

func ringMobility(p int, occupied, markers bitboard) int {
	n := 0
	for axis := range 3 {
		l := pointLines[p][axis]
		g := &lineGathers[l.line]
		pos := uint(l.pos)
		occ, mk := g.gather(occupied)|uint64(g.off), g.gather(markers)
		slides, _, jump := rayMoves(occ, mk, pos)
		n += slides + jump
		slides, _, jump = rayMoves(uint64(reversed11[occ&0x7ff])|1<<11, uint64(reversed11[mk&0x7ff]), 10-pos)
		n += slides + jump
	}
	return n
}

var _ env.Heuristic[State] = Normal
