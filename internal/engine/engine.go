// Package engine serves the `zero engine` line protocol: scripts, GUIs and other engines drive
// any game through it. The protocol is a public interface, documented in docs/ENGINE.md; keep
// it backward compatible.
//
// Framing is GTP's (version 2): one command per line; a reply starts with "=" (success) or
// "? message" (error) and ends with an empty line. A one-line answer follows "= " on the same
// line; a list (legal, show, help) starts on the line after "=", one item per line. A command
// may start with a numeric id, which the reply repeats ("=7 white"). Empty lines and lines
// starting with '#' are ignored. An error never changes the game. GTP's administrative
// commands (protocol_version, list_commands, known_command, name, version) are there for
// generic tools.
//
// One reply streams: `go infinite` answers "=" at once, then an info line (visits, value,
// principal variation) at each interval while the player searches, until the next command
// (stop, or any other) arrives; its reply then ends with the moves as `go visits` answers them
// and the empty line, and the command that stopped it is answered after. A `stop` also ends a
// genmove, go visits or go time under way, which answer with what they found; other commands
// sent meanwhile wait for them.
//
// Commands are one table; a session holds a games.Position. go infinite runs the
// player's analysis on a goroutine in slices of the interval, the tree kept
// between slices; a stream stopped before its first info line still writes one.
// genmove, go visits and go time run on a goroutine with a context of their own:
// Serve keeps reading, queues the lines that come meanwhile, cancels the search at
// a stop that is the next command in the queue (one behind other commands is
// theirs), and handles the queue once the reply is written, so one writer at a
// time. A search stopped before it had anything is run again for one simulation
// or alpha-beta's first depth, so a stop is always answered with a move. position
// takes a move list, or a position in the game's own notation where it has one.
// GTP controllers' forms are accepted too (play COLOR MOVE, genmove COLOR,
// reg_genmove, clear_board, showboard, boardsize, komi, final_score). Every
// session of docs/ENGINE.md is replayed by TestDocExamples.
package engine

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/zerogames/zero/internal/games"
	"github.com/zerogames/zero/internal/lineread"
	"github.com/zerogames/zero/selfplay"
)

// Version is what the `version` command answers.
const Version = games.Version

// ProtocolVersion is what `protocol_version` answers: the version of GTP whose framing the
// protocol follows.
const ProtocolVersion = "2"

// DefaultInterval is the time between the info lines of `go infinite`.
const DefaultInterval = 500 * time.Millisecond

// errQuit ends the session after the reply to `quit`.
var errQuit = errors.New("quit")

// Session is one engine: the game being played and its history, and the player that
// genmove and go use.
type Session struct {
	game games.Game
	pos  *games.Position
	// The player: its spec and seed, and the agent made of them for the current game (made
	// again when the game changes).
	spec      string
	seed      uint64
	agent     games.Agent
	agentGame string
	// follow, until a player is set (SetPlayer, `player`, `setoption`), gives the spec of each
	// game the session switches to: the game's own default player (FollowDefault).
	follow func(game string) string
	// serveCtx is Serve's context; ctx is the search's, which `stop` cancels during a
	// genmove, go visits or go time (Serve's otherwise).
	serveCtx, ctx context.Context
	// clock is GTP's time control (clock.go): on, it sets genmove's budget.
	clock clock
}

// DefaultPlayer is the player of a new session, unless FollowDefault gives each game its own.
const DefaultPlayer = "uct:1000"

// NewSession starts a session on a game, with DefaultPlayer seeded by 1.
func NewSession(game string) (*Session, error) {
	g, err := games.Lookup(game)
	if err != nil {
		return nil, err
	}
	return &Session{game: g, pos: g.NewPosition(), spec: DefaultPlayer, seed: 1, serveCtx: context.Background(), ctx: context.Background()}, nil
}

// SetPlayer makes the player of spec (see `zero help arena`), seeded by seed, the session's
// player. On error the player does not change.
func (s *Session) SetPlayer(spec string, seed uint64) error {
	a, err := s.game.NewAgent(spec, seed)
	if err != nil {
		return err
	}
	s.spec, s.seed, s.agent, s.agentGame, s.follow = spec, seed, a, s.game.Info().Name, nil
	return nil
}

