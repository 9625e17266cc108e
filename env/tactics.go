package env

// WinFinder is implemented by games that can tell whether the player to decide can win at
// once faster than by playing each legal action (Gygès: can a piece reach the goal now). The
// search's solver asks it at every leaf; CanWin is the fallback that plays every action.
type WinFinder[S State[S]] interface {
	// CanWin tells whether some legal action of s, a decision of player 0 or 1, ends the game
	// at once with that player's win. It allocates nothing.
	CanWin(s S) bool
}

// CanWin tells whether some legal action of s ends the game at once with a win for the player
// to decide, by playing each; buf is scratch for the legal actions (returned, perhaps grown).
// It is false at chance and terminal states.
func CanWin[S State[S]](s S, buf []Action) (bool, []Action) {
	p := s.ToMove()
	if p != 0 && p != 1 {
		return false, buf
	}
	win := WinFor(p)
	buf = s.Legal(buf[:0])
	for _, a := range buf {
		if s.Play(a).Result() == win {
			return true, buf
		}
	}
	return false, buf
}

// WinChecker returns a function telling whether the player to decide at a state of g can win
// at once: g's WinFinder where it has one, else CanWin with a buffer of its own. The function
// serves one goroutine at a time and allocates nothing once its buffer has grown.
func WinChecker[S State[S]](g Game[S]) func(S) bool {
	if f, ok := g.(WinFinder[S]); ok {
		return f.CanWin
	}
	buf := make([]Action, 0, g.Info().NumActions)
	return func(s S) bool {
		var ok bool
		ok, buf = CanWin(s, buf)
		return ok
	}
}
