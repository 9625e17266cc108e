// Package gyges implements Gygès, with the basic rule and the advanced rule (replacements),
// exactly as ../shared/rules/gyges.md gives it, behind the env contract.
//
// # Board and notation
//
// Squares are a1..f6: columns a–f, rows 1–6. South (player 0) sits at row 1 and aims at the
// north goal beyond row 6; North (player 1) sits at row 6 and aims at the south goal. Actions
// print and parse as
//
//	3@c1       put a piece of size 3 on c1 (the set-up: on one's own start row)
//	b1-d4      move the piece on b1 so that its move ends on d4
//	b1-goal    move the piece on b1 into the opponent's goal, which wins
//	b1-d4*e2   (advanced rule) the move ends on the piece on d4, which it replaces; that piece
//	           is dropped on e2
//
// A move is identified by its outcome: all the ways (bounces included) to the same end square
// (and drop square) are one action. [State.Path] prints one of them for people, each movement
// as its first and last square, bounces marked '^': "b1-b3^b3-d4", "c2-c5^c5-goal".
//
// A position ([env.PositionGame]) is six rows from row 1 to row 6 joined by '/', each six sizes
// 0–3 from column a to f, a space and the player to move: "321123/000000/000000/000000/000000/321123 s".
// With all 12 pieces it is a position of the movement. With fewer it is a position of the
// set-up: every piece on its placer's start row, at most 2 of each size per player, the player
// to move the next to place (south when both placed as many, north when south placed one
// more). The notation records neither the moves made toward the cap (a parsed position starts
// at 0) nor a result: the position of a finished game is its last board, not meant to be
// parsed back.
//
// # Rulings (the ▶ of the spec, and where it is silent), each tested in rules_test.go
//
// Set-up. South places first; then they alternate, one piece at a time, each on an empty square
// of his own start row, 2 triples, 2 doubles and 2 singles each. South also moves first.
//
// Which piece. The mover must move a piece from his nearest occupied row. If no piece there has
// a legal move ("blocked": no legal move at all; with the advanced rule a replacement counts),
// he moves one from the next occupied row, and so on.
//
// Connections. Within one whole move, bounces included, no connection between two adjacent
// squares is used twice, in either direction. The vacated start square is empty during the
// move and may be passed through. A square may be passed again in a later movement of the same
// move, and a piece may be bounced on again, through other connections. (A second bounce on a
// piece can never reach anything the first could not: it starts the same number of steps from
// the same square with fewer connections left. The generator therefore does not follow it;
// the reference implementation in the tests does, and they agree.)
//
// A move must change the board. It may not end on its start square; with the advanced rule a
// replacement may not put a piece of the same size back on the vacated start square.
//
// Goal. The opponent's goal is entered from any square of the far row (row 6 for South, row 1
// for North), only as the last step of a movement — the first movement or a bounce — and a
// piece never passes through it. A piece never enters the goal on its own side. Entering the
// goal wins at once.
//
// No legal move: the game is a draw. With the game's 12 pieces this seems never to happen (a
// hill-climbing search over 8 million positions, TestNoMoveSearch, always found at least 5
// pieces that could move), so the test shows it on made-up material.
//
// The move cap. A game is drawn when the number of moves made (both players' together,
// placements not counted) reaches the cap of its Config (DefaultMoveCap, 200, unless set). A
// win made by the last move stands. The cap is part of the game: Info.MaxLength is 12 + cap.
//
// Advanced rule. A movement that ends on a piece may, instead of bouncing, replace it — also at
// the end of a series of bounces. The moving piece stays there and the displaced piece is put
// on an empty square no further toward the opponent than his nearest occupied row (that row is
// allowed), judged with the moving piece landed and the displaced piece lifted. The vacated
// start square may be the drop square (for a piece of another size).
//
// Illegal actions are refused by [env.Apply] with an error saying why ([State.Explain]).
//
// # Encoding: the mover's frame
//
// The state keeps the board in the frame of the player to move: South's frame is the board as
// written, North's the board turned by 180° (his start row first, his left on the left). The
// action space and the observation are in that frame, so the network always sees the game from
// the side of the player to move and its policy need not learn a colour-dependent remapping;
// notation converts between the frame and the squares of the board. Frame square sq = row·6 +
// col (row 0 the mover's start row); turning the board over is reversing 36 bits.
//
// Actions (NumActionsBasic = 1350, NumActionsAdvanced = 48006; the basic space is a prefix of
// the advanced one):
//
//	   0 ..    17  place   (size-1)·6 + col               col of the mover's start row
//	  18 ..  1349  move    18 + start·37 + end             end 36 is the goal
//	1350 .. 48005  replace 1350 + start·1296 + end·36 + drop
//
// Legal lists them in ascending order by construction. The game is an [env.SpatialPolicy]: one
// plane per size to place (at the square), one per end of a move and, with the advanced rule,
// one per (end, drop) of a replacement, all read at the start square. The observation is 21
// planes of 6×6 in the frame (see the plane constants in game.go): the pieces, rows and counts
// of encoding 1's 13, then what each player's pieces that may move reach (encoding 2, the
// heuristic's reach). A network of encoding 1 reads the first 13 (Game.EncodingPlanes). The one symmetry besides the
// identity is the left–right mirror, which is a mirror in either frame.
//
// # Move generation
//
// For each square and size a table lists every movement: the squares it passes (which must be
// empty), its end, and the connections it uses, the step into the goal included. A piece's
// move is a search over these movements and the bounces after them, with the connections used
// so far in a 64-bit mask (there are 60). Outcomes are collected as masks of end and landing
// squares, so two ways to the same outcome give one action. See docs/BENCHMARKS.md for speed.
//
// A bounce dominated by an earlier arrival on the same piece with fewer
// connections used is not followed, since it can reach nothing new; the bounces
// one movement finds are all recorded before any is followed (a stack of pending
// bounces), so that siblings cut each other's searches. Each piece's result is
// two masks, the squares its moves end on and the pieces it lands on: Legal lists
// them, Game.CountLegal counts them (a replacement count is a popcount of the drop
// squares per piece landed on). A bitboard test decides almost always that the
// next player has a move, so Play rarely searches for the no-move draw. The State
// is 24 bytes: two bit planes of piece sizes, the moves made, the cap, the player
// to move, the result and the rule; pieces belong to nobody, and during the set-up
// every piece stands on its placer's start row, so nothing else is needed.
//
// Tests: the envtest suite (both rules, and a short cap); the rulings table, each
// position played in both frames, checked against the reference and, where it
// names a misreading, shown to change under it; a differential test against a
// naive implementation (a per-step search with maps, the board as written) on
// hundreds of random games; perft counts; fuzz tests of the action and position
// parsers; the observation and the policy cells mirrored (symmetry_obs_test.go).
package gyges
