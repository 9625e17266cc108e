// Package testgames holds tiny games behind the env contract, for testing what plays games
// (search, matches) without the cost or the opacity of a real game:
//
//   - TicTacToe: noughts and crosses, with the 8 symmetries of the square. Small enough to be
//     solved exactly (Expectimax), so a search's choices can be checked against perfect play.
//     It is also the worked example of docs/NEW_GAME.md, complete down to its spatial policy
//     and its preset (configs/tictactoe.yaml); cmd/zero's TestNewGame registers it as that
//     page says and trains it and plays it through zero's commands.
//   - Gamble: a game of four decisions at most, with chance nodes, a player who decides twice
//     in a row, and an opponent who decides in the middle of a turn. Its values are worked out
//     by hand in its documentation, so a search's backup of chance and non-alternating
//     deciders can be checked exactly.
//
// Both pass the env conformance suite (env/envtest). They are not for users: they live in
// internal so that only this module's tests use them.
package testgames