// FollowDefault makes spec(game), seeded by seed, the player of the current game and of each
// game the session switches to (`game NAME`), until a player is set: `zero engine` without
// --player plays each game's shipped model so. On error nothing changes.
func (s *Session) FollowDefault(spec func(game string) string, seed uint64) error {
	if err := s.SetPlayer(spec(s.game.Info().Name), seed); err != nil {
		return err
	}
	s.follow = spec
	return nil
}

// player returns the session's agent for the current game.
func (s *Session) player() (games.Agent, error) {
	if s.agent == nil || s.agentGame != s.game.Info().Name {
		follow := s.follow
		if err := s.SetPlayer(s.spec, s.seed); err != nil {
			return nil, err
		}
		s.follow = follow
	}
	return s.agent, nil
}

// reply is a command's answer: one line, or a list of lines.
type reply struct {
	line   string
	list   []string
	isList bool
}

func one(s string) reply                          { return reply{line: s} }
func many(lines []string) reply                   { return reply{list: lines, isList: true} }
func manyText(text string) reply                  { return many(strings.Split(strings.TrimRight(text, "\n"), "\n")) }
func ok() reply                                   { return reply{} }
func fail(format string, a ...any) (reply, error) { return reply{}, fmt.Errorf(format, a...) }

// What a command takes after its name.
const (
	noArg = iota
	needsArg
	mayTakeArg
)

type command struct {
	name, args, help string
	takes            int
	run              func(s *Session, arg string) (reply, error)
}

// commands is the protocol; `help` lists it (exec answers `help` itself, since the table
// cannot refer to itself).
var commands = []command{
	{"game", "[NAME]", "switch to a game and start it; without NAME, the current game's name", mayTakeArg, cmdGame},
	// new starts from the game's own start, also after a position in the game's notation
	// (whose history starts there: Reset would go back to it).
	{"new", "", "start the current game again (each side's clock too, if time_settings set one)", noArg, func(s *Session, _ string) (reply, error) { s.restart(); return ok(), nil }},
	{"position", "MOVES", "set the position: the moves from the start, separated by ';' (all or nothing); or a position in the game's notation, if it has one (gyges)", needsArg, cmdPosition},
	{"play", "[COLOR] MOVE", "play a move in the game's notation (refused if illegal); GTP's COLOR, if given, must be the side to move", needsArg, cmdPlay},
	{"legal", "", "the legal moves, one per line, sorted byte-wise", noArg, func(s *Session, _ string) (reply, error) { return many(s.pos.Legal()), nil }},
	{"tomove", "", "who decides next: a player, chance, or none", noArg, func(s *Session, _ string) (reply, error) { return one(s.pos.ToMove()), nil }},
	{"result", "", "none while the game goes on, else the winner or draw", noArg, func(s *Session, _ string) (reply, error) { return one(s.pos.Result()), nil }},
	{"score", "", "the running score of a game scored by counting (Imbriqua's framed squares): each player's name and count", noArg, cmdScore},
	{"show", "", "the board as text", noArg, func(s *Session, _ string) (reply, error) { return manyText(s.pos.Show()), nil }},
	{"moves", "", "the moves played from the start, separated by ';'", noArg, func(s *Session, _ string) (reply, error) {
		return one(strings.Join(s.pos.Moves(), ";")), nil
	}},
	{"undo", "", "take back the last decision", noArg, func(s *Session, _ string) (reply, error) { return ok(), s.pos.Undo() }},
	{"player", "[SPEC]", "set the player of genmove and go (" + strings.Join(selfplay.KindForms(), ", ") + "); without SPEC, the player", mayTakeArg, cmdPlayer},
	{"setoption", "KEY VALUE", "change one setting of the player: an mcts player's search parameter (c_puct, fpu_reduction, in_flight, … as in its spec), symmetries or threads; a uct or ucb1 player's threads", needsArg, cmdSetOption},
	{"genmove", "[COLOR]", "the player chooses a move, plays it and answers it; GTP's COLOR, if given, must be the side to move", mayTakeArg, cmdGenmove},
	{"reg_genmove", "[COLOR]", "the player chooses a move and answers it, without playing it", mayTakeArg, cmdRegGenmove},
	{"go", "visits N|time MS|infinite [MS]", "the player searches (N simulations, or MS milliseconds) and answers its moves, the chosen first, without playing; infinite: until stop, with an info line every MS milliseconds (default 500)", needsArg, cmdGo},
	{"analyze", "[MS]", "the player searches until stop, as go infinite, streaming every MS milliseconds (default 500) an info line with the time and speed, then a line per move searched: order, visits, prior, win rate, lower confidence bound and line", mayTakeArg, cmdAnalyze},
	{"stop", "", "end the search under way: of go infinite (any command does), genmove, go visits or go time (which answer with what they found); else nothing", noArg, func(*Session, string) (reply, error) { return ok(), nil }},
	{"clear_board", "", "GTP's name of new: start the current game again", noArg, func(s *Session, _ string) (reply, error) { s.restart(); return ok(), nil }},
	{"showboard", "", "GTP's name of show: the board as text", noArg, func(s *Session, _ string) (reply, error) { return manyText(s.pos.Show()), nil }},
	{"boardsize", "N", "GTP's board size: accepted if it is the game's (gyges 6), else refused as an unacceptable size", needsArg, cmdBoardsize},
	{"komi", "X", "GTP's komi: a number, accepted and without effect (the games have no komi)", needsArg, cmdKomi},
	{"time_settings", "MAIN BYO STONES", "GTP's time control: MAIN seconds, then byo-yomi periods of BYO seconds for STONES moves (BYO > 0 with STONES 0: no limit); genmove then searches for the time it splits out of the side's time left", needsArg, cmdTimeSettings},
	{"time_left", "COLOR TIME STONES", "GTP's clock: COLOR has TIME seconds left, in main time (STONES 0) or for STONES moves of a byo-yomi period; between them the engine counts its own moves' time", needsArg, cmdTimeLeft},
	{"final_score", "", "GTP's score of the game over: B+R or W+R (the first or second player won; B+N with a margin N in a game scored by counting), or 0 for a draw", noArg, cmdFinalScore},
	{"name", "", "the engine's name", noArg, func(*Session, string) (reply, error) { return one("zero"), nil }},
	{"version", "", "the engine's version", noArg, func(*Session, string) (reply, error) { return one(Version), nil }},
	{"protocol_version", "", "the version of GTP whose framing this protocol follows: " + ProtocolVersion, noArg, func(*Session, string) (reply, error) { return one(ProtocolVersion), nil }},
	{"list_commands", "", "the commands' names, one per line", noArg, nil},
	{"known_command", "NAME", "true if NAME is a command, else false", needsArg, nil},
	{"help", "", "the commands", noArg, nil},
	{"quit", "", "end the session", noArg, func(*Session, string) (reply, error) { return ok(), errQuit }},
}

