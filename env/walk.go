package env

import "math/rand/v2"

// Perft counts the states reached after exactly depth decisions from s, every decision a ply
// (chance outcomes included, unweighted). A game that ends earlier contributes nothing, as a
// checkmate does in chess perft. Every node is made, the leaves included: Play is called on
// every action of the last ply (PerftBulk counts the last ply's actions without making them).
//
// bufs holds one action buffer per remaining ply, reused across calls; pass nil and Perft
// makes them (see PerftBuffers).
func Perft[S State[S]](s S, depth int, bufs [][]Action) uint64 {
	return perft(s, depth, bufs, false)
}

// PerftBulk is Perft with bulk counting: the last ply's legal actions are counted, not played.
func PerftBulk[S State[S]](s S, depth int, bufs [][]Action) uint64 {
	return perft(s, depth, bufs, true)
}

// LegalCounter is implemented by games that count a state's legal actions faster than Legal
// lists them. CountLegal(s) must equal len(s.Legal(nil)) and allocate nothing (env/envtest
// checks both); PerftCount counts the last ply with it.
type LegalCounter[S any] interface {
	CountLegal(s S) int
}

// PerftCount is PerftBulk with the last ply counted by c.CountLegal instead of listed.
func PerftCount[S State[S]](c LegalCounter[S], s S, depth int, bufs [][]Action) uint64 {
	if depth == 0 {
		return 1
	}
	if depth == 1 {
		return uint64(c.CountLegal(s))
	}
	if len(bufs) < depth {
		bufs = PerftBuffers(depth, 0)
	}
	legal := s.Legal(bufs[0][:0])
	bufs[0] = legal
	var n uint64
	for _, a := range legal {
		n += PerftCount(c, s.Play(a), depth-1, bufs[1:])
	}
	return n
}

func perft[S State[S]](s S, depth int, bufs [][]Action, bulk bool) uint64 {
	if depth == 0 {
		return 1
	}
	if len(bufs) < depth {
		bufs = PerftBuffers(depth, 0)
	}
	legal := s.Legal(bufs[0][:0])
	bufs[0] = legal
	if depth == 1 {
		if bulk {
			return uint64(len(legal))
		}
		// Count what the leaves say, not len(legal), so the compiler cannot drop the Play.
		var n uint64
		for _, a := range legal {
			if s.Play(a).ToMove() != invalidPlayer {
				n++
			}
		}
		return n
	}
	var n uint64
	for _, a := range legal {
		n += perft(s.Play(a), depth-1, bufs[1:], bulk)
	}
	return n
}

// invalidPlayer is no state's ToMove: comparing with it keeps a leaf's Play alive.
const invalidPlayer Player = -128

// PerftBuffers makes the buffers Perft needs for depth plies, each with room for capacity
// actions (it grows them when needed, so 0 works too).
func PerftBuffers(depth, capacity int) [][]Action {
	bufs := make([][]Action, depth)
	for i := range bufs {
		bufs[i] = make([]Action, 0, capacity)
	}
	return bufs
}

// SampleOutcome picks an outcome by its probability, with u uniform in [0, 1).
func SampleOutcome(outcomes []Outcome, u float64) Action {
	for _, o := range outcomes {
		if u < o.Prob {
			return o.Action
		}
		u -= o.Prob
	}
	return outcomes[len(outcomes)-1].Action
}

// RandomPicker is implemented by games that draw a random legal action faster than Legal lists
// them all (random playouts need one action a decision, not the list). RandomLegal(s, rng) must
// be s.Legal(nil)[rng.IntN(n)], n the number of legal actions, drawing from rng exactly that
// once, so a game's random games are the same with it or without; s is a player's decision
// (neither terminal nor chance). It must not allocate. env/envtest checks all of that.
type RandomPicker[S any] interface {
	RandomLegal(s S, rng *rand.Rand) Action
}

// Walker plays random games without allocating once warm: uniform among legal actions at a
// player's decision, by probability at a chance node.
type Walker[S State[S]] struct {
	Rng      *rand.Rand
	actions  []Action
	outcomes []Outcome
	picker   RandomPicker[S] // the game's, when it has one (NewGameWalker)
}

// NewWalker returns a Walker drawing from rng, with buffers for numActions actions. It lists
// the legal actions at each decision; NewGameWalker uses the game's RandomPicker if it has one.
func NewWalker[S State[S]](rng *rand.Rand, numActions int) *Walker[S] {
	return &Walker[S]{Rng: rng, actions: make([]Action, 0, numActions), outcomes: make([]Outcome, 0, numActions)}
}

// NewGameWalker returns a Walker of g's states drawing from rng, which draws a player's action
// through g's RandomPicker when g is one (the same games, faster) and from Legal's list if not.
func NewGameWalker[S State[S]](g Game[S], rng *rand.Rand) *Walker[S] {
	w := NewWalker[S](rng, g.Info().NumActions)
	w.picker, _ = g.(RandomPicker[S])
	return w
}

// Step returns a random legal action of s, which must not be terminal.
func (w *Walker[S]) Step(s S) Action {
	if s.ToMove() == Chance {
		w.outcomes = s.Chances(w.outcomes[:0])
		return SampleOutcome(w.outcomes, w.Rng.Float64())
	}
	if w.picker != nil {
		return w.picker.RandomLegal(s, w.Rng)
	}
	w.actions = s.Legal(w.actions[:0])
	return w.actions[w.Rng.IntN(len(w.actions))]
}

// Playout plays s to the end and returns the final state and the number of decisions made.
func (w *Walker[S]) Playout(s S) (S, int) {
	n := 0
	for s.ToMove() != Terminal {
		s = s.Play(w.Step(s))
		n++
	}
	return s, n
}
