package engine

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/zerogames/zero/internal/lineread"
)

func TestTranscripts(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"one-line answers", "tomove\nresult\nmoves\nname\n",
			"= white\n\n= none\n\n=\n\n= zero\n\n"},
		{"ids are echoed", "12 tomove\n3 play place z9\n",
			"=12 white\n\n?3 \"place z9\": \"z9\" is not a point (a column a-k and a row number, as f6)\n\n"},
		{"play, history, undo", "play place f6\nplay place e5\nmoves\nundo\nmoves\ntomove\n",
			"=\n\n=\n\n= place f6;place e5\n\n=\n\n= place f6\n\n= black\n\n"},
		{"an illegal move is refused and changes nothing", "play place f6\nplay place f6\nmoves\ntomove\n",
			"=\n\n? place f6: the point is taken\n\n= place f6\n\n= black\n\n"},
		{"garbage", "frobnicate\nplay\nplay move\nundo\n",
			"? unknown command \"frobnicate\" (try help)\n\n? play needs [COLOR] MOVE\n\n? \"move\": want place P, move P-Q, row P-Q, ring P or pass (lower-case, as in place f6)\n\n? nothing to undo: the game is at its start\n\n"},
		{"switching games", "game\ngame yinsh-blitz\ngame\ngame chess\ngame\n",
			"= yinsh\n\n=\n\n= yinsh-blitz\n\n? unknown game \"chess\" (known: yinsh, yinsh-blitz, gyges, gyges-advanced, imbriqua)\n\n= yinsh-blitz\n\n"},
		{"new starts again", "play place f6\nnew\nmoves\n", "=\n\n=\n\n=\n\n"},
		// A position in Gygès' notation starts its history (undo stops there), but new goes back
		// to the game's start (it went back to the position).
		{"new after a position in the game's notation starts the game", "game gyges\nposition 202110/000330/000000/000200/000100/030123 n\ntomove\nnew\ntomove\nlegal\n",
			"=\n\n=\n\n= north\n\n=\n\n= south\n\n=\n1@a1\n1@b1\n1@c1\n1@d1\n1@e1\n1@f1\n2@a1\n2@b1\n2@c1\n2@d1\n2@e1\n2@f1\n3@a1\n3@b1\n3@c1\n3@d1\n3@e1\n3@f1\n\n"},
		{"version and name", "name\nversion\n", "= zero\n\n= " + Version + "\n\n"},
		{"comments and blank lines are skipped", "# a comment\n\n   \ntomove\n", "= white\n\n"},
		{"quit ends the session", "quit\ntomove\n", "=\n\n"},
		{"gyges takes a position as well as a move list",
			"game gyges\nposition 202110/000330/000000/000200/000100/030123 n\ntomove\nplay d6-c6\nposition 3@c1;3@c6\ntomove\nposition 3@c1;3@c2\nposition 202110/000330 s\nmoves\n",
			"=\n\n=\n\n= north\n\n=\n\n=\n\n= south\n\n? neither a move list (move 2: \"3@c2\": north places on his start row, row 6) nor a position (position \"3@c1;3@c2\": want six rows of six sizes 0-3 joined by '/', a space, and s or n (the player to move), as 321123/000000/000000/000000/000000/321123 s)\n\n" +
				"? neither a move list (move 1: \"202110/000330 s\": want a placement (3@c1), a move (b1-d4 or b1-goal) or, with the advanced rule, a replacement (b1-d4*e2)) nor a position (position \"202110/000330 s\": 2 rows: want 6, from row 1 to row 6, joined by '/')\n\n= 3@c1;3@c6\n\n"},
		{"position from a move list, all or nothing", "play place a2\nposition place f6; place e5\nmoves\nposition place k7;place k7\nmoves\n",
			"=\n\n=\n\n= place f6;place e5\n\n? move 2: place k7: the point is taken\n\n= place f6;place e5\n\n"},
		{"arguments where none are taken are refused", "legal now\nnew yinsh\nmoves\n",
			"? legal takes no argument (got \"now\")\n\n? new takes no argument (got \"yinsh\")\n\n=\n\n"},
		{"go's numbers are digits only, as a player spec's", "go visits +5\ngo visits 0\ngo time -3\ngo visits 1e3\ngo visits 1000000001\ngo infinite +500\n",
			"? go visits \"+5\": want a whole number from 1 to 1000000000\n\n? go visits \"0\": want a whole number from 1 to 1000000000\n\n? go time \"-3\": want a whole number from 1 to 1000000000\n\n" +
				"? go visits \"1e3\": want a whole number from 1 to 1000000000\n\n? go visits \"1000000001\": want a whole number from 1 to 1000000000\n\n" +
				"? go infinite \"+500\": want the milliseconds between info lines, a whole number from 10 to 3600000\n\n"},
		{"tabs separate like spaces", "play\tplace f6\n5\tmoves\n", "=\n\n=5 place f6\n\n"},
		{"a run of spaces and tabs separates as one", "play  place \t f6\n5 \t moves\n", "=\n\n=5 place f6\n\n"},
		{"an id alone", "7\n", "?7 no command after the id 7\n\n"},
		{"a long id is echoed as given", "123456789012345678901234567890 tomove\n", "=123456789012345678901234567890 white\n\n"},
		{"the last line may lack its newline", "tomove", "= white\n\n"},
		{"score is for games scored by counting", "score\n", "? yinsh has no running score\n\n"},
		{"imbriqua: chance decides, cards are played, score counts framed squares",
			"game imbriqua\nposition a1;b1;h8;g8;a8;b8;h1;g1;c3\ntomove\nplay card 11\nplay card 7\ntomove\nscore\nresult\n",
			// card 7 (a long capture by the pawn on c3) is impossible, so dark decides the penalty;
			// light frames b2 (between a1 and c3).
			"=\n\n=\n\n= chance\n\n? \"card 11\": card 11 (place 2 pawns) is never drawn by chance: it is the first pile's bottom card\n\n=\n\n= dark\n\n= light 1 dark 0\n\n= none\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewSession("yinsh")
			if err != nil {
				t.Fatal(err)
			}
			var out strings.Builder
			if err := s.Serve(context.Background(), strings.NewReader(tt.in), &out); err != nil {
				t.Fatal(err)
			}
			got := out.String()
			if got != tt.want {
				t.Fatalf("transcript\n%s\ngot\n%q\nwant\n%q", tt.in, got, tt.want)
			}
		})
	}
}

