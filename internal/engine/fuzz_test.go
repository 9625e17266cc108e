package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zerogames/zero/selfplay"
)

// The engine under hostile input (issue 48): whatever the lines, every command line gets one
// reply framed as docs/ENGINE.md says, an error changes nothing, nothing panics, and the
// engine stays usable. FuzzEngine is the native fuzz target (go test -fuzz FuzzEngine
// ./internal/engine); TestEngineMutations runs the same checks on seeded mutations of its
// corpus in every go test, in a few seconds.

// engineCorpus are sessions covering every command and the framing's cases: ids, tabs,
// comments, blank lines, \r\n ends, arguments where none are taken, every game.
var engineCorpus = []string{
	"protocol_version\nname\nversion\nlist_commands\nknown_command genmove\nknown_command frob\nhelp\n",
	"game\ngame yinsh-blitz\nplay place f6\nplay place f6\nlegal\ntomove\nresult\nscore\nshow\nmoves\nundo\nundo\nmoves\n",
	"7 tomove\n8\tplay place e5\n  9   moves  \n# a comment\n\n10\n\t\n11 legal now\n",
	"game yinsh-blitz\nposition place e2;place e4;place e5;place h8;place d4;place a5;place a2;place k7;place k10;place b7\ngenmove\ngo visits 20\ngo time 5\ngo infinite 10\nstop\ngenmove\nresult\n",
	"game gyges\nposition 202110/000330/000000/000200/000100/030123 n\ntomove\nlegal\nplayer ab:2\ngenmove\nplayer uct:30\ngo visits 30\nnew\nposition 3@c1;3@c6\nmoves\n",
	"game gyges-advanced\nplayer ab:1\ngenmove\ngenmove\ngenmove\nundo\nshow\nplayer random\ngenmove\n",
	"game imbriqua\nposition a1;b1;h8;g8;a8;b8;h1;g1;c3\ntomove\nplay card 11\nplay card 7\ntomove\nscore\nplayer ucb1:20\ngenmove\ngo visits 10\n",
	"player\nplayer uct:40\nplayer uct:0\nplayer mcts:10:none.zck\nplayer mcts:10:in_flight=1000000000:none.zck\nplayer ab:9\nplayer\r\ngo visits 0\ngo visits +5\ngo time -3\ngo infinite +500\ngo sideways\n",
	"game chess\ngame\nfrobnicate\nplay\nplay move\nposition\nposition place k7;place k7\nstop\nquit\ntomove\n",
	// Refusals after moves: each must leave the moves, the game and the player as they were.
	"game yinsh-blitz\nplay place f6\nplay place e5\nposition place k7;place k7\nplay place f6\ngame chess\nplayer uct:0\nplayer mcts:10:none.zck\nundo\nplay xyz\ngo visits 0\nnew now\nmoves\n",
	"game gyges\nplay 3@c1\nposition 202110/000330 s\nposition 3@c1;3@c2\nplay 3@c1\nscore\nmoves\n",
	"game yinsh\r\nplay place f6\r\nmoves\r\n5 genmove\r\nplayer random\r\n6 genmove\r\n",
}

// maxFuzzWork bounds the work of a search the harness runs: players and searches above it are
// not run (their lines are skipped), so that a mutation to uct:99999999 or go visits 10^9 is
// not a test that runs for hours. Such specs are ParseSpec's to refuse or bound (FuzzParseSpec,
// selfplay's TestSpecBounds), not the protocol's.
const maxFuzzWork = 50

// fields splits a line as the engine does: trimmed, runs of spaces and tabs one separator. It
// returns the id (a leading field of digits), the command's name and its argument; blank for a
// line with no command.
func fields(line string) (blank bool, id, name, arg string) {
	t := strings.TrimSpace(line)
	f := strings.FieldsFunc(t, func(r rune) bool { return r == ' ' || r == '\t' })
	if len(f) == 0 || t[0] == '#' {
		return true, "", "", ""
	}
	if strings.Trim(f[0], "0123456789") == "" {
		id, f = f[0], f[1:]
	}
	if len(f) > 0 {
		name, arg = f[0], strings.Join(f[1:], " ")
	}
	return false, id, name, arg
}