// restart starts the current game again, and the clock's times.
func (s *Session) restart() {
	s.pos = s.game.NewPosition()
	s.clock.restart()
}

func cmdGame(s *Session, arg string) (reply, error) {
	if arg == "" {
		return one(s.pos.Info().Name), nil
	}
	g, err := games.Lookup(arg)
	if err != nil {
		return reply{}, err
	}
	s.game, s.pos = g, g.NewPosition()
	if s.follow != nil {
		s.spec = s.follow(g.Info().Name)
	}
	return ok(), nil
}

func cmdPosition(s *Session, arg string) (reply, error) {
	pos := s.game.NewPosition()
	if err := pos.PlayMoves(arg); err != nil {
		if !games.HasPositionNotation(s.game) {
			return reply{}, err
		}
		// A game with a position notation of its own (Gygès) takes a position as well.
		p, perr := games.FromPosition(s.game, arg)
		if perr != nil {
			return fail("neither a move list (%v) nor a position (%v)", err, perr)
		}
		pos = p
	}
	s.pos = pos
	return ok(), nil
}

func cmdScore(s *Session, _ string) (reply, error) {
	score, ok := s.pos.Score()
	if !ok {
		return fail("%s has no running score", s.pos.Info().Name)
	}
	names := s.pos.Info().PlayerNames
	return one(fmt.Sprintf("%s %d %s %d", names[0], score[0], names[1], score[1])), nil
}

func cmdPlay(s *Session, arg string) (reply, error) {
	if s.pos.Over() {
		return fail("the game is over (%s)", s.pos.Result())
	}
	if word, move, two := strings.Cut(arg, " "); two {
		if _, isColour := s.colour(word); isColour {
			if err := s.checkColour(word); err != nil {
				return reply{}, err
			}
			arg = strings.TrimSpace(move)
		}
	}
	return ok(), s.pos.Play(arg)
}

