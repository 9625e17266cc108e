package yinsh

import (
	"math/bits"

	"github.com/zerogames/zero/env"
)

// The action space: 5016 indices, laid out so that generating the legal actions in their natural
// order (by point, then direction, then distance) lists them in ascending order.
//
//	   0 ..   84  place p                     p = point index 0..84 (a2, a3, …, k10)
//	  85 .. 4674  move  p + dir·9 + dist-1    dir 0..5 = (0,1) (1,0) (1,1) (0,-1) (-1,0) (-1,-1)
//	4675 .. 4929  row   p·3 + dir             the 5 markers from p along a positive direction
//	4930 .. 5014  ring  p                     remove one's ring on p
//	5015          pass
//
// Moves that would leave the board and rows that do not fit are holes: never legal.
const (
	placeBase  = 0
	moveBase   = placeBase + numPoints
	rowBase    = moveBase + numPoints*6*maxRay
	ringBase   = rowBase + numPoints*3
	passAction = ringBase + numPoints
	// NumActions is the size of YINSH's action space.
	NumActions = passAction + 1
)

// The phases of a state: what kind of decision comes next.
const (
	phasePlace uint8 = iota // the opening: placing rings
	phaseMove               // a turn: move a ring (or pass if none can move)
	phaseRow                // toMove removes a row of his markers
	phaseRing               // toMove removes one of his rings after a row
	phaseOver
)

const (
	poolSize  = 51
	ringsEach = 5
)

// State is a YINSH position. It is a plain value: copy it to keep it. The zero value is the
// start of a normal game.
type State struct {
	rings   [2]bitboard // by player: 0 white, 1 black
	markers [2]bitboard // by colour showing
	removed [2]uint8    // rings removed by each player
	placed  uint8       // rings placed so far (the opening ends at 10)
	used    uint8       // markers taken from the pool and on the board
	phase   uint8
	toMove  env.Player
	mover   env.Player // whose move made the rows being resolved
	passed  bool       // the previous turn was a pass
	blitz   bool
	result  env.Result
}

func newState(blitz bool) State {
	return State{phase: phasePlace, toMove: 0, blitz: blitz}
}

// ToMove is the player to decide: 0 white, 1 black, or env.Terminal.
func (s State) ToMove() env.Player { return s.toMove }

// Result is env.Ongoing until the game ends.
func (s State) Result() env.Result { return s.result }

// Chances is empty: YINSH has no chance.
func (s State) Chances(dst []env.Outcome) []env.Outcome { return dst }

// Blitz tells whether the game is the blitz variant (one row wins).
func (s State) Blitz() bool { return s.blitz }

// RingsRemoved is the number of rings player p has removed (rows made).
func (s State) RingsRemoved(p env.Player) int { return int(s.removed[p]) }

// Pool is the number of markers left in the pool.
func (s State) Pool() int { return poolSize - int(s.used) }

func (s State) target() uint8 {
	if s.blitz {
		return 1
	}
	return 3
}

// Legal appends the legal actions in ascending order.
func (s State) Legal(dst []env.Action) []env.Action {
	switch s.phase {
	case phaseMove:
		n := len(dst)
		dst = s.appendMoves(dst)
		if len(dst) == n {
			dst = append(dst, passAction)
		}
	case phasePlace:
		// Column by column (the points' order), each column's points a run of bits in a word.
		free := board.andNot(s.rings[0].or(s.rings[1]))
		for x := range gridSize {
			w := free.lo
			if x%2 == 1 {
				w = free.hi
			}
			first := int(columnFirst[x])
			for m := w >> (pointCell[first] & 63) & columnMask[x]; m != 0; m &= m - 1 {
				dst = append(dst, env.Action(placeBase+first+trailing(m)))
			}
		}
	case phaseRow:
		dst = appendRows(dst, s.markers[s.toMove])
	case phaseRing:
		rings := ringPoints(s.rings[s.toMove])
		for i := 0; rings[i] != noPoint; i++ {
			dst = append(dst, env.Action(ringBase+int(rings[i])))
		}
	}
	return dst
}