func TestShowIsOneReply(t *testing.T) {
	s, _ := NewSession("yinsh")
	got := s.Exec("show")
	if !strings.HasPrefix(got, "=\n") || !strings.HasSuffix(got, "\n\n") || strings.Count(got, "\n\n") != 1 {
		t.Fatalf("show is not one framed reply: %q", got)
	}
}

func TestLegalSortedByteWise(t *testing.T) {
	s, _ := NewSession("yinsh")
	got := s.Exec("legal")
	lines := strings.Split(strings.TrimSuffix(got, "\n\n"), "\n")
	if lines[0] != "=" || len(lines) != 86 {
		t.Fatalf("want = and 85 placements, got %q", got)
	}
	for i := 2; i < len(lines); i++ {
		if lines[i-1] >= lines[i] {
			t.Fatalf("not sorted byte-wise: %q before %q", lines[i-1], lines[i])
		}
	}
	if !strings.Contains(got, "place e1\nplace e10\nplace e2\n") {
		t.Fatalf("e10 must sort between e1 and e2 (byte-wise): %q", got)
	}
}

// TestDocExamples replays every session of docs/ENGINE.md (a block that starts with
// "$ zero engine"), command by command, so the page stays true. Replies must be the page's
// exactly, but for go infinite's, whose numbers depend on the machine and the moment of stop:
// their first line is the page's, their info lines have the documented shape (at least one
// before the stop is sent), and their moves have go's shape, the first the page's move.
func TestDocExamples(t *testing.T) {
	doc, err := os.ReadFile("../../docs/ENGINE.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(string(doc), "$ zero engine")[1:]
	if len(blocks) < 3 {
		t.Fatalf("docs/ENGINE.md has %d sessions, want the example, GTP's and the streaming one", len(blocks))
	}
	for n, block := range blocks {
		header, body, _ := strings.Cut(block, "\n")
		body, _, _ = strings.Cut(body, "```")
		game, player := "yinsh", ""
		flags := strings.Fields(header)
		for i := 0; i+1 < len(flags); i += 2 {
			switch flags[i] {
			case "--game":
				game = flags[i+1]
			case "--player":
				player = flags[i+1]
			default:
				t.Fatalf("session %d: flag %s", n+1, flags[i])
			}
		}
		t.Run(fmt.Sprint(n+1), func(t *testing.T) { replayDoc(t, game, player, docSteps(body)) })
	}
}

// docStep is a command of a documented session and its reply, lines ending in \n.
type docStep struct{ command, reply string }

// docSteps reads a documented session: a command line, then its reply up to the empty line
// that ends it.
func docSteps(body string) []docStep {
	var steps []docStep
	inReply := false
	for _, line := range strings.SplitAfter(body, "\n") {
		switch {
		case !inReply && strings.TrimSpace(line) != "":
			steps = append(steps, docStep{command: line})
			inReply = true
		case inReply:
			steps[len(steps)-1].reply += line
			inReply = line != "\n"
		}
	}
	return steps
}

var (
	infoLine = regexp.MustCompile(`^info visits [0-9]+ value -?[01]\.[0-9]{3} win [01]\.[0-9]{3} pv [^ ;][^;]*(;[^;]+)*$`)
	goLine   = regexp.MustCompile(`^(.+) share=[01]\.[0-9]{3} win=([01]\.[0-9]{3}|-)$`)
)

func replayDoc(t *testing.T, game, player string, steps []docStep) {
	s, err := NewSession(game)
	if err != nil {
		t.Fatal(err)
	}
	if player != "" {
		if err := s.SetPlayer(player, 1); err != nil {
			t.Fatal(err)
		}
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.Serve(context.Background(), inR, outW); outW.Close() }()
	out := bufio.NewReader(outR)
	readLine := func() string {
		line, err := out.ReadString('\n')
		if err != nil {
			t.Fatalf("the engine's output ended: %q, %v", line, err)
		}
		return line
	}
	readReply := func(first string) string {
		reply := first
		for !strings.HasSuffix(reply, "\n\n") && reply != "\n" {
			reply += readLine()
		}
		return reply
	}
	sent := false // the step's command was sent already (to stop a go infinite)
	for i, st := range steps {
		if !sent {
			io.WriteString(inW, st.command)
		}
		sent = false
		if !strings.HasPrefix(st.command, "go infinite") {
			if got := readReply(""); got != st.reply {
				t.Fatalf("%s: the engine answers\n%q\nthe page says\n%q", strings.TrimSpace(st.command), got, st.reply)
			}
			continue
		}
		// A stream: its first line, an info line, then the next command stops it.
		got := readLine()
		got += readLine()
		if i+1 < len(steps) {
			io.WriteString(inW, steps[i+1].command)
			sent = true
		}
		got = readReply(got)
		checkStream(t, strings.TrimSpace(st.command), got, st.reply)
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// checkStream compares a go infinite's reply with the page's, as TestDocExamples says.
func checkStream(t *testing.T, command, got, want string) {
	t.Helper()
	parse := func(who, reply string) (first string, infos int, moves []string) {
		lines := strings.Split(strings.TrimSuffix(reply, "\n\n"), "\n")
		first = lines[0]
		for _, l := range lines[1:] {
			if strings.HasPrefix(l, "info ") {
				if !infoLine.MatchString(l) || len(moves) > 0 {
					t.Errorf("%s: %s's info line %q", command, who, l)
				}
				infos++
				continue
			}
			m := goLine.FindStringSubmatch(l)
			if m == nil {
				t.Errorf("%s: %s's line %q is neither info nor a move", command, who, l)
				continue
			}
			moves = append(moves, m[1])
		}
		return first, infos, moves
	}
	gotFirst, gotInfos, gotMoves := parse("the engine", got)
	wantFirst, _, wantMoves := parse("the page", want)
	if gotFirst != wantFirst || gotInfos == 0 || len(gotMoves) == 0 || len(wantMoves) == 0 || gotMoves[0] != wantMoves[0] {
		t.Errorf("%s: the engine answers\n%s\nthe page says\n%s", command, got, want)
	}
}

// A go infinite that nothing stops goes on; the end of the input, any command, and the
// context's end each stop it and end its reply; it streams only through Serve.
func TestGoInfinite(t *testing.T) {
	tests := []struct {
		name, in string
		want     *regexp.Regexp
	}{
		{"the end of the input stops it", "player uct:50\ngo infinite 10\n", regexp.MustCompile(`^=\n\n=\n(info .*\n)+(place [a-k][0-9]+ share=.*\n)+\n$`)},
		{"a command stops it and is answered", "player uct:50\n5 go infinite\ntomove\n", regexp.MustCompile(`^=\n\n=5\n(info .*\n)+(place .* share=.*\n)+\n= white\n\n$`)},
		// Stopped before its first depth (the next line is waiting as it starts), alpha-beta
		// still answers: one info line and its moves (it answered no move at all).
		{"alpha-beta stopped at once", "player ab:2\ngo infinite\ntomove\n", regexp.MustCompile(`^=\n\n=\ninfo visits [0-9]+ .*\n(place .* share=.*\n)+\n= white\n\n$`)},
		{"a random player answers once", "player random\ngo infinite 10\n", regexp.MustCompile(`^=\n\n=\ninfo visits 0 value - win - pv place [a-k][0-9]+\nplace .* share=1.000 win=-\n\n$`)},
		{"a chance decision answers once, with no opinion", "game imbriqua\nposition a1;b1;h8;g8;a8;b8;h1;g1;c3\nplayer uct:50\ngo infinite 10\n",
			regexp.MustCompile(`^=\n\n=\n\n=\n\n=\ninfo visits 0 value - win - pv card [0-9]+\ncard [0-9]+ share=0\.[0-9]{3} win=-\n\n$`)},
		{"stop without a search", "stop\n", regexp.MustCompile(`^=\n\n$`)},
		// analyze: the info line with the time and speed, then a line per move searched.
		{"analyze", "player uct:50\nanalyze 10\n", regexp.MustCompile(`^=\n\n=\n(info time [0-9]+\.[0-9]{3} visits [0-9]+ nps [0-9]+ value -?[01]\.[0-9]{3} win [01]\.[0-9]{3} pv place [a-k][0-9]+.*\n` +
			`move order 0 visits [0-9]+ prior 0\.[0-9]{3} win [01]\.[0-9]{3} lcb [01]\.[0-9]{3} pv place [a-k][0-9]+(;[^;\n]+)*\n` +
			`(move order [1-9][0-9]* visits [1-9][0-9]* prior 0\.[0-9]{3} win [01]\.[0-9]{3} lcb [01]\.[0-9]{3} pv place [a-k][0-9]+(;[^;\n]+)*\n)*)+(place [a-k][0-9]+ share=.*\n)+\n$`)},
		{"analyze of a player without a search", "player random\nanalyze 10\n", regexp.MustCompile(`^=\n\n=\ninfo time [0-9.]+ visits 0 nps 0 value - win - pv (place [a-k][0-9]+)\nmove order 0 visits 0 prior - win - lcb - pv place [a-k][0-9]+\nplace .* share=1.000 win=-\n\n$`)},
		{"analyze of alpha-beta", "player ab:1\nanalyze 10\n", regexp.MustCompile(`^=\n\n=\ninfo time .*\nmove order 0 visits 0 prior - win [01]\.[0-9]{3} lcb [01]\.[0-9]{3} pv place [a-k][0-9]+\n(place .* share=.*\n)+\n$`)},
		{"analyze, a bad interval", "analyze 5\n", regexp.MustCompile(`^\? analyze "5": want the milliseconds between info lines, a whole number from 10 to 3600000\n\n$`)},
		{"a bad interval", "go infinite 5\ngo infinite x\n", regexp.MustCompile(`^\? go infinite "5": want the milliseconds between info lines, a whole number from 10 to 3600000\n\n\? go infinite "x": .*\n\n$`)},
		{"the game is over", "game yinsh-blitz\nposition " + winInOne + ";move d4-f4;row e2-e6;ring a2\ngo infinite\n",
			regexp.MustCompile(`^=\n\n=\n\n\? the game is over \(white\)\n\n$`)},
	}
	for _, tt := range tests {
		s, _ := NewSession("yinsh")
		var out strings.Builder
		if err := s.Serve(context.Background(), strings.NewReader(tt.in), &out); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if !tt.want.MatchString(out.String()) {
			t.Errorf("%s: %q", tt.name, out.String())
		}
	}
	s, _ := NewSession("yinsh")
	if got := s.Exec("go infinite"); !strings.HasPrefix(got, "? go infinite streams its answer") {
		t.Errorf("Exec(go infinite) = %q", got)
	}
	// The context's end stops a stream nobody stops.
	r, w := io.Pipe()
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	done := make(chan error)
	go func() { done <- s.Serve(ctx, r, out) }()
	io.WriteString(w, "player uct:50\ngo infinite 10\n")
	for !strings.Contains(out.String(), "info visits") {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) || !strings.HasSuffix(out.String(), "\n\n") {
		t.Errorf("Serve returned %v; the stream's reply %q", err, out.String())
	}
}

// An alpha-beta player stopped in the middle of its search answers with one info line, of
// its deepest finished depth (or its first depth, stopped before it), and its moves: the info
// line was dropped when the stop came before the search ended.
func TestGoInfiniteAlphaBetaStopped(t *testing.T) {
	s, _ := NewSession("yinsh")
	r, w := io.Pipe()
	out := &syncBuffer{}
	done := make(chan error)
	go func() { done <- s.Serve(context.Background(), r, out) }()
	// ab:8 from the empty board runs for hours: the stop always comes mid-search.
	io.WriteString(w, "player ab:8\ngo infinite\n")
	for strings.Count(out.String(), "=\n") < 2 {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	io.WriteString(w, "stop\n")
	w.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	want := regexp.MustCompile(`^=\n\n=\ninfo visits [0-9]+ value \S+ win \S+ pv place [a-k][0-9]+.*\n(place [a-k][0-9]+ share=.*\n)+\n=\n\n$`)
	if got := out.String(); !want.MatchString(got) {
		t.Errorf("ab:8 stopped: %q", got)
	}
}

// syncBuffer is a strings.Builder safe for a writer and a reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func TestLongLineIsRefusedAndSkipped(t *testing.T) {
	s, _ := NewSession("yinsh")
	in := "play " + strings.Repeat("x", lineread.Max+10) + "\ntomove\n"
	var out strings.Builder
	if err := s.Serve(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	want := "? line too long (the limit is 1048576 bytes)\n\n= white\n\n"
	if out.String() != want {
		t.Fatalf("got %q, want %q", out.String(), want)
	}
}

// A read error ends Serve with the error, after the lines before it; what came of the line
// it cut is not run (the input's end with no line end, io.EOF, runs it).
func TestServeReadError(t *testing.T) {
	tests := []struct {
		name string
		end  io.Reader
		want string
		err  string
	}{
		{"the end of the input", strings.NewReader(""), "= white\n\n=\n\n", ""},
		{"a read error", iotest.ErrReader(errors.New("the pipe broke")), "= white\n\n", "reading the input: the pipe broke"},
	}
	for _, tt := range tests {
		s, _ := NewSession("yinsh")
		var out strings.Builder
		err := s.Serve(context.Background(), io.MultiReader(strings.NewReader("tomove\nplay place f6"), tt.end), &out)
		if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.err)
		}
		if out.String() != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, out.String(), tt.want)
		}
	}
}

