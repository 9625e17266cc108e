package testgames

import "github.com/zerogames/zero/env"

// Expectimax is the exact value of s for player 0 under perfect play: +1 a win, -1 a loss,
// the probability-weighted mean at chance nodes. It walks the whole tree below s, so it is
// for tiny games only.
func Expectimax[S env.State[S]](s S) float64 {
	switch p := s.ToMove(); p {
	case env.Terminal:
		return float64(s.Result().Value(0))
	case env.Chance:
		v := 0.0
		for _, o := range s.Chances(nil) {
			v += o.Prob * Expectimax(s.Play(o.Action))
		}
		return v
	default:
		best := -2.0
		for _, a := range s.Legal(nil) {
			v := Expectimax(s.Play(a))
			if p == 1 {
				v = -v
			}
			best = max(best, v)
		}
		if p == 1 {
			return -best
		}
		return best
	}
}

// Optimal lists the actions of s that keep its Expectimax value for the player to decide.
func Optimal[S env.State[S]](s S) []env.Action {
	want := Expectimax(s)
	var out []env.Action
	for _, a := range s.Legal(nil) {
		if v := Expectimax(s.Play(a)); v > want-1e-9 && v < want+1e-9 {
			out = append(out, a)
		}
	}
	return out
}
