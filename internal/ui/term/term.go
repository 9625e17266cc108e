// Package term is `zero play`: a game against the agent in the terminal.
//
// The board is drawn by the game's ui.Board after every change; the person types moves in the
// game's notation (or shortened, see ui.Match.Expand) and commands. A mistyped or illegal
// move gets a message saying why and a new prompt; nothing a person types ends the program
// but quit, the end of input, or an interrupt. While the agent thinks, a spinner shows the
// simulations done. A finished game is saved as a game record (selfplay.Record), which --load replays; --load
// also takes a game of an arena's games.jsonl (games.jsonl#N).
//
// Input is read on its own goroutine, so an interrupt is seen at once; the game so
// far is saved on Ctrl-C, even while the agent thinks (--record, by default
// games/zero-GAME-DATE-TIME.json). Tests drive Play from tables with scripted
// input and agent, and run zero play once through a pseudo-terminal (creack/pty).
package term

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/zerogames/zero/internal/games"
	"github.com/zerogames/zero/internal/lineread"
	"github.com/zerogames/zero/internal/ui"
	"github.com/zerogames/zero/selfplay"
)

// Config is what `zero play` was asked for.
type Config struct {
	Game     string // the game's registry name
	Opponent string // the agent's spec; "" for ui.DefaultSpec (the game's model, else uct:1000)
	// Models is a folder of models whose GAME.zck is the default opponent's before the
	// shipped one ("" for none: the shipped models alone).
	Models string
	Side   string // the person's side: a player name or "random"
	Load   string // a record to replay and go on from ("" for none)
	// Record is where the game is saved when it ends, on Ctrl-C or at the end of the input (""
	// not to save it); its folder is made if need be. After new, the next game goes to
	// FILE-2.json, and so on.
	Record string
	Seed   uint64
	// Spinner receives the spinner while the agent thinks (a terminal); nil shows none.
	Spinner io.Writer
	// NewMatch, if set, replaces ui.NewMatch (tests use it to give the match a scripted agent).
	NewMatch func(game, opponent, side string, seed uint64) (*ui.Match, error)
}

// session is one `zero play`: the match and the terminal it talks to.
type session struct {
	cfg   Config
	m     *ui.Match
	board ui.Board
	out   io.Writer
	// kept is the game as last written to cfg.Record, or as loaded (Record.key): a game is
	// written again only when it differs.
	kept string
	// games counts the games written to cfg.Record's name, wrote whether the current one
	// was: after new, the next game goes to a name of its own (FILE-2.json, …).
	games int
	wrote bool
}

// errQuit ends the session.
var errQuit = errors.New("quit")

// Play runs a game in the terminal until quit, the end of in, or ctx is done.
func Play(ctx context.Context, cfg Config, in io.Reader, out io.Writer) error {
	newMatch := cfg.NewMatch
	if newMatch == nil {
		newMatch = ui.NewMatch
	}
	given := cfg.Opponent != "" // by the person (--opponent): never replaced by another
	var rec *selfplay.Record
	if cfg.Load != "" {
		r, err := games.LoadRecord(cfg.Load)
		if err != nil {
			return err
		}
		rec = &r
		cfg.Game = r.Game
		if cfg.Side == "" { // the side the person played in the record, if one did
			for side, who := range r.Players {
				if who == ui.Human {
					cfg.Side = r.Sides[side]
				}
			}
		}
		if cfg.Opponent == "" {
			// The record's agent plays on, if it was one (not a person, nor a training
			// run's self-play).
			for _, who := range r.Players {
				if _, err := selfplay.ParseSpec(who); err == nil && who != ui.Human {
					cfg.Opponent = who
				}
			}
		}
	}
	if cfg.Side == "" {
		g, err := games.Lookup(cfg.Game)
		if err != nil {
			return err
		}
		cfg.Side = g.Info().PlayerNames[0]
	}
	byDefault := cfg.Opponent == ""
	if byDefault && cfg.Models != "" {
		cfg.Opponent = ui.DefaultSpec(cfg.Models, cfg.Game)
	}
	m, err := newMatch(cfg.Game, cfg.Opponent, cfg.Side, cfg.Seed)
	if err != nil && !given && cfg.Opponent != "" {
		// The record's agent may not exist here (another build, a missing model), or the
		// model of --models does not load: play on against the default.
		fmt.Fprintf(out, "cannot play %s here (%v); playing the default opponent\n", cfg.Opponent, err)
		m, err = newMatch(cfg.Game, "", cfg.Side, cfg.Seed)
	}
	if err != nil {
		return err
	}
	s := &session{cfg: cfg, m: m, board: ui.BoardFor(cfg.Game), out: out}
	in2 := lineread.Lines(in, ctx.Done()) // on its own goroutine: an interrupt is seen while the session waits for input
	names := m.Game.Info().PlayerNames
	fmt.Fprintf(out, "%s: you play %s against %s. Type a move, ? for the legal moves, help for the commands.\n",
		m.Game.Info().Name, names[m.HumanSide()], m.Agent().Spec())
	if rec != nil {
		if err := s.load(*rec, cfg.Load); err != nil {
			return err
		}
	}
	return s.loop(ctx, in2)
}

