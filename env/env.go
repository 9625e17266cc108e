// Package env is the contract between the games and everything that plays them: search,
// self-play, training, the engine protocol and the user interfaces.
//
// A game is two things:
//
//   - static facts, an [Info]: its name, the size of its action space, the shape of its
//     observation, a bound on the length of a game, the number of its symmetries;
//   - a state type S, a plain value of fixed arrays and integers (no pointers, slices or maps),
//     so that copying a state is a memory copy and two states compare with ==.
//
// Everything that plays a game is generic over S ([State], [Game]), so the hot path (legal
// actions, play, observe) never boxes a state into an interface and never allocates.
//
// # Decisions and actions
//
// A game is a sequence of decisions. Each is made by a player (0 or 1) or by chance; the state
// says which ([State.ToMove]). A player's turn may take several decisions (YINSH: the move, then
// each row and ring to remove), and a player may have to decide in the middle of the opponent's
// turn (Imbriqua's penalty): nothing in the contract assumes that players alternate. Code that
// backs values up a game tree compares the deciders of parent and child instead of negating at
// every level.
//
// Every decision is an [Action]: an index in the game's fixed, dense action space
// [0, Info.NumActions). The index is also the index of the network's policy output, so a game's
// action space is laid out once and never changes. Some indices may never be legal (holes in a
// dense layout); they still print without panicking.
//
// # Invariants every game keeps (checked by env/envtest)
//
//   - Legal appends the legal actions to dst in strictly ascending order; the list is empty
//     exactly when the state is terminal. At a chance node the legal actions are the possible
//     outcomes, and Chances gives the same actions, in the same order, with their probabilities
//     (each > 0, summing to 1).
//   - Play returns the child by value and leaves its receiver unchanged. Play is only defined for
//     a legal action: the hot path does not check. [Apply] and [PlayText] check.
//   - AppendAction and ParseAction are inverse on legal actions. ParseAction accepts exactly the
//     game's notation and returns an error naming the problem for anything else; it may return
//     an action that is not legal in the state (the caller checks legality with [Apply]).
//   - Observe writes every element of dst (it does not assume dst is zeroed), from the point of
//     view of the player to decide; equal states give equal observations. At chance and
//     terminal states the view is the game's choice (search and training never observe there).
//   - Symmetry k of Info.Symmetries (0 is the identity) maps states with [State.Symmetry] and
//     actions with [Game.MapAction], and commutes with play:
//     s.Play(a).Symmetry(k) == s.Symmetry(k).Play(g.MapAction(k, a)).
//   - A game from [Game.New] ends within Info.MaxLength decisions, chance included.
//   - The state is a plain value: no pointer, slice, map, channel, function or interface in it.
//   - The notation is canonical: ParseAction accepts a text only if AppendAction prints that
//     action exactly so (no other case, no extra blanks).
//   - NumActions ≤ 65536, so that an action fits 16 bits in replay records.
//   - Legal, Chances, Play and Observe allocate nothing.
//
// # What a game may add
//
// Beside the contract, a game may implement optional interfaces, each found by a
// type assertion where it is used:
//
//   - [Explainer]: why a move is illegal, for [Apply] and [PlayText]'s errors.
//   - [SpatialPolicy]: its actions placed on the observation grid, so that a
//     network computes the policy with a convolutional head.
//   - [PositionGame] and [PositionState]: a position notation of its own; for
//     every unfinished state s, ParsePosition(s.Position()) succeeds and prints
//     back the same text (Gygès).
//   - [Scorer]: each player's running score, for the engine's score command
//     (Imbriqua's framed squares).
//   - [WinFinder]: a faster answer to [CanWin] (can the player to decide win
//     within the decisions he makes before the opponent or chance decides?);
//     [WinChecker] picks it or the fallback that plays the decisions out, and
//     [WinLine] walks out the winning decisions.
//   - [Heuristic], [Hasher] and [EndBound]: a static evaluation, a 64-bit key of
//     a state, and a lower bound on the changes of decider before any end, for
//     the ab:D players and the root proofs of package mcts.
//   - [LegalCounter] and [RandomPicker]: counting and drawing legal actions
//     without listing them, for [PerftCount] and the random games of [Walker]
//     ([NewGameWalker]).
//
// envtest holds each to the contract it extends (a WinFinder equal to the
// fallback, a count equal to len(Legal), a random pick equal to
// Legal(nil)[rng.IntN(n)] at the same draw, an end bound never later than the
// game's end).
//
// # Versions
//
// Info.Rules numbers the revisions of a game's rules, Info.Encoding the layouts
// of its observation and actions. A checkpoint plays only its own encoding,
// under any revision of the rules, except where the observation grew by planes
// appended at its end ([EarlierEncodings]): package net then widens the network,
// zero stem weights over the new planes, so that it computes what it did.
package env

