package games_test

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/zerogames/zero/internal/games"
	"github.com/zerogames/zero/selfplay"
)

// randomRecord plays a game of random legal moves (chance's included), stopped after stop
// decisions if stop > 0, and resigned by the side to move if resign.
func randomRecord(t *testing.T, game string, seed uint64, stop int, resign bool) selfplay.Record {
	t.Helper()
	g, err := games.Lookup(game)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	pos := g.NewPosition()
	for !pos.Over() && (stop == 0 || len(pos.Moves()) < stop || pos.ToMove() == "chance") {
		legal := pos.Legal()
		if err := pos.Play(legal[rng.IntN(len(legal))]); err != nil {
			t.Fatal(err)
		}
	}
	in := g.Info()
	r := selfplay.Record{Game: game, Sides: in.PlayerNames, Players: [2]string{"mcts:400:models/x.zck", "human"},
		Moves: pos.Moves(), Result: pos.Result()}
	if resign && !pos.Over() {
		r.Resigned = pos.ToMove()
		r.Result = in.PlayerNames[0]
		if r.Resigned == in.PlayerNames[0] {
			r.Result = in.PlayerNames[1]
		}
	}
	return r
}

// TestSGFRoundTrip: every game's records, finished, unfinished and resigned, with comments,
// written as SGF and read back are the same records.
func TestSGFRoundTrip(t *testing.T) {
	for _, game := range games.Names() {
		for _, tc := range []struct {
			name   string
			stop   int
			resign bool
		}{{"finished", 0, false}, {"unfinished", 9, false}, {"resigned", 12, true}, {"empty", -1, false}} {
			t.Run(game+"/"+tc.name, func(t *testing.T) {
				var r selfplay.Record
				if tc.stop < 0 {
					r = randomRecord(t, game, 1, 0, false)
					r.Moves, r.Result = nil, "none"
				} else {
					r = randomRecord(t, game, 7, tc.stop, tc.resign)
				}
				r.Comments = make([]string, len(r.Moves)+1)
				r.Comments[0] = "a game [of tests] \\ with brackets"
				if len(r.Moves) > 0 {
					r.Comments[len(r.Moves)] = "the last\ncomment"
				}
				text, err := games.MarshalSGF(r)
				if err != nil {
					t.Fatal(err)
				}
				if !games.IsSGF(text) {
					t.Fatalf("IsSGF false for %s", text)
				}
				got, err := games.ReadRecord(strings.NewReader(string(text)))
				if err != nil {
					t.Fatalf("%v\n%s", err, text)
				}
				if !reflect.DeepEqual(got, r) {
					t.Errorf("read back\n%+v\nwant\n%+v\nfrom\n%s", got, r, text)
				}
			})
		}
	}
}

// TestSGFLayout: the root's properties and the move properties, per game.
func TestSGFLayout(t *testing.T) {
	for _, tc := range []struct {
		game string
		want []string // substrings of the text, in order
	}{
		{"yinsh", []string{"(;FF[4]CA[UTF-8]AP[zero:" + games.Version + "]GM[24]ZG[yinsh]PW[mcts:400:models/x.zck]PB[human]", "\n;W[place ", "\n;B[place "}},
		{"yinsh-blitz", []string{"GM[24]ZG[yinsh-blitz]PW[", "\n;W["}},
		{"gyges-advanced", []string{"AP[zero:" + games.Version + "]ZG[gyges-advanced]PB[mcts:400:models/x.zck]PW[human]", "\n;B[", "\n;W["}},
		{"imbriqua", []string{"ZG[imbriqua]PB[", "\n;ZC[", "\n;B["}},
	} {
		t.Run(tc.game, func(t *testing.T) {
			text, err := games.MarshalSGF(randomRecord(t, tc.game, 3, 12, false))
			if err != nil {
				t.Fatal(err)
			}
			s := string(text)
			for _, w := range tc.want {
				i := strings.Index(s, w)
				if i < 0 {
					t.Fatalf("%q not in\n%s", w, text)
				}
				s = s[i+len(w):]
			}
			if tc.game != "yinsh" && tc.game != "yinsh-blitz" && strings.Contains(string(text), "GM[") {
				t.Errorf("a GM property for %s, which has no SGF number:\n%s", tc.game, text)
			}
		})
	}
}