const noPoint = 255

// ringPoints returns the points of a player's rings in ascending order, noPoint after them. The
// cells of one word are in the points' order, but the two words interleave (even and odd
// columns): a network of compare-exchanges sorts the five without a branch.
func ringPoints(b bitboard) [ringsEach + 1]uint8 {
	var p [ringsEach + 1]uint8
	for i := range p {
		p[i] = noPoint
	}
	i := 0
	for m := b.lo; m != 0 && i < ringsEach; m &= m - 1 {
		p[i] = uint8(cellPoint[trailing(m)])
		i++
	}
	for m := b.hi; m != 0 && i < ringsEach; m &= m - 1 {
		p[i] = uint8(cellPoint[64+trailing(m)])
		i++
	}
	ce := func(i, j int) { p[i], p[j] = min(p[i], p[j]), max(p[i], p[j]) }
	ce(0, 1)
	ce(3, 4)
	ce(2, 4)
	ce(2, 3)
	ce(1, 4)
	ce(0, 3)
	ce(0, 2)
	ce(1, 3)
	ce(1, 2)
	return p
}

// appendMoves appends the ring moves of the player to move. For each of his rings, the three
// lines through it are read out of the bitboards into small integers, a bit per point in the
// line's order (see gather), and each of the six rays is looked at with a few shifts and
// trailing-zero counts, without a branch on the board: the number of slides (to distances 1,
// 2, …, up to the first ring or marker), and whether a jump over the markers that follow lands
// on an empty point. The 9 possible slides of a ray are written unconditionally and the length
// advanced by the number that are legal, then the jump written after them and counted only if
// legal; dst gets room for that first.
func (s *State) appendMoves(dst []env.Action) []env.Action {
	markers := s.markers[0].or(s.markers[1])
	occupied := markers.or(s.rings[0]).or(s.rings[1])
	own := s.rings[s.toMove]
	n := len(dst)
	if cap(dst)-n < ringsEach*maxRingMoves+64 {
		dst = append(dst[:cap(dst)], make([]env.Action, ringsEach*maxRingMoves+64)...)
	}
	buf := dst[:cap(dst)]
	rings := ringPoints(own)
	for i := 0; rings[i] != noPoint; i++ {
		n += ringMoves((*[64]env.Action)(buf[n:]), int(rings[i]), occupied, markers)
	}
	return buf[:n]
}

