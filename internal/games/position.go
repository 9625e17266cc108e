package games

import (
	"errors"
	"fmt"
	"slices"

	"github.com/zerogames/zero/env"
)

// Position is a game in progress seen through its notation, with its history: what the engine
// protocol, the terminal and the browser work with. Every move is checked; a refused move, an
// unknown command or a bad position changes nothing.
type Position struct {
	impl positionImpl
}

// positionImpl is implemented by history[S] for each game's state type.
type positionImpl interface {
	info() *env.Info
	play(text string) error
	parses(text string) bool
	playMoves(list string) error
	undo() error
	reset()
	legal() []string
	toMove() env.Player
	result() env.Result
	show() string
	moves() []string
	state() any
	chances() []Outcome
	clone() positionImpl
}

// Info is the game's static facts.
func (p *Position) Info() *env.Info { return p.impl.info() }

// Play checks and plays one move in the game's notation.
func (p *Position) Play(move string) error { return p.impl.play(move) }

// Parses tells whether text is a move in the game's notation, legal or not here.
func (p *Position) Parses(text string) bool { return p.impl.parses(text) }

// PlayMoves plays a move list (moves separated by ';' or newlines). If any move is refused,
// none is played, and the error names the move and its number in the list.
func (p *Position) PlayMoves(list string) error { return p.impl.playMoves(list) }

// Undo takes back the last decision.
func (p *Position) Undo() error { return p.impl.undo() }

// Reset goes back to the start of the game.
func (p *Position) Reset() { p.impl.reset() }

// Legal lists the legal moves in the game's notation, sorted byte-wise.
func (p *Position) Legal() []string { return p.impl.legal() }

// ToMove names who decides next: a player name, "chance", or "none" once the game is over.
func (p *Position) ToMove() string { return p.Info().PlayerName(p.impl.toMove()) }

// Result names the result: "none" while the game goes on, the winner's name, or "draw".
func (p *Position) Result() string { return p.Info().ResultName(p.impl.result()) }

// Over tells whether the game has ended.
func (p *Position) Over() bool { return p.impl.toMove() == env.Terminal }

// Show draws the position as text.
func (p *Position) Show() string { return p.impl.show() }

// Moves is the history: the moves played from the start, in notation.
func (p *Position) Moves() []string { return p.impl.moves() }

type history[S env.State[S]] struct {
	g       env.Game[S]
	states  []S // states[0] is the start; states[i+1] follows actions[i]
	actions []env.Action
}

func (h *history[S]) current() S         { return h.states[len(h.states)-1] }
func (h *history[S]) info() *env.Info    { return h.g.Info() }
func (h *history[S]) toMove() env.Player { return h.current().ToMove() }
func (h *history[S]) result() env.Result { return h.current().Result() }
func (h *history[S]) show() string       { return h.current().String() }

func (h *history[S]) play(text string) error {
	s, a, err := env.PlayText(h.current(), text)
	if err != nil {
		return err
	}
	h.states = append(h.states, s)
	h.actions = append(h.actions, a)
	return nil
}

func (h *history[S]) parses(text string) bool {
	_, err := h.current().ParseAction(text)
	return err == nil
}

func (h *history[S]) playMoves(list string) error {
	n := len(h.actions)
	for i, text := range env.SplitMoves(list) {
		if err := h.play(text); err != nil {
			h.states, h.actions = h.states[:n+1], h.actions[:n]
			return fmt.Errorf("move %d: %w", i+1, err)
		}
	}
	return nil
}

func (h *history[S]) undo() error {
	if len(h.actions) == 0 {
		return errors.New("nothing to undo: the game is at its start")
	}
	h.states = h.states[:len(h.states)-1]
	h.actions = h.actions[:len(h.actions)-1]
	return nil
}

func (h *history[S]) reset() {
	h.states, h.actions = h.states[:1], h.actions[:0]
}

func (h *history[S]) legal() []string {
	s := h.current()
	var out []string
	for _, a := range s.Legal(nil) {
		out = append(out, env.ActionString(s, a))
	}
	slices.Sort(out)
	return out
}

func (h *history[S]) moves() []string {
	out := make([]string, len(h.actions))
	for i, a := range h.actions {
		out[i] = env.ActionString(h.states[i], a)
	}
	return out
}

// State is the current state as the game's own type (yinsh.State, …), boxed: for the user
// interfaces, which draw it through the game package's read-only accessors. Off the hot path.
func (p *Position) State() any { return p.impl.state() }

// Outcome is one possible outcome of a chance decision, in notation, and its probability.
type Outcome struct {
	Move string
	Prob float64
}

// Chances lists the outcomes of a chance decision with their probabilities, in the game's
// order; it is empty unless chance decides next.
func (p *Position) Chances() []Outcome { return p.impl.chances() }

// Clone returns an independent copy of the game and its history.
func (p *Position) Clone() *Position { return &Position{impl: p.impl.clone()} }

func (h *history[S]) state() any { return h.current() }

func (h *history[S]) chances() []Outcome {
	s := h.current()
	var out []Outcome
	for _, o := range s.Chances(nil) {
		out = append(out, Outcome{env.ActionString(s, o.Action), o.Prob})
	}
	return out
}

func (h *history[S]) clone() positionImpl {
	return &history[S]{g: h.g, states: slices.Clone(h.states), actions: slices.Clone(h.actions)}
}

// Score is the running score of a game scored by counting (env.Scorer: Imbriqua's framed
// squares), by player; ok is false for a game without one.
func (p *Position) Score() (score [2]int, ok bool) {
	sc, ok := p.State().(env.Scorer)
	if !ok {
		return score, false
	}
	return sc.Score(), true
}