// TestSGFResult: RE as the game ended.
func TestSGFResult(t *testing.T) {
	for _, tc := range []struct {
		name   string
		rec    selfplay.Record
		wantRE string
	}{
		{"unfinished: none", randomRecord(t, "gyges", 2, 6, false), ""},
		{"resigned", randomRecord(t, "gyges", 2, 6, true), "+R]"},
		{"a goal", randomRecord(t, "gyges", 2, 0, false), "+]"},
		{"imbriqua's margin", randomRecord(t, "imbriqua", 2, 0, false), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, err := games.MarshalSGF(tc.rec)
			if err != nil {
				t.Fatal(err)
			}
			_, rest, has := strings.Cut(string(text), "RE[")
			switch {
			case tc.name == "imbriqua's margin":
				re, _, _ := strings.Cut(rest, "]")
				if !has || !(re == "0" || len(re) > 2 && re[1] == '+' && re[2] >= '0' && re[2] <= '9') {
					t.Errorf("RE[%s], want a draw or a margin", re)
				}
			case tc.wantRE == "" && has:
				t.Errorf("an RE for an unfinished game: %s", text)
			case tc.wantRE != "" && !strings.Contains(string(text), tc.wantRE):
				t.Errorf("no %q in %s", tc.wantRE, text)
			}
		})
	}
}

// TestReadSGF: SGF written by other programs, and what is refused, each refusal naming the
// node, property or move.
func TestReadSGF(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       string // the moves, ';'-joined, and the result after a space; or the error
		players    [2]string
	}{
		{"YINSH by its game number", "(;GM[24]PW[alice]PB[bob];W[place f6];B[place e5])", "place f6;place e5 none", [2]string{"alice", "bob"}},
		{"no players named", "(;ZG[yinsh];W[place f6])", "place f6 none", [2]string{"unknown", "unknown"}},
		{"a comment-only node and white space", "(;ZG[yinsh]\n;C[first]\n;W[place  f6])", "place f6 none", [2]string{"unknown", "unknown"}},
		{"variations: the main line", "(;ZG[yinsh];W[place f6](;B[place e5])(;B[place e6]))", "place f6;place e5 none", [2]string{"unknown", "unknown"}},
		{"resigned", "(;ZG[yinsh]RE[W+R];W[place f6])", "place f6 white", [2]string{"unknown", "unknown"}},
		{"unknown result", "(;ZG[yinsh]RE[?];W[place f6])", "place f6 none", [2]string{"unknown", "unknown"}},
		{"a tree of several games", "(;ZG[yinsh];W[place f6])(;ZG[yinsh])", "error: 2 games: want one", [2]string{}},
		{"no game named", "(;FF[4];B[1@a1])", "error: no ZG or GM property", [2]string{}},
		{"Go", "(;GM[1];B[dd])", "error: GM[1]: not a game zero plays", [2]string{}},
		{"a game of another number", "(;GM[24]ZG[gyges];B[1@a1])", "error: GM[24], but gyges's is none", [2]string{}},
		{"an unknown game", "(;ZG[chess])", `error: ZG: unknown game "chess"`, [2]string{}},
		{"not the side to move", "(;ZG[yinsh];B[place f6])", "error: node 2: B[place f6] is a move of black, but white is to move", [2]string{}},
		{"an illegal move", "(;ZG[yinsh];W[place f6];B[place f6])", "error: node 3: move 2: place f6: the point is taken", [2]string{}},
		{"two decisions in a node", "(;ZG[yinsh];W[place f6]B[place e5])", "error: node 2: W and B in one node", [2]string{}},
		{"chance's move when a player is to move", "(;ZG[imbriqua];ZC[card 1])", "error: node 2: ZC[card 1] is a move of chance, but light is to move", [2]string{}},
		{"a result the moves do not give", "(;ZG[yinsh]RE[B+];W[place f6])", "error: RE[B+], but the game is not over", [2]string{}},
		{"a win on time", "(;ZG[yinsh]RE[B+T];W[place f6])", "error: RE[B+T]: a win on time", [2]string{}},
		{"a result of no form", "(;ZG[yinsh]RE[white wins];W[place f6])", "error: RE[white wins]: want B+…, W+…", [2]string{}},
		{"not SGF at all", "(;ZG[yinsh];W[place f6]", "error: not SGF: line 1, column 24: the text ends inside a game tree", [2]string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := games.ReadRecord(strings.NewReader(tc.text))
			if w, isErr := strings.CutPrefix(tc.want, "error: "); isErr {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Fatalf("error %v, want %q", err, w)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := r.MoveList() + " " + r.Result; got != tc.want {
				t.Errorf("read %q, want %q", got, tc.want)
			}
			if r.Players != tc.players {
				t.Errorf("players %q, want %q", r.Players, tc.players)
			}
		})
	}
}

// TestSGFFinishedGameResigned: a resignation after the moves ended the game is refused.
func TestSGFFinishedGameResigned(t *testing.T) {
	r := randomRecord(t, "gyges", 5, 0, false)
	text, err := games.MarshalSGF(r)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(text), "RE[B+]", "RE[B+R]", 1)
	s = strings.Replace(s, "RE[W+]", "RE[W+R]", 1)
	if _, err := games.ReadRecord(strings.NewReader(s)); err == nil || !strings.Contains(err.Error(), "a resignation, but the moves end the game") {
		t.Errorf("error %v, want the resignation refused", err)
	}
}
