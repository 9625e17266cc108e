// Package ui is what the two ways of playing against the agent share: the terminal
// (internal/ui/term, `zero play`) and the browser (internal/ui/web, `zero serve`).
//
//   - A Match is a game between a person and an agent: the position, who plays which side,
//     the chance draws, resignation, and the undo that takes back to the person's last decision.
//   - Match.Record is the game as a selfplay.Record (game, players, moves, result), which
//     games.LoadRecord reads back strictly and replays through the rules, each move checked.
//   - A Board draws one game's positions: as text for the terminal, as a JSON view for the
//     browser's SVG, and groups its legal moves for listing. Boards are chosen by the type of
//     the game's state (BoardFor); a game without one gets a plain board built from its text
//     drawing and notation, so every registered game is playable in both interfaces.
//
// Everything here works at the notation level of games.Position, off the hot path.
//
// Match.Play first expands a shortened move (f6-f9 for move f6-f9) when exactly one
// legal move ends so. Chance is drawn at once, the k-th draw of the game from the
// k-th number of the match's chance seed, so undone draws come out the same again
// (undo cannot reshuffle Imbriqua's deck). The default opponent is DefaultSpec:
// the game's model (ModelPath: the --models folder's GAME.zck, else the shipped
// one) at 400 simulations, else DefaultOpponent, or FallbackOpponent while the
// registry cannot build that. Boards read positions only through the games'
// read-only accessors, and tell everything apart without colour.
package ui

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/zerogames/zero/internal/games"
	"github.com/zerogames/zero/models"
	"github.com/zerogames/zero/selfplay"
)

// DefaultOpponent is the agent people play unless they choose another, where no model is
// shipped for the game (see ModelPath); FallbackOpponent is used in its place while the
// registry cannot build it.
const (
	DefaultOpponent  = "uct:1000"
	FallbackOpponent = "random"
	// ModelSimulations is the shipped model's search budget when it is the default opponent.
	ModelSimulations = 400
)

// ModelPath is the checkpoint path of game's model: dir/GAME.zck when dir, a folder of models
// the user gave ("" for none), holds that file; else models/GAME.zck when the binary ships
// that model or the working folder has that file (package models: the file wins); else "".
func ModelPath(dir, game string) string {
	name := game + models.Ext
	if dir != "" {
		path := filepath.Join(dir, name)
		if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
			return path
		}
	}
	if path := models.Path(name); models.Exists(path) {
		return path
	}
	return ""
}

// DefaultSpec is the default opponent for game, with the models of dir ("" for none) before
// the shipped ones: its model at ModelSimulations (ModelPath), else DefaultOpponent.
func DefaultSpec(dir, game string) string {
	if m := ModelPath(dir, game); m != "" {
		return ModelSpec(m)
	}
	return DefaultOpponent
}

// ModelSpec is the spec of the agent that plays a shipped model by default: the checkpoint
// model searched with ModelSimulations.
func ModelSpec(model string) string {
	return fmt.Sprintf("mcts:%d:%s", ModelSimulations, filepath.ToSlash(model))
}

// Human is the name a person plays under in a Match and its Record.
const Human = "human"

// Match is a game between a person and an agent. It is not safe for concurrent use.
type Match struct {
	Game games.Game
	Pos  *games.Position
	// Players are who plays player 0 and player 1: Human or the agent's spec.
	Players [2]string
	// Resigned is the side (0 or 1) that resigned, or -1.
	Resigned int
	// Cap, if positive, bounds the time of each of the agent's searches (selfplay.Limits.Cap),
	// whatever its spec says: a server's bound on the work of one request.
	Cap   time.Duration
	agent games.Agent
	human int
	// chanceSeed fixes the match's chance: the k-th chance decision of the game draws with
	// the k-th number of its stream, whatever was undone before, so undo cannot reshuffle a
	// deck (or reroll dice) — the draws depend on the seed and the draw's rank only.
	chanceSeed uint64
}

// NewMatch starts a game of game between a person playing side (a player name of the game,
// or "random") and the agent opponent (a spec; "" for the default). The seed makes the
// agent's choices, the random side and the chance draws reproducible.
func NewMatch(game, opponent, side string, seed uint64) (*Match, error) {
	g, err := games.Lookup(game)
	if err != nil {
		return nil, err
	}
	agent, err := NewAgent(g, opponent, seed)
	if err != nil {
		return nil, err
	}
	return NewMatchAgent(g, agent, side, seed)
}

// NewMatchAgent starts a game of g between a person playing side and agent.
func NewMatchAgent(g games.Game, agent games.Agent, side string, seed uint64) (*Match, error) {
	rng := rand.New(rand.NewPCG(seed, 0x9a3e))
	human, err := ParseSide(g, side, rng)
	if err != nil {
		return nil, err
	}
	m := &Match{Game: g, Pos: g.NewPosition(), Resigned: -1, agent: agent, human: human, chanceSeed: rng.Uint64()}
	m.Players[human] = Human
	m.Players[1-human] = agent.Spec()
	m.drawChance()
	return m, nil
}

