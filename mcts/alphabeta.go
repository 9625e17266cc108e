package mcts

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/zerogames/zero/env"
)

// AlphaBeta is the tactical baseline behind the ab:D players: a depth-limited alpha-beta
// search (minimax over the players' decisions, the expectation at chance nodes) through the
// env contract. Depth counts turns, not decisions: a turn is the run of decisions one player
// makes before the other (or the end) decides, so YINSH's move, row and ring are one turn, and
// chance inside a turn does not end it. ab:1 sees the mover's own turn (it takes every win in
// one), ab:2 also every reply (it never allows a loss in one where one can be avoided).
//
// Positions past the depth are valued by the game's env.Heuristic if it has one (unless
// EndsOnly), else 0 (only the ends of the game count); the last turn searched asks the game
// whether its decider can win within it (env.WinChecker) before playing its moves out. A game
// that tells how soon it can end (env.EndBound) is not searched where no end is within the depth
// and no heuristic values the horizon: such a position is worth 0 exactly (Imbriqua, which
// always lasts 44 turns, before its last turns). Iterative deepening runs depths 1 to D and
// keeps the last complete one, so a time cap stops it with a sound move. Among equally good
// moves the choice is uniform, by a seeded shuffle of the root's moves: a search with the same
// seed and depth is deterministic.
//
// With a heuristic the search is a classical engine's (pvs): at every decision it first asks
// whether the decider can win within his turn (env.WinChecker: the win is then its value, found
// without playing the moves out, so a move that hands the opponent a win costs one such check
// wherever it comes); it tries first the best move the transposition table (the game's
// env.Hasher) holds for the position, then the killer, then the others by how often they cut
// the search off before (the history heuristic); every move after the first that is not a loss
// is searched with a null window (principal-variation search), again with the full window only
// if it does better. The table keeps, for each position searched, its value, whether a bound,
// and the turns searched from it; it answers only a search of as many turns (so the value is
// exactly that of a plain alpha-beta search of the depth, and a win is as near as without it)
// and keeps the best moves from iteration to iteration and from move to move. Only the ends of
// the game are values of ±1 (a heuristic's are below), so a forced result needs no distance in
// the table: iterative deepening still stops at the first depth that forces one, which takes
// the fastest win and keeps the slowest loss.
type AlphaBeta[S env.State[S]] struct {
	depth     int
	timeCap   time.Duration
	rng       *rand.Rand
	pcg       *rand.PCG
	canWin    func(S) bool
	heuristic func(S) float64
	// turnsToEnd is the game's env.EndBound, if it has one: without a heuristic, a position
	// that cannot reach an end within the turns left is worth 0, unsearched.
	turnsToEnd func(S) int
	// hash is the game's env.Hasher, if it has one: the transposition table's keys. tt is the
	// table (abTableSize entries), made at the first search with a heuristic (never for Prove);
	// noTT keeps it off, and plain has the search with a heuristic made as the one without it
	// (value, not pvs): tests compare.
	hash func(S) uint64
	tt   []abEntry
	// history[a] counts the cutoffs action a made in pvs (the later and the deeper, the more),
	// by which it orders the moves after the table's and the killer (the history heuristic);
	// made with the table (numActions entries).
	history    []int32
	numActions int
	noTT       bool
	plain      bool
	buf        []env.Action
	outcomes   []env.Outcome
	root       []env.Action
	// killer[ply] is the last move that cut the search off at that ply (−1: none), tried first
	// at the nodes of that ply where it is legal: the reply that refutes one move often refutes
	// its siblings. noKillers turns them off (tests compare).
	killer    []env.Action
	noKillers bool
	// pv[i] is the best line found from the node at ply i of the search under way (a
	// triangular table: a node's line is its best move and its child's line); line is the
	// root's line of the last complete iteration, which ABResult.PV shows.
	pv     [][]env.Action
	line   []env.Action
	lineOn bool // Search keeps the lines; Prove, which answers a value only, does not

	deadline  time.Time // of the iterations past the first, which always completes
	ctx       context.Context
	nodes     int64
	nodeLimit int64 // Prove's budget (0: none)
	nextCheck int64 // the count of positions at which the clock is next looked at
}

