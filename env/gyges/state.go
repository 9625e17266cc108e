package gyges

import (
	"math/bits"
	"math/rand/v2"

	"github.com/zerogames/zero/env"
)

// The action space, in the frame of the player to move (see the package doc). Generating the
// legal actions piece by piece in ascending squares lists them in ascending order.
//
//	   0 ..    17  place   (size-1)·6 + col                  on the mover's start row
//	  18 ..  1349  move    18 + start·37 + end               end 0..35, or 36 = the goal
//	1350 .. 48005  replace 1350 + start·1296 + end·36 + drop  the advanced rule only
//
// The basic rule's space is the first 1350 indices. Moves from a square to itself, and
// replacements ending on their start square or dropping on their own end square, are holes:
// never legal.
const (
	placeBase   = 0
	moveBase    = placeBase + 3*6
	replaceBase = moveBase + numSquares*(numSquares+1)
	endAction   = replaceBase + numSquares*numSquares*numSquares

	// NumActionsBasic is the size of the basic rule's action space.
	NumActionsBasic = replaceBase
	// NumActionsAdvanced is the size of the advanced rule's action space.
	NumActionsAdvanced = endAction
)

const (
	piecesEach = 6  // pieces each player places
	numPieces  = 12 // pieces on the board once the set-up is over
)

// State is a Gygès position. It is a plain value: copy it to keep it.
//
// The board is in the frame of side (the player to move while the game goes on): two bit
// planes give each square's piece size, lo + 2·hi (0 empty). Nothing else is needed: pieces
// belong to nobody, and during the set-up every piece stands on its placer's start row, so the
// pieces each player has left to place are read off the board.
type State struct {
	lo, hi   uint64
	moves    uint16 // moves made (placements not counted) since the start or the parsed position
	moveCap  uint16 // the game is drawn once moves reaches it
	side     env.Player
	result   env.Result
	advanced bool
}

func newState(cfg Config) State {
	return State{moveCap: uint16(cfg.MoveCap), advanced: cfg.Advanced}
}

// ToMove is the player to decide: 0 south, 1 north, or env.Terminal.
func (s State) ToMove() env.Player {
	if s.result != env.Ongoing {
		return env.Terminal
	}
	return s.side
}

// Result is env.Ongoing until the game ends.
func (s State) Result() env.Result { return s.result }

// Chances is empty: Gygès has no chance.
func (s State) Chances(dst []env.Outcome) []env.Outcome { return dst }

// Advanced tells whether the game is played with the advanced rule (replacements).
func (s State) Advanced() bool { return s.advanced }

// Moves is the number of moves made (placements not counted) since the start of the game or
// of the parsed position; the game is drawn when it reaches MoveCap.
func (s State) Moves() int { return int(s.moves) }

// MoveCap is the number of moves after which the game is drawn.
func (s State) MoveCap() int { return int(s.moveCap) }

// SettingUp tells whether pieces are still being placed.
func (s State) SettingUp() bool {
	return s.result == env.Ongoing && bits.OnesCount64(s.lo|s.hi) < numPieces
}

func (s *State) occupied() uint64 { return s.lo | s.hi }

func (s *State) size(sq int) int { return int(s.lo>>sq&1 | (s.hi>>sq&1)<<1) }

// put sets square sq to a piece of size k (0 empties it).
func (s *State) put(sq, k int) {
	bit := uint64(1) << sq
	s.lo = s.lo&^bit | uint64(k&1)<<sq
	s.hi = s.hi&^bit | uint64(k>>1)<<sq
}

// sizeMask is the set of squares holding a piece of size k.
func (s *State) sizeMask(k int) uint64 {
	switch k {
	case 1:
		return s.lo &^ s.hi
	case 2:
		return s.hi &^ s.lo
	}
	return s.lo & s.hi
}

// toPlace is how many pieces of size k the player whose start row is row is still to place.
func (s *State) toPlace(k, row int) int {
	return 2 - bits.OnesCount64(s.sizeMask(k)&rowMask[row])
}

// Legal appends the legal actions in ascending order.
func (s State) Legal(dst []env.Action) []env.Action {
	return s.legal(dst, searchLimits{boundAfter, carefulAfter})
}