// An error is one line: a carriage return in what the message quotes is not sent as one.
func TestErrorIsOneLine(t *testing.T) {
	s, _ := NewSession("gyges")
	got := s.Exec("player mcts:10:foo\rbar\r\nbaz.zck")
	if !strings.HasPrefix(got, "? ") || strings.ContainsAny(strings.TrimSuffix(got, "\n\n"), "\r\n") {
		t.Fatalf("reply %q: want one line", got)
	}
}

func TestServeStopsWithItsContext(t *testing.T) {
	s, _ := NewSession("yinsh")
	r, w := io.Pipe() // input that never comes
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- s.Serve(ctx, r, io.Discard) }()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Serve returned %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve went on waiting for input after its context ended")
	}
}

// TestRulesCopiesAreCurrent: docs/rules holds the shared rules, unchanged.
func TestRulesCopiesAreCurrent(t *testing.T) {
	for _, name := range []string{"yinsh.md", "gyges.md", "imbriqua.md"} {
		shared, err := os.ReadFile("../../../shared/rules/" + name)
		if err != nil {
			t.Skipf("no shared rules beside the repository: %v", err)
		}
		copied, err := os.ReadFile("../../docs/rules/" + name)
		if err != nil || string(copied) != string(shared) {
			t.Errorf("docs/rules/%s differs from ../shared/rules/%s (copy it again)", name, name)
		}
	}
}

