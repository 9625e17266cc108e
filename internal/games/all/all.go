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
	"github.com/zerogames/zero/mcts"
)

var once sync.Once

// Register adds every game to both registries, in the order help texts show them. Calls after
// the first do nothing.
func Register() {
	once.Do(func() {
		AddPlay[yinsh.State](yinsh.Normal, yinshPlay)
		AddPlay[yinsh.State](yinsh.Blitz, yinshPlay)
		Add[gyges.State](gyges.Basic)
		Add[gyges.State](gyges.Advanced)
		AddPlay[imbriqua.State](imbriqua.Game, games.Play{Search: imbriquaSearch})
	})
}

// Add adds g to the play registry and the training registry: the line Register's list has for
// each game. It is exported for tests that play a game the binary does not ship (cmd/zero's
// TestNewGame adds tic-tac-toe, as docs/NEW_GAME.md does); a name added twice panics.
func Add[S env.State[S]](g env.Game[S]) { AddPlay(g, games.Play{}) }

// AddPlay is Add with what playing the game adds to its rules (games.Play: its search
// settings, its SGF number).
func AddPlay[S env.State[S]](g env.Game[S], play games.Play) {
	games.Register(games.OfPlay[S](g, play))
	gamestrain.Register(gamestrain.Of[S](g))
}

// yinshPlay: YINSH is game 24 of SGF (FF[4]'s GM property), both rules.
var yinshPlay = games.Play{SGF: "24"}

// imbriquaSearch is Imbriqua's mcts:N players' search (selfplay.PlayParams).
func imbriquaSearch(p *mcts.Params) {
	// The shipped model at 400 simulations against uct:10000, the same 40 games
	// (docs/BENCHMARKS.md, "Imbriqua: the exploration constant"): c 2.5, 35%; 1.25
	// (AlphaZero's), 42.5%; 0.6, 57.5%; 0.3, 42.5%.
	p.CPuct = 0.6
	// Root proofs to the end of the game from its 40th turn (5 turns: the one in progress
	// and the 4 after it; Imbriqua always lasts 44) with 30 M positions a move: the shipped
	// model against uct:10000 on the card's 100 games won 84 where it won 82 with the
	// default 4 turns and 2 M (docs/BENCHMARKS.md, "Imbriqua's endgame proved").
	p.RootProof, p.RootProofNodes = 5, 30_000_000
}
