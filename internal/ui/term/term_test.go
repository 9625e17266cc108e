package term

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zerogames/zero/internal/games"
	"github.com/zerogames/zero/internal/ui"
)

// scripted is an agent that plays the first legal move after reporting its work in steps,
// so that the spinner has something to show.
type scripted struct{ pause time.Duration }

func (scripted) Spec() string { return "scripted" }

func (s scripted) Analyze(_ context.Context, pos *games.Position, progress func(done, total int)) (games.Analysis, error) {
	for i := 0; progress != nil && i <= 100; i += 25 {
		progress(i, 100)
		time.Sleep(s.pause)
	}
	legal := pos.Legal()
	an := games.Analysis{Value: 0.5, Work: 100}
	for i, m := range legal[:min(3, len(legal))] {
		an.Moves = append(an.Moves, games.MoveStat{Move: m, Share: 0.5 / float64(i+1), WinProb: 0.75})
	}
	return an, nil
}

func scriptedMatch(game, _, side string, seed uint64) (*ui.Match, error) {
	g, err := games.Lookup(game)
	if err != nil {
		return nil, err
	}
	return ui.NewMatchAgent(g, scripted{}, side, seed)
}

// slowMatch's agent pauses between reports longer than the spinner's throttle, so that each
// is drawn.
func slowMatch(game, _, side string, seed uint64) (*ui.Match, error) {
	g, err := games.Lookup(game)
	if err != nil {
		return nil, err
	}
	return ui.NewMatchAgent(g, scripted{pause: 80 * time.Millisecond}, side, seed)
}

func TestPlay(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "game.json")
	tests := []struct {
		name   string
		cfg    Config
		stdin  string
		want   []string // parts of the output, in order
		absent []string
		err    string
	}{
		{"help and legal moves", Config{Game: "yinsh"}, "help\n?\nquit\n",
			[]string{"you play white against scripted", "white to place a ring", "white> ", "hint", "take back your last move",
				"85 legal moves:", "  place a a2 a3 a4 a5\n", "  place e e1 e2 e3 e4 e5 e6 e7 e8 e9 e10\n", `(type a move as "place a2", or just "a2")`}, nil, ""},
		{"mistakes get a message and a new prompt", Config{Game: "yinsh"}, "place z1\nmove f6-f9\nplace   f6\nplace f6\nsave\nload\nload /nonexistent.json\nundo\nmoves\n",
			[]string{`? "place z1": "z1" is not a point`, "white> ", "? move f6-f9: white must place a ring (the opening)",
				"black (scripted) plays place a2", "? place f6: the point is taken", "? save where? save FILE",
				"? load what? load FILE", "? open /nonexistent.json: no such file", "no moves yet"}, nil, ""},
		{"the agent moves first when the person is black", Config{Game: "yinsh-blitz", Side: "black"}, "?\n",
			[]string{"you play black against scripted", "white (scripted) plays place a2", "84 legal moves:", "black> "}, nil, ""},
		{"hint", Config{Game: "yinsh"}, "hint\n",
			[]string{"scripted's view after 100 simulations (value +0.50 for white):", "place a2         visits  50.0%   wins  75%", "place a4"}, nil, ""},
		{"a spinner while the agent thinks", Config{Game: "yinsh", Side: "black", Spinner: &strings.Builder{}, NewMatch: slowMatch}, "",
			[]string{"white (scripted) plays place a2"}, nil, ""},
		{"unknown game", Config{Game: "go"}, "", nil, nil, `unknown game "go"`},
		{"unknown side", Config{Game: "yinsh", Side: "red"}, "", nil, nil, `unknown side "red"`},
		{"a bad record", Config{Game: "yinsh", Load: "/nonexistent.json"}, "", nil, nil, "/nonexistent.json"},
		{"resign, then save the record", Config{Game: "yinsh-blitz", Record: rec}, "place f6\nresign\nplace e5\nquit\nplace e5\n",
			[]string{"white resigned: black wins.", "The game is saved in " + rec, "(game over)> ? the game is over"}, []string{"place e5\n"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			if tt.cfg.NewMatch == nil {
				tt.cfg.NewMatch = scriptedMatch
			}
			err := Play(context.Background(), tt.cfg, strings.NewReader(tt.stdin), &out)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			text := out.String()
			at := 0
			for _, part := range tt.want {
				i := strings.Index(text[at:], part)
				if i < 0 {
					t.Fatalf("output lacks %q after byte %d:\n%s", part, at, text)
				}
				at += i + len(part)
			}
			for _, part := range tt.absent {
				if strings.Contains(text, part) {
					t.Errorf("output has %q", part)
				}
			}
			if b, ok := tt.cfg.Spinner.(*strings.Builder); ok && !strings.Contains(b.String(), "white thinks: 100/100 simulations") {
				t.Errorf("spinner output %q", b.String())
			}
		})
	}
	r, err := ui.LoadRecord(rec)
	if err != nil || r.Resigned != "white" || r.Players["black"] != "scripted" || !slices.Equal(r.Moves, []string{"place f6", "place a2"}) {
		t.Fatalf("saved record %+v, %v", r, err)
	}
}

// A whole game against the scripted agent, saved at the end, then loaded (replayed) and taken
// back. The person's moves are found beforehand by playing the same match offline: the
// scripted agent is deterministic, and the person plays the first legal move too.
func TestWholeGameAndLoad(t *testing.T) {
	m, _ := scriptedMatch("yinsh-blitz", "", "white", 1)
	var script strings.Builder
	for !m.Over() {
		if m.HumanToMove() {
			move := m.Pos.Legal()[0]
			script.WriteString(move + "\n")
			m.Play(move)
			continue
		}
		if _, _, err := m.AgentTurn(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
	}
	rec := filepath.Join(t.TempDir(), "game.json")
	var out strings.Builder
	cfg := Config{Game: "yinsh-blitz", Record: rec, NewMatch: scriptedMatch}
	if err := Play(context.Background(), cfg, strings.NewReader(script.String()), &out); err != nil {
		t.Fatal(err)
	}
	result := m.Result()
	if !strings.Contains(out.String(), "The game is saved in "+rec) {
		t.Fatalf("the finished game was not saved:\n%s", out.String())
	}
	r, err := ui.LoadRecord(rec)
	if err != nil || r.Result != result || !slices.Equal(r.Moves, m.Pos.Moves()) {
		t.Fatalf("record %+v, %v; want result %s after %d moves", r, err, result, len(m.Pos.Moves()))
	}

	out.Reset()
	cfg = Config{Load: rec, NewMatch: scriptedMatch}
	if err := Play(context.Background(), cfg, strings.NewReader("undo\nmoves\nquit\n"), &out); err != nil {
		t.Fatal(err)
	}
	for _, part := range []string{"you play white against scripted", "loaded " + rec, "1. place a2; 2. place a3;",
		"result " + result, "(game over)> ", "white> "} {
		if !strings.Contains(out.String(), part) {
			t.Fatalf("replay output lacks %q:\n%s", part, out.String())
		}
	}
	if strings.Contains(out.String(), "The game is saved") {
		t.Error("a loaded game was saved again")
	}
}
