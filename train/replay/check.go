package replay

import (
	"fmt"
	"math"
	"slices"

	"github.com/zerogames/zero/env"
)

// Check replays a game through the rules of g and says what is wrong with it, if anything: an
// action that is not legal where it was played (chance's included), a game that goes on after
// its end or a result other than the one the moves give (a game that stops early must be a
// resignation: won by the opponent of the player to decide), a target at no player's decision,
// out of order, with a value off [-1, 1], or with a policy over illegal actions or not summing
// to 1 (to its recorded precision). A game that passes is one training can use: every sample
// materializes. It is the trainer's guard against a buggy or hostile worker; it allocates a
// buffer of legal actions per call.
func Check[S env.State[S]](g env.Game[S], gm *Game) error {
	info := g.Info()
	switch {
	case len(gm.Actions) > info.MaxLength:
		return fmt.Errorf("%d decisions, more than a game of %s has (%d)", len(gm.Actions), info.Name, info.MaxLength)
	case gm.Result != env.Win0 && gm.Result != env.Win1 && gm.Result != env.Draw:
		return fmt.Errorf("result %d is no game's end", gm.Result)
	case gm.Step < 0:
		return fmt.Errorf("network step %d", gm.Step)
	}
	legal := make([]env.Action, 0, info.NumActions)
	state := g.New()
	next := 0 // the next target to check
	for ply, a := range gm.Actions {
		decider := state.ToMove()
		if decider == env.Terminal {
			return fmt.Errorf("decision %d: the game ended at decision %d", ply+1, ply)
		}
		legal = state.Legal(legal[:0])
		if _, ok := slices.BinarySearch(legal, a); !ok {
			return fmt.Errorf("decision %d: action %d is not legal", ply+1, a)
		}
		if next < len(gm.Targets) && gm.Targets[next].Ply == ply {
			t := &gm.Targets[next]
			if decider != 0 && decider != 1 {
				return fmt.Errorf("target %d: decision %d is chance's, not a player's", next, ply+1)
			}
			if err := checkTarget(t, legal); err != nil {
				return fmt.Errorf("target %d (decision %d): %w", next, ply+1, err)
			}
			next++
		}
		state = state.Play(a)
	}
	if next < len(gm.Targets) {
		t := gm.Targets[next]
		if next > 0 && t.Ply <= gm.Targets[next-1].Ply {
			return fmt.Errorf("target %d: decision %d after decision %d", next, t.Ply+1, gm.Targets[next-1].Ply+1)
		}
		return fmt.Errorf("target %d: decision %d of a %d-decision game", next, t.Ply+1, len(gm.Actions))
	}
	switch who := state.ToMove(); {
	case who == env.Terminal:
		if r := state.Result(); r != gm.Result {
			return fmt.Errorf("result %v, the moves give %v", gm.Result, r)
		}
	case who == 0 || who == 1:
		if gm.Result != env.WinFor(who.Other()) {
			return fmt.Errorf("the game stops before its end, %v, which is no resignation of the player to decide", gm.Result)
		}
	default:
		return fmt.Errorf("the game stops before its end, at a chance decision")
	}
	return nil
}

// checkTarget checks a target at a decision whose legal actions are legal (ascending).
func checkTarget(t *Target, legal []env.Action) error {
	if !(t.Value >= -1 && t.Value <= 1) {
		return fmt.Errorf("value %v", t.Value)
	}
	sum := 0.0
	for i, e := range t.Policy {
		if _, ok := slices.BinarySearch(legal, e.Action); !ok {
			return fmt.Errorf("policy: action %d is not legal", e.Action)
		}
		if i > 0 && e.Action <= t.Policy[i-1].Action {
			return fmt.Errorf("policy: action %d after %d (want ascending, once each)", e.Action, t.Policy[i-1].Action)
		}
		if !(e.Prob >= 0 && e.Prob <= 1) {
			return fmt.Errorf("policy: action %d has probability %v", e.Action, e.Prob)
		}
		sum += float64(e.Prob)
	}
	// Each share is rounded to 1/65535 and those below it are dropped.
	if slack := float64(len(legal)+len(t.Policy)) / 65535; math.Abs(sum-1) > 1e-3+slack {
		return fmt.Errorf("policy: the probabilities sum to %v", sum)
	}
	return nil
}
