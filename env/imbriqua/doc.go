// Package imbriqua implements Imbriqua exactly as ../shared/rules/imbriqua.md gives it (the
// French rulebook rendered in English, with rulings), behind the env contract. No other
// implementation exists: this one is the reference, checked against a naive one written
// separately from the spec (reference_test.go).
//
// # The game
//
// Light (player 0) and dark (player 1) place 4 pawns each, alternately, light first, anywhere on
// the 8×8 board. Then come 44 turns, light's first: the mover places a pawn (off the 28 edge
// squares while an inner square is empty), turns over the next card and must apply it; if he
// cannot, the opponent removes one of his pawns. After the 44th turn the empty squares framed by
// each player (his pawns on both sides along a row, column or diagonal; once per line) are
// counted: more wins, then more pawns on the board, else a draw.
//
// # Notation
//
// Squares are a1…h8 (file a–h from light's left, rank 1 on light's side). Decisions print and
// parse exactly as the spec writes them:
//
//	c3          a placement: the opening's, a turn's, or one of card 11's two
//	card 7      chance: the card turned over (only the first 10 draws; cards 1-10)
//	c3-c5       cards 1-4: the pawn on c3 moves to c5
//	c3xc5       cards 5-10: one capture jump from c3 landing on c5, taking the pawns between
//	stop        end a chain of jumps while a further jump exists
//	remove d4   the penalty: the opponent takes the mover's pawn on d4
//
// A position is the list of decisions from the empty board (env.Replay). The notation does not
// depend on the position, and what parses prints back exactly.
//
// # The deck
//
// The first pile is the 10 shuffled cards then card 11 (place 2 pawns) at the bottom; each later
// pile is the previous discard pile turned over, so piles alternate the first pile's order and
// its reverse: with c1…c10 the first pile's draws, the 44 turns play
//
//	c1 … c10 11 | 11 c10 … c1 | c1 … c10 11 | 11 c10 … c1
//
// Each card is played 4 times, alternately by light and dark: counting turns and draws from 0,
// the k-th card drawn at turns k, 21-k, 22+k and 43-k, card 11 at turns 10, 11, 32 and 33. Only the first 10 draws are unknown:
// they are chance decisions (env.Chance), each card not drawn yet equally likely; every later
// card follows and is not a decision. The state holds the drawn order (10 small integers) and
// the set of unknown cards.
//
// # Rulings (the ▶ of the spec), each tested in rules_test.go
//
//   - Light is always player 0 and begins both the opening and the turns.
//   - A turn's placement comes before its card is turned over. If no square is empty at all,
//     the placement is skipped and the card turned over at once.
//   - The penalty is a decision of the opponent (remove …), in the middle of the mover's turn;
//     it may take any of the mover's pawns, the one placed this turn included. A mover without
//     pawns loses nothing and the turn ends.
//   - The first pile's 10 draws are chance decisions; the 10th has one outcome of probability 1
//     and is still a decision. Draws 11-44 are not decisions.
//   - Green cards (1-6) may use any of the mover's pawns, red ones (7-10) only the pawn placed
//     this turn. A card is impossible, and the penalty applies, when no pawn its colour allows
//     can perform it; card 11 is impossible when fewer than two squares are empty.
//   - A chain (cards 5-8) keeps the card's kind (orthogonal or diagonal) and may change or
//     reverse direction; it may cross and land on squares emptied earlier in the turn. It ends
//     when the mover plays stop, which is legal only while a further jump exists, or by itself
//     when none exists. Double captures (9, 10) never chain.
//   - A long capture (7, 8) may start next to the captured pawn and land right behind it.
//   - A decision with a single option is still a decision: a forced placement, jump or removal.
//     There is no pass.
//   - A square may count for both players (framed by one along a line, by the other along
//     another). Equal framed squares and equal pawns are a draw.
//   - Legal decisions listed as text are sorted byte-wise (card 1, card 10, card 2, …); Legal
//     itself gives ascending action indices, as the env contract wants.
//
// # Where the spec is silent (choices, each tested)
//
//   - Card 11's two placements are two decisions in either order; both orders reach the same
//     state (no record of which pawn came first is kept).
//   - The observation at a chance node is seen from the player whose card is drawn, and once the
//     game is over from light's side.
//   - "The pawn placed this turn" follows that pawn through its own chain (the observation shows
//     where it stands); it is the turn's placement, never one of card 11's.
//   - Unreachable rulings: at most 60 pawns are ever placed (8 + 44 + 4·2), so the board is never
//     full and card 11 always has room in a real game; those rulings are tested from hand-made
//     positions.
//
// # Encoding
//
// The board is two 64-bit masks (bit = rank·8 + file). The action space (NumActions = 7307) is
// laid out in state.go: place (64), card (10), move and capture from·direction·distance (3584
// each, holes where a line leaves the board), stop, remove (64). The observation is 62 planes of
// 8×8 (game.go) from the decider's side; the rules have no direction of play, so the board is
// never flipped, only the colours traded. The 8 symmetries of the square map squares, directions
// and so actions; every card is symmetric under them. Rules implements env.SpatialPolicy: 114
// policy planes (place, move and capture by direction × distance, remove), cards and stop off the
// grid. State implements env.Scorer: the framed squares of each player. Rules implements
// env.Heuristic (heuristic.go), the static evaluation the ab:D players use past their depth:
// the score, pawn and potential margins, weighing more as the end nears.
//
// # Move generation and state
//
// Steps and adjacent captures are found for all pawns at once with per-direction
// shifts of the masks; slides and long captures stop at the nearest occupied
// square of a ray (a bit scan); framed squares are empty & shift(p, d) &
// shift(p, -d). The State is 40 bytes: pawns, the drawn order, the unknown cards,
// the turn, the opening count, the phase (opening, place, draw, act, chain, bonus,
// penalty, over), card 11's placements left, the placed and the chain pawn, who
// decides and the result. Transient fields are reset at each turn's end, so that
// transpositions compare equal.
//
// Tests: the envtest suite; the rulings table and illegal moves with their
// messages; the differential test against reference_test.go's naive
// implementation (coordinates, a predicate over every pawn and square, the deck
// as physical draw and discard stacks) on 400 random games and on every node of
// two game trees to depth 4, which also confirms the perft table; the observation
// read back and the card order decoded from it; a parser fuzz test; the
// observation and the policy cells turned under the 8 symmetries.
package imbriqua