// countLegal is len(s.Legal(nil)), counted without listing the actions: the moves of a piece
// by a popcount of the squares it reaches, its replacements by a popcount of the drop squares
// for each square it lands on.
func (s *State) countLegal() int {
	if s.result != env.Ongoing {
		return 0
	}
	occ := s.occupied()
	if bits.OnesCount64(occ) < numPieces {
		free, n := bits.OnesCount64(^occ&rowMask[0]), 0
		for k := 1; k <= 3; k++ {
			if s.toPlace(k, 0) != 0 {
				n += free
			}
		}
		return n
	}
	var rr rowReach
	for rows := occ; rows != 0; {
		row := occ & rowMask[lowest(rows)/6]
		rows &^= row
		s.reachRow(&rr, occ, row, searchLimits{boundAfter, carefulAfter})
		if n := s.countRow(&rr, occ); n > 0 {
			return n
		}
	}
	return 0
}

// legal is Legal with the limits of the search given (tests force the bounds on everywhere).
func (s *State) legal(dst []env.Action, limits searchLimits) []env.Action {
	if s.result != env.Ongoing {
		return dst
	}
	occ := s.occupied()
	if bits.OnesCount64(occ) < numPieces {
		free := ^occ & rowMask[0]
		for k := 1; k <= 3; k++ {
			if s.toPlace(k, 0) == 0 {
				continue
			}
			for m := free; m != 0; m &= m - 1 {
				dst = append(dst, env.Action(placeBase+(k-1)*6+lowest(m)))
			}
		}
		return dst
	}
	// The nearest occupied row; if none of its pieces can move, the next, and so on.
	var rr rowReach
	for rows := occ; rows != 0; {
		row := occ & rowMask[lowest(rows)/6]
		rows &^= row
		n := len(dst)
		s.reachRow(&rr, occ, row, limits)
		if dst = s.appendRow(dst, &rr, occ); len(dst) > n {
			break
		}
	}
	return dst
}

// reach collects what one piece can reach in one move: the empty squares (and the goal) where
// a movement ends, and the occupied squares where one ends (to bounce or be replaced).
//
// A bounce on a piece already bounced on, with at least the connections used then, cannot
// reach anything new: the movement from there has the same length (the size of the piece
// bounced on) and fewer connections to choose from. So walk remembers, for each square bounced
// on, the sets of connections used on arrival, and does not follow a bounce that one of them
// dominates. This keeps the search small; it does not change what is reached (the reference
// implementation in the tests follows every bounce).
type reach struct {
	occ    uint64 // occupied squares, the moving piece lifted
	lo, hi uint64
	ends   uint64
	lands  uint64
	seen   [numSquares][maxSeen]uint64 // connections used on the arrivals at each square
	nseen  [numSquares]uint8
	walks  int        // bounces followed for this piece
	toGoal bool       // stop at the first movement into the goal (canWin's question)
	pend   [32]bounce // bounces waiting to be followed (see walk), pend[:top]
	top    int
	limits searchLimits

	// The bound: for each square, every end and landing a bounce there could ever lead to,
	// whatever the connections used (worked out once per row, when first needed).
	row        uint64 // the row the moving pieces stand on
	bounded    bool
	advanced   bool
	boundEnds  [numSquares]uint64
	boundLands [numSquares]uint64
}

// maxSeen is how many arrivals per square walk remembers; past that it still searches, only
// without skipping.
const maxSeen = 4

// start sets r up for the piece on sq.
func (r *reach) start(occ uint64, sq int) {
	r.occ = occ &^ (1 << sq)
	r.ends, r.lands, r.nseen, r.walks = 0, 0, [numSquares]uint8{}, 0
}