// ABResult is what an alpha-beta search found.
type ABResult struct {
	Best  env.Action
	Value float64 // for the player to decide at the root, in [-1, 1]
	Depth int     // the deepest complete iteration, in turns
	Nodes int64   // positions made, in all iterations
	// PV is the principal variation of the deepest complete iteration: Best, then the
	// decisions of both players the search expects, up to the end of the game, a chance
	// decision or its horizon. It belongs to the search, valid until its next Search.
	PV []env.Action
}

// MaxABDepth bounds the depth of an ab:D player: at 8 turns a full-width search of any game
// here takes hours.
const MaxABDepth = 8

// NewAlphaBeta returns an alpha-beta search of g to depth turns (1 to MaxABDepth), capped at
// timeCap per move if positive, its tie-breaks drawn from a generator seeded by seed.
func NewAlphaBeta[S env.State[S]](g env.Game[S], depth int, timeCap time.Duration, seed uint64) (*AlphaBeta[S], error) {
	if depth < 1 || depth > MaxABDepth {
		return nil, fmt.Errorf("mcts: alpha-beta depth %d: want 1 to %d turns", depth, MaxABDepth)
	}
	if timeCap < 0 {
		return nil, fmt.Errorf("mcts: alpha-beta time cap %v: want ≥ 0", timeCap)
	}
	pcg := rand.NewPCG(seed, abStream)
	ab := &AlphaBeta[S]{depth: depth, timeCap: timeCap, pcg: pcg, rng: rand.New(pcg), canWin: env.WinChecker(g),
		buf: make([]env.Action, 0, 4*g.Info().NumActions), outcomes: make([]env.Outcome, 0, 64)}
	if h, ok := g.(env.Heuristic[S]); ok {
		ab.heuristic = h.Heuristic
	}
	if b, ok := g.(env.EndBound[S]); ok {
		ab.turnsToEnd = b.TurnsToEnd
	}
	if h, ok := g.(env.Hasher[S]); ok {
		ab.hash = h.Hash
	}
	ab.numActions = g.Info().NumActions
	return ab, nil
}

// EndsOnly has the search value only the ends of the game, as Prove does, whatever the game's
// heuristic: a position past the depth is worth 0 (the ab:D:eval=none players). The search is
// then the one of a game without a heuristic.
func (ab *AlphaBeta[S]) EndsOnly() { ab.heuristic = nil }

// abEntry is one position of the transposition table: its key (the game's hash), its value for
// player 0 and what that value is (abExact, or a bound: abLower, abUpper; abEmpty for an entry
// never written), the best move found, and the turns searched from it after the one in progress
// (value's left).
type abEntry struct {
	key   uint64
	value float64
	move  env.Action
	left  int8
	bound int8
}

const (
	abEmpty = iota
	abExact
	abLower // the value is at least value
	abUpper // at most
)

// abTableSize is the number of the table's entries (a power of 2; 6 MB): a 3-turn search of
// Gygès advanced stores some tens of thousands of positions.
const abTableSize = 1 << 18

const abStream = 0xab_5eed

// Seed reseeds the tie-breaks, as if the search had been made with seed.
func (ab *AlphaBeta[S]) Seed(seed uint64) { ab.pcg.Seed(seed, abStream) }

// Limit sets the depth (0 keeps it) and the time cap of the searches to come.
func (ab *AlphaBeta[S]) Limit(depth int, timeCap time.Duration) {
	if depth >= 1 && depth <= MaxABDepth {
		ab.depth = depth
	}
	ab.timeCap = max(timeCap, 0)
}

// Depth is the depth the searches go to, in turns.
func (ab *AlphaBeta[S]) Depth() int { return ab.depth }

// errStopped unwinds a search stopped by its time cap or context.
var errStopped = errors.New("stopped")

