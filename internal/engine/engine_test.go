package engine

import (
	"context"
	"os"
	"strings"
	"testing"
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
			"? unknown command \"frobnicate\" (try help)\n\n? play needs a move\n\n? \"move\": want place P, move P-Q, row P-Q, ring P or pass (lower-case, as in place f6)\n\n? nothing to undo: the game is at its start\n\n"},
		{"switching games", "game\ngame yinsh-blitz\ngame\ngame chess\ngame\n",
			"= yinsh\n\n=\n\n= yinsh-blitz\n\n? unknown game \"chess\" (known: yinsh, yinsh-blitz)\n\n= yinsh-blitz\n\n"},
		{"new starts again", "play place f6\nnew\nmoves\n", "=\n\n=\n\n=\n\n"},
		{"comments and blank lines are skipped", "# a comment\n\n   \ntomove\n", "= white\n\n"},
		{"quit ends the session", "quit\ntomove\n", "=\n\n"},
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