func (s *session) loop(ctx context.Context, in <-chan lineread.Line) error {
	show := true
	for {
		if s.m.AgentToMove() {
			if err := s.agentTurn(ctx); err != nil {
				if ctx.Err() != nil {
					return s.interrupted()
				}
				return err
			}
			show = true
			continue
		}
		if show {
			s.show()
			show = false
		}
		s.prompt()
		var line lineread.Line
		var ok bool
		select {
		case <-ctx.Done():
			return s.interrupted()
		case line, ok = <-in:
		}
		switch {
		case !ok || errors.Is(line.Err, io.EOF) && strings.TrimSpace(line.Text) == "":
			return s.stop("end of the input")
		case errors.Is(line.Err, lineread.ErrLong):
			fmt.Fprintf(s.out, "? line too long (the limit is %d bytes): nothing was done\n", lineread.Max)
			continue
		case line.Err != nil && !errors.Is(line.Err, io.EOF):
			fmt.Fprintln(s.out)
			return fmt.Errorf("reading the input: %w", line.Err)
		}
		changed, err := s.do(ctx, strings.TrimSpace(line.Text))
		switch {
		case errors.Is(err, errQuit):
			return nil
		case ctx.Err() != nil:
			return s.interrupted()
		case err != nil:
			fmt.Fprintln(s.out, "?", err)
		}
		show = changed
	}
}

// interrupted ends the session on Ctrl-C, at the prompt or while the agent thinks: the game
// so far is saved first, as a finished one is (the agent's decisions already made included).
func (s *session) interrupted() error { return s.stop("interrupted") }

// stop ends the session other than by quit (Ctrl-C, the end of the input), saying why: the
// game so far is saved first, unless it has no move or is saved already.
func (s *session) stop(why string) error {
	fmt.Fprintln(s.out, "\n"+why)
	if len(s.m.Pos.Moves()) == 0 {
		return nil
	}
	path, err := s.keep()
	switch {
	case err != nil:
		fmt.Fprintln(s.out, "? saving the game:", err)
	case path != "":
		fmt.Fprintf(s.out, "The game so far is saved in %s (zero play --load %s goes on from it).\n", path, path)
	}
	return nil
}

// key tells games apart for saving: the moves, the result and who resigned.
func (s *session) key() string {
	r := s.m.Record()
	return r.Result + "|" + r.Resigned + "|" + r.MoveList()
}

// keep writes the game to cfg.Record (its folder made if need be) unless it is there already
// or not to be saved, and says where it went ("" for nowhere).
func (s *session) keep() (string, error) {
	if s.cfg.Record == "" || s.key() == s.kept {
		return "", nil
	}
	path := s.cfg.Record
	if s.games > 0 {
		ext := filepath.Ext(path)
		path = fmt.Sprintf("%s-%d%s", strings.TrimSuffix(path, ext), s.games+1, ext)
	}
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
	}
	if err := games.SaveRecord(path, s.m.Record()); err != nil {
		return "", err
	}
	s.kept, s.wrote = s.key(), true
	return path, nil
}

