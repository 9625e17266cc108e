package engine

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The YINSH blitz position of mcts's tests: white's ring on d4 jumps e4 to f4, which makes the
// row e2-e6 and wins.
const winInOne = "place e2;place e4;place e5;place h8;place d4;place a5;place a2;place k7;place k10;place b7;" +
	"move e2-e3;move e4-f5;move e3-d2;move h8-h9;move e5-e6;move h9-h10;move e6-f7;move h10-i10"

func exec(t *testing.T, s *Session, line, want string) string {
	t.Helper()
	got := s.Exec(line)
	if want != "" && got != want {
		t.Fatalf("%s: %q, want %q", line, got, want)
	}
	return got
}

func TestPlayerCommands(t *testing.T) {
	s, _ := NewSession("yinsh-blitz")
	exec(t, s, "player", "= uct:1000\n\n")
	exec(t, s, "player random", "=\n\n")
	exec(t, s, "player", "= random\n\n")
	exec(t, s, "player uct:0", "? player \"uct:0\": the number of simulations \"0\" is not a whole number from 1 to 1000000000\n\n")
	if got := exec(t, s, "player mcts:10:x.zero", ""); !strings.HasPrefix(got, "? ") || !strings.Contains(got, "checkpoint x.zero") {
		t.Errorf("player mcts:10:x.zero: %q", got)
	}
	exec(t, s, "player", "= random\n\n")
	// A random move is legal and played.
	got := exec(t, s, "genmove", "")
	move := strings.TrimSuffix(strings.TrimPrefix(got, "= "), "\n\n")
	exec(t, s, "moves", "= "+move+"\n\n")
}

func TestGenmove(t *testing.T) {
	s, _ := NewSession("yinsh-blitz")
	for _, m := range strings.Split(winInOne, ";") {
		exec(t, s, "play "+m, "=\n\n")
	}
	exec(t, s, "player uct:300", "=\n\n")
	// go searches without playing; its first line is the choice.
	got := exec(t, s, "go visits 300", "")
	line := regexp.MustCompile(`^move [a-k][0-9]+-[a-k][0-9]+ share=[01]\.[0-9]{3} win=([01]\.[0-9]{3}|-)$`)
	lines := strings.Split(strings.TrimSuffix(got, "\n\n"), "\n")
	if lines[0] != "=" || len(lines) < 2 || !strings.HasPrefix(lines[1], "move d4-f4 share=") {
		t.Fatalf("go visits 300: %q", got)
	}
	for _, l := range lines[1:] {
		if !line.MatchString(l) {
			t.Errorf("go visits: line %q", l)
		}
	}
	exec(t, s, "tomove", "= white\n\n")
	if got := exec(t, s, "go time 30", ""); !strings.HasPrefix(got, "=\nmove ") {
		t.Errorf("go time 30: %q", got)
	}
	// genmove plays the whole winning turn: the move, the row, a ring.
	exec(t, s, "genmove", "= move d4-f4\n\n")
	exec(t, s, "genmove", "= row e2-e6\n\n")
	if got := exec(t, s, "genmove", ""); !strings.HasPrefix(got, "= ring ") {
		t.Fatalf("genmove after the row: %q", got)
	}
	exec(t, s, "result", "= white\n\n")
	exec(t, s, "genmove", "? the game is over (white)\n\n")
	for _, bad := range []struct{ line, says string }{
		{"go", "go needs visits N|time MS"},
		{"go visits", "want a whole number"},
		{"go visits 0", "want a whole number"},
		{"go visits -3", "want a whole number"},
		{"go time 1e3", "want a whole number"},
		{"go nodes 5", "want go visits N or go time MS"},
		{"genmove now", "\"now\" is not a colour of yinsh-blitz"},
	} {
		if got := s.Exec(bad.line); !strings.HasPrefix(got, "? ") || !strings.Contains(got, bad.says) {
			t.Errorf("%s: %q, want an error saying %q", bad.line, got, bad.says)
		}
	}
	// The player follows a change of game.
	exec(t, s, "game yinsh", "=\n\n")
	if got := exec(t, s, "genmove", ""); !strings.HasPrefix(got, "= place ") {
		t.Errorf("genmove in a new game of yinsh: %q", got)
	}
}