// Search searches s, which must be a player's decision, and returns the move to play.
func (ab *AlphaBeta[S]) Search(ctx context.Context, s S) (ABResult, error) {
	p := s.ToMove()
	if p != 0 && p != 1 {
		return ABResult{}, errors.New("mcts: alpha-beta searches a player's decision")
	}
	if err := ctx.Err(); err != nil {
		return ABResult{}, err
	}
	ab.ctx, ab.nodes, ab.nextCheck, ab.lineOn = ctx, 0, 0, true
	ab.deadline = time.Time{}
	if ab.classic() && ab.hash != nil && !ab.noTT && ab.tt == nil {
		ab.tt = make([]abEntry, abTableSize)
	}
	if ab.classic() {
		if ab.history == nil {
			ab.history = make([]int32, ab.numActions)
		}
		for i := range ab.history {
			ab.history[i] >>= 1 // the searches before count half as much as the last
		}
	}
	ab.root = s.Legal(ab.root[:0])
	ab.rng.Shuffle(len(ab.root), func(i, j int) { ab.root[i], ab.root[j] = ab.root[j], ab.root[i] })
	res := ABResult{Best: ab.root[0]}
	ab.line = ab.line[:0]
	deadline := time.Time{}
	if ab.timeCap > 0 {
		deadline = now().Add(ab.timeCap)
	}
	for d := 1; d <= ab.depth; d++ {
		if d == 2 {
			ab.deadline = deadline
		}
		best, v, err := ab.searchRoot(s, d)
		if err != nil {
			if res.Depth == 0 && ctx.Err() != nil {
				return res, ctx.Err()
			}
			break // the time cap: the last complete depth stands
		}
		res.Best, res.Value, res.Depth = best, v, d
		ab.line = append(ab.line[:0], ab.pv[0]...)
		// The best first at the next depth: its value bounds the others early.
		for i, a := range ab.root {
			if a == best {
				copy(ab.root[1:i+1], ab.root[:i])
				ab.root[0] = best
				break
			}
		}
		if math.Abs(v) >= 1 {
			break // a forced result: deeper cannot change it
		}
	}
	// The line ends where the search stopped looking: the end of the game, a chance decision,
	// the horizon, or a decision whose decider can win within his turn (the last turn's
	// shortcut, which finds no move): there it goes on with the win. Only in a forced result:
	// a line that stopped at the horizon (its value not ±1) ends there, even where the decider
	// could win past it, which the search did not see.
	end := s
	for _, a := range ab.line {
		end = end.Play(a)
	}
	if math.Abs(res.Value) >= 1 && ab.canWin(end) {
		_, ab.line, ab.buf = env.WinLine(end, ab.buf, ab.line)
		ab.buf = ab.buf[:0]
	}
	res.Nodes, res.PV = ab.nodes, ab.line
	return res, nil
}

// Prove tells whether s, reached in the turn of owner, is a forced result within the rest of
// that turn and turns more: +1 (player 0 wins whatever player 1 does) or −1, with ok, or
// nothing (ok false) if neither is forced, or if the proof needs more than limit positions. Only
// the ends of the game count (no heuristic), so what it finds is sure. It is deterministic: the
// limit counts positions, not time.
func (ab *AlphaBeta[S]) Prove(s S, owner env.Player, turns int, limit int64) (v float64, ok bool) {
	return ab.prove(context.Background(), s, owner, turns, limit, time.Time{})
}

// prove is Prove, given up (ok false) when ctx ends or at deadline if it is not zero: the
// search that asks keeps to its own.
func (ab *AlphaBeta[S]) prove(ctx context.Context, s S, owner env.Player, turns int, limit int64, deadline time.Time) (v float64, ok bool) {
	h := ab.heuristic
	ab.ctx, ab.deadline, ab.nodes, ab.nextCheck, ab.nodeLimit, ab.heuristic, ab.lineOn = ctx, deadline, 0, 0, limit, nil, false
	defer func() { ab.nodeLimit, ab.heuristic = 0, h }()
	// Null windows: is the value at most −1, is it at least +1?
	if v, err := ab.value(s, owner, turns, -1, -1+provenEps, 0); err == nil && v <= -1 {
		return -1, true
	}
	if v, err := ab.value(s, owner, turns, 1-provenEps, 1, 0); err == nil && v >= 1 {
		return 1, true
	}
	return 0, false
}