// walk follows every movement of k steps from sq that uses no connection in used, and every
// bounce after it.
//
// The bounces a movement finds are all recorded (arrive) before any is followed: they wait on
// r.pend above base (a deeper call takes them when it is full), the last found followed first.
// Following each bounce as soon as it was found, as walk did before, recorded an arrival only
// after the whole search below its elder siblings, too late to cut the searches it dominates:
// the hardest position known (BenchmarkLegalHard) took about 15 times longer so.
func (r *reach) walk(sq, k int, used uint64) {
	base := r.top
	for {
		// occ and ends in locals: the compiler cannot keep fields of r in registers across
		// the writes to r in the loop. ends goes back to r before anything reads it.
		occ, ends := r.occ, uint64(0)
		for _, p := range paths[sq][k] {
			if p.cells&occ != 0 || p.conns&used != 0 {
				continue
			}
			e := p.end()
			bit := uint64(1) << e
			if occ&bit == 0 {
				ends |= bit
				if e == goal && r.toGoal {
					r.ends |= ends
					r.top = base
					return
				}
				continue
			}
			r.lands |= bit
			next := used | p.conns
			if !r.arrive(e, next) {
				continue
			}
			r.ends |= ends
			// Most moves take a few bounces; past that, the bounds cut the searches that
			// would otherwise grow exponentially (tens of thousands of bounces in a few
			// positions).
			r.walks++
			if r.walks > r.limits.boundAfter && r.exhausted(e) || r.walks > r.limits.carefulAfter && r.exhaustedFrom(e, next) {
				continue
			}
			if r.top == len(r.pend) {
				r.walk(e, int(r.lo>>e&1|(r.hi>>e&1)<<1), next)
				if r.toGoal && r.ends&goalBit != 0 {
					r.top = base
					return
				}
				continue
			}
			r.pend[r.top] = bounce{e, next}
			r.top++
		}
		r.ends |= ends
		if r.top == base {
			return
		}
		r.top--
		sq, used = r.pend[r.top].sq, r.pend[r.top].used
		k = int(r.lo>>sq&1 | (r.hi>>sq&1)<<1)
	}
}

// bounce is a bounce to follow: the square bounced on and the connections used to get there.
type bounce struct {
	sq   int
	used uint64
}

// boundAfter and carefulAfter are the numbers of bounces followed for one piece after which
// walk checks each bounce against the row's bound (cheap once worked out), then also against
// the bound given the connections already used (about as costly as a bounce).
const (
	boundAfter   = 256
	carefulAfter = 256
)

// searchLimits are boundAfter and carefulAfter for one search.
type searchLimits struct{ boundAfter, carefulAfter int }

// exhaustedFrom tells whether a bounce on sq with the connections used can lead to nothing not
// found yet: it works out everything the bounces from there reach without those connections
// (ignoring only that later movements may not share connections either).
func (r *reach) exhaustedFrom(sq int, used uint64) bool {
	var ends, lands uint64
	todo, done := uint64(1)<<sq, uint64(0)
	for todo != 0 {
		x := lowest(todo)
		todo &^= 1 << x
		done |= 1 << x
		for _, p := range paths[x][r.lo>>x&1|(r.hi>>x&1)<<1] {
			if p.cells&r.occ != 0 || p.conns&used != 0 {
				continue
			}
			bit := uint64(1) << p.end()
			if r.occ&bit == 0 {
				ends |= bit
			} else {
				lands |= bit
			}
		}
		todo = lands &^ done
		if ends&^r.ends != 0 || r.advanced && lands&^r.lands != 0 {
			return false
		}
	}
	return true
}

// exhausted tells whether a bounce on sq can lead to nothing not found yet, by the bound.
func (r *reach) exhausted(sq int) bool {
	if !r.bounded {
		r.bound()
	}
	if r.boundEnds[sq]&^r.ends != 0 {
		return false
	}
	return !r.advanced || r.boundLands[sq]&^r.lands == 0
}

