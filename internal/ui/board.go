package ui

import (
	"github.com/zerogames/zero/env/gyges"
	"github.com/zerogames/zero/env/imbriqua"
	"github.com/zerogames/zero/env/yinsh"
	"github.com/zerogames/zero/internal/games"
)

// Board draws one game's positions for people.
type Board interface {
	// Text draws pos for a terminal: the board with its coordinates, every piece told apart
	// without colour, and what the next decision is.
	Text(pos *games.Position) string
	// View is pos's structure for the browser's drawing: a value that marshals to JSON, with
	// a "kind" field naming the drawing the page uses.
	View(pos *games.Position) any
	// Group sorts pos's legal moves into groups for listing (YINSH by ring, Gygès by the piece
	// that moves, Imbriqua by kind and pawn).
	Group(pos *games.Position) []MoveGroup
}

// Coords is a Board that also draws its positions with each empty point named, where the
// edges' coordinates are not enough to read a point at a glance (YINSH's slanting lines); the
// square boards name their rows and columns at the edges and need none.
type Coords interface {
	TextCoords(pos *games.Position) string
}

// MoveGroup is a group of legal moves as listed to a person: Label introduces the moves, each
// written as Items shows it (the full moves are Label's verb and point joined to an item, as
// Board.Group documents for its game).
type MoveGroup struct {
	Label string   `json:"label"`
	Items []string `json:"items"`
}

// BoardFor is the board that draws game, chosen by the type of its positions' state, so that
// every variant of a game (YINSH blitz, Gygès' advanced rule) has its game's drawing and no
// game is named here; a game without a drawing of its own (or unknown) gets plainBoard.
func BoardFor(game string) Board {
	g, err := games.Lookup(game)
	if err != nil {
		return plainBoard{}
	}
	switch g.NewPosition().State().(type) {
	case yinsh.State:
		return yinshBoard{}
	case gyges.State:
		return gygesBoard{}
	case imbriqua.State:
		return imbriquaBoard{}
	}
	return plainBoard{}
}

// plainBoard draws any game from its own text drawing and lists its moves unsorted into
// groups: enough to play a game before it has a drawing of its own.
type plainBoard struct{}

func (plainBoard) Text(pos *games.Position) string { return pos.Show() }

func (plainBoard) View(pos *games.Position) any {
	return struct {
		Kind string `json:"kind"`
		Text string `json:"text"`
	}{"text", pos.Show()}
}

func (plainBoard) Group(pos *games.Position) []MoveGroup {
	return []MoveGroup{{Label: "moves", Items: pos.Legal()}}
}