// colour reads a GTP colour as a player of the current game (0 first to move, 1 second),
// whatever its case: the game's own names (white and black in YINSH, south and north in Gygès,
// light and dark in Imbriqua), or GTP's black (b) and white (w), which in a game whose players
// have other names are the first player and the second, as black moves first in Go.
func (s *Session) colour(word string) (int, bool) {
	word = strings.ToLower(word)
	names := s.pos.Info().PlayerNames
	for p, n := range names {
		if word == n {
			return p, true
		}
	}
	gtp := map[string]string{"b": "black", "black": "black", "w": "white", "white": "white"}
	name, ok := gtp[word]
	if !ok {
		return 0, false
	}
	for p, n := range names {
		if n == name {
			return p, true
		}
	}
	if name == "black" {
		return 0, true
	}
	return 1, true
}

// checkColour refuses a GTP colour that is not the side to move.
func (s *Session) checkColour(word string) error {
	p, ok := s.colour(word)
	if !ok {
		names := s.pos.Info().PlayerNames
		return fmt.Errorf("%q is not a colour of %s: %s, %s (or GTP's black and white)", word, s.pos.Info().Name, names[0], names[1])
	}
	if s.pos.Over() {
		return fmt.Errorf("the game is over (%s)", s.pos.Result())
	}
	if name := s.pos.Info().PlayerNames[p]; s.pos.ToMove() != name {
		return fmt.Errorf("%s is not to move: %s is (%s is %s)", word, s.pos.ToMove(), word, name)
	}
	return nil
}

func cmdBoardsize(s *Session, arg string) (reply, error) {
	sh := s.pos.Info().Observation
	if n, isNumber := wholeNumber(arg); isNumber && sh.Height == sh.Width && n == sh.Width {
		return ok(), nil
	}
	return fail("unacceptable size %q: %s is played on its own board (%d×%d)", arg, s.pos.Info().Name, sh.Height, sh.Width)
}

func cmdKomi(_ *Session, arg string) (reply, error) {
	if x, err := strconv.ParseFloat(arg, 64); err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return fail("komi %q is not a number", arg)
	}
	return ok(), nil
}