import (
	"fmt"
	"strings"
)

// Action is a decision: an index in the game's dense action space, also the policy index.
type Action int32

// Player is the one who makes the next decision: 0 (who begins), 1, or one of the sentinels.
type Player int8

const (
	// Chance decides the next outcome (a card drawn, a die rolled), with known probabilities.
	Chance Player = -1
	// Terminal is the "player" of a finished game: nobody decides any more.
	Terminal Player = -2
)

// Other is the opponent of player 0 or 1.
func (p Player) Other() Player { return 1 - p }

// Result is how a game ended, or Ongoing.
type Result int8

const (
	Ongoing Result = iota
	Win0           // player 0 won
	Win1           // player 1 won
	Draw
)

// Winner returns the winning player, or Terminal for a draw or an ongoing game.
func (r Result) Winner() Player {
	switch r {
	case Win0:
		return 0
	case Win1:
		return 1
	}
	return Terminal
}

// WinFor is the result in which player p wins.
func WinFor(p Player) Result {
	if p == 0 {
		return Win0
	}
	return Win1
}

// Value is the result from player p's point of view: +1 win, -1 loss, 0 draw or ongoing.
func (r Result) Value(p Player) float32 {
	switch r.Winner() {
	case Terminal:
		return 0
	case p:
		return 1
	}
	return -1
}

// Outcome is one possible outcome of a chance decision and its probability.
type Outcome struct {
	Action Action
	Prob   float64
}

// Shape is the shape of an observation: Planes stacked planes of Height × Width values,
// laid out plane by plane, row by row.
type Shape struct {
	Planes, Height, Width int
}

// Size is the number of float32 values in an observation.
func (s Shape) Size() int { return s.Planes * s.Height * s.Width }

func (s Shape) String() string { return fmt.Sprintf("%d×%d×%d", s.Planes, s.Height, s.Width) }

// Info holds a game's static facts.
type Info struct {
	// Name is the name of the game and variant as tools accept it: "yinsh", "yinsh-blitz".
	Name string
	// PlayerNames names players 0 and 1 as the game does ("white", "black").
	PlayerNames [2]string
	// NumActions is the size of the dense action space (and of the policy output).
	NumActions int
	// Observation is the shape of what Observe writes.
	Observation Shape
	// MaxLength bounds the number of decisions in a game, chance decisions included.
	MaxLength int
	// Symmetries is the number of symmetries, the identity (index 0) included.
	Symmetries int
	// HasChance tells whether some states are chance nodes.
	HasChance bool
	// Rules numbers the revisions of the game's rules (from 1): change it when a ruling changes
	// which moves are legal or how a game ends. Checkpoints record the revision they learned
	// under; a net of another revision still plays, since it reads the same observation and
	// writes the same policy (it only learned a slightly different game), and `zero net info`
	// says so.
	Rules int
	// Encoding numbers the layouts of the action space and the observation (from 1): change it
	// when either changes. Checkpoints record it and refuse to play another encoding, which
	// they would misread. Replay shards record neither number: a run resumes from its
	// checkpoint, which refuses (a run stopped before its first checkpoint would reuse its
	// games).
	Encoding int
}

// PlayerName names p: a player name, "chance", or "none" for a finished game.
func (in *Info) PlayerName(p Player) string {
	switch p {
	case 0, 1:
		return in.PlayerNames[p]
	case Chance:
		return "chance"
	}
	return "none"
}

// ResultName names a result as the engine protocol prints it: "none", a player name, or "draw".
func (in *Info) ResultName(r Result) string {
	switch r {
	case Win0, Win1:
		return in.PlayerNames[r.Winner()]
	case Draw:
		return "draw"
	}
	return "none"
}

