package term

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/zerogames/zero/internal/games"
	"github.com/zerogames/zero/internal/lineread"
	"github.com/zerogames/zero/internal/ui"
	"github.com/zerogames/zero/selfplay"
)

// scripted is an agent that plays the first legal move after reporting its work in steps,
// so that the spinner has something to show.
type scripted struct{ pause time.Duration }

func (scripted) Spec() string { return "scripted" }
func (scripted) Release()     {}

func (s scripted) Analyze(_ context.Context, pos *games.Position, _ selfplay.Limits, progress func(done, total int)) (selfplay.Analysis, error) {
	for i := 0; progress != nil && i <= 100; i += 25 {
		progress(i, 100)
		time.Sleep(s.pause)
	}
	legal := pos.Legal()
	an := selfplay.Analysis{Value: 0.5, Work: 100}
	for i, m := range legal[:min(3, len(legal))] {
		an.Moves = append(an.Moves, selfplay.MoveStat{Move: m, Share: 0.5 / float64(i+1), WinProb: 0.75})
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
	saved := filepath.Join(dir, "saved.json")
	// A game of Gygès with the advanced rule after its set-up, the person north.
	setup := filepath.Join(dir, "gyges-setup.json")
	r := selfplay.Record{Game: "gyges-advanced", Sides: [2]string{"south", "north"}, Players: [2]string{"scripted", ui.Human},
		Moves: strings.Split("3@b1;2@f6;3@c1;3@b6;1@a1;1@a6;1@f1;2@d6;2@e1;1@c6;2@d1;3@e6", ";"), Result: "none"}
	if err := r.SaveFile(setup); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		cfg    Config
		stdin  string
		want   []string // parts of the output, in order
		absent []string
		err    string
		spin   string // what the spinner must have shown last
	}{
		{"help and legal moves", Config{Game: "yinsh"}, "help\n?\nquit\n",
			[]string{"you play white against scripted", "white to place a ring", "white> ", "hint", "take back your last move",
				"85 legal moves:", "  place a a2 a3 a4 a5\n", "  place e e1 e2 e3 e4 e5 e6 e7 e8 e9 e10\n", `(type a move as "place a2", or just "a2")`}, nil, "", ""},
		{"mistakes get a message and a new prompt", Config{Game: "yinsh"}, "place z1\nmove f6-f9\nplace   f6\nplace f6\nsave\nload\nload /nonexistent.json\nundo\nmoves\n",
			[]string{`? "place z1": "z1" is not a point`, "white> ", "? move f6-f9: white must place a ring (the opening)",
				"black (scripted) plays place a2", "? place f6: the point is taken", "? save where? save FILE",
				"? load what? load FILE", "? open /nonexistent.json: no such file", "no moves yet"}, nil, "", ""},
		{"the agent moves first when the person is black", Config{Game: "yinsh-blitz", Side: "black"}, "?\n",
			[]string{"you play black against scripted", "white (scripted) plays place a2", "84 legal moves:", "black> "}, nil, "", ""},
		{"coords", Config{Game: "yinsh"}, "coords\n",
			[]string{"white> ", "       c8      e9     g10     i11\n"}, nil, "", ""},
		{"coords of a square board draws it again", Config{Game: "gyges"}, "coords\n",
			[]string{"south> ", "┃ south goal ┃"}, nil, "", ""},
		{"hint", Config{Game: "yinsh"}, "hint\n",
			[]string{"scripted's view after 100 simulations (value +0.50 for white):", "place a2         visits  50.0%   wins  75%", "place a4"}, nil, "", ""},
		// Agents that do not run simulations say what they did instead.
		{"hint of random", Config{Game: "yinsh", Opponent: "random", NewMatch: ui.NewMatch}, "hint\n",
			[]string{"random draws a legal move, without searching; it would play place "}, []string{"simulations", "100.0%"}, "", ""},
		{"hint of alpha-beta", Config{Game: "gyges", Opponent: "ab:1", NewMatch: ui.NewMatch}, "hint\n",
			[]string{"ab:1's view after ", " positions searched"}, []string{"simulations"}, "", ""},
		{"a spinner while the agent thinks", Config{Game: "yinsh", Side: "black", Spinner: &strings.Builder{}, NewMatch: slowMatch}, "",
			[]string{"white (scripted) plays place a2"}, nil, "", "white thinks: 100/100 simulations"},
		{"Gygès: the set-up by size", Config{Game: "gyges"}, "?\n",
			[]string{"gyges: you play south against scripted", "┃ north goal ┃  south wins by moving a piece in",
				"1 │     │     │     │     │     │     │ 1  ◀ south places here", "┃ south goal ┃", "south to place a piece on row 1",
				"south> 18 legal moves:\n  3@ a1 b1 c1 d1 e1 f1\n  2@ a1 b1 c1 d1 e1 f1\n  1@ a1 b1 c1 d1 e1 f1\n", `(type a move as "1@a1")`}, nil, "", ""},
		{"Gygès: mistakes and a move", Config{Game: "gyges", Side: "north"}, "3@a1\n1@a6\nb6-b5\n",
			[]string{"you play north against scripted", "south (scripted) plays 1@a1", `? "3@a1": north places on his start row, row 6`,
				"north> ", "south (scripted) plays 1@b1", "? b6-b5: north must place a piece first"}, nil, "", ""},
		{"Gygès: the moves by piece, and a hint", Config{Game: "gyges-advanced", Side: "north", Load: setup}, "?\nhint\n",
			[]string{"loaded " + setup + ": gyges-advanced, 12 moves", "south (scripted) plays a1-", "north to move a piece from row 6",
				"legal moves:\n  a6- ", "\n  a6-b6* ", "(type a move as ", "scripted's view after 100 simulations (value +0.50 for north):"}, nil, "", ""},
		{"Imbriqua: the opening, and a spinner", Config{Game: "imbriqua", Side: "dark", Spinner: &strings.Builder{}, NewMatch: slowMatch}, "?\nd4\n",
			[]string{"imbriqua: you play dark against scripted", "light (scripted) plays a1", "dark to place a pawn (the opening: 4 each, anywhere)",
				"63 legal moves:\n  place b1 c1 d1", `(type a move as "a2")`, "light (scripted) plays a2"}, nil, "", "light thinks: 100/100 simulations"},
		{"Imbriqua: save, undo, load, resign", Config{Game: "imbriqua"}, "d4\nsave " + saved + "\nundo\nmoves\nload " + saved + "\nresign\n",
			[]string{"light> dark (scripted) plays a1", "saved 2 moves in " + saved, "no moves yet", "loaded " + saved + ": imbriqua, 2 moves, result none",
				"1. d4; 2. a1;", "light resigned: dark wins."}, nil, "", ""},
		// A command that takes no argument refuses one rather than do something else than was
		// meant (undo 2 took back one move, new game started one); a line over the limit is
		// refused and skipped, and the session goes on.
		{"arguments refused, a long line skipped", Config{Game: "yinsh-blitz"},
			"place f6\nundo 2\nnew game\nresign now\nmoves x\nquit now\n" + strings.Repeat("x", lineread.Max+1) + "\nmoves\n",
			[]string{`? undo takes no argument ("2" given)`, `? new takes no argument ("game" given)`, `? resign takes no argument ("now" given)`,
				`? moves takes no argument ("x" given)`, `? quit takes no argument ("now" given)`, "? line too long (the limit is 1048576 bytes)", "1. place f6; 2. place a2;"},
			[]string{"resigned"}, "", ""},
		{"unknown game", Config{Game: "go"}, "", nil, nil, `unknown game "go"`, ""},
		{"unknown side", Config{Game: "yinsh", Side: "red"}, "", nil, nil, `unknown side "red"`, ""},
		{"a bad record", Config{Game: "yinsh", Load: "/nonexistent.json"}, "", nil, nil, "/nonexistent.json", ""},
		// The opponent asked for is refused, with a record as without: the default opponent
		// replaces only the record's agent or --models' model when they do not load.
		{"a bad opponent with a record", Config{Load: setup, Opponent: "uct:abc", NewMatch: ui.NewMatch}, "", nil, nil, `player "uct:abc"`, ""},
		{"new: the next game has a file of its own", Config{Game: "yinsh-blitz", Record: filepath.Join(dir, "games", "g.json")}, "place f6\nresign\nnew\nplace e5\nresign\n",
			[]string{"The game is saved in " + filepath.Join(dir, "games", "g.json"), "The game is saved in " + filepath.Join(dir, "games", "g-2.json")}, nil, "", ""},
		// The end of the input saves the game so far, as Ctrl-C does, and says so.
		{"the end of the input saves", Config{Game: "yinsh-blitz", Record: filepath.Join(dir, "eof.json")}, "place f6\nplace e5",
			[]string{"end of the input\nThe game so far is saved in " + filepath.Join(dir, "eof.json")}, nil, "", ""},
		{"the end of the input before a move saves nothing", Config{Game: "yinsh-blitz", Record: filepath.Join(dir, "none.json")}, "",
			[]string{"end of the input\n"}, []string{"saved"}, "", ""},
		{"resign, then save the record", Config{Game: "yinsh-blitz", Record: rec}, "place f6\nresign\nplace e5\nquit\nplace e5\n",
			[]string{"white resigned: black wins.", "The game is saved in " + rec, "(game over)> ? the game is over"}, []string{"place e5\n"}, "", ""},
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
			if b, ok := tt.cfg.Spinner.(*strings.Builder); ok && !strings.Contains(b.String(), tt.spin) {
				t.Errorf("spinner output %q, want %q", b.String(), tt.spin)
			}
		})
	}
	r, err := games.LoadRecord(rec)
	if err != nil || r.Resigned != "white" || r.PlayerOf("black") != "scripted" || !slices.Equal(r.Moves, []string{"place f6", "place a2"}) {
		t.Fatalf("saved record %+v, %v", r, err)
	}
}