func cmdFinalScore(s *Session, _ string) (reply, error) {
	if !s.pos.Over() {
		return fail("the game is not over: %s is to move", s.pos.ToMove())
	}
	names := s.pos.Info().PlayerNames
	result := s.pos.Result()
	if result == "draw" {
		return one("0"), nil
	}
	winner := 0
	if result == names[1] {
		winner = 1
	}
	letter := games.Letters(names)
	margin := "R"
	if score, ok := s.pos.Score(); ok {
		margin = strconv.Itoa(abs(score[winner] - score[1-winner]))
	}
	return one(letter[winner] + "+" + margin), nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func cmdSetOption(s *Session, arg string) (reply, error) {
	key, value, _ := strings.Cut(strings.TrimSpace(arg), " ")
	if value = strings.TrimSpace(value); value == "" {
		return fail("setoption %q: want KEY VALUE (c_puct 1.25, threads 2)", arg)
	}
	sp, err := selfplay.ParseSpec(s.spec)
	if err != nil {
		return reply{}, err
	}
	spec, err := sp.WithSetting(key, value)
	if err != nil {
		return reply{}, err
	}
	return ok(), s.SetPlayer(spec, s.seed)
}

func cmdPlayer(s *Session, arg string) (reply, error) {
	if arg == "" {
		return one(s.spec), nil
	}
	return ok(), s.SetPlayer(arg, s.seed)
}

// leastSearch is the least search there is: one simulation (a tree search: the network's or
// the rollout's first look) or the first depth (alpha-beta). A search stopped before it had
// anything to answer (genmove, go, go infinite) runs it, so that a stop is always answered
// with a move.
var leastSearch = selfplay.Limits{Simulations: 1, Time: time.Nanosecond}

// analyze runs the player on the current position, within lim (zero: the spec's).
func (s *Session) analyze(lim selfplay.Limits) (selfplay.Analysis, error) {
	if s.pos.Over() {
		return selfplay.Analysis{}, fmt.Errorf("the game is over (%s)", s.pos.Result())
	}
	a, err := s.player()
	if err != nil {
		return selfplay.Analysis{}, err
	}
	an, err := a.Analyze(s.ctx, s.pos, lim, nil)
	if err != nil && s.ctx.Err() != nil && s.serveCtx.Err() == nil {
		// Stopped before the search had anything to answer.
		an, err = a.Analyze(s.serveCtx, s.pos, leastSearch, nil)
	}
	return an, err
}

// choose runs the player on the current position for genmove and reg_genmove, GTP's colour
// arg (if given) first checked against the side to move.
func (s *Session) choose(arg string) (selfplay.Analysis, error) {
	if arg != "" {
		if err := s.checkColour(arg); err != nil {
			return selfplay.Analysis{}, err
		}
	}
	lim := selfplay.Limits{}
	if t, on := s.clock.budget(s.toMovePlayer()); on {
		lim = selfplay.Limits{Simulations: math.MaxInt, Time: t}
	}
	return s.analyze(lim)
}

// toMovePlayer is the index of the player to move (0 once the game is over or at chance).
func (s *Session) toMovePlayer() int {
	if p, ok := s.colour(s.pos.ToMove()); ok {
		return p
	}
	return 0
}

func cmdGenmove(s *Session, arg string) (reply, error) {
	p, start := s.toMovePlayer(), time.Now()
	an, err := s.choose(arg)
	if err != nil {
		return reply{}, err
	}
	s.clock.used(p, time.Since(start))
	if err := s.pos.Play(an.Best()); err != nil {
		return fail("the player chose %s: %v", an.Best(), err)
	}
	return one(an.Best()), nil
}

func cmdRegGenmove(s *Session, arg string) (reply, error) {
	an, err := s.choose(arg)
	if err != nil {
		return reply{}, err
	}
	return one(an.Best()), nil
}

// wholeNumber reads decimal digits only, as player specs are read: no sign (strconv.Atoi takes
// "+5"), no space.
func wholeNumber(text string) (int, bool) {
	if text == "" || strings.TrimLeft(text, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(text)
	return n, err == nil
}

func cmdGo(s *Session, arg string) (reply, error) {
	kind, num, _ := strings.Cut(arg, " ")
	if kind == "infinite" {
		return s.goInfinite("go infinite", strings.TrimSpace(num))
	}
	n, ok := wholeNumber(strings.TrimSpace(num))
	var an selfplay.Analysis
	var err error
	switch {
	case kind != "visits" && kind != "time":
		return fail("go %q: want go visits N or go time MS (or go infinite [MS])", arg)
	case !ok || n < 1 || n > 1_000_000_000:
		return fail("go %s %q: want a whole number from 1 to 1000000000", kind, strings.TrimSpace(num))
	case kind == "visits":
		an, err = s.analyze(selfplay.Limits{Simulations: n, Untimed: true})
	default:
		// A time budget only: as many simulations as fit.
		an, err = s.analyze(selfplay.Limits{Simulations: math.MaxInt, Time: time.Duration(n) * time.Millisecond})
	}
	if err != nil {
		return reply{}, err
	}
	return many(moveLines(an)), nil
}

// moveLines are an analysis' moves as go answers them: MOVE share=S win=W, the chosen first,
// then the others the search spent anything on.
func moveLines(an selfplay.Analysis) []string {
	var lines []string
	for i, m := range an.Moves {
		if i > 0 && m.Share == 0 {
			continue
		}
		win := "-"
		if m.WinProb >= 0 {
			win = strconv.FormatFloat(m.WinProb, 'f', 3, 64)
		}
		lines = append(lines, fmt.Sprintf("%s share=%.3f win=%s", m.Move, m.Share, win))
	}
	return lines
}

// goStream is a go infinite about to start: what its search needs. exec returns it as an
// error, for Serve to stream.
type goStream struct {
	agent    games.Agent
	pos      *games.Position
	interval time.Duration
	// grows tells that the player's search goes on from one interval to the next (a tree
	// search); other players answer once, and the stream then waits for stop.
	grows bool
	// moves tells that each info line is followed by a line per move (analyze).
	moves bool
}

func (*goStream) Error() string {
	return "go infinite streams its answer: it needs a session reading its input"
}

// goInfinite checks a go infinite (the game going on, the player made, the interval) and
// returns it for Serve to stream.
func (s *Session) goInfinite(cmd, num string) (reply, error) {
	interval := DefaultInterval
	if num != "" {
		n, ok := wholeNumber(num)
		if !ok || n < 10 || n > 3_600_000 {
			return fail("%s %q: want the milliseconds between info lines, a whole number from 10 to 3600000", cmd, num)
		}
		interval = time.Duration(n) * time.Millisecond
	}
	if s.pos.Over() {
		return fail("the game is over (%s)", s.pos.Result())
	}
	a, err := s.player()
	if err != nil {
		return reply{}, err
	}
	sp, err := selfplay.ParseSpec(s.spec)
	grows := err == nil && sp.KindInfo().Searches
	return reply{}, &goStream{agent: a, pos: s.pos, interval: interval, grows: grows}
}

// stream runs a go infinite: it searches in slices of the interval, writing an info line
// after each, until ctx ends; then the moves of the last analysis and the empty line that end
// the reply. A player that does not search on (random, alpha-beta), a chance decision or a
// search that adds nothing (a proven root, a full tree) answers once and waits for the end.
// Stopped before it had anything to answer (the next line already waiting, or alpha-beta
// before its first depth), it runs the least search there is within serve (the session's own
// context), as a stopped genmove does, so that every stopped stream gives an info line and
// its moves; only serve's end leaves it without.
func (g *goStream) stream(serve, ctx context.Context, w *bufio.Writer) {
	var last selfplay.Analysis
	work, infos := 0, 0
	var failed error
	start := time.Now()
	info := func(an selfplay.Analysis) {
		value, win := "-", "-"
		if !an.NoValue {
			value, win = strconv.FormatFloat(an.Value, 'f', 3, 64), strconv.FormatFloat((an.Value+1)/2, 'f', 3, 64)
		}
		if g.moves {
			el := time.Since(start).Seconds()
			fmt.Fprintf(w, "info time %.3f visits %d nps %.0f value %s win %s pv %s\n", el, work, float64(work)/max(el, 1e-9), value, win, strings.Join(an.PV, ";"))
			analysisLines(w, an)
		} else {
			fmt.Fprintf(w, "info visits %d value %s win %s pv %s\n", work, value, win, strings.Join(an.PV, ";"))
		}
		w.Flush()
		infos++
	}
	// A search that grows runs in slices of the interval; any other player (alpha-beta) once,
	// with its spec's own limits, since the interval only spaces the info lines.
	lim := selfplay.Limits{}
	if g.grows {
		lim = selfplay.Limits{Simulations: math.MaxInt, Time: g.interval}
	}
	for {
		an, err := g.agent.Analyze(ctx, g.pos, lim, nil)
		if err != nil {
			if ctx.Err() == nil {
				failed = err
			}
			break
		}
		work += an.Work
		last = an
		stopped := ctx.Err() != nil
		if stopped && infos > 0 {
			break // the last info line stands for this cut slice
		}
		info(an)
		if stopped {
			break
		}
		if !g.grows || an.Work == 0 {
			<-ctx.Done()
			break
		}
	}
	if failed == nil && len(last.Moves) == 0 && serve.Err() == nil {
		an, err := g.agent.Analyze(serve, g.pos, leastSearch, nil)
		if err != nil {
			failed = err
		} else {
			work += an.Work
			last = an
			info(an)
		}
	}
	if failed != nil {
		fmt.Fprintf(w, "info error %s\n", oneLine(failed.Error()))
	}
	for _, l := range moveLines(last) {
		fmt.Fprintln(w, l)
	}
	w.WriteByte('\n')
	w.Flush()
}

// analysisLines writes analyze's line per move: the chosen first, then the others with
// visits (all of them for a player that does not search), each
//
//	move order K visits N prior P win W lcb L pv MOVES
//
// with - for what the player does not know (prior, win, lcb).
func analysisLines(w io.Writer, an selfplay.Analysis) {
	num := func(x float64) string {
		if x < 0 {
			return "-"
		}
		return strconv.FormatFloat(x, 'f', 3, 64)
	}
	for k, m := range an.Moves {
		if k > 0 && m.Visits == 0 && !m.Proven {
			continue
		}
		pv := m.PV
		if len(pv) == 0 {
			pv = []string{m.Move}
		}
		fmt.Fprintf(w, "move order %d visits %d prior %s win %s lcb %s pv %s\n", k, m.Visits, num(m.Prior), num(m.WinProb), num(m.LCB()), strings.Join(pv, ";"))
	}
}

func cmdAnalyze(s *Session, arg string) (reply, error) {
	r, err := s.goInfinite("analyze", strings.TrimSpace(arg))
	if g, isStream := err.(*goStream); isStream {
		g.moves = true
	}
	return r, err
}

func help() (reply, error) {
	nameWidth, argsWidth := 0, 0
	for _, c := range commands {
		nameWidth, argsWidth = max(nameWidth, len(c.name)), max(argsWidth, len(c.args))
	}
	var lines []string
	for _, c := range commands {
		lines = append(lines, fmt.Sprintf("%-*s  %-*s  %s", nameWidth, c.name, argsWidth, c.args, c.help))
	}
	return many(lines), nil
}

func listCommands() (reply, error) {
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	return many(names), nil
}

func knownCommand(name string) (reply, error) {
	for _, c := range commands {
		if c.name == name {
			return one("true"), nil
		}
	}
	return one("false"), nil
}

// Serve reads commands from in and writes replies to out until `quit`, the end of the input or
// the context's end (which it notices even while waiting for input).
func (s *Session) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	s.serveCtx, s.ctx = ctx, ctx
	defer func() { s.serveCtx, s.ctx = context.Background(), context.Background() }()
	done := make(chan struct{})
	defer close(done)
	lines := lineread.Lines(in, done)
	w := bufio.NewWriter(out)
	// A go infinite under way writes to w until stopped; nothing else writes meanwhile.
	var streaming func()
	stop := func() {
		if streaming != nil {
			streaming()
			streaming = nil
		}
	}
	defer stop()
	// Lines read while a genmove or go searched, to run after it.
	var queue []inputLine
	for {
		var l inputLine
		if len(queue) > 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			l, queue = queue[0], queue[1:]
		} else {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case l = <-lines:
			}
		}
		if t := strings.TrimSpace(l.Text); t != "" && t[0] != '#' || l.Err != nil {
			stop() // any command, or the end of the input, ends a go infinite
		} else if streaming != nil {
			continue // a blank line or comment neither stops it nor writes beside it
		}
		var text string
		quit := false
		var gs *goStream
		switch {
		case errors.Is(l.Err, lineread.ErrLong):
			text = fmt.Sprintf("? line too long (the limit is %d bytes)\n\n", lineread.Max)
		case l.Err != nil && !errors.Is(l.Err, io.EOF):
			// A read error: what came of the line before it may be cut short, and is not run.
			return fmt.Errorf("reading the input: %w", l.Err)
		case l.Err != nil && l.Text == "":
			return nil // the end of the input
		case searches(l.Text):
			// A stop that comes meanwhile ends the search, which answers with what it has;
			// the stop, and any other line, is then run in turn. Only the stop that is the
			// next command after the search ends it: one sent after other commands is
			// theirs, and waits its turn (genmove, go infinite, stop: the stop ends the go
			// infinite, not the genmove).
			sctx, cancel := context.WithCancel(ctx)
			s.ctx = sctx
			if stopIsNext(queue) {
				cancel()
			}
			type answer struct {
				text string
				quit bool
			}
			done := make(chan answer, 1)
			go func() {
				text, quit, _ := s.handle(l.Text, true)
				done <- answer{text, quit}
			}()
			in := lines
			for waiting := true; waiting; {
				select {
				case a := <-done:
					text, quit, waiting = a.text, a.quit, false
				case next := <-in:
					queue = append(queue, next)
					if stopIsNext(queue) {
						cancel()
					}
					if next.Err != nil && !errors.Is(next.Err, lineread.ErrLong) {
						in = nil // the input ended: nothing more to read
					}
				}
			}
			cancel()
			s.ctx = ctx
		default:
			text, quit, gs = s.handle(l.Text, true)
		}
		w.WriteString(text)
		if err := w.Flush(); err != nil {
			return err
		}
		if gs != nil {
			sctx, cancel := context.WithCancel(ctx)
			done := make(chan struct{})
			go func() {
				defer close(done)
				gs.stream(ctx, sctx, w)
			}()
			streaming = func() { cancel(); <-done }
		}
		if quit || (l.Err != nil && !errors.Is(l.Err, lineread.ErrLong)) {
			return nil // quit, or the input ended with this line
		}
	}
}