// cheap tells whether a player spec's searches are within maxFuzzWork.
func cheap(spec string) bool {
	sp, err := selfplay.ParseSpec(spec)
	if err != nil {
		return true // refused: no work
	}
	switch sp.Kind {
	case "random":
		return true
	case "uct", "ucb1":
		return sp.Simulations > 0 && sp.Simulations <= maxFuzzWork || sp.Simulations == 0 && sp.Time <= 20*time.Millisecond
	case "ab":
		return sp.Depth <= 2
	}
	return false // mcts: a network and root proofs
}

// runs tells whether the harness runs line with player the session's player: not a search
// above maxFuzzWork, nor a player whose searches are.
func runs(line, player string) bool {
	_, _, name, arg := fields(line)
	switch name {
	case "player":
		return arg == "" || cheap(arg)
	case "genmove":
		return cheap(player)
	case "go":
		kind, num, _ := strings.Cut(arg, " ")
		n, err := strconv.Atoi(num)
		switch {
		case !cheap(player):
			return false
		case kind == "visits":
			return err != nil || n <= maxFuzzWork
		case kind == "time":
			return err != nil || n <= 20
		}
	}
	return true
}

// checkFrame says how reply, the engine's answer to line, breaks docs/ENGINE.md's framing: a
// blank line or comment gets nothing; a command one reply that starts with "=" or "?" and
// the line's id, ends with its only empty line, holds no carriage return, and, if an error,
// is one line.
func checkFrame(line, reply string) error {
	blank, id, _, _ := fields(line)
	if blank {
		if reply != "" {
			return fmt.Errorf("a blank line or comment answered %q", reply)
		}
		return nil
	}
	if strings.Contains(reply, "\r") {
		return fmt.Errorf("the reply %q holds a carriage return", reply)
	}
	if !strings.HasSuffix(reply, "\n\n") || strings.Index(reply, "\n\n") != len(reply)-2 {
		return fmt.Errorf("the reply %q does not end at its only empty line", reply)
	}
	first, _, _ := strings.Cut(reply, "\n")
	switch {
	case strings.HasPrefix(first, "="+id+" ") && len(first) > len(id)+2, first == "="+id:
	case strings.HasPrefix(first, "?"+id+" ") && len(first) > len(id)+2:
		if reply != first+"\n\n" {
			return fmt.Errorf("the error %q is more than one line", reply)
		}
	default:
		return fmt.Errorf("the reply %q does not start with =%s or ?%s and its answer", reply, id, id)
	}
	return nil
}

// checkEngine runs input's lines, as Serve would read them, through a session's Exec, then
// through Serve, and fails t where the engine breaks its protocol.
func checkEngine(t *testing.T, input string) {
	t.Helper()
	s, err := NewSession("yinsh")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetPlayer("random", 1); err != nil {
		t.Fatal(err)
	}
	// state is what an error must leave as it was, each read by a command that must answer;
	// and the player's spec.
	state := func() (string, string) {
		var b strings.Builder
		var player string
		for _, c := range []string{"game", "moves", "player", "tomove"} {
			r := s.Exec(c)
			if !strings.HasPrefix(r, "=") || checkFrame(c, r) != nil {
				t.Fatalf("after %q, %s answers %q: the engine is not usable", input, c, r)
			}
			if c == "player" {
				player = strings.TrimSuffix(strings.TrimPrefix(r, "= "), "\n\n")
			}
			b.WriteString(r)
		}
		return b.String(), player
	}
	lines := strings.Split(input, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var ran []string // the lines run, to Serve again
	for _, l := range lines {
		l = strings.TrimSuffix(l, "\r")
		before, player := state()
		if !runs(l, player) {
			continue
		}
		ran = append(ran, l)
		reply := s.Exec(l)
		if err := checkFrame(l, reply); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		if after, _ := state(); strings.HasPrefix(reply, "?") && after != before {
			t.Fatalf("line %q was refused (%q) but changed the session:\n%q\nbecame\n%q", l, reply, before, after)
		}
		if _, _, name, arg := fields(l); name == "quit" && arg == "" {
			break // Serve ends there
		}
	}
	// Serve, the same lines: one framed reply per command line (a go infinite's streams its
	// info lines before its moves and empty line), and none after quit.
	s, _ = NewSession("yinsh")
	s.SetPlayer("random", 1)
	var out strings.Builder
	if err := s.Serve(context.Background(), strings.NewReader(strings.Join(ran, "\n")), &out); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	replies := strings.SplitAfter(out.String(), "\n\n")
	if replies[len(replies)-1] != "" {
		t.Fatalf("Serve's output ends without an empty line: %q", out.String())
	}
	replies = replies[:len(replies)-1]
	k := 0
	for _, l := range ran {
		if blank, _, _, _ := fields(l); blank {
			continue
		}
		if k == len(replies) {
			t.Fatalf("Serve answered %d lines of %q, not %q", k, ran, l)
		}
		r := replies[k]
		if _, _, name, arg := fields(l); name == "go" && strings.HasPrefix(arg, "infinite") && strings.HasPrefix(r, "=") {
			// "=ID" alone, then the stream's lines: none empty.
			first, _, _ := strings.Cut(r, "\n")
			r = first + "\n\n"
		}
		if err := checkFrame(l, r); err != nil {
			t.Fatalf("Serve, line %q: %v", l, err)
		}
		k++
	}
	if k != len(replies) {
		t.Fatalf("Serve answered %d replies to %d command lines: %q", len(replies), k, replies[k:])
	}
}

func FuzzEngine(f *testing.F) {
	for _, c := range engineCorpus {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, input string) {
		if len(input) > 1<<12 {
			return // a line's length is lineread's (TestLongLineIsRefusedAndSkipped)
		}
		checkEngine(t, input)
	})
}