// NewAgent builds the agent spec for g; "" is DefaultSpec (the shipped model, else
// DefaultOpponent), or FallbackOpponent while g cannot build the default.
func NewAgent(g games.Game, spec string, seed uint64) (games.Agent, error) {
	if spec != "" {
		return g.NewAgent(spec, seed)
	}
	if a, err := g.NewAgent(DefaultSpec("", g.Info().Name), seed); err == nil {
		return a, nil
	}
	return g.NewAgent(FallbackOpponent, seed)
}

// ParseSide reads a side: one of g's player names, or "random" (drawn from rng).
func ParseSide(g games.Game, side string, rng *rand.Rand) (int, error) {
	names := g.Info().PlayerNames
	switch side {
	case names[0]:
		return 0, nil
	case names[1]:
		return 1, nil
	case "random":
		return rng.IntN(2), nil
	}
	return 0, fmt.Errorf("unknown side %q (want %s, %s or random)", side, names[0], names[1])
}

// HumanSide is the side (0 or 1) the person plays.
func (m *Match) HumanSide() int { return m.human }

// Agent is the person's opponent.
func (m *Match) Agent() games.Agent { return m.agent }

// Over tells whether the game has ended, by the rules or by resignation.
func (m *Match) Over() bool { return m.Resigned >= 0 || m.Pos.Over() }

// Result names the result: "none", the winner's name, or "draw".
func (m *Match) Result() string {
	if m.Resigned >= 0 {
		return m.Game.Info().PlayerNames[1-m.Resigned]
	}
	return m.Pos.Result()
}

// toMove is the side to decide, or -1 at chance or once the game is over.
func (m *Match) toMove() int {
	if m.Resigned >= 0 {
		return -1
	}
	return slices.Index(m.Game.Info().PlayerNames[:], m.Pos.ToMove())
}

// HumanToMove tells whether the person decides next.
func (m *Match) HumanToMove() bool { return m.toMove() == m.human }

// AgentToMove tells whether the agent decides next.
func (m *Match) AgentToMove() bool { return m.toMove() == 1-m.human }

// ErrGameOver is returned for a move or resignation after the end.
var ErrGameOver = errors.New("the game is over")

// Play plays the person's move, in the game's notation, then any chance decisions. A refused
// move changes nothing; the error says why.
func (m *Match) Play(move string) error {
	if m.Over() {
		return ErrGameOver
	}
	if !m.HumanToMove() {
		return fmt.Errorf("it is %s's turn, not yours", m.Pos.ToMove())
	}
	text := m.Expand(move)
	if err := m.Pos.Play(text); err != nil {
		return m.explain(text, err)
	}
	m.drawChance()
	return nil
}

// explain words the refusal err of text: a short form the notation cannot read as given
// ("d6-d9" for "move d6-d9") is read whole with the first word of each kind of move legal now,
// so that an illegal move gets the rule that forbids it rather than a lesson in the notation's
// first words; the first kind that reads it speaks. With one kind legal (YINSH's move phase),
// its long form's refusal speaks even where that kind cannot read it ("d4-e9": d4 and e9 are not
// on one line); with several and none reading it, err stands. A legal long form that Expand left
// is ambiguous.
func (m *Match) explain(text string, err error) error {
	if text == "" || strings.Contains(text, " ") || m.Pos.Parses(text) {
		return err
	}
	legal := m.Pos.Legal()
	var words []string
	for _, l := range legal {
		if word, _, ok := strings.Cut(l, " "); ok && !slices.Contains(words, word) {
			words = append(words, word)
		}
	}
	for _, word := range words {
		long := word + " " + text
		if !m.Pos.Parses(long) {
			continue
		}
		if slices.Contains(legal, long) {
			var all []string
			for _, l := range legal {
				if _, rest, ok := strings.Cut(l, " "); ok && rest == text {
					all = append(all, l)
				}
			}
			return fmt.Errorf("%q is short for more than one move (%s): type it whole", text, strings.Join(all, ", "))
		}
		return m.Pos.Clone().Play(long)
	}
	if len(words) == 1 {
		return m.Pos.Clone().Play(words[0] + " " + text)
	}
	return err
}

// Expand lets a person shorten a move to what follows its first word when that names exactly
// one legal move ("f6-f9" for "move f6-f9" in YINSH); runs of blanks count as one. Anything
// else comes back as given, for the game's parser to judge.
func (m *Match) Expand(move string) string {
	move = strings.Join(strings.Fields(move), " ")
	legal := m.Pos.Legal()
	if slices.Contains(legal, move) || move == "" {
		return move
	}
	found := ""
	for _, l := range legal {
		if _, rest, ok := strings.Cut(l, " "); ok && rest == move {
			if found != "" {
				return move
			}
			found = l
		}
	}
	if found == "" {
		return move
	}
	return found
}

