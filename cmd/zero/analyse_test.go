package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zerogames/zero/internal/games"
)

// TestAnalyse: `zero analyse` searches every player's decision of a record and writes the
// record back as SGF, the same moves and result, a comment after each player's move and a
// summary on the root; bad requests are refused and write nothing.
func TestAnalyse(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	var stdout, stderr bytes.Buffer
	for _, game := range []string{"gyges", "imbriqua", "yinsh-blitz"} {
		out := filepath.Join(dir, game)
		if err := run(ctx, []string{"arena", "--game", game, "--players", "random,uct:5", "--games", "2", "--out", out},
			strings.NewReader(""), &stdout, &stderr); err != nil {
			t.Fatalf("%s arena: %v\n%s", game, err, stderr.String())
		}
		for _, tc := range []struct {
			name, file, out, wantFile string
		}{
			{"JSON lines, default name", filepath.Join(out, "games.jsonl#2"), "", filepath.Join(out, "games-analysed.sgf")},
			{"SGF, --out", filepath.Join(out, "games.sgf#1"), filepath.Join(out, "mine.sgf"), filepath.Join(out, "mine.sgf")},
			{"to stdout", filepath.Join(out, "games.sgf#2"), "-", ""},
		} {
			t.Run(game+"/"+tc.name, func(t *testing.T) {
				stdout.Reset()
				stderr.Reset()
				args := []string{"analyse", "--player", "uct:20", "--seed", "3"}
				if tc.out != "" {
					args = append(args, "--out", tc.out)
				}
				if err := run(ctx, append(args, tc.file), strings.NewReader(""), &stdout, &stderr); err != nil {
					t.Fatalf("%v\n%s", err, stderr.String())
				}
				text, report := stdout.Bytes(), stdout.String()
				if tc.wantFile != "" {
					var err error
					if text, err = os.ReadFile(tc.wantFile); err != nil {
						t.Fatal(err)
					}
				} else {
					report = stderr.String()
				}
				orig, err := games.LoadRecord(tc.file)
				if err != nil {
					t.Fatal(err)
				}
				got, err := games.ReadRecord(bytes.NewReader(text))
				if err != nil {
					t.Fatalf("the analysed record: %v\n%s", err, text)
				}
				if got.MoveList() != orig.MoveList() || got.Result != orig.Result || got.Players != orig.Players {
					t.Errorf("analysed record %+v, want the moves, result and players of %+v", got, orig)
				}
				if !strings.HasPrefix(got.Comments[0], "Analysed by zero analyse with uct:20: ") {
					t.Errorf("root comment %q", got.Comments[0])
				}
				g, err := games.Lookup(orig.Game)
				if err != nil {
					t.Fatal(err)
				}
				pos := g.NewPosition()
				searched := 0
				for i, m := range orig.Moves {
					chance := pos.ToMove() == "chance"
					c := got.Comments[i+1]
					switch {
					case chance && c != "":
						t.Errorf("move %d, chance's, has the comment %q", i+1, c)
					case !chance && !strings.HasPrefix(c, "zero analyse (uct:20): "+pos.ToMove()+"'s win "):
						t.Errorf("move %d (%s) has the comment %q", i+1, m, c)
					case !chance:
						searched++
					}
					if err := pos.Play(m); err != nil {
						t.Fatal(err)
					}
				}
				if want := fmt.Sprintf("zero analyse: %d of %d decisions searched by uct:20", searched, len(orig.Moves)); !strings.Contains(report, want) {
					t.Errorf("report lacks %q:\n%s", want, report)
				}
				if rows := strings.Count(report, "\n") - 2; rows != searched {
					t.Errorf("%d table rows, want %d (one per searched decision):\n%s", rows, searched, report)
				}
				// The table's columns are aligned: each row's cells end where the header's do
				// (rows are written one by one as the search goes).
				lines := strings.Split(report, "\n")
				ends := cellEnds(lines[0])
				for _, l := range lines[1 : 1+searched] {
					r := []rune(l)
					for _, e := range []int{ends[0], ends[3], ends[5]} { // the move's number and the two win rates
						if e > len(r) || r[e-1] == ' ' || (e < len(r) && r[e] != ' ') {
							t.Errorf("row %q: no cell ends at %d, where the header's does", l, e)
						}
					}
				}
			})
		}
	}
	record := filepath.Join(dir, "gyges", "games.sgf#1")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no record", nil, "give one record"},
		{"two records", []string{record, record}, "give one record"},
		{"a missing file", []string{filepath.Join(dir, "none.sgf")}, "no such file"},
		{"a player it cannot make", []string{"--player", "uct:x", record}, "--player: "},
		{"negative visits", []string{"--visits", "-1", record}, "--visits -1: want a number of simulations ≥ 0"},
		{"no mistake threshold", []string{"--mistake", "0", record}, "--mistake 0: want points of percent in (0, 100]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, "refused.sgf")
			err := run(ctx, append([]string{"analyse", "--out", out}, tc.args...), strings.NewReader(""), &stdout, &stderr)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("a refused analysis wrote its --out")
			}
		})
	}
}

// cellEnds is where each space-separated cell of line ends, in runes.
func cellEnds(line string) []int {
	var ends []int
	r := []rune(line)
	for i := range r {
		if r[i] != ' ' && (i+1 == len(r) || r[i+1] == ' ') {
			ends = append(ends, i+1)
		}
	}
	return ends
}
