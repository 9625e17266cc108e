package env

// Scorer is implemented by states of games scored by counting, so that tools can show the
// running score. For Imbriqua it is the framed squares of each player (player 0, player 1) on
// the board as it stands: what decides the game at its end.
type Scorer interface {
	Score() [2]int
}