// ringMoves writes the moves of the ring on point p at out, in ascending order, and returns
// their number.
func ringMoves(out *[64]env.Action, p int, occupied, markers bitboard) int {
	lines := &pointLines[p]
	g0, g1, g2 := &lineGathers[lines[0].line], &lineGathers[lines[1].line], &lineGathers[lines[2].line]
	pos0, pos1, pos2 := uint(lines[0].pos), uint(lines[1].pos), uint(lines[2].pos)
	// By axis: the line's occupied points (and its ends), its markers.
	occ0, mk0 := g0.gather(occupied)|uint64(g0.off), g0.gather(markers)
	occ1, mk1 := g1.gather(occupied)|uint64(g1.off), g1.gather(markers)
	occ2, mk2 := g2.gather(occupied)|uint64(g2.off), g2.gather(markers)
	b := env.Action(moveBase + p*54)
	seq := &moveSeq[p]
	n := 0
	var slides, jd, jump int
	var o *[16]env.Action
	// direction 0: up the column
	slides, jd, jump = rayMoves(occ0, mk0, pos0)
	o = (*[16]env.Action)(out[n&31:])
	*(*[8]env.Action)(o[:8]) = seq[0] // two 16-byte copies
	o[8] = b + 8
	o[slides&15] = b + env.Action(jd) - 1
	n += slides + jump
	b += 9
	// direction 1: up the row
	slides, jd, jump = rayMoves(occ1, mk1, pos1)
	o = (*[16]env.Action)(out[n&31:])
	*(*[8]env.Action)(o[:8]) = seq[1] // two 16-byte copies
	o[8] = b + 8
	o[slides&15] = b + env.Action(jd) - 1
	n += slides + jump
	b += 9
	// direction 2: up the diagonal
	slides, jd, jump = rayMoves(occ2, mk2, pos2)
	o = (*[16]env.Action)(out[n&31:])
	*(*[8]env.Action)(o[:8]) = seq[2] // two 16-byte copies
	o[8] = b + 8
	o[slides&15] = b + env.Action(jd) - 1
	n += slides + jump
	b += 9
	// direction 3: down the column, read reversed
	slides, jd, jump = rayMoves(uint64(reversed11[occ0&0x7ff])|1<<11, uint64(reversed11[mk0&0x7ff]), 10-pos0)
	o = (*[16]env.Action)(out[n&31:])
	*(*[8]env.Action)(o[:8]) = seq[3] // two 16-byte copies
	o[8] = b + 8
	o[slides&15] = b + env.Action(jd) - 1
	n += slides + jump
	b += 9
	// direction 4: down the row, read reversed
	slides, jd, jump = rayMoves(uint64(reversed11[occ1&0x7ff])|1<<11, uint64(reversed11[mk1&0x7ff]), 10-pos1)
	o = (*[16]env.Action)(out[n&31:])
	*(*[8]env.Action)(o[:8]) = seq[4] // two 16-byte copies
	o[8] = b + 8
	o[slides&15] = b + env.Action(jd) - 1
	n += slides + jump
	b += 9
	// direction 5: down the diagonal, read reversed
	slides, jd, jump = rayMoves(uint64(reversed11[occ2&0x7ff])|1<<11, uint64(reversed11[mk2&0x7ff]), 10-pos2)
	o = (*[16]env.Action)(out[n&31:])
	*(*[8]env.Action)(o[:8]) = seq[5] // two 16-byte copies
	o[8] = b + 8
	o[slides&15] = b + env.Action(jd) - 1
	n += slides + jump
	b += 9
	return n
}

// rayMoves looks up a line from index pos: occ has a bit per occupied index (off-board indices
// and index 11 included), markers a bit per marker. It returns the number of slides, the
// distance of the jump's landing and 1 if the jump is legal. No shift by a variable count:
// the first obstacle f is the lowest bit of occ above pos, and adding it to markers carries
// through the markers that start at it onto the point after them, onto f itself if f is no
// marker: the jump is legal if that point is not occupied.
func rayMoves(occ, markers uint64, pos uint) (slides, jd, jump int) {
	first := occ & above[pos&15] // never 0: occ has index 11
	first &= -first
	land := (markers + first) &^ markers
	slides = bits.TrailingZeros64(first|1<<63) - int(pos) - 1
	jd = bits.TrailingZeros64(land|1<<63) - int(pos)
	return slides, jd, nonZero(land &^ occ)
}

// above[i] is the bits above i.
var above = func() (a [16]uint64) {
	for i := range a {
		a[i] = ^uint64(0) << (i + 1)
	}
	return a
}()

// nonZero is 1 if x != 0, else 0, without a branch.
func nonZero(x uint64) int { return int((x | -x) >> 63) }

// rowStarts returns, for each positive direction, the cells that start 5 markers of m in a row.
// Along a column a word is shifted by 1, 2 and 4; along a row, from the even columns (lo) the
// next column is 1 bit on in hi and from the odd ones (hi) 10 bits on in lo, two columns on is
// 11 bits on in the same word; along the diagonal 2, 11 and 13 (see cellOf).
func rowStarts(m bitboard) [3]bitboard {
	lo, hi := m.lo, m.hi
	c0, c1 := lo&(lo>>1), hi&(hi>>1)
	c0, c1 = c0&(c0>>2), c1&(c1>>2)
	c0, c1 = c0&(lo>>4), c1&(hi>>4)
	r0, r1 := lo&(hi>>1), hi&(lo>>10)
	r0, r1 = r0&(r0>>11), r1&(r1>>11)
	r0, r1 = r0&(lo>>22), r1&(hi>>22)
	d0, d1 := lo&(hi>>2), hi&(lo>>11)
	d0, d1 = d0&(d0>>13), d1&(d1>>13)
	d0, d1 = d0&(lo>>26), d1&(hi>>26)
	return [3]bitboard{{c0, c1}, {r0, r1}, {d0, d1}}
}