// bound works out the bound for the pieces of r.row: the movements from each occupied square,
// passing over the squares of the row too (one of them is the moving piece's start, empty
// during its move); then the closure over the bounces. Whichever piece of the row moves, with
// whatever connections used, reaches no more than that.
func (r *reach) bound() {
	r.bounded = true
	occ := r.occ | r.row
	free := occ &^ r.row
	for m := occ; m != 0; m &= m - 1 {
		x := lowest(m)
		var ends, landed uint64
		for _, p := range paths[x][r.lo>>x&1|(r.hi>>x&1)<<1] {
			if p.cells&free != 0 {
				continue
			}
			bit := uint64(1) << p.end()
			if occ&bit == 0 {
				ends |= bit // empty or the goal (the row's squares are taken, or the start)
			}
			landed |= bit & occ
		}
		r.boundEnds[x], r.boundLands[x] = ends, landed
	}
	// The closure: a bounce on x leads on to whatever a bounce where it lands leads to.
	for changed := true; changed; {
		changed = false
		for m := occ; m != 0; m &= m - 1 {
			x := lowest(m)
			ends, landed := r.boundEnds[x], r.boundLands[x]
			for l := landed; l != 0; l &= l - 1 {
				y := lowest(l)
				ends |= r.boundEnds[y]
				landed |= r.boundLands[y]
			}
			if ends != r.boundEnds[x] || landed != r.boundLands[x] {
				r.boundEnds[x], r.boundLands[x], changed = ends, landed, true
			}
		}
	}
}

// arrive records a bounce on sq with the connections used, and tells whether it can reach
// anything an earlier one could not.
func (r *reach) arrive(sq int, used uint64) bool {
	n := r.nseen[sq]
	for _, v := range r.seen[sq][:n] {
		if v&^used == 0 {
			return false
		}
	}
	if n < maxSeen {
		r.seen[sq][n] = used
		r.nseen[sq] = n + 1
	}
	return true
}

// drops is the set of squares where a piece displaced by the piece from start may be put,
// before the same-size rule: the empty squares (start included) no further than the opponent's
// nearest occupied row, judged with the mover on the displaced piece's square. The answer
// does not depend on which piece is displaced, since one piece stands on its square either way.
func drops(occ uint64, start int) uint64 {
	after := occ &^ (1 << start)
	return ^after & rowsUpTo[topRow(after)]
}

// rowReach is what each piece of a row reaches: the squares where its moves end (its start
// left out) and the squares it lands on, piece by piece in ascending order of start square.
type rowReach struct {
	n           int
	starts      [6]int
	ends, lands [6]uint64
}

// reachRow works out the reach of every piece on row (a set of occupied squares in one row).
func (s *State) reachRow(rr *rowReach, occ, row uint64, limits searchLimits) {
	rr.n = 0
	r := reach{lo: s.lo, hi: s.hi, row: row, advanced: s.advanced, limits: limits}
	for m := row; m != 0; m &= m - 1 {
		p := lowest(m)
		r.start(occ, p)
		r.walk(p, s.size(p), 0)
		rr.ends[rr.n], rr.lands[rr.n], rr.starts[rr.n] = r.ends&^(1<<p), r.lands, p
		rr.n++
	}
}

// appendRow appends the moves of the pieces of rr: all moves of every piece first, then the
// replacements, each in ascending order of start square.
func (s *State) appendRow(dst []env.Action, rr *rowReach, occ uint64) []env.Action {
	for i := range rr.n {
		base := moveBase + rr.starts[i]*(numSquares+1)
		for m := rr.ends[i]; m != 0; m &= m - 1 {
			dst = append(dst, env.Action(base+lowest(m)))
		}
	}
	if !s.advanced {
		return dst
	}
	for i := range rr.n {
		if rr.lands[i] == 0 {
			continue
		}
		p := rr.starts[i]
		free, k := drops(occ, p), s.size(p)
		for m := rr.lands[i]; m != 0; m &= m - 1 {
			x := lowest(m)
			base := replaceBase + p*numSquares*numSquares + x*numSquares
			for d := s.landDrops(free, p, x, k); d != 0; d &= d - 1 {
				dst = append(dst, env.Action(base+lowest(d)))
			}
		}
	}
	return dst
}

// landDrops is where the piece on x may be put when the piece of size k from p lands on it:
// free (drops(occ, p)), but not p if the piece on x has size k too, since putting the same size
// back on the start square would change nothing.
func (s *State) landDrops(free uint64, p, x, k int) uint64 {
	if s.size(x) == k {
		return free &^ (1 << p)
	}
	return free
}