// inputLine is a line as read (lineread.Lines).
type inputLine = lineread.Line

// parseLine splits a command line into its id, command name and argument; blank tells a
// line with no command (empty, or a comment).
func parseLine(line string) (blank bool, id, name, arg string) {
	// Runs of spaces and tabs separate as one space does (GTP's framing): "play place  f6".
	line = strings.Join(strings.FieldsFunc(strings.TrimSpace(line), func(r rune) bool { return r == ' ' || r == '\t' }), " ")
	if line == "" || line[0] == '#' {
		return true, "", "", ""
	}
	id, rest := splitID(line)
	name, arg, _ = strings.Cut(rest, " ")
	return false, id, name, strings.TrimSpace(arg)
}

// searches tells whether a line is a command that searches and answers once, genmove,
// reg_genmove or go (visits or time): a stop ends it early.
func searches(line string) bool {
	_, _, name, arg := parseLine(line)
	return name == "genmove" || name == "reg_genmove" || name == "go" && !strings.HasPrefix(arg, "infinite")
}

// stopIsNext tells whether the first command among lines (blank lines and comments skipped)
// is a stop.
func stopIsNext(lines []inputLine) bool {
	for _, l := range lines {
		long := errors.Is(l.Err, lineread.ErrLong) // a refused line is answered, as a command
		if blank, _, _, _ := parseLine(l.Text); blank && !long {
			continue
		}
		return !long && isStop(l.Text)
	}
	return false
}