// classic tells whether Search is pvs's (with a heuristic), not value's.
func (ab *AlphaBeta[S]) classic() bool { return ab.heuristic != nil && !ab.plain }

// searchRoot runs one iteration to depth turns and returns the best move and its value for
// the root's decider.
func (ab *AlphaBeta[S]) searchRoot(s S, depth int) (env.Action, float64, error) {
	p := s.ToMove()
	sg := sign(p)
	best, bestV := ab.root[0], math.Inf(-1)
	alpha, beta := -1.0, 1.0 // the root decider's view
	ab.clearPV(0)
	classic := ab.classic()
	// value works in player 0's view: the window turns with the sign.
	window := func(alpha, beta float64) (float64, float64) {
		if sg < 0 {
			return -beta, -alpha
		}
		return alpha, beta
	}
	for _, a := range ab.root {
		c := s.Play(a)
		ab.nodes++
		var v float64
		var err error
		switch {
		case !classic:
			lo, hi := window(alpha, beta)
			v, err = ab.value(c, p, depth-1, lo, hi, 1)
		case bestV <= -1: // the first move, or a loss so far
			lo, hi := window(alpha, beta)
			v, err = ab.pvs(c, p, depth-1, lo, hi, 1)
		default:
			// Does the move beat the best so far? Searched again with the full window if so.
			lo, hi := window(alpha, up(alpha))
			if v, err = ab.pvs(c, p, depth-1, lo, hi, 1); err == nil && sg*v > alpha && sg*v < beta {
				lo, hi = window(alpha, beta)
				v, err = ab.pvs(c, p, depth-1, lo, hi, 1)
			}
		}
		if err != nil {
			return 0, 0, err
		}
		v *= sg
		if v > bestV {
			best, bestV = a, v
			ab.pv[0] = append(append(ab.pv[0][:0], a), ab.pv[1]...)
		}
		if v > alpha {
			alpha = v
		}
		if alpha >= beta {
			break
		}
	}
	return best, bestV, nil
}

// clearPV empties the lines of ply and of the ply below it, making room for them, when the
// search keeps lines.
func (ab *AlphaBeta[S]) clearPV(ply int) {
	if !ab.lineOn {
		return
	}
	for len(ab.pv) <= ply+1 {
		ab.pv = append(ab.pv, make([]env.Action, 0, 32))
	}
	ab.pv[ply], ab.pv[ply+1] = ab.pv[ply][:0], ab.pv[ply+1][:0]
}