// countRow is the number of actions appendRow appends.
func (s *State) countRow(rr *rowReach, occ uint64) int {
	n := 0
	for i := range rr.n {
		n += bits.OnesCount64(rr.ends[i])
	}
	if !s.advanced {
		return n
	}
	for i := range rr.n {
		if rr.lands[i] == 0 {
			continue
		}
		p := rr.starts[i]
		free := drops(occ, p)
		n += bits.OnesCount64(rr.lands[i]) * bits.OnesCount64(free)
		if free>>p&1 != 0 {
			// the same size back on the start square would change nothing
			n -= bits.OnesCount64(rr.lands[i] & s.sizeMask(s.size(p)))
		}
	}
	return n
}

// randomLegal is s.Legal(nil)[rng.IntN(n)], n the number of legal actions, found without
// listing them: the row that may move is counted as countLegal counts it, one index drawn, and
// only the action at that index of appendRow's order worked out (rowAction). s must have a
// legal action.
func (s *State) randomLegal(rng *rand.Rand) env.Action {
	occ := s.occupied()
	if s.result == env.Ongoing && bits.OnesCount64(occ) < numPieces {
		var buf [3 * 6]env.Action
		legal := s.Legal(buf[:0])
		return legal[rng.IntN(len(legal))]
	}
	if s.result == env.Ongoing {
		var rr rowReach
		for rows := occ; rows != 0; {
			row := occ & rowMask[lowest(rows)/6]
			rows &^= row
			s.reachRow(&rr, occ, row, searchLimits{boundAfter, carefulAfter})
			if n := s.countRow(&rr, occ); n > 0 {
				return s.rowAction(&rr, occ, rng.IntN(n))
			}
		}
	}
	panic("gyges: a random legal action of a position with none: " + s.Position())
}

// rowAction is the action appendRow would append i-th (0 ≤ i < countRow).
func (s *State) rowAction(rr *rowReach, occ uint64, i int) env.Action {
	for j := range rr.n {
		c := bits.OnesCount64(rr.ends[j])
		if i < c {
			return env.Action(moveBase + rr.starts[j]*(numSquares+1) + nthSquare(rr.ends[j], i))
		}
		i -= c
	}
	for j := range rr.n {
		if rr.lands[j] == 0 {
			continue
		}
		p := rr.starts[j]
		free, k := drops(occ, p), s.size(p)
		for m := rr.lands[j]; m != 0; m &= m - 1 {
			x := lowest(m)
			d := s.landDrops(free, p, x, k)
			c := bits.OnesCount64(d)
			if i < c {
				return env.Action(replaceBase + p*numSquares*numSquares + x*numSquares + nthSquare(d, i))
			}
			i -= c
		}
	}
	panic("gyges: rowAction past the row's actions")
}

// nthSquare is the i-th lowest square of m (0 ≤ i < |m|).
func nthSquare(m uint64, i int) int {
	for ; i > 0; i-- {
		m &= m - 1
	}
	return lowest(m)
}

// canMove tells whether the piece on start has a legal move, ignoring which row may move.
func (s *State) canMove(occ uint64, start int) bool {
	r := anyReach{occ: occ &^ (1 << start), lo: s.lo, hi: s.hi, start: start}
	if s.advanced {
		r.free, r.k = drops(occ, start), s.size(start)
	}
	return r.walk(start, s.size(start), 0)
}

// anyReach is reach stopped at the first move found.
type anyReach struct {
	occ, lo, hi uint64
	start       int
	free        uint64 // drop squares (advanced rule), before the same-size rule
	k           int    // the moving piece's size
}

func (r *anyReach) walk(sq, k int, used uint64) bool {
	for _, p := range paths[sq][k] {
		if p.cells&r.occ != 0 || p.conns&used != 0 {
			continue
		}
		e := p.end()
		if r.occ>>e&1 == 0 {
			if e != r.start {
				return true
			}
			continue
		}
		size := int(r.lo>>e&1 | (r.hi>>e&1)<<1)
		if d := r.free; d != 0 && (d&^(1<<r.start) != 0 || size != r.k) {
			return true // a replacement
		}
		if r.walk(e, size, used|p.conns) {
			return true
		}
	}
	return false
}

