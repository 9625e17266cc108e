package env

// PositionGame is implemented by games that have their own notation for a whole position (a
// board and who is to move), beside the move list from the start that every game accepts.
// Tools (the engine's `position` command, perft) set a game up from such a text with
// ParsePosition, and print a state back with its PositionState.Position method.
//
// What a position's text covers is the game's to document (Gygès, for one, records neither the
// moves made toward the move cap nor a finished game's result). The invariant the two methods
// keep: for every state s the game reaches that is not finished,
// ParsePosition(s.Position()) succeeds, and prints back to the same text.
type PositionGame[S any] interface {
	// ParsePosition reads a position in the game's notation. Bad input gets an error naming
	// the problem (the row, the square, the count that is wrong).
	ParsePosition(text string) (S, error)
}

// PositionState is implemented by the states of a PositionGame.
type PositionState interface {
	// Position is the state in the game's position notation.
	Position() string
}
