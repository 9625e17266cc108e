// Package yinsh implements YINSH, normal and blitz, exactly as docs/rules/yinsh.md gives
// it, behind the env contract.
//
// # Board and notation
//
// The 85 points are named by a column a–k and a row number (column a has rows 2–5, b 1–7, c 1–8,
// d 1–9, e 1–10, f 2–10, g 2–11, h 3–11, i 4–11, j 5–11, k 7–10). Lines run along a column
// (0,1), along a row (1,0) and along the diagonal (1,1). Actions print and parse as
//
//	place f6     put a ring on f6 (the opening: 5 rings each, white first)
//	move f6-f9   put a marker in the ring on f6 and move the ring to f9
//	row c4-c8    remove the 5 markers from c4 to c8, the lower end first (a<…<k, then row)
//	ring e5      remove one's own ring on e5 after a row
//	pass         only when no ring of the mover can move
//
// A position is the list of actions from the empty board (env.Replay).
//
// # Rulings (the ▶ of the spec), each tested in rules_test.go
//
// Row order. After a move the mover resolves his own rows first, one at a time: a row decision
// (row …), then a ring decision (ring …), again while any row of his colour remains. Reaching
// the winning number of removed rings (3, or 1 in blitz) wins at once, even if the move also
// made rows for the opponent. Then the opponent resolves his rows the same way, before his
// move; reaching the winning count wins. A row is removed even when it is the only choice: it
// is still an explicit decision. A line of 6 or more markers offers each 5 contiguous of them;
// of two intersecting rows, removing one breaks the other, which is then no longer offered.
//
// Markers run out. The game ends when the player to move must take a marker and the pool is
// empty. The pool is looked at only then: the rows made by the move that took the 51st marker
// are resolved first, both players' in the order above (reaching the winning count still wins);
// if their markers went back to the pool, the game goes on. The end comes before a pass: a
// player with an empty pool and no ring able to move does not pass, the game ends. The player
// who removed more rings wins; equal is a draw.
//
// No legal ring move. A player with rings none of which can move plays pass (no marker used).
// If both players pass in succession the game ends and is scored as when the markers run out.
//
// Illegal moves. A placement must be on an empty point, a move must start from one of the
// mover's rings and follow the movement rule; anything else is refused by env.Apply with an
// error saying why (State.Explain), never applied.
//
// # Encoding
//
// Points are indexed 0..84 column by column (a2, a3, a4, a5, b1, …, k10); the bitboards hold
// them in two 64-bit words, the even columns in one and the odd columns in the other (board.go).
// The action space (NumActions = 5016) is laid out in state.go; the observation is 14 planes
// over the 11×11 grid indexed [column][row] (game.go), from the view of the player to decide. The 12 symmetries of the hexagon about f6 map points,
// directions and so actions (MapAction).
//
// # Evaluation
//
// Game implements env.Heuristic (heuristic.go), the static evaluation the ab:D players use
// past their depth: the rings removed and the rows waiting to be, the markers, and the lines of
// 4 and 3 markers, weighed per variant by arenas of ab:2.
//
// # Move generation
//
// The two words hold 11 bits a column. Along a column a step is a shift by 1
// within a word; along a row or a diagonal a step goes to the other word, and
// two steps are a shift by 11 or 13 within the word. So rows of five are found
// with three shift-ands per direction on single words, and no shift crosses the
// words (tables map points to cells and back). For each ring of the player to
// move, the three lines through it are read out of the bitboards into 11-bit
// integers (a mask and a multiply gather each word's evenly spaced bits), and
// each ray is a shift and two trailing-zero counts: the slides up to the first
// ring or marker and the jump over the markers after it, with no branch on the
// board. Play decodes a move from a table (start, end, direction), flips the
// markers between with two ray masks, and looks for rows of the mover on the
// whole board, and of the opponent only if some marker turned to his colour.
// The State is 80 bytes.
//
// The user interfaces read a state through view.go (At, Phase, Mover,
// PointCoords, NumPoints, beside RingsRemoved, Pool and Blitz), off the hot path.
//
// Tests: the envtest suite; a ruling table over hand-made positions; illegal
// moves with their messages; a differential test against a naive implementation
// written from the spec (maps and coordinates) on hundreds of random games; a
// parser fuzz test; the observation and the policy cells moved under every
// symmetry (symmetry_obs_test.go).
package yinsh