// hasMove tells whether the player to move has any legal move.
func (s *State) hasMove() bool {
	occ := s.occupied()
	if s.plainMove(occ) {
		return true
	}
	for m := occ; m != 0; m &= m - 1 {
		if s.canMove(occ, lowest(m)) {
			return true
		}
	}
	return false
}

// plainMove is a quick test that answers true only if some piece has a move over empty squares
// alone: a single next to an empty square, a double next to an empty square next to another,
// a triple next to an empty square next to one with two empty neighbours (so the third step
// need not turn back). It is almost always true, which spares hasMove the search.
func (s *State) plainMove(occ uint64) bool {
	empty := ^occ & allSquares
	if adjacent(empty)&s.sizeMask(1) != 0 {
		return true
	}
	if adjacent(empty&adjacent(empty))&s.sizeMask(2) != 0 {
		return true
	}
	up, down, left, right := empty>>6, empty<<6&allSquares, empty>>1&^colF, empty<<1&^colA
	two := empty & (up&(down|left|right) | down&(left|right) | left&right)
	return adjacent(empty&adjacent(two))&s.sizeMask(3) != 0
}

// Play returns the state after the legal action a.
func (s State) Play(a env.Action) State {
	i := int(a)
	switch {
	case i < moveBase:
		s.put(i%6, i/6+1)
	case i < replaceBase:
		i -= moveBase
		p, e := i/(numSquares+1), i%(numSquares+1)
		k := s.size(p)
		s.put(p, 0)
		s.moves++
		if e == goal {
			s.result = env.WinFor(s.side)
			break
		}
		s.put(e, k)
	default:
		i -= replaceBase
		p, x, d := i/(numSquares*numSquares), i/numSquares%numSquares, i%numSquares
		k, j := s.size(p), s.size(x)
		s.put(p, 0)
		s.put(x, k)
		s.put(d, j)
		s.moves++
	}
	s.lo, s.hi = turn(s.lo), turn(s.hi)
	s.side = s.side.Other()
	s.settle()
	return s
}

// settle ends the game as a draw when the movement has begun and the move cap is reached or
// the player to move has no legal move.
func (s *State) settle() {
	if s.result != env.Ongoing || bits.OnesCount64(s.lo|s.hi) < numPieces {
		return
	}
	if s.moves >= s.moveCap || !s.hasMove() {
		s.result = env.Draw
	}
}

// Symmetry returns the position mirrored left–right (k = 1) or unchanged (k = 0).
func (s State) Symmetry(k int) State {
	if k == 1 {
		s.lo, s.hi = mirror(s.lo), mirror(s.hi)
	}
	return s
}

// canWin tells whether the player to move can bring a piece into the goal now: the moves of
// the row that may move (the nearest occupied row with a legal move) are walked as Legal walks
// them, without listing the replacements, and the first piece that reaches the goal answers.
func (s *State) canWin() bool {
	occ := s.occupied()
	if s.result != env.Ongoing || bits.OnesCount64(occ) < numPieces {
		return false
	}
	r := reach{lo: s.lo, hi: s.hi, advanced: s.advanced, limits: searchLimits{boundAfter, carefulAfter}, toGoal: true}
	for rows := occ; rows != 0; {
		row := occ & rowMask[lowest(rows)/6]
		rows &^= row
		r.row, r.bounded = row, false
		movable := false
		for m := row; m != 0; m &= m - 1 {
			p := lowest(m)
			r.start(occ, p)
			r.walk(p, s.size(p), 0)
			if r.ends&goalBit != 0 {
				return true
			}
			movable = movable || r.ends&^(1<<p) != 0 || s.advanced && s.canReplace(occ, p, r.lands)
		}
		if movable {
			return false
		}
	}
	return false
}

// canReplace tells whether the piece from start, landing on the squares lands, has a
// replacement (the advanced rule): a drop square left for one of the pieces it lands on.
func (s *State) canReplace(occ uint64, start int, lands uint64) bool {
	free, k := drops(occ, start), s.size(start)
	for m := lands; m != 0; m &= m - 1 {
		d := free
		if s.size(lowest(m)) == k {
			d &^= 1 << start
		}
		if d != 0 {
			return true
		}
	}
	return false
}