func (s *session) prompt() {
	names := s.m.Game.Info().PlayerNames
	if s.m.Over() {
		fmt.Fprint(s.out, "(game over)> ")
		return
	}
	fmt.Fprintf(s.out, "%s> ", names[s.m.HumanSide()])
}

// show draws the board, the last decisions and, at the end, the result (saving the game).
func (s *session) show() {
	fmt.Fprintln(s.out)
	fmt.Fprintln(s.out, s.board.Text(s.m.Pos))
	moves := s.m.Pos.Moves()
	if n := len(moves); n > 0 {
		fmt.Fprintf(s.out, "move %d was %s\n", n, moves[n-1])
	}
	if !s.m.Over() {
		return
	}
	names := s.m.Game.Info().PlayerNames
	switch r := s.m.Result(); {
	case s.m.Resigned >= 0:
		fmt.Fprintf(s.out, "%s resigned: %s wins.\n", names[s.m.Resigned], r)
	case r == "draw":
		fmt.Fprintln(s.out, "The game is a draw.")
	case r == names[s.m.HumanSide()]:
		fmt.Fprintf(s.out, "You win (%s).\n", r)
	default:
		fmt.Fprintf(s.out, "%s wins.\n", r)
	}
	if path, err := s.keep(); err != nil {
		fmt.Fprintln(s.out, "? saving the game:", err)
	} else if path != "" {
		fmt.Fprintf(s.out, "The game is saved in %s (zero play --load %s replays it).\n", path, path)
	}
	fmt.Fprintln(s.out, "undo takes moves back, new starts again, quit leaves.")
}

// command is one of the commands a person can type instead of a move.
type command struct {
	name, args, help string
	// do runs the command and tells whether the position changed (to draw the board again).
	do func(s *session, ctx context.Context, arg string) (bool, error)
}

var commands = []command{
	{"?", "", "list the legal moves", (*session).legal},
	{"hint", "", "the agent's top moves, with visit share and win probability", (*session).hint},
	{"undo", "", "take back your last move (and the agent's reply)", func(s *session, _ context.Context, _ string) (bool, error) {
		err := s.m.Undo()
		return err == nil, err
	}},
	{"save", "FILE", "save the game as a record (SGF if FILE ends in .sgf, else zero's JSON)", (*session).save},
	{"load", "FILE", "load a record and go on from its last move", func(s *session, _ context.Context, arg string) (bool, error) {
		if arg == "" {
			return false, errors.New("load what? load FILE")
		}
		r, err := games.LoadRecord(arg)
		if err != nil {
			return false, err
		}
		return true, s.load(r, arg)
	}},
	{"resign", "", "give up this game", func(s *session, _ context.Context, _ string) (bool, error) { return true, s.m.Resign() }},
	{"new", "", "start a new game", func(s *session, _ context.Context, _ string) (bool, error) {
		if s.wrote {
			s.games++ // the game before keeps its file
		}
		s.m.Resigned = -1
		s.m.Pos.Reset()
		s.kept, s.wrote = "", false
		return true, nil
	}},
	{"board", "", "draw the board again", func(*session, context.Context, string) (bool, error) { return true, nil }},
	{"coords", "", "draw the board with each empty point named (YINSH; the other boards name their rows and columns at the edges)", func(s *session, _ context.Context, _ string) (bool, error) {
		c, ok := s.board.(ui.Coords)
		if !ok {
			return true, nil
		}
		fmt.Fprintln(s.out, c.TextCoords(s.m.Pos))
		return false, nil
	}},
	{"moves", "", "the moves played, numbered", func(s *session, _ context.Context, _ string) (bool, error) {
		s.listMoves()
		return false, nil
	}},
	{"help", "", "this list", nil}, // answered by do: the table cannot refer to itself
	{"quit", "", "leave (an unfinished game is not saved: save FILE first; Ctrl-C and the end of the input save it)", func(*session, context.Context, string) (bool, error) { return false, errQuit }},
}