// In a go infinite, blank lines and comments neither stop the stream nor write beside it (they
// wrote to the output from the reading goroutine while the stream wrote: a race under -race),
// and an alpha-beta player searches to its depth whatever the interval (it was cut at the
// first interval): its one info line counts the nodes of the whole search.
func TestGoInfiniteQuietLinesAndAlphaBeta(t *testing.T) {
	infoNodes := func(interval string, quiet bool) string {
		s, _ := NewSession("yinsh-blitz")
		r, w := io.Pipe()
		out := &syncBuffer{}
		done := make(chan error)
		go func() { done <- s.Serve(context.Background(), r, out) }()
		// The rings placed, before the first move: ab:5 takes about 0.1 s here.
		rings := strings.Join(strings.Split(winInOne, ";")[:10], ";")
		io.WriteString(w, "position "+rings+"\nplayer ab:5\ngo infinite "+interval+"\n")
		for !strings.Contains(out.String(), "info visits") {
			time.Sleep(5 * time.Millisecond)
		}
		if quiet {
			for range 20 {
				io.WriteString(w, "\n# a comment\n  \n")
			}
		}
		io.WriteString(w, "stop\n")
		w.Close()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		got := out.String()
		m := regexp.MustCompile(`^=\n\n=\n\n=\n(info visits ([0-9]+) .*\n)(move .*\n)+\n=\n\n$`).FindStringSubmatch(got)
		if m == nil {
			t.Fatalf("go infinite %s: %q", interval, got)
		}
		return m[2]
	}
	if short, long := infoNodes("10", true), infoNodes("3600000", false); short != long {
		t.Errorf("ab:5 searched %s nodes in go infinite 10, %s in go infinite 3600000", short, long)
	}
}

