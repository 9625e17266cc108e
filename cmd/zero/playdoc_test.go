package main

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/zerogames/zero/internal/doctest"
)

// TestPlayDocExamples replays each session of docs/PLAY.md: a block whose first line is
// "$ zero …". Each "$ " line is a command, run in a fresh folder in turn; the lines after it,
// up to the next command, are its standard output (a command followed by none is not
// checked), times masked since they differ from run to run.
func TestPlayDocExamples(t *testing.T) {
	blocks, err := doctest.Blocks(filepath.Join("..", "..", "docs", "PLAY.md"), "docs/PLAY.md")
	if err != nil {
		t.Fatal(err)
	}
	var sessions [][]string
	for _, b := range blocks {
		if len(b.Lines) > 0 && strings.HasPrefix(b.Lines[0], "$ zero ") {
			sessions = append(sessions, b.Lines)
		}
	}
	if len(sessions) == 0 {
		t.Fatal("docs/PLAY.md has no session ($ zero … in a block)")
	}
	times := regexp.MustCompile(` in [0-9.]+(µs|ms|s)\b`)
	for _, lines := range sessions {
		t.Run(strings.TrimPrefix(lines[0], "$ "), func(t *testing.T) {
			t.Chdir(t.TempDir())
			for i := 0; i < len(lines); {
				args := strings.Fields(strings.TrimPrefix(lines[i], "$ zero "))
				j := i + 1
				for j < len(lines) && !strings.HasPrefix(lines[j], "$ ") {
					j++
				}
				want := strings.Join(lines[i+1:j], "\n")
				var stdout, stderr strings.Builder
				if err := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr); err != nil {
					t.Fatalf("%s: %v\n%s", lines[i], err, stderr.String())
				}
				if got := strings.TrimRight(stdout.String(), "\n"); want != "" && times.ReplaceAllString(got, " in T") != times.ReplaceAllString(want, " in T") {
					t.Errorf("%s printed\n%s\nwant (docs/PLAY.md)\n%s", lines[i], got, want)
				}
				i = j
			}
		})
	}
}
