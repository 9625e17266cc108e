package env

import "slices"

// WinFinder is implemented by games that can tell whether the player to decide can win within
// his own decisions faster than by playing them out (Gygès: can a piece reach the goal now).
// The search's solver asks it at every leaf; CanWin is the fallback that plays them out.
type WinFinder[S State[S]] interface {
	// CanWin tells what env.CanWin tells, with buf as scratch as env.CanWin takes it (it
	// returns buf, perhaps grown); it allocates nothing once buf has grown.
	CanWin(s S, buf []Action) (bool, []Action)
}

// CanWin tells whether the player to decide at s (0 or 1) can win within the decisions he
// makes from s on, before the opponent or chance decides: the rest of his turn, which is one
// decision in most games and several in some (YINSH's move, row and ring). It plays every
// such line; buf is scratch for the legal actions (returned, perhaps grown). It is false at
// chance and terminal states.
func CanWin[S State[S]](s S, buf []Action) (bool, []Action) {
	p := s.ToMove()
	if p != 0 && p != 1 {
		return false, buf
	}
	return canWin(s, p, buf[:0], nil)
}

// WinLine appends to line the decisions by which the player to decide at s wins within his own
// decisions, the line CanWin finds (buf is scratch as CanWin takes it), and tells whether there
// is one; if not, line comes back unchanged. It is CanWin's walk, which records the winning
// path only once found, so CanWin pays nothing for it.
func WinLine[S State[S]](s S, buf, line []Action) (bool, []Action, []Action) {
	p := s.ToMove()
	if p != 0 && p != 1 {
		return false, line, buf
	}
	start := len(line)
	ok, buf := canWin(s, p, buf[:0], &line)
	slices.Reverse(line[start:]) // recorded from the win back up to s
	return ok, line, buf
}

// canWin walks p's decisions from s, the legal actions of each level appended to buf after
// those of the levels above. If path is not nil, a win appends its decisions to it, the last
// first.
func canWin[S State[S]](s S, p Player, buf []Action, path *[]Action) (bool, []Action) {
	start := len(buf)
	buf = s.Legal(buf)
	end := len(buf)
	win := WinFor(p)
	for i := start; i < end; i++ {
		c := s.Play(buf[i])
		switch c.ToMove() {
		case Terminal:
			if c.Result() == win {
				if path != nil {
					*path = append(*path, buf[i])
				}
				return true, buf[:start]
			}
		case p:
			var ok bool
			if ok, buf = canWin(c, p, buf[:end], path); ok {
				if path != nil {
					*path = append(*path, buf[i])
				}
				return true, buf[:start]
			}
		}
	}
	return false, buf[:start]
}

// WinChecker returns a function telling what CanWin tells for states of g: g's WinFinder
// where it has one, else CanWin with a buffer of its own. The function serves one goroutine
// at a time and allocates nothing once its buffer has grown.
func WinChecker[S State[S]](g Game[S]) func(S) bool {
	check := CanWin[S]
	if f, ok := g.(WinFinder[S]); ok {
		check = f.CanWin
	}
	buf := make([]Action, 0, 2*g.Info().NumActions)
	return func(s S) bool {
		var ok bool
		ok, buf = check(s, buf)
		return ok
	}
}

// Heuristic is implemented by games that offer a static evaluation of positions, which the
// baseline alpha-beta players (ab:D) use past their depth instead of 0 (every game here). The search
// calls it at every position past its depth: it should cost about as little as listing the
// legal moves.
type Heuristic[S State[S]] interface {
	// Heuristic estimates the result of s, a decision of player 0 or 1, for that player: a
	// number in (-1, 1), above 0 when he stands better.
	Heuristic(s S) float64
}

// Hasher is implemented by games whose states have a 64-bit key, by which the alpha-beta
// players (ab:D with a Heuristic) keep a transposition table.
type Hasher[S State[S]] interface {
	// Hash is s's key: equal states hash alike; states that differ in anything that changes
	// their value or their moves (the board, the player to decide, a count of moves toward a
	// draw by a cap) differ but with a chance of about 2⁻⁶⁴. The table uses what it stored at
	// s only for a search of as many turns from s, so a key that counts the moves made keeps
	// apart a position and its repetition further down a search.
	Hash(s S) uint64
}

// EndBound is implemented by games that can tell how soon a game can end at the earliest, so
// that the alpha-beta searches (ab:D, the solver's root proofs) skip what cannot reach an end
// within their horizon: Imbriqua, which always lasts 44 turns. Past a search's horizon a game
// without a Heuristic is valued 0, so a subtree that cannot reach an end within it is worth 0
// exactly, and searching it changes nothing.
type EndBound[S State[S]] interface {
	// TurnsToEnd is a lower bound on the changes of decider, from one player to the other
	// (chance's decisions do not count), between s, a decision of player 0 or 1, and any end of
	// the game: 0 where the game may end within the decisions its decider makes from s.
	TurnsToEnd(s S) int
}