// do runs one line: a command, or else a move.
func (s *session) do(ctx context.Context, line string) (bool, error) {
	if line == "" {
		return false, nil
	}
	name, arg, _ := strings.Cut(line, " ")
	arg = strings.TrimSpace(arg)
	switch name {
	case "legal":
		name = "?"
	case "exit":
		name = "quit"
	}
	for _, c := range commands {
		if c.name != name {
			continue
		}
		if c.args == "" && arg != "" {
			// "undo 2" or "new game" must not do something else than was meant.
			return false, fmt.Errorf("%s takes no argument (%q given); help lists the commands", name, arg)
		}
		if name == "help" {
			s.help()
			return false, nil
		}
		return c.do(s, ctx, arg)
	}
	if s.m.Over() {
		return false, errors.New("the game is over: undo to take moves back, new to start again, or quit")
	}
	if err := s.m.Play(line); err != nil {
		return false, fmt.Errorf("%w (? lists the legal moves, help the commands)", err)
	}
	return true, nil
}

func (s *session) help() {
	fmt.Fprintln(s.out, "Type a move in the game's notation (as ? lists them), or a command:")
	for _, c := range commands {
		fmt.Fprintf(s.out, "  %-11s %s\n", strings.TrimSpace(c.name+" "+c.args), c.help)
	}
}

// legal lists the legal moves in the board's groups.
func (s *session) legal(context.Context, string) (bool, error) {
	if s.m.Over() {
		return false, ui.ErrGameOver
	}
	groups := s.board.Group(s.m.Pos)
	width := 0
	for _, g := range groups {
		width = max(width, len(g.Label))
	}
	n := len(s.m.Pos.Legal())
	fmt.Fprintf(s.out, "%d legal move%s:\n", n, plural(n))
	for _, g := range groups {
		prefix := fmt.Sprintf("  %-*s ", width, g.Label)
		if len(g.Items) == 0 {
			fmt.Fprintln(s.out, strings.TrimRight(prefix, " "))
			continue
		}
		fmt.Fprintln(s.out, wrap(prefix, g.Items, 78))
	}
	// The groups shorten the moves; an example says how one is typed.
	if legal := s.m.Pos.Legal(); len(legal) > 0 {
		example := legal[0]
		if _, rest, ok := strings.Cut(example, " "); ok && s.m.Expand(rest) == example {
			fmt.Fprintf(s.out, "(type a move as %q, or just %q)\n", example, rest)
		} else {
			fmt.Fprintf(s.out, "(type a move as %q)\n", example)
		}
	}
	return false, nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// wrap lays the words out after prefix in lines of at most width bytes, continuation lines
// indented under the first word.
func wrap(prefix string, words []string, width int) string {
	var sb strings.Builder
	sb.WriteString(prefix)
	n := len(prefix)
	for i, w := range words {
		switch {
		case i > 0 && n+1+len(w) > width:
			sb.WriteString("\n" + strings.Repeat(" ", len(prefix)))
			n = len(prefix)
		case i > 0:
			sb.WriteByte(' ')
			n++
		}
		sb.WriteString(w)
		n += len(w)
	}
	return sb.String()
}

// hint shows the agent's analysis of the position.
func (s *session) hint(ctx context.Context, _ string) (bool, error) {
	an, err := s.think(ctx, "thinking", s.m.Hint)
	if err != nil {
		return false, err
	}
	spec := s.m.Agent().Spec()
	var kind selfplay.Kind // an agent of no spec (tests' scripted ones) counts simulations
	if sp, err := selfplay.ParseSpec(spec); err == nil {
		kind = sp.KindInfo()
	}
	switch {
	case kind.Draws:
		// It does not search: its pick is all it has to say.
		fmt.Fprintf(s.out, "%s draws a legal move, without searching; it would play %s\n", spec, an.Best())
		return false, nil
	case kind.Depth:
		fmt.Fprintf(s.out, "%s's view after %d positions searched", spec, an.Work)
	default:
		fmt.Fprintf(s.out, "%s's view after %d simulations", spec, an.Work)
	}
	if !an.NoValue {
		fmt.Fprintf(s.out, " (value %+.2f for %s)", an.ChoiceValue(), s.m.Pos.ToMove())
	}
	fmt.Fprintln(s.out, ":")
	for i, ms := range an.Moves {
		if i == 5 {
			break
		}
		win := "  ?"
		if ms.WinProb >= 0 {
			win = fmt.Sprintf("%3.0f%%", 100*ms.WinProb)
		}
		fmt.Fprintf(s.out, "  %-16s visits %5.1f%%   wins %s\n", ms.Move, 100*ms.Share, win)
	}
	return false, nil
}

// think runs f (an agent's search) with a spinner showing its progress.
func (s *session) think(ctx context.Context, what string, f func(context.Context, func(int, int)) (selfplay.Analysis, error)) (selfplay.Analysis, error) {
	if s.cfg.Spinner == nil {
		return f(ctx, nil)
	}
	bar := progressbar.NewOptions(-1, progressbar.OptionSetWriter(s.cfg.Spinner),
		progressbar.OptionSpinnerType(14), progressbar.OptionSetDescription(what),
		progressbar.OptionSetRenderBlankState(true), progressbar.OptionClearOnFinish(),
		progressbar.OptionThrottle(65*time.Millisecond))
	var mu sync.Mutex
	progress := func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		if total > 0 {
			bar.Describe(fmt.Sprintf("%s: %d/%d simulations", what, done, total))
		} else { // a search for a time
			bar.Describe(fmt.Sprintf("%s: %d simulations", what, done))
		}
		bar.Set(done)
	}
	an, err := f(ctx, progress)
	mu.Lock()
	bar.RenderBlank() // the last progress, which the throttle may have held back
	bar.Finish()
	mu.Unlock()
	return an, err
}