// AgentTurn lets the agent make its decisions until the person is to decide or the game ends
// (a YINSH turn may be a move, a row and a ring). It returns the moves played and the analysis
// behind the first. progress reports the agent's work (see games.Agent). On error or
// cancellation the decisions already made stay played.
func (m *Match) AgentTurn(ctx context.Context, progress func(done, total int)) ([]string, selfplay.Analysis, error) {
	var played []string
	var first selfplay.Analysis
	for m.AgentToMove() {
		an, err := m.agent.Analyze(ctx, m.Pos, selfplay.Limits{Cap: m.Cap}, progress)
		if err != nil {
			return played, first, err
		}
		if err := ctx.Err(); err != nil {
			return played, first, err
		}
		if err := m.Pos.Play(an.Best()); err != nil {
			return played, first, fmt.Errorf("agent %s chose an illegal move: %w", m.agent.Spec(), err)
		}
		if played == nil {
			first = an
		}
		played = append(played, an.Best())
		m.drawChance()
	}
	return played, first, nil
}

// Hint is the agent's analysis of the current position, for the side to decide.
func (m *Match) Hint(ctx context.Context, progress func(done, total int)) (selfplay.Analysis, error) {
	if m.Over() {
		return selfplay.Analysis{}, ErrGameOver
	}
	return m.agent.Analyze(ctx, m.Pos, selfplay.Limits{Cap: m.Cap}, progress)
}

// Undo takes back decisions up to and including the person's last one, so that it is the
// person's decision again (the agent's reply goes too). Chance draws in between are taken back
// with them, and a resignation is taken back first. A draw taken back comes out the same when
// its rank comes again (see drawChance): undo does not reshuffle Imbriqua's deck.
func (m *Match) Undo() error {
	if m.Resigned >= 0 {
		m.Resigned = -1
		return nil
	}
	c := m.Pos.Clone()
	for c.Undo() == nil {
		// Once a move is taken back, who is to decide is who made it.
		if c.ToMove() == m.Game.Info().PlayerNames[m.human] {
			m.Pos = c
			return nil
		}
	}
	return errors.New("nothing to undo: you have not moved yet")
}

// Resign ends the game: the person resigns.
func (m *Match) Resign() error {
	if m.Over() {
		return ErrGameOver
	}
	m.Resigned = m.human
	return nil
}

// drawChance plays the chance decisions that come next, drawn by their probabilities: the
// k-th chance decision of the game with the k-th number drawn from the match's chance seed.
func (m *Match) drawChance() {
	if m.Pos.ToMove() != "chance" {
		return
	}
	k := m.chanceDecisions()
	for m.Pos.ToMove() == "chance" {
		outcomes := m.Pos.Chances()
		u := rand.New(rand.NewPCG(m.chanceSeed, uint64(k))).Float64()
		pick := outcomes[len(outcomes)-1].Move
		for _, o := range outcomes {
			if u < o.Prob {
				pick = o.Move
				break
			}
			u -= o.Prob
		}
		if err := m.Pos.Play(pick); err != nil {
			panic(fmt.Sprintf("ui: chance outcome %q refused: %v", pick, err))
		}
		k++
	}
}

// chanceDecisions counts the chance decisions among the game's moves so far.
func (m *Match) chanceDecisions() int {
	p := m.Game.NewPosition()
	n := 0
	for _, mv := range m.Pos.Moves() {
		if p.ToMove() == "chance" {
			n++
		}
		if err := p.Play(mv); err != nil {
			panic(fmt.Sprintf("ui: the game's own move %q refused on replay: %v", mv, err))
		}
	}
	return n
}

// Record is the game so far as a record.
func (m *Match) Record() selfplay.Record {
	r := selfplay.Record{Game: m.Game.Info().Name, Sides: m.Game.Info().PlayerNames, Players: m.Players,
		Moves: m.Pos.Moves(), Result: m.Result()}
	if m.Resigned >= 0 {
		r.Resigned = r.Sides[m.Resigned]
	}
	return r
}

// Load replaces the game by the record's (checked move by move), keeping the person's side
// and the agent. The record's game must be the match's.
func (m *Match) Load(r selfplay.Record) error {
	if r.Game != m.Game.Info().Name {
		return fmt.Errorf("the record is a game of %s, not %s", r.Game, m.Game.Info().Name)
	}
	pos, resigned, err := games.Replay(&r)
	if err != nil {
		return err
	}
	m.Pos, m.Resigned = pos, resigned
	m.drawChance()
	return nil
}