// value is s's minimax value for player 0, within the window (lo, hi) of player 0's view:
// a value at or below lo, or at or above hi, is a bound only. owner is the player whose turn
// is being played, left the turns still to search after it. ply is s's distance in decisions
// from the search's root: ab.pv[ply] gets the best line from s (empty at the end of the game,
// a chance decision or the horizon).
func (ab *AlphaBeta[S]) value(s S, owner env.Player, left int, lo, hi float64, ply int) (float64, error) {
	ab.clearPV(ply)
	if err := ab.tick(); err != nil {
		return 0, err
	}
	d := s.ToMove()
	switch d {
	case env.Terminal:
		return float64(s.Result().Value(0)), nil
	case env.Chance:
		// The expectation of the outcomes, each searched with the full window.
		start := len(ab.outcomes)
		ab.outcomes = s.Chances(ab.outcomes)
		end := len(ab.outcomes)
		sum := 0.0
		for i := start; i < end; i++ {
			o := ab.outcomes[i]
			ab.nodes++
			v, err := ab.value(s.Play(o.Action), owner, left, -1, 1, ply+1)
			if err != nil {
				ab.outcomes = ab.outcomes[:start]
				return 0, err
			}
			sum += o.Prob * v
		}
		ab.outcomes = ab.outcomes[:start]
		return sum, nil
	}
	if d != owner {
		// A new turn.
		if left == 0 {
			return ab.static(s), nil
		}
		owner, left = d, left-1
	}
	if ab.heuristic == nil && ab.turnsToEnd != nil && ab.turnsToEnd(s) > left {
		// No end within the horizon: every position past it is valued 0, so s is.
		return 0, nil
	}
	sg := sign(d)
	if left == 0 && ab.canWin(s) {
		return sg, nil // the last turn searched: a win within it is all that can change
	}
	start := len(ab.buf)
	ab.buf = s.Legal(ab.buf)
	end := len(ab.buf)
	if !ab.noKillers {
		for len(ab.killer) <= ply {
			ab.killer = append(ab.killer, -1)
		}
		if k := ab.killer[ply]; k >= 0 {
			for i := start; i < end; i++ {
				if ab.buf[i] == k {
					ab.buf[start], ab.buf[i] = ab.buf[i], ab.buf[start]
					break
				}
			}
		}
	}
	best := -sg * math.Inf(1)
	for i := start; i < end; i++ {
		c := s.Play(ab.buf[i])
		ab.nodes++
		var v float64
		if left == 0 && c.ToMove() != d && c.ToMove() != env.Terminal && c.ToMove() != env.Chance {
			v = ab.static(c) // the turn ends and no win was in it: the horizon
			if ab.lineOn {
				ab.pv[ply+1] = ab.pv[ply+1][:0]
			}
		} else {
			var err error
			if v, err = ab.value(c, owner, left, lo, hi, ply+1); err != nil {
				ab.buf = ab.buf[:start]
				return 0, err
			}
		}
		if sg*v > sg*best {
			best = v
			if ab.lineOn {
				ab.pv[ply] = append(append(ab.pv[ply][:0], ab.buf[i]), ab.pv[ply+1]...)
			}
		}
		if sg > 0 {
			lo = max(lo, v)
		} else {
			hi = min(hi, v)
		}
		if lo >= hi {
			if !ab.noKillers {
				ab.killer[ply] = ab.buf[i]
			}
			break
		}
	}
	ab.buf = ab.buf[:start]
	return best, nil
}

// tick tells whether the search must stop: the node limit is looked at on every entry (the
// positions valued at the horizon are counted without one, so a count that steps over a
// multiple of 1024 would miss it); the clock and the context every 1024 positions or so.
func (ab *AlphaBeta[S]) tick() error {
	if ab.nodeLimit > 0 && ab.nodes > ab.nodeLimit {
		return errStopped
	}
	if ab.nodes >= ab.nextCheck {
		ab.nextCheck = ab.nodes + 1024
		if ab.ctx.Err() != nil || !ab.deadline.IsZero() && now().After(ab.deadline) {
			return errStopped
		}
	}
	return nil
}

// up and down are the next values above and below x: (lo, up(lo)) is a null window, which
// only tells whether a value is above lo.
func up(x float64) float64   { return math.Nextafter(x, math.Inf(1)) }
func down(x float64) float64 { return math.Nextafter(x, math.Inf(-1)) }