// hasRow tells whether m holds 5 in a row anywhere (rowStarts, merged).
func hasRow(m bitboard) bool {
	lo, hi := m.lo, m.hi
	c0, c1 := lo&(lo>>1), hi&(hi>>1)
	r0, r1 := lo&(hi>>1), hi&(lo>>10)
	d0, d1 := lo&(hi>>2), hi&(lo>>11)
	c0, c1 = c0&(c0>>2), c1&(c1>>2)
	r0, r1 = r0&(r0>>11), r1&(r1>>11)
	d0, d1 = d0&(d0>>13), d1&(d1>>13)
	c0, c1 = c0&(lo>>4), c1&(hi>>4)
	r0, r1 = r0&(lo>>22), r1&(hi>>22)
	d0, d1 = d0&(lo>>26), d1&(hi>>26)
	return c0|c1|r0|r1|d0|d1 != 0
}

// appendRows appends the rows of m, in the points' order (column by column, as in Legal).
func appendRows(dst []env.Action, m bitboard) []env.Action {
	r := rowStarts(m)
	all := r[0].or(r[1]).or(r[2])
	for x := range gridSize {
		w := all.lo
		if x%2 == 1 {
			w = all.hi
		}
		first := int(columnFirst[x])
		for b := w >> (pointCell[first] & 63) & columnMask[x]; b != 0; b &= b - 1 {
			p := first + trailing(b)
			c := int(pointCell[p])
			for d := 0; d < 3; d++ {
				if r[d].has(c) {
					dst = append(dst, env.Action(rowBase+p*3+d))
				}
			}
		}
	}
	return dst
}

// Play returns the state after the legal action a.
//
// A move, by far the most frequent action, is made here (a call less): the start, end and
// direction come from a table, the markers between are flipped with two ray masks, and the rows
// are looked for. The writes come in the order the state is copied back to the caller (rings,
// markers, the rest), each as early as it can: a 16-byte load of two 8-byte stores not yet in
// the cache waits for them. The outcome if the move made no row is written before the rows are
// looked for, and changed in the rare case it did.
//
// No row existed before the move, so a new one passes through a changed marker: the mover's
// through the marker just put down or one flipped to his colour, the opponent's through one
// flipped to his. The mover's markers are looked at always (a few dozen bit operations on the
// whole board, cheaper than walking the lines through the changed points), the opponent's only
// if some flipped to his colour.
func (s State) Play(a env.Action) State {
	if i := int(a - moveBase); uint(i) < numPoints*54 {
		mv := moves[i]
		from, to, d := int(mv.from), int(mv.to), int(mv.dir)
		me, them := s.toMove&1, (s.toMove&1)^1
		fromBit := cellBit(from)
		s.rings[me] = s.rings[me].xor(fromBit.or(cellBit(to)))
		jumped := rayFrom[from&127][d&7].andNot(rayFrom[to&127][d&7]).and(s.markers[0].or(s.markers[1]))
		s.markers[0] = s.markers[0].xor(jumped)
		s.markers[1] = s.markers[1].xor(jumped)
		mine := s.markers[me].or(fromBit)
		s.markers[me] = mine
		s.used++
		s.passed = false
		s.startTurn(them)
		// hasRow(mine), written out.
		lo, hi := mine.lo, mine.hi
		c0, c1 := lo&(lo>>1), hi&(hi>>1)
		r0, r1 := lo&(hi>>1), hi&(lo>>10)
		d0, d1 := lo&(hi>>2), hi&(lo>>11)
		c0, c1 = c0&(c0>>2), c1&(c1>>2)
		r0, r1 = r0&(r0>>11), r1&(r1>>11)
		d0, d1 = d0&(d0>>13), d1&(d1>>13)
		c0, c1 = c0&(lo>>4), c1&(hi>>4)
		r0, r1 = r0&(lo>>22), r1&(hi>>22)
		d0, d1 = d0&(lo>>26), d1&(hi>>26)
		switch {
		case c0|c1|r0|r1|d0|d1 != 0:
			s.phase, s.toMove, s.mover, s.result = phaseRow, me, me, env.Ongoing
		case !jumped.andNot(mine).empty() && hasRow(s.markers[them]):
			s.phase, s.toMove, s.mover, s.result = phaseRow, them, me, env.Ongoing
		}
		return s
	}
	s.playOther(a)
	return s
}

