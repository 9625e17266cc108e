package engine

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"
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
			"? unknown command \"frobnicate\" (try help)\n\n? play needs MOVE\n\n? \"move\": want place P, move P-Q, row P-Q, ring P or pass (lower-case, as in place f6)\n\n? nothing to undo: the game is at its start\n\n"},
		{"switching games", "game\ngame yinsh-blitz\ngame\ngame chess\ngame\n",
			"= yinsh\n\n=\n\n= yinsh-blitz\n\n? unknown game \"chess\" (known: yinsh, yinsh-blitz, gyges, gyges-advanced, imbriqua)\n\n= yinsh-blitz\n\n"},
		{"new starts again", "play place f6\nnew\nmoves\n", "=\n\n=\n\n=\n\n"},
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
		{"tabs separate like spaces", "play\tplace f6\n5\tmoves\n", "=\n\n=5 place f6\n\n"},
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

// TestDocExample replays the example session of docs/ENGINE.md, so the page stays true.
func TestDocExample(t *testing.T) {
	doc, err := os.ReadFile("../../docs/ENGINE.md")
	if err != nil {
		t.Fatal(err)
	}
	_, example, _ := strings.Cut(string(doc), "$ zero engine\n")
	example, _, _ = strings.Cut(example, "```")
	var in, want strings.Builder
	for _, line := range strings.SplitAfter(example, "\n") {
		if line == "\n" || strings.HasPrefix(line, "=") || strings.HasPrefix(line, "?") {
			want.WriteString(line)
		} else {
			in.WriteString(line)
		}
	}
	s, _ := NewSession("yinsh")
	var out strings.Builder
	if err := s.Serve(context.Background(), strings.NewReader(in.String()), &out); err != nil {
		t.Fatal(err)
	}
	if out.String() != want.String() {
		t.Fatalf("docs/ENGINE.md's example is not what the engine says:\n%s\nwant (the doc)\n%s", out.String(), want.String())
	}
}

func TestLongLineIsRefusedAndSkipped(t *testing.T) {
	s, _ := NewSession("yinsh")
	in := "play " + strings.Repeat("x", maxLine+10) + "\ntomove\n"
	var out strings.Builder
	if err := s.Serve(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	want := "? line too long (the limit is 1048576 bytes)\n\n= white\n\n"
	if out.String() != want {
		t.Fatalf("got %q, want %q", out.String(), want)
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