// An mcts player with a Gumbel root searches for a time as the others do (its halving planned
// for the time: mcts.Budget): a time a move, go time and go infinite answer moves. They were
// refused ("searches a number of simulations only").
func TestGumbelPlayerSearchesForATime(t *testing.T) {
	s, _ := NewSession("yinsh-blitz")
	exec(t, s, "player mcts:50ms:gumbel=true:models/yinsh-blitz.zck", "=\n\n")
	played := exec(t, s, "genmove", "")
	if !strings.HasPrefix(played, "= place ") {
		t.Errorf("genmove of mcts:50ms with a Gumbel root: %q", played)
	}
	exec(t, s, "player mcts:16:gumbel=true:models/yinsh-blitz.zck", "=\n\n")
	for _, c := range []string{"go time 50", "go visits 16"} {
		if got := exec(t, s, c, ""); !strings.HasPrefix(got, "=\nplace ") {
			t.Errorf("%s with a Gumbel root: %q", c, got)
		}
	}
	var out strings.Builder
	in := "go infinite 20\n# a moment\n" + strings.Repeat("\n", 3)
	if err := s.Serve(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^=\n(info visits [1-9][0-9]* .*\n)+(place \S+ share=\S+ win=\S+\n)+\n$`).MatchString(out.String()) {
		t.Errorf("go infinite with a Gumbel root: %q", out.String())
	}
	exec(t, s, "moves", played) // go searches without playing
}

// A stop ends the search it comes right after: sent behind other commands, it waits its turn.
// go visits, go infinite and stop written at once: the go visits searches in full (it answered
// with a search cut at once), the stop ends the go infinite; two go visits and a stop: the
// first searches in full.
func TestStopWaitsItsTurn(t *testing.T) {
	const setup = "position place e2;place e4;place e5;place h8;place d4;place a5;place a2;place k7;place k10;place b7\nplayer uct:3000\n"
	alone, _ := NewSession("yinsh-blitz")
	for _, c := range strings.Split(strings.TrimSpace(setup), "\n") {
		alone.Exec(c)
	}
	full := alone.Exec("go visits 3000")
	for _, tt := range []struct{ name, in string }{
		{"go infinite between", "go visits 3000\ngo infinite\n\n# a comment\nstop\n"},
		{"another go between", "go visits 3000\ngo visits 3000\nstop\n"},
	} {
		s, _ := NewSession("yinsh-blitz")
		var out strings.Builder
		if err := s.Serve(context.Background(), strings.NewReader(setup+tt.in), &out); err != nil {
			t.Fatal(err)
		}
		got := strings.TrimPrefix(out.String(), "=\n\n=\n\n")
		if !strings.HasPrefix(got, full) {
			t.Errorf("%s: the first go visits answered\n%s\nalone\n%s", tt.name, got, full)
		}
		if !strings.HasSuffix(got, "\n\n=\n\n") {
			t.Errorf("%s: the stop was not answered last: %q", tt.name, got)
		}
	}
}

// Alpha-beta's principal variation goes on past its move: at the win in one, the whole
// winning turn (the move, the row, a ring), though the search only learned that the turn wins.
func TestAlphaBetaPV(t *testing.T) {
	s, _ := NewSession("yinsh-blitz")
	var out strings.Builder
	in := "position " + winInOne + "\nplayer ab:2\ngo infinite\nstop\n"
	if err := s.Serve(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	want := regexp.MustCompile(`\ninfo visits [0-9]+ value 1\.000 win 1\.000 pv move d4-f4;row e2-e6;ring [a-k][0-9]+\nmove d4-f4 share=1\.000 win=1\.000\n\n=\n\n$`)
	if got := out.String(); !want.MatchString(got) {
		t.Errorf("go infinite with ab:2 at a win in one: %q", got)
	}
}

// TestFollowDefault: a session following the games' defaults (zero engine without --player)
// plays each game's own default, after a switch of game too, until a player is set.
func TestFollowDefault(t *testing.T) {
	def := func(game string) string {
		if game == "gyges" {
			return "ab:1"
		}
		return "uct:" + strconv.Itoa(len(game))
	}
	cases := []struct {
		name  string
		lines []string // each line's reply, after "line\t"
	}{
		{"switching games", []string{"player\t= uct:11\n\n", "game gyges\t=\n\n", "player\t= ab:1\n\n", "game imbriqua\t=\n\n", "player\t= uct:8\n\n"}},
		{"genmove after a switch", []string{"game gyges\t=\n\n", "genmove\t", "player\t= ab:1\n\n"}},
		{"a player set stops following", []string{"player random\t=\n\n", "game gyges\t=\n\n", "player\t= random\n\n"}},
		{"setoption stops following", []string{"setoption threads 1\t=\n\n", "game gyges\t=\n\n", "player\t= uct:11:threads=1\n\n"}},
		{"a refused player keeps following", []string{"player uct:0\t", "game gyges\t=\n\n", "player\t= ab:1\n\n"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := NewSession("yinsh-blitz")
			if err != nil {
				t.Fatal(err)
			}
			if err := s.FollowDefault(def, 1); err != nil {
				t.Fatal(err)
			}
			for _, l := range c.lines {
				line, want, _ := strings.Cut(l, "\t")
				exec(t, s, line, want)
			}
		})
	}
	// A default the game refuses is an error, and the player does not change.
	s, _ := NewSession("yinsh")
	if err := s.FollowDefault(func(string) string { return "uct:0" }, 1); err == nil {
		t.Error("FollowDefault(uct:0): no error")
	}
	exec(t, s, "player", "= uct:1000\n\n")
}