// A stop ends a genmove, go visits or go time under way, which answers with what it found (a
// move even when stopped before its first simulation or depth), and is answered after it; any
// other command waits for the search and changes nothing of it. ab:8 from Gygès' start takes
// hours to end by itself (uct fills its tree in seconds, so it checks only the answer).
func TestStopEndsASearch(t *testing.T) {
	const start = "position 321123/000000/000000/000000/000000/321123 s"
	moves := `(\S+ share=\S+ win=\S+\n)+`
	tests := []struct {
		name, player, command string
		wait                  bool // let the search start before the stop
		want                  string
	}{
		{"go visits, alpha-beta", "ab:8", "go visits 1000", true, `=\n\S+ share=1.000 win=\S+\n\n`},
		{"go time, alpha-beta", "ab:8", "go time 3600000", true, `=\n\S+ share=1.000 win=\S+\n\n`},
		{"go time, alpha-beta stopped at once", "ab:8", "go time 3600000", false, `=\n\S+ share=1.000 win=\S+\n\n`},
		{"genmove, alpha-beta", "ab:8", "genmove", true, `= \S+\n\n`},
		{"go visits, uct stopped at once", "uct:1000", "go visits 1000000000", false, `=\n` + moves + `\n`},
	}
	for _, tt := range tests {
		s, _ := NewSession("gyges-advanced")
		r, w := io.Pipe()
		out := &syncBuffer{}
		done := make(chan error)
		go func() { done <- s.Serve(context.Background(), r, out) }()
		io.WriteString(w, start+"\nplayer "+tt.player+"\n"+tt.command+"\n")
		if tt.wait {
			time.Sleep(100 * time.Millisecond)
		}
		io.WriteString(w, "5 stop\ntomove\n")
		w.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
		case <-time.After(time.Minute):
			t.Fatalf("%s: the stop did not end the search", tt.name)
		}
		to := "south"
		if tt.command == "genmove" {
			to = "north"
		}
		want := regexp.MustCompile("^=\n\n=\n\n" + tt.want + "=5\n\n= " + to + "\n\n$")
		if got := out.String(); !want.MatchString(got) {
			t.Errorf("%s: %q", tt.name, got)
		}
	}

	rings := strings.Join(strings.Split(winInOne, ";")[:10], ";")
	// Other commands wait for the search: the answer is the one it gives alone.
	alone, _ := NewSession("yinsh-blitz")
	for _, c := range []string{"position " + rings, "player uct:300"} {
		alone.Exec(c)
	}
	want := alone.Exec("go visits 300") + "= white\n\n"
	s, _ := NewSession("yinsh-blitz")
	var out strings.Builder
	in := "position " + rings + "\nplayer uct:300\ngo visits 300\ntomove\n"
	if err := s.Serve(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimPrefix(out.String(), "=\n\n=\n\n"); got != want {
		t.Errorf("go visits 300 with a command after it answered\n%s\nalone\n%s", got, want)
	}
}

// help lists every command once, in the table's order, in aligned columns: the name, its
// arguments, what it does.
func TestHelp(t *testing.T) {
	s, _ := NewSession("yinsh")
	got := s.Exec("help")
	lines := strings.Split(strings.TrimSuffix(got, "\n\n"), "\n")
	if lines[0] != "=" || len(lines) != len(commands)+1 {
		t.Fatalf("help: %d lines, want = and one per command (%d): %q", len(lines), len(commands), got)
	}
	col := -1
	for i, c := range commands {
		l := lines[i+1]
		if !strings.HasPrefix(l, c.name+" ") || !strings.HasSuffix(l, "  "+c.help) {
			t.Errorf("help line %d: %q, want %s … %s", i+1, l, c.name, c.help)
		}
		at := len(l) - len(c.help)
		if col >= 0 && at != col {
			t.Errorf("help line %d: the description starts at byte %d, the line before's at %d", i+1, at, col)
		}
		col = at
	}
}