// pvs is value's search (the same arguments, the same answer) as a classical engine makes it,
// for a search with a heuristic (see AlphaBeta): the decider's win within his turn asked first,
// the transposition table, the table's move, the killer and the history's order, and
// principal-variation search.
func (ab *AlphaBeta[S]) pvs(s S, owner env.Player, left int, lo, hi float64, ply int) (float64, error) {
	ab.clearPV(ply)
	if err := ab.tick(); err != nil {
		return 0, err
	}
	d := s.ToMove()
	switch d {
	case env.Terminal:
		return float64(s.Result().Value(0)), nil
	case env.Chance:
		start := len(ab.outcomes)
		ab.outcomes = s.Chances(ab.outcomes)
		end := len(ab.outcomes)
		sum := 0.0
		for i := start; i < end; i++ {
			o := ab.outcomes[i]
			ab.nodes++
			v, err := ab.pvs(s.Play(o.Action), owner, left, -1, 1, ply+1)
			if err != nil {
				ab.outcomes = ab.outcomes[:start]
				return 0, err
			}
			sum += o.Prob * v
		}
		ab.outcomes = ab.outcomes[:start]
		return sum, nil
	}
	if d != owner {
		if left == 0 {
			return ab.static(s), nil
		}
		owner, left = d, left-1
	}
	sg := sign(d)
	if ab.canWin(s) {
		return sg, nil
	}
	// The table: a position searched as deep answers at once where its value, or its bound,
	// settles the question of a null window (the line of a full window, the principal
	// variation, is searched out so that the search can show it).
	lo0, hi0 := lo, hi
	null := hi <= up(lo)
	var key uint64
	var slot *abEntry
	first := env.Action(-1)
	if ab.tt != nil {
		key = ab.hash(s)
		slot = &ab.tt[key&(abTableSize-1)]
		if slot.key == key && slot.bound != abEmpty {
			first = slot.move
			if int(slot.left) == left && null {
				switch {
				case slot.bound == abExact, slot.bound == abLower && slot.value >= hi, slot.bound == abUpper && slot.value <= lo:
					return slot.value, nil
				}
			}
		}
	}
	start := len(ab.buf)
	ab.buf = s.Legal(ab.buf)
	end := len(ab.buf)
	// The order: the table's move, the killer, the others by their history.
	front := start
	for len(ab.killer) <= ply {
		ab.killer = append(ab.killer, -1)
	}
	for _, m := range [2]env.Action{first, ab.killer[ply]} {
		if m < 0 {
			continue
		}
		for i := front; i < end; i++ {
			if ab.buf[i] == m {
				ab.buf[front], ab.buf[i] = ab.buf[i], ab.buf[front]
				front++
				break
			}
		}
	}
	if h := ab.history; h != nil {
		slices.SortFunc(ab.buf[front:end], func(x, y env.Action) int { return cmp.Compare(h[y], h[x]) })
	}
	best, bestMove := -sg*math.Inf(1), env.Action(-1)
	for i := start; i < end; i++ {
		a := ab.buf[i]
		c := s.Play(a)
		ab.nodes++
		var v float64
		if left == 0 && c.ToMove() != d && c.ToMove() != env.Terminal && c.ToMove() != env.Chance {
			v = ab.static(c) // the turn ends: the horizon
			if ab.lineOn {
				ab.pv[ply+1] = ab.pv[ply+1][:0]
			}
		} else {
			var err error
			switch {
			case sg*best <= -1 || null: // the first move, a loss so far, or a null window already
				v, err = ab.pvs(c, owner, left, lo, hi, ply+1)
			case sg > 0:
				if v, err = ab.pvs(c, owner, left, lo, up(lo), ply+1); err == nil && v > lo && v < hi {
					v, err = ab.pvs(c, owner, left, lo, hi, ply+1)
				}
			default:
				if v, err = ab.pvs(c, owner, left, down(hi), hi, ply+1); err == nil && v < hi && v > lo {
					v, err = ab.pvs(c, owner, left, lo, hi, ply+1)
				}
			}
			if err != nil {
				ab.buf = ab.buf[:start]
				return 0, err
			}
		}
		if sg*v > sg*best {
			best, bestMove = v, a
			if ab.lineOn {
				ab.pv[ply] = append(append(ab.pv[ply][:0], a), ab.pv[ply+1]...)
			}
		}
		if sg > 0 {
			lo = max(lo, v)
		} else {
			hi = min(hi, v)
		}
		if lo >= hi {
			ab.killer[ply] = a
			if ab.history != nil {
				ab.history[a] += int32((left + 1) * (left + 1))
			}
			break
		}
	}
	ab.buf = ab.buf[:start]
	if slot != nil {
		bound := int8(abExact)
		switch {
		case best <= lo0:
			bound = abUpper
		case best >= hi0:
			bound = abLower
		}
		*slot = abEntry{key: key, value: best, move: bestMove, left: int8(left), bound: bound}
	}
	return best, nil
}

// static values a position past the horizon for player 0: the game's heuristic, else 0.
func (ab *AlphaBeta[S]) static(s S) float64 {
	if ab.heuristic == nil || s.ToMove() == env.Terminal {
		if s.ToMove() == env.Terminal {
			return float64(s.Result().Value(0))
		}
		return 0
	}
	h := ab.heuristic(s)
	if s.ToMove() == 1 {
		h = -h
	}
	return max(-0.999, min(0.999, h)) // below a proven result
}