// State is a game position, implemented by a game's value type S (S is the type itself).
// See the package documentation for the invariants.
type State[S any] interface {
	comparable
	fmt.Stringer // a text drawing of the position for people

	// ToMove is who makes the next decision: 0, 1, Chance, or Terminal once the game is over.
	ToMove() Player
	// Legal appends the legal actions in ascending order to dst and returns the extended slice.
	Legal(dst []Action) []Action
	// Chances appends the outcomes of a chance node, in ascending order, to dst. It appends
	// nothing at other states.
	Chances(dst []Outcome) []Outcome
	// Play returns the state after the legal action a.
	Play(a Action) S
	// Result is Ongoing until the game is over, then who won.
	Result() Result
	// Observe writes the observation (Info.Observation.Size() values) into dst.
	Observe(dst []float32)
	// Symmetry returns the state transformed by symmetry k.
	Symmetry(k int) S
	// AppendAction appends the notation of action a to dst.
	AppendAction(dst []byte, a Action) []byte
	// ParseAction reads one action in the game's notation.
	ParseAction(text string) (Action, error)
}

// Game is a game and variant: its facts, its start, and the action side of its symmetries.
type Game[S State[S]] interface {
	Info() *Info
	// New is the state before the first decision.
	New() S
	// MapAction maps action a under symmetry k.
	MapAction(k int, a Action) Action
}

// Explainer is implemented by states that can tell why an action is illegal. Apply uses it to
// give a precise message.
type Explainer interface {
	// Explain returns nil if a is legal, else an error saying why it is not.
	Explain(a Action) error
}

// ActionString is the notation of action a in state s.
func ActionString[S State[S]](s S, a Action) string {
	var buf [32]byte
	return string(s.AppendAction(buf[:0], a))
}

// IsLegal tells whether a is among s's legal actions. It allocates; use it off the hot path.
func IsLegal[S State[S]](s S, a Action) bool {
	for _, b := range s.Legal(nil) {
		if a == b {
			return true
		}
	}
	return false
}

// Apply plays a after checking that it is legal. On error s is returned unchanged.
func Apply[S State[S]](s S, a Action) (S, error) {
	if s.ToMove() == Terminal {
		return s, fmt.Errorf("%s: the game is over", ActionString(s, a))
	}
	if IsLegal(s, a) {
		return s.Play(a), nil
	}
	if e, ok := any(s).(Explainer); ok {
		if err := e.Explain(a); err != nil {
			return s, err
		}
	}
	return s, fmt.Errorf("%s: illegal in this position", ActionString(s, a))
}

// PlayText parses text in s's notation and plays it if legal.
func PlayText[S State[S]](s S, text string) (S, Action, error) {
	a, err := s.ParseAction(text)
	if err != nil {
		return s, 0, err
	}
	t, err := Apply(s, a)
	return t, a, err
}

// SplitMoves splits a move list: moves separated by ';' or newlines, blanks around them ignored,
// empty entries skipped.
func SplitMoves(list string) []string {
	fields := strings.FieldsFunc(list, func(r rune) bool { return r == ';' || r == '\n' })
	out := fields[:0]
	for _, f := range fields {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// Replay plays a move list (see SplitMoves) from the start of g, checking each move. The error
// names the first bad move and its number (from 1).
func Replay[S State[S]](g Game[S], list string) (S, []Action, error) {
	return ReplayFrom(g.New(), list)
}

// ReplayFrom plays a move list from s, checking each move.
func ReplayFrom[S State[S]](s S, list string) (S, []Action, error) {
	var actions []Action
	for i, text := range SplitMoves(list) {
		t, a, err := PlayText(s, text)
		if err != nil {
			return s, actions, fmt.Errorf("move %d: %w", i+1, err)
		}
		s = t
		actions = append(actions, a)
	}
	return s, actions, nil
}

// SpatialPolicy is implemented by games whose actions sit on the observation grid, so that a
// network can compute the policy with a convolutional head: Planes() output planes over the
// observation's Height × Width cells, action a read at (plane, cell), the cell indexed as in
// Observe's planes (h·Width + w).
// Actions that are not on the grid (a pass) report ok = false and take a dense output instead,
// in ascending action order. A game whose observation is seen from the decider's side (a
// flipped board) numbers its actions from that side too, so the map does not depend on the
// state.
type SpatialPolicy interface {
	PolicyPlanes() int
	PolicyCell(a Action) (plane, cell int, ok bool)
}

// EarlierEncodings is implemented by games whose observation grew by planes appended at its end,
// so that networks trained on an earlier encoding still play: such a network reads the first
// planes of today's observation, as many as it was trained on (the action space unchanged).
type EarlierEncodings interface {
	// EncodingPlanes is the number of planes a network of encoding enc reads, false if the game
	// cannot serve enc (Info().Encoding gives all of today's).
	EncodingPlanes(enc int) (int, bool)
}