func (s *session) agentTurn(ctx context.Context) error {
	who := s.m.Pos.ToMove()
	var played []string
	_, err := s.think(ctx, who+" thinks", func(ctx context.Context, progress func(int, int)) (selfplay.Analysis, error) {
		var an selfplay.Analysis
		var err error
		played, an, err = s.m.AgentTurn(ctx, progress)
		return an, err
	})
	if len(played) > 0 {
		fmt.Fprintf(s.out, "%s (%s) plays %s\n", who, s.m.Agent().Spec(), strings.Join(played, ", then "))
	}
	return err
}

func (s *session) save(_ context.Context, arg string) (bool, error) {
	if arg == "" {
		return false, errors.New("save where? save FILE")
	}
	if err := games.SaveRecord(arg, s.m.Record()); err != nil {
		return false, err
	}
	fmt.Fprintf(s.out, "saved %d moves in %s\n", len(s.m.Pos.Moves()), arg)
	return false, nil
}

// load replays a record (already checked) and goes on from its last move.
func (s *session) load(r selfplay.Record, path string) error {
	if err := s.m.Load(r); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	s.kept = s.key() // it is on disk already
	fmt.Fprintf(s.out, "loaded %s: %s, %d moves, result %s\n", path, r.Game, len(r.Moves), r.Result)
	s.listMoves()
	return nil
}

// listMoves prints the moves played, numbered.
func (s *session) listMoves() {
	moves := s.m.Pos.Moves()
	items := make([]string, len(moves))
	for i, m := range moves {
		items[i] = fmt.Sprintf("%d. %s;", i+1, m)
	}
	if len(items) == 0 {
		fmt.Fprintln(s.out, "no moves yet")
		return
	}
	fmt.Fprintln(s.out, wrap("", items, 78))
}