// mutationWords are what a mutation splices in: the commands, their arguments, and numbers at
// and past the protocol's bounds.
var mutationWords = []string{
	"game", "new", "position", "play", "legal", "tomove", "result", "score", "show", "moves", "undo",
	"player", "genmove", "go", "stop", "name", "version", "protocol_version", "list_commands",
	"known_command", "help", "quit", "visits", "time", "infinite", "yinsh", "yinsh-blitz", "gyges",
	"gyges-advanced", "imbriqua", "place f6", "move f6-f9", "row c4-c8", "ring e5", "pass", "3@c1",
	"b1-d4*e2", "card 7", "c3xc5", "remove d4", "random", "uct:10", "ucb1:5", "ab:1", "ab:2:1ms",
	"mcts:10:models/yinsh-blitz.zck", "mcts:10:/dev/zero", "in_flight=1000000000", "0", "1", "-1",
	"+5", "10", "3600000", "1000000000", "1000000001", "99999999999999999999", "1e3", "#", ";", ":",
	"=", "\t", " ", "\n", "\r\n", "\x00", "\xff", "é", "\u00a0",
}

// mutate changes text by 1 to 4 random edits: a byte changed, bytes or a word put in, bytes cut,
// a line doubled.
func mutate(r *rand.Rand, text string) string {
	b := []byte(text)
	for range 1 + r.IntN(4) {
		at := 0
		if len(b) > 0 {
			at = r.IntN(len(b) + 1)
		}
		switch r.IntN(5) {
		case 0:
			if at < len(b) {
				b[at] = byte(r.IntN(256))
			}
		case 1:
			w := mutationWords[r.IntN(len(mutationWords))]
			b = append(b[:at], append([]byte(w), b[at:]...)...)
		case 2:
			end := min(len(b), at+1+r.IntN(8))
			b = append(b[:at], b[end:]...)
		case 3:
			lines := strings.Split(string(b), "\n")
			i := r.IntN(len(lines))
			lines = append(lines[:i+1], lines[i:]...)
			b = []byte(strings.Join(lines, "\n"))
		case 4:
			w := mutationWords[r.IntN(len(mutationWords))] + " " + mutationWords[r.IntN(len(mutationWords))] + "\n"
			b = append(b[:at], append([]byte(w), b[at:]...)...)
		}
	}
	return string(b)
}

// TestEngineMutations runs checkEngine on seeded mutations of the corpus: FuzzEngine's checks
// on inputs no seed holds, in every go test.
func TestEngineMutations(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 60
	}
	r := rand.New(rand.NewPCG(48, 1))
	for i := range n {
		input := mutate(r, engineCorpus[i%len(engineCorpus)])
		t.Run(strconv.Itoa(i), func(t *testing.T) { checkEngine(t, input) })
	}
}
