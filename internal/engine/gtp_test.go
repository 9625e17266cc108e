package engine

import (
	"context"
	"strconv"
	"strings"
	"testing"
)

// serveLines runs the engine on in and returns its replies, one string each (without the
// empty line that ends a reply).
func serveLines(t *testing.T, game, in string) []string {
	t.Helper()
	s, err := NewSession(game)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := s.Serve(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	replies := strings.Split(strings.TrimSuffix(out.String(), "\n\n"), "\n\n")
	return replies
}

// TestGTPController: the command sequence a GTP controller (gogui-twogtp, Sabaki) sends to
// start and play a game — the administrative commands, boardsize, clear_board, komi, play and
// genmove with a colour, final_score — is answered as GTP says, in a game whose players are
// white and black (YINSH) and in one whose players have other names (Gygès: black is the first
// to move, south); a colour that is not the side to move is refused and changes nothing.
func TestGTPController(t *testing.T) {
	for _, tc := range []struct {
		name, game, in string
		want           []string
	}{
		{"yinsh: white moves first", "yinsh",
			"protocol_version\nname\nversion\nknown_command genmove\nknown_command clear_board\nboardsize 19\nclear_board\nkomi 6.5\n" +
				"play black place f6\nplay white place f6\nplay B place e5\nplay b place e4\nmoves\ngenmove black\ngenmove w\nfinal_score\nkomi six\nshowboard\nreg_genmove\n",
			[]string{"= 2", "= zero", "= " + Version, "= true", "= true",
				"? unacceptable size \"19\": yinsh is played on its own board (11×11)", "=", "=",
				"? black is not to move: white is (black is black)", "=", "=",
				"? b is not to move: white is (b is black)", "= place f6;place e5",
				"? black is not to move: white is (black is black)", "~= place ",
				"? the game is not over: black is to move", "? komi \"six\" is not a number", "~=", "~= place "}},
		{"gyges: black is the first player", "gyges",
			"boardsize 6\nclear_board\nplay black 3@c1\nplay south 1@a1\nplay white 3@c6\ngenmove south\ngenmove black\nplay purple 1@a6\nmoves\n",
			[]string{"=", "=", "=", "? south is not to move: north is (south is south)", "=",
				"~= ", "? black is not to move: north is (black is south)", "~? \"purple 1@a6\"", "~= 3@c1;3@c6;"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := serveLines(t, tc.game, "player random\n"+tc.in)[1:]
			if len(got) != len(tc.want) {
				t.Fatalf("%d replies, want %d:\n%s", len(got), len(tc.want), strings.Join(got, "\n--\n"))
			}
			for i, w := range tc.want {
				// A want of ~PREFIX checks the reply's start only (a move the random player
				// drew, a board).
				if p, ok := strings.CutPrefix(w, "~"); ok && strings.HasPrefix(got[i], p) || got[i] == w {
					continue
				}
				t.Errorf("reply %d: %q, want %q", i, got[i], w)
			}
		})
	}
}

// TestGTPFinalScore: final_score names the winner by GTP's letter, with the margin of a game
// scored by counting and R otherwise, and 0 for a draw.
func TestGTPFinalScore(t *testing.T) {
	// Gygès: north, the second player (W), enters the goal.
	legal := serveLines(t, "gyges", "position 120213/000000/030000/000000/000000/332211 n\nlegal\n")[1]
	goal := ""
	for _, m := range strings.Split(legal, "\n") {
		if strings.HasSuffix(m, "-goal") {
			goal = m
		}
	}
	if goal == "" {
		t.Fatalf("no move into the goal among\n%s", legal)
	}
	got := serveLines(t, "gyges", "position 120213/000000/030000/000000/000000/332211 n\nplay white "+goal+"\nresult\nfinal_score\n")
	if got[2] != "= north" || got[3] != "= W+R" {
		t.Errorf("after %s: %q", goal, got)
	}
	// Imbriqua, played out by the random player: the margin is the framed squares' difference.
	got = serveLines(t, "imbriqua", "player random\n"+strings.Repeat("genmove\n", 200)+"result\nscore\nfinal_score\n")
	n := len(got)
	result, score, final := strings.TrimPrefix(got[n-3], "= "), strings.Fields(strings.TrimPrefix(got[n-2], "= ")), got[n-1]
	if len(score) != 4 {
		t.Fatalf("score %q", got[n-2])
	}
	light, _ := strconv.Atoi(score[1])
	dark, _ := strconv.Atoi(score[3])
	var want string
	switch {
	case result == "draw":
		want = "= 0"
	case result == "light":
		want = "= B+" + strconv.Itoa(light-dark)
	default:
		want = "= W+" + strconv.Itoa(dark-light)
	}
	if final != want {
		t.Errorf("imbriqua %s, score %v: final_score %q, want %q", result, score, final, want)
	}
}