// A read error ends the session with the error (not as the end of the input does, silently),
// after the lines read before it have been run.
func TestReadError(t *testing.T) {
	var out strings.Builder
	in := io.MultiReader(strings.NewReader("place f6\nmoves\n"), iotest.ErrReader(errors.New("the terminal went away")))
	err := Play(context.Background(), Config{Game: "yinsh-blitz", NewMatch: scriptedMatch}, in, &out)
	if err == nil || !strings.Contains(err.Error(), "reading the input: the terminal went away") {
		t.Fatalf("error %v, want the read error", err)
	}
	if !strings.Contains(out.String(), "1. place f6; 2. place a2;") {
		t.Errorf("the lines before the error were not run:\n%s", out.String())
	}
}

// A whole game of each kind against the scripted agent, saved at the end, then loaded
// (replayed) and taken back. The person's moves are found beforehand by playing the same match
// offline: the scripted agent is deterministic, the person plays the first legal move too, and
// the same seed draws the same cards.
func TestWholeGameAndLoad(t *testing.T) {
	tests := []struct {
		game string
		want []string // parts of the game's output
	}{
		{"yinsh-blitz", []string{"white to move a ring"}},
		{"gyges", []string{"◀ south moves a piece here", "last move: north "}},
		{"gyges-advanced", []string{"advanced rule", "last move: north "}},
		{"imbriqua", []string{"chance turned over card", "the card turned over: card", "all 44 turns played"}},
	}
	for _, tt := range tests {
		t.Run(tt.game, func(t *testing.T) {
			const seed = 9
			m, _ := scriptedMatch(tt.game, "", "random", seed)
			side := m.Game.Info().PlayerNames[m.HumanSide()]
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
			cfg := Config{Game: tt.game, Side: "random", Record: rec, NewMatch: scriptedMatch, Seed: seed}
			if err := Play(context.Background(), cfg, strings.NewReader(script.String()), &out); err != nil {
				t.Fatal(err)
			}
			result := m.Result()
			for _, part := range append(tt.want, "The game is saved in "+rec) {
				if !strings.Contains(out.String(), part) {
					t.Fatalf("the game's output lacks %q:\n%s", part, out.String())
				}
			}
			if strings.Contains(out.String(), "> ? ") { // a refusal follows the prompt
				t.Fatalf("a move was refused:\n%s", out.String())
			}
			r, err := games.LoadRecord(rec)
			if err != nil || r.Result != result || !slices.Equal(r.Moves, m.Pos.Moves()) {
				t.Fatalf("record %+v, %v; want result %s after %d moves", r, err, result, len(m.Pos.Moves()))
			}

			out.Reset()
			cfg = Config{Load: rec, NewMatch: scriptedMatch}
			if err := Play(context.Background(), cfg, strings.NewReader("undo\nmoves\nquit\n"), &out); err != nil {
				t.Fatal(err)
			}
			for _, part := range []string{"you play " + side + " against scripted", "loaded " + rec, "1. " + r.Moves[0] + "; 2. " + r.Moves[1] + ";",
				"result " + result, "(game over)> ", side + "> "} {
				if !strings.Contains(out.String(), part) {
					t.Fatalf("replay output lacks %q:\n%s", part, out.String())
				}
			}
			if strings.Contains(out.String(), "The game is saved") {
				t.Error("a loaded game was saved again")
			}
		})
	}
}

