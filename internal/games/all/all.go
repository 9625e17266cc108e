// Package all is the list of the games this binary ships, and the one place that names them:
// Register adds each game to the play registry (package games: the engine protocol, zero play,
// zero serve, zero arena) and to the training registry (package gamestrain: zero train, zero
// bench selfplay), with its state type known to both. Adding a game is its package under env/
// and one line here, an Add call (docs/NEW_GAME.md walks through it).
//
// The list cannot live in package games: the training registry needs each game's state type
// where the game is named, and package games must not import training (it would link gorgonia
// into everything that only plays). Only the binary, and tests that need the registries
// filled, import this package.
package all

import (
	"sync"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/gyges"
	"github.com/zerogames/zero/env/imbriqua"
	"github.com/zerogames/zero/env/yinsh"
	"github.com/zerogames/zero/internal/games"
	"github.com/zerogames/zero/internal/games/gamestrain"
)

var once sync.Once

// Register adds every game to both registries, in the order help texts show them. Calls after
// the first do nothing.
func Register() {
	once.Do(func() {
		Add[yinsh.State](yinsh.Normal)
		Add[yinsh.State](yinsh.Blitz)
		Add[gyges.State](gyges.Basic)
		Add[gyges.State](gyges.Advanced)
		Add[imbriqua.State](imbriqua.Game)
	})
}

// Add adds g to the play registry and the training registry: the line Register's list has for
// each game. It is exported for tests that play a game the binary does not ship (cmd/zero's
// TestNewGame adds tic-tac-toe, as docs/NEW_GAME.md does); a name added twice panics.
func Add[S env.State[S]](g env.Game[S]) {
	games.Register(games.Of[S](g))
	gamestrain.Register(gamestrain.Of[S](g))
}
