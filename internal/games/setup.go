package games

import (
	"fmt"

	"github.com/zerogames/zero/env"
)

// FromPosition starts g at a position written in the game's own position notation, for the
// games that have one (env.PositionGame: Gygès). The game's history starts there: Reset and
// Undo go back to it, and Moves lists the moves played from it.
func FromPosition(g Game, text string) (*Position, error) {
	p, ok := g.(interface {
		fromPosition(text string) (*Position, error)
	})
	if !ok {
		return nil, fmt.Errorf("%s: not a registered game", g.Info().Name)
	}
	return p.fromPosition(text)
}

func (e generic[S]) fromPosition(text string) (*Position, error) {
	pg, ok := e.g.(env.PositionGame[S])
	if !ok {
		return nil, fmt.Errorf("%s has no position notation: give the moves from the start instead", e.Info().Name)
	}
	s, err := pg.ParsePosition(text)
	if err != nil {
		return nil, err
	}
	return &Position{impl: &history[S]{g: e.g, states: []S{s}}}, nil
}

// HasPositionNotation tells whether g has a position notation of its own (FromPosition).
func HasPositionNotation(g Game) bool {
	p, ok := g.(interface{ hasPositionNotation() bool })
	return ok && p.hasPositionNotation()
}

func (e generic[S]) hasPositionNotation() bool {
	_, ok := e.g.(env.PositionGame[S])
	return ok
}