// isStop tells whether a line is the stop command.
func isStop(line string) bool {
	_, _, name, arg := parseLine(line)
	return name == "stop" && arg == ""
}

// Exec runs one command line and returns the framed reply, as Serve would write it; a go
// infinite, which streams, is refused.
func (s *Session) Exec(line string) string {
	text, _, _ := s.handle(line, false)
	return text
}

// handle runs one line and returns its framed reply ("" for a blank or comment line) and
// whether it was quit. A go infinite, if streaming is allowed, returns only the reply's first
// line and the stream to run.
func (s *Session) handle(line string, streaming bool) (string, bool, *goStream) {
	blank, id, name, arg := parseLine(line)
	if blank {
		return "", false, nil
	}
	var r reply
	var err error
	if name == "" {
		r, err = fail("no command after the id %s", id)
	} else {
		r, err = s.exec(name, arg)
	}
	quit := errors.Is(err, errQuit)
	if quit {
		err = nil
	}
	var gs *goStream
	if errors.As(err, &gs) && streaming {
		return "=" + id + "\n", false, gs
	}
	var sb strings.Builder
	w := bufio.NewWriter(&sb)
	writeReply(w, id, r, err)
	w.Flush()
	return sb.String(), quit, nil
}

func (s *Session) exec(name, arg string) (reply, error) {
	for _, c := range commands {
		if c.name != name {
			continue
		}
		switch {
		case c.takes == noArg && arg != "":
			return fail("%s takes no argument (got %q)", name, arg)
		case c.takes == needsArg && arg == "":
			return fail("%s needs %s", name, c.args)
		case name == "help":
			return help()
		case name == "list_commands":
			return listCommands()
		case name == "known_command":
			return knownCommand(arg)
		}
		return c.run(s, arg)
	}
	return fail("unknown command %q (try help)", name)
}

// splitID splits a leading numeric id off a command line.
func splitID(line string) (id, rest string) {
	i := 0
	for i < len(line) && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	if i == 0 || (i < len(line) && line[i] != ' ') {
		return "", line
	}
	return line[:i], strings.TrimSpace(line[i:])
}

// oneLine makes a message one line: its line ends (and carriage returns, which a terminal
// would show as one) become spaces.
func oneLine(msg string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(msg)
}

func writeReply(w *bufio.Writer, id string, r reply, err error) {
	if err != nil {
		// An error is one line: newlines inside it would end the reply early.
		msg := oneLine(err.Error())
		fmt.Fprintf(w, "?%s %s\n\n", id, msg)
		return
	}
	switch {
	case r.isList:
		fmt.Fprintf(w, "=%s\n", id)
		for _, l := range r.list {
			if l == "" {
				l = " " // an empty line would end the reply
			}
			fmt.Fprintln(w, l)
		}
	case r.line != "":
		fmt.Fprintf(w, "=%s %s\n", id, r.line)
	default:
		fmt.Fprintf(w, "=%s\n", id)
	}
	w.WriteByte('\n')
}
