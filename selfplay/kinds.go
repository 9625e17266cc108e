package selfplay

import (
	"strings"

	"github.com/zerogames/zero/env"
)

// A Kind is one kind of player: its name, its spec's forms, how to read a spec of it and what
// it can do. ParseSpec reads a spec by its kind's parser and NewPlayer makes the player by its
// kind's maker (makers); the help texts, the engine and the browser ask the kind what it can
// do instead of naming kinds. Adding a kind is an entry here, its parser, and its maker at the
// same place in makers' list (TestKinds holds the two lists to one length).
type Kind struct {
	// Name is the spec's first field: "uct" in uct:1000.
	Name string
	// Forms are the spec's forms, as help texts list them: "uct:N", "uct:TIME".
	Forms []string
	// Summary says in a few words what the player does, for help texts.
	Summary string
	// Searches tells a tree search: its spec may set threads=K, it keeps its tree from move to
	// move, and its analysis grows while the engine's go infinite streams it.
	Searches bool
	// Simulations tells a budget of N simulations (uct:N); Timed, a time a move (uct:1s, or
	// ab:D:TIME's cap).
	Simulations, Timed bool
	// Depth tells a budget of D turns searched in full (ab:D), whose time grows exponentially
	// with D: a server caps such a player's time.
	Depth bool
	// Network tells a player of a checkpoint's network (mcts:N:CHECKPOINT).
	Network bool
	// Draws tells a player whose moves are draws of a generator (random): an agent draws them
	// and chance's from one generator, as a random game does.
	Draws bool
	// Judges tells a player with an opinion of the positions it plays: its analyses have a
	// value (random's do not).
	Judges bool
	parse  func(sp Spec, rest string) (Spec, error)
}

// kinds are the player kinds, in the order help texts list them.
var kinds = []Kind{
	{Name: "random", Forms: []string{"random"}, Summary: "a legal move drawn uniformly", Draws: true, parse: parseRandom},
	{Name: "uct", Forms: []string{"uct:N", "uct:TIME"}, Summary: "N simulations or TIME a move of tree search with random playouts, PUCT with equal priors",
		Searches: true, Simulations: true, Timed: true, Judges: true, parse: parseRollout},
	{Name: "ucb1", Forms: []string{"ucb1:N", "ucb1:TIME"}, Summary: "the same with classic UCT selection",
		Searches: true, Simulations: true, Timed: true, Judges: true, parse: parseRollout},
	{Name: "ab", Forms: []string{"ab:D", "ab:D:TIME", "ab:D:eval=none"}, Summary: "alpha-beta to D turns, the positions past them valued by the game's heuristic where it has one, capped at TIME a move, or valuing the ends of the game only",
		Depth: true, Timed: true, Judges: true, parse: parseAlphaBeta},
	{Name: "mcts", Forms: []string{"mcts:N:CHECKPOINT", "mcts:TIME:CHECKPOINT", "mcts:N:KEY=VALUE:…:CHECKPOINT"}, Summary: "N simulations or TIME a move of AlphaZero search guided by the checkpoint's network, KEY=VALUE fields changing search parameters, mcts:400:c_puct=1.25:CHECKPOINT",
		Searches: true, Simulations: true, Timed: true, Network: true, Judges: true, parse: parseMCTS},
}

// makers are the kinds' makers for games of state S, at the kinds' places in kinds (Go has no
// generic function values, so the list is made for each S).
func makers[S env.State[S]]() []func(env.Game[S], Spec) (Player[S], error) {
	return []func(env.Game[S], Spec) (Player[S], error){newRandom[S], newRollout[S], newRollout[S], newAlphaBeta[S], newMCTS[S]}
}

// Kinds lists the player kinds.
func Kinds() []Kind { return append([]Kind(nil), kinds...) }

// KindOf is the kind named name.
func KindOf(name string) (Kind, bool) {
	for _, k := range kinds {
		if k.Name == name {
			return k, true
		}
	}
	return Kind{}, false
}

// KindInfo is the spec's kind (a Spec from ParseSpec always has one).
func (sp Spec) KindInfo() Kind {
	k, _ := KindOf(sp.Kind)
	return k
}

// SearchKinds names the kinds that search a tree (Kind.Searches).
func SearchKinds() []string {
	var names []string
	for _, k := range kinds {
		if k.Searches {
			names = append(names, k.Name)
		}
	}
	return names
}

// KindForms lists every kind's forms: "random", "uct:N", …
func KindForms() []string {
	var forms []string
	for _, k := range kinds {
		forms = append(forms, k.Forms...)
	}
	return forms
}

// KindsHelp lists the kinds for a help text: "random (a legal move drawn uniformly); uct:N,
// uct:TIME (…); …".
func KindsHelp() string {
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = strings.Join(k.Forms, ", ") + " (" + k.Summary + ")"
	}
	return strings.Join(parts, "; ")
}