// thinking is an agent that thinks until it is interrupted, telling started when it begins.
type thinking struct{ started chan struct{} }

func (thinking) Spec() string { return "thinking" }
func (thinking) Release()     {}

func (a thinking) Analyze(ctx context.Context, _ *games.Position, _ selfplay.Limits, _ func(done, total int)) (selfplay.Analysis, error) {
	close(a.started)
	<-ctx.Done()
	return selfplay.Analysis{}, ctx.Err()
}

// Ctrl-C while the agent thinks ends the session and saves the game so far, which loads and
// goes on; at the start, with no move, nothing is saved.
func TestInterruptSaves(t *testing.T) {
	for _, tt := range []struct {
		name, side string
		moves      []string // the person's, before the agent thinks
	}{
		{"after a move", "white", []string{"place f6"}},
		{"before any move", "black", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := filepath.Join(t.TempDir(), "games", "game.json")
			started := make(chan struct{})
			newMatch := func(game, _, side string, seed uint64) (*ui.Match, error) {
				g, err := games.Lookup(game)
				if err != nil {
					return nil, err
				}
				return ui.NewMatchAgent(g, thinking{started}, side, seed)
			}
			in, typing := io.Pipe()
			defer typing.Close()
			ctx, cancel := context.WithCancel(context.Background())
			var out strings.Builder
			done := make(chan error, 1)
			go func() {
				done <- Play(ctx, Config{Game: "yinsh-blitz", Side: tt.side, Record: rec, NewMatch: newMatch}, in, &out)
			}()
			for _, m := range tt.moves {
				io.WriteString(typing, m+"\n")
			}
			<-started
			cancel() // Ctrl-C
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if tt.moves == nil {
				if _, err := os.Stat(rec); err == nil || strings.Contains(out.String(), "saved") {
					t.Errorf("a game without a move was saved:\n%s", out.String())
				}
				return
			}
			if want := "interrupted\nThe game so far is saved in " + rec; !strings.Contains(out.String(), want) {
				t.Errorf("output lacks %q:\n%s", want, out.String())
			}
			r, err := games.LoadRecord(rec)
			if err != nil || !slices.Equal(r.Moves, tt.moves) || r.Result != "none" || r.PlayerOf(tt.side) != ui.Human {
				t.Errorf("the saved game: %+v, %v", r, err)
			}
		})
	}
}
