// Package engine serves the `zero engine` line protocol: scripts, GUIs and other engines drive
// any game through it. The protocol is a public interface, documented in docs/ENGINE.md; keep
// it backward compatible.
//
// Framing is GTP's: one command per line; a reply starts with "=" (success) or "? message"
// (error) and ends with an empty line. A one-line answer follows "= " on the same line; a list
// (legal, show, help) starts on the line after "=", one item per line. A command may start with
// a numeric id, which the reply repeats ("=7 white"). Empty lines and lines starting with '#'
// are ignored. An error never changes the game.
package engine

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/zerogames/zero/internal/games"
)

// Version is what the `version` command answers.
const Version = "0.1"

// errQuit ends the session after the reply to `quit`.
var errQuit = errors.New("quit")

// Session is one engine: the game being played and its history.
type Session struct {
	pos *games.Position
}

// NewSession starts a session on a game.
func NewSession(game string) (*Session, error) {
	g, err := games.Lookup(game)
	if err != nil {
		return nil, err
	}
	return &Session{pos: g.NewPosition()}, nil
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

type command struct {
	name, args, help string
	run              func(s *Session, arg string) (reply, error)
}

// commands is the protocol; `help` lists it (exec answers `help` itself, since the table
// cannot refer to itself).
var commands = []command{
	{"game", "[NAME]", "switch to a game and start it; without NAME, the current game's name", cmdGame},
	{"new", "", "start the current game again", func(s *Session, _ string) (reply, error) { s.pos.Reset(); return ok(), nil }},
	{"play", "MOVE", "play a move in the game's notation (refused if illegal)", cmdPlay},
	{"legal", "", "the legal moves, one per line, sorted byte-wise", func(s *Session, _ string) (reply, error) { return many(s.pos.Legal()), nil }},
	{"tomove", "", "who decides next: a player, chance, or none", func(s *Session, _ string) (reply, error) { return one(s.pos.ToMove()), nil }},
	{"result", "", "none while the game goes on, else the winner or draw", func(s *Session, _ string) (reply, error) { return one(s.pos.Result()), nil }},
	{"show", "", "the board as text", func(s *Session, _ string) (reply, error) { return manyText(s.pos.Show()), nil }},
	{"moves", "", "the moves played from the start, separated by ';'", func(s *Session, _ string) (reply, error) {
		return one(strings.Join(s.pos.Moves(), ";")), nil
	}},
	{"undo", "", "take back the last decision", func(s *Session, _ string) (reply, error) { return ok(), s.pos.Undo() }},
	{"name", "", "the engine's name", func(*Session, string) (reply, error) { return one("zero"), nil }},
	{"version", "", "the engine's version", func(*Session, string) (reply, error) { return one(Version), nil }},
	{"help", "", "the commands", nil},
	{"quit", "", "end the session", func(*Session, string) (reply, error) { return ok(), errQuit }},
}

func cmdGame(s *Session, arg string) (reply, error) {
	if arg == "" {
		return one(s.pos.Info().Name), nil
	}
	g, err := games.Lookup(arg)
	if err != nil {
		return reply{}, err
	}
	s.pos = g.NewPosition()
	return ok(), nil
}

func cmdPlay(s *Session, arg string) (reply, error) {
	if arg == "" {
		return fail("play needs a move")
	}
	if s.pos.Over() {
		return fail("the game is over (%s)", s.pos.Result())
	}
	return ok(), s.pos.Play(arg)
}

func help() (reply, error) {
	var lines []string
	for _, c := range commands {
		lines = append(lines, strings.TrimSpace(fmt.Sprintf("%-8s %-6s %s", c.name, c.args, c.help)))
	}
	return many(lines), nil
}

// Serve reads commands from in and writes replies to out until `quit`, the end of the input or
// the context's end.
func (s *Session) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	w := bufio.NewWriter(out)
	for sc.Scan() {
		if err := ctx.Err(); err != nil {
			return err
		}
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		id, rest := splitID(line)
		name, arg, _ := strings.Cut(rest, " ")
		r, err := s.exec(name, strings.TrimSpace(arg))
		quit := errors.Is(err, errQuit)
		if quit {
			err = nil
		}
		writeReply(w, id, r, err)
		if err := w.Flush(); err != nil {
			return err
		}
		if quit {
			return nil
		}
	}
	return sc.Err()
}

// Exec runs one command line and returns the framed reply, as Serve would write it.
func (s *Session) Exec(line string) string {
	var sb strings.Builder
	w := bufio.NewWriter(&sb)
	id, rest := splitID(strings.TrimSpace(line))
	name, arg, _ := strings.Cut(rest, " ")
	r, err := s.exec(name, strings.TrimSpace(arg))
	if errors.Is(err, errQuit) {
		err = nil
	}
	writeReply(w, id, r, err)
	w.Flush()
	return sb.String()
}

func (s *Session) exec(name, arg string) (reply, error) {
	if name == "help" {
		return help()
	}
	for _, c := range commands {
		if c.name == name {
			return c.run(s, arg)
		}
	}
	return fail("unknown command %q (try help)", name)
}

func splitID(line string) (id, rest string) {
	i := 0
	for i < len(line) && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	if i == 0 || (i < len(line) && line[i] != ' ') {
		return "", line
	}
	if _, err := strconv.Atoi(line[:i]); err != nil {
		return "", line
	}
	return line[:i], strings.TrimSpace(line[i:])
}

func writeReply(w *bufio.Writer, id string, r reply, err error) {
	if err != nil {
		// An error is one line: newlines inside it would end the reply early.
		msg := strings.ReplaceAll(err.Error(), "\n", " ")
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