// playOther plays the actions other than moves.
func (s *State) playOther(a env.Action) {
	switch {
	case a < moveBase:
		c := int(pointCell[a-placeBase])
		s.rings[s.toMove].set(c)
		s.placed++
		if s.placed == 2*ringsEach {
			s.startTurn(0) // white moves first
		} else {
			s.toMove = s.toMove.Other()
		}
	case a < ringBase:
		i := int(a - rowBase)
		s.markers[s.toMove] = s.markers[s.toMove].andNot(rowMask[i/3][i%3])
		s.used -= 5
		s.phase = phaseRing
	case a < passAction:
		s.rings[s.toMove].clear(int(pointCell[a-ringBase]))
		s.removed[s.toMove]++
		if s.removed[s.toMove] == s.target() {
			s.finish(env.WinFor(s.toMove))
			break
		}
		s.resolve()
	default: // pass
		if s.passed {
			s.finishByScore()
			break
		}
		s.passed = true
		s.startTurn(s.toMove.Other())
	}
}

// resolve sets up the next decision after a move or a ring removal: the mover's rows first,
// then the opponent's, then the opponent's turn.
func (s *State) resolve() {
	p := s.mover
	switch {
	case hasRow(s.markers[p]):
		s.phase, s.toMove = phaseRow, p
	case hasRow(s.markers[p.Other()]):
		s.phase, s.toMove = phaseRow, p.Other()
	default:
		s.startTurn(p.Other())
	}
}

// startTurn gives the turn to p, or ends the game if the pool is empty: p's move would need a
// marker. The pool is looked at only here, after the last move's rows are resolved, so rows that
// put markers back let the game go on. The end comes before a pass: whether p has to pass is
// found out by Legal, later.
func (s *State) startTurn(p env.Player) {
	if s.used == poolSize {
		s.finishByScore()
		return
	}
	s.phase, s.toMove, s.mover = phaseMove, p, p
}

func (s *State) finishByScore() {
	switch {
	case s.removed[0] > s.removed[1]:
		s.finish(env.Win0)
	case s.removed[1] > s.removed[0]:
		s.finish(env.Win1)
	default:
		s.finish(env.Draw)
	}
}

func (s *State) finish(r env.Result) {
	s.phase, s.toMove, s.result = phaseOver, env.Terminal, r
}

// Symmetry returns the position turned by symmetry k of the hexagon (see Game.MapAction).
func (s State) Symmetry(k int) State {
	if k == 0 {
		return s
	}
	t := s
	for i := 0; i < 2; i++ {
		t.rings[i] = mapBoard(k, s.rings[i])
		t.markers[i] = mapBoard(k, s.markers[i])
	}
	return t
}

func mapBoard(k int, b bitboard) bitboard {
	var out bitboard
	b.forEach(func(c int) {
		out.set(int(pointCell[symPoint[k][cellPoint[c]]]))
	})
	return out
}
