package ui

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zerogames/zero/env/yinsh"
	"github.com/zerogames/zero/internal/games"
	"github.com/zerogames/zero/internal/games/gamestest"
	"github.com/zerogames/zero/models"
)

// midgame is 20 moves into a YINSH game (white to move; black's last move g3-b3).
const midgame = "place k7;place a3;place h9;place c3;place d3;place d9;place i6;place c7;place f2;place g3;move h9-f9;move c3-c2;move d3-d1;move c7-f10;move i6-d6;move d9-d8;move f9-g10;move c2-e2;move k7-i7;move g3-b3"

func newMatch(t *testing.T, game, side string) *Match {
	t.Helper()
	m, err := NewMatch(game, "random", side, 1)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestNewMatch(t *testing.T) {
	tests := []struct {
		game, opponent, side string
		wantErr              string
	}{
		{"yinsh", "random", "white", ""},
		{"yinsh-blitz", "", "black", ""},
		{"yinsh", "", "random", ""},
		{"gyges", "random", "north", ""},
		{"gyges-advanced", "random", "south", ""},
		{"imbriqua", "random", "dark", ""},
		{"gyges", "random", "white", `unknown side "white" (want south, north or random)`},
		{"chess", "random", "white", `unknown game "chess"`},
		{"yinsh", "random", "red", `unknown side "red" (want white, black or random)`},
		{"yinsh", "alphabeta:3", "white", `player "alphabeta:3": unknown kind "alphabeta"`},
	}
	for _, tt := range tests {
		m, err := NewMatch(tt.game, tt.opponent, tt.side, 1)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("NewMatch(%q, %q, %q): %v, want %q", tt.game, tt.opponent, tt.side, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("NewMatch(%q, %q, %q): %v", tt.game, tt.opponent, tt.side, err)
		}
		h := m.HumanSide()
		if m.Players[h] != Human || m.Players[1-h] != m.Agent().Spec() {
			t.Errorf("players %q, human side %d", m.Players, h)
		}
		if tt.opponent == "" && m.Agent().Spec() != DefaultSpec("", tt.game) {
			t.Errorf("default opponent %q", m.Agent().Spec())
		}
	}
}

func TestMatchPlayUndoResign(t *testing.T) {
	m := newMatch(t, "yinsh-blitz", "black")
	if err := m.Play("place f6"); err == nil || !strings.Contains(err.Error(), "white's turn") {
		t.Fatalf("a move out of turn: %v", err)
	}
	if err := m.Undo(); err == nil {
		t.Fatal("undo before the person moved was accepted")
	}
	played, an, err := m.AgentTurn(context.Background(), nil)
	if err != nil || len(played) != 1 || an.Best() != played[0] || !m.HumanToMove() {
		t.Fatalf("AgentTurn: %q, %v, %v", played, an, err)
	}
	for _, bad := range []string{"place z9", "move f6-f9", "", "place " + strings.TrimPrefix(played[0], "place ")} {
		before := m.Pos.Moves()
		if err := m.Play(bad); err == nil {
			t.Errorf("Play(%q) accepted", bad)
		}
		if !slices.Equal(before, m.Pos.Moves()) {
			t.Errorf("Play(%q) changed the game", bad)
		}
	}
	free := "e5"
	if played[0] == "place e5" {
		free = "e6"
	}
	if err := m.Play("  " + free + " "); err != nil { // shortened, with blanks
		t.Fatal(err)
	}
	if _, _, err := m.AgentTurn(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if err := m.Undo(); err != nil || len(m.Pos.Moves()) != 1 || !m.HumanToMove() {
		t.Fatalf("undo: %v; moves %q", err, m.Pos.Moves())
	}
	if err := m.Resign(); err != nil || !m.Over() || m.Result() != "white" {
		t.Fatalf("resign: %v, over %v, result %q", err, m.Over(), m.Result())
	}
	if err := m.Play("place " + free); err != ErrGameOver {
		t.Fatalf("a move after resigning: %v", err)
	}
	r := m.Record()
	if r.Resigned != "black" || r.Result != "white" || r.PlayerOf("black") != Human || r.PlayerOf("white") != "random" {
		t.Fatalf("record %+v", r)
	}
	if err := m.Undo(); err != nil || m.Over() {
		t.Fatalf("undoing a resignation: %v", err)
	}
}

// Shortened moves expand only when exactly one legal move ends so.
func TestExpand(t *testing.T) {
	m := newMatch(t, "yinsh", "white")
	if err := m.Pos.PlayMoves(midgame); err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"d1-e1":       "move d1-e1",
		"move  d1-e1": "move d1-e1",
		"d1-d9":       "d1-d9", // illegal: left for the parser to explain
		"e1":          "e1",
		"pass":        "pass",
	} {
		if got := m.Expand(in); got != want {
			t.Errorf("Expand(%q) = %q, want %q", in, got, want)
		}
	}
}

// A whole game of each kind against the random agent, saved, read back and replayed to the
// same end.
func TestRecordRoundTrip(t *testing.T) {
	for _, game := range []string{"yinsh-blitz", "gyges", "gyges-advanced", "imbriqua"} {
		t.Run(game, func(t *testing.T) {
			side := "random"
			m := newMatch(t, game, side)
			for !m.Over() {
				if m.HumanToMove() {
					if err := m.Play(m.Pos.Legal()[0]); err != nil {
						t.Fatal(err)
					}
					continue
				}
				if _, _, err := m.AgentTurn(context.Background(), nil); err != nil {
					t.Fatal(err)
				}
			}
			path := filepath.Join(t.TempDir(), "game.json")
			if err := m.Record().SaveFile(path); err != nil {
				t.Fatal(err)
			}
			r, err := games.LoadRecord(path)
			if err != nil {
				t.Fatal(err)
			}
			if r.Result != m.Result() || r.Result == "none" || !slices.Equal(r.Moves, m.Pos.Moves()) {
				t.Fatalf("read back %+v", r)
			}
			m2 := newMatch(t, game, side)
			if err := m2.Load(r); err != nil || m2.Pos.Show() != m.Pos.Show() || BoardFor(game).Text(m2.Pos) != BoardFor(game).Text(m.Pos) {
				t.Fatalf("load: %v", err)
			}
			other := "yinsh"
			if game == "yinsh" {
				other = "gyges"
			}
			if err := newMatch(t, other, "random").Load(r); err == nil {
				t.Fatalf("a %s record loaded into a %s match", game, other)
			}
		})
	}
}

// In Imbriqua the match draws the cards: the person never decides for chance, and undo takes
// the draws back with the decisions around them.
func TestMatchChance(t *testing.T) {
	m := newMatch(t, "imbriqua", "light")
	draws := 0
	for range 40 {
		if m.Pos.ToMove() == "chance" {
			t.Fatalf("chance to decide after %q", m.Pos.Moves())
		}
		if m.HumanToMove() {
			if err := m.Play(m.Pos.Legal()[0]); err != nil {
				t.Fatal(err)
			}
		} else if _, _, err := m.AgentTurn(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		draws = 0
		for _, mv := range m.Pos.Moves() {
			if strings.HasPrefix(mv, "card ") {
				draws++
			}
		}
	}
	if draws == 0 {
		t.Fatalf("no card drawn in %q", m.Pos.Moves())
	}
	for m.Undo() == nil {
		if !m.HumanToMove() {
			t.Fatalf("undo left %s to decide after %q", m.Pos.ToMove(), m.Pos.Moves())
		}
	}
	if len(m.Pos.Moves()) != 0 {
		t.Fatalf("undone to %q, not the start", m.Pos.Moves())
	}
}

// Undo cannot reshuffle the deck: played again with other choices, the game turns over the
// same cards in the same order.
func TestMatchUndoKeepsTheDeck(t *testing.T) {
	cards := func(m *Match) []string {
		var c []string
		for _, mv := range m.Pos.Moves() {
			if strings.HasPrefix(mv, "card ") {
				c = append(c, mv)
			}
		}
		return c
	}
	play := func(m *Match, pick func(legal []string) string) []string {
		for len(cards(m)) < 6 {
			if m.HumanToMove() {
				if err := m.Play(pick(m.Pos.Legal())); err != nil {
					t.Fatal(err)
				}
			} else if _, _, err := m.AgentTurn(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
		}
		return cards(m)[:6]
	}
	m := newMatch(t, "imbriqua", "light")
	first := play(m, func(l []string) string { return l[0] })
	firstMoves := slices.Clone(m.Pos.Moves())
	for m.Undo() == nil {
	}
	again := play(m, func(l []string) string { return l[len(l)-1] })
	if slices.Equal(firstMoves[:len(m.Pos.Moves())], m.Pos.Moves()) {
		t.Fatalf("the second game repeated the first's moves %q: the test proves nothing", m.Pos.Moves())
	}
	if !slices.Equal(first, again) {
		t.Fatalf("after undo the cards came out %q, before %q", again, first)
	}
}

func TestYinshText(t *testing.T) {
	m := newMatch(t, "yinsh", "white")
	if err := m.Pos.PlayMoves(midgame); err != nil {
		t.Fatal(err)
	}
	text := BoardFor("yinsh").Text(m.Pos)
	lines := strings.Split(text, "\n")
	s := m.Pos.State().(yinsh.State)
	at := func(x, r int) string {
		l := []rune(lines[yinshLine(x, r)])
		c := yinshX(x)
		if c+1 >= len(l) {
			return string(l[c-1:])
		}
		return string(l[c-1 : c+2])
	}
	for p := range yinsh.NumPoints {
		x, r := yinsh.PointCoords(p)
		want := map[yinsh.Piece]string{yinsh.Empty: " · ", yinsh.WhiteRing: "(W)", yinsh.BlackRing: "(B)",
			yinsh.WhiteMarker: " w ", yinsh.BlackMarker: " b "}[s.At(p)]
		if yinsh.PointName(p) == "b3" { // the ring just moved
			want = "[B]"
		}
		if got := at(x, r); strings.TrimRight(got, " ") != strings.TrimRight(want, " ") {
			t.Errorf("%s drawn %q, want %q", yinsh.PointName(p), got, want)
		}
	}
	if got := at(-1, 2); strings.TrimSpace(got) != "2" {
		t.Errorf("row 2's label at its left end is %q", got)
	}
	if got := at(11, 8); strings.TrimSpace(got) != "8" {
		t.Errorf("row 8's label at its right end is %q", got)
	}
	for _, part := range []string{"a   b   c   d   e   f   g   h   i   j   k", "rings removed: white 0, black 0 (3 to win)", "markers in the pool: 41", "white to move a ring"} {
		if !strings.Contains(text, part) {
			t.Errorf("the drawing lacks %q:\n%s", part, text)
		}
	}
}

// TestYinshTextCoords: the drawing with names puts each empty point's name where Text draws
// its dot, and every piece as Text draws it.
func TestYinshTextCoords(t *testing.T) {
	m := newMatch(t, "yinsh", "white")
	if err := m.Pos.PlayMoves(midgame); err != nil {
		t.Fatal(err)
	}
	b := BoardFor("yinsh")
	c, ok := b.(Coords)
	if !ok {
		t.Fatal("the YINSH board draws no names")
	}
	plain, named := strings.Split(b.Text(m.Pos), "\n"), strings.Split(c.TextCoords(m.Pos), "\n")
	if len(plain) != len(named) {
		t.Fatalf("%d lines with names, %d without", len(named), len(plain))
	}
	s := m.Pos.State().(yinsh.State)
	for p := range yinsh.NumPoints {
		x, r := yinsh.PointCoords(p)
		name := yinsh.PointName(p)
		l, c := []rune(named[yinshLine(x, r)]), yinshX(x)
		got := strings.TrimSpace(string(l[c-1 : min(c+2, len(l))]))
		want := strings.TrimSpace(string([]rune(plain[yinshLine(x, r)])[c-1 : min(c+2, len([]rune(plain[yinshLine(x, r)])))]))
		if s.At(p) == yinsh.Empty {
			want = name
		}
		if got != want {
			t.Errorf("%s drawn %q, want %q", name, got, want)
		}
	}
	// Each of the other games names its squares at the edges and has no such drawing.
	for _, g := range []string{"gyges", "imbriqua"} {
		if _, ok := BoardFor(g).(Coords); ok {
			t.Errorf("%s's board has a drawing with names", g)
		}
	}
}

func TestYinshGroupAndView(t *testing.T) {
	m := newMatch(t, "yinsh", "white")
	b := BoardFor("yinsh")
	groups := b.Group(m.Pos)
	if len(groups) != 11 || groups[0].Label != "place a" || !slices.Equal(groups[0].Items, []string{"a2", "a3", "a4", "a5"}) ||
		groups[4].Items[9] != "e10" {
		t.Fatalf("placements grouped as %v", groups)
	}
	if err := m.Pos.PlayMoves(midgame); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, g := range b.Group(m.Pos) {
		if !strings.HasPrefix(g.Label, "move ") {
			t.Fatalf("group %v in the move phase", g)
		}
		for _, it := range g.Items {
			if !slices.Contains(m.Pos.Legal(), g.Label+it) {
				t.Errorf("%s%s is not a legal move", g.Label, it)
			}
			n++
		}
	}
	if n != len(m.Pos.Legal()) {
		t.Errorf("the groups hold %d moves, want %d", n, len(m.Pos.Legal()))
	}
	data, err := json.Marshal(b.View(m.Pos))
	if err != nil {
		t.Fatal(err)
	}
	var v yinshView
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	if v.Kind != "yinsh" || len(v.Points) != 85 || v.Phase != "move" || v.Pool != 41 || v.LastFrom != "g3" || v.LastTo != "b3" || v.Target != 3 {
		t.Fatalf("view %s", data)
	}
	pieces := map[string]int{}
	for _, p := range v.Points {
		pieces[p.Piece]++
	}
	if pieces["W"] != 5 || pieces["B"] != 5 || pieces["w"]+pieces["b"] != 10 {
		t.Errorf("pieces in the view: %v", pieces)
	}
}

// A game without a drawing of its own is drawn by its text and listed flat.
func TestPlainBoard(t *testing.T) {
	m := newMatch(t, "yinsh", "white")
	b := plainBoard{}
	if b.Text(m.Pos) != m.Pos.Show() || len(b.Group(m.Pos)[0].Items) != 85 {
		t.Fatal("plain board")
	}
	if _, ok := BoardFor("no such game").(plainBoard); !ok {
		t.Fatal("an unknown game got a drawing")
	}
}

// The default opponent of a game is its model at ModelSimulations: the --models folder's
// GAME.zck, else the shipped one, found from any working folder (the binary holds it); a game
// with no model plays DefaultOpponent.
func TestDefaultIsTheModel(t *testing.T) {
	t.Chdir(t.TempDir()) // no models folder here
	dir := t.TempDir()
	blitz, _ := games.Lookup("yinsh-blitz")
	gamestest.Checkpoint(t, blitz, filepath.Join(dir, "yinsh-blitz.zck"))
	tests := []struct {
		dir, game, want string
	}{
		{"", "yinsh-blitz", "mcts:400:models/yinsh-blitz.zck"},
		{"", "gyges-advanced", "mcts:400:models/gyges-advanced.zck"},
		{dir, "yinsh-blitz", "mcts:400:" + filepath.ToSlash(filepath.Join(dir, "yinsh-blitz.zck"))},
		{dir, "imbriqua", "mcts:400:models/imbriqua.zck"}, // none in dir: the shipped one
		{"", "tictactoe", DefaultOpponent},                // no model at all
	}
	for _, tt := range tests {
		if got := DefaultSpec(tt.dir, tt.game); got != tt.want {
			t.Errorf("DefaultSpec(%q, %q) = %q, want %q", tt.dir, tt.game, got, tt.want)
		}
	}
	// The default agent is built, from the binary's copy.
	a, err := NewAgent(blitz, "", 1)
	if err != nil || a.Spec() != "mcts:400:models/yinsh-blitz.zck" {
		t.Fatalf("default agent of yinsh-blitz: %v, %v", a, err)
	}
	// A models folder in the working folder counts too (the file wins over the binary's copy:
	// package models' test), for games the binary ships no model of as well.
	if err := os.Mkdir("models", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("models", "tictactoe.zck"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := DefaultSpec("", "tictactoe"); got != "mcts:400:models/tictactoe.zck" {
		t.Errorf("with ./models/tictactoe.zck: %q", got)
	}
}

// Every model the binary ships is GAME.zck for a known game, has its model card (a "## GAME.zck"
// section of models/README.md), loads as its game's network from any working folder, and plays
// a legal move from the start; and every .zck file of the repository's models folder is shipped.
func TestShippedModels(t *testing.T) {
	repo := filepath.Join("..", "..", models.Dir)
	cards, err := os.ReadFile(filepath.Join(repo, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	onDisk, err := filepath.Glob(filepath.Join(repo, "*"+models.Ext))
	if err != nil {
		t.Fatal(err)
	}
	names := models.Names()
	if len(names) == 0 || len(names) != len(onDisk) {
		t.Fatalf("shipped %q, the models folder holds %q", names, onDisk)
	}
	t.Chdir(t.TempDir())
	for _, name := range names {
		game, ok := strings.CutSuffix(name, models.Ext)
		g, err := games.Lookup(game)
		if !ok || err != nil {
			t.Errorf("models/%s: not a model of a known game (want GAME.zck)", name)
			continue
		}
		t.Run(game, func(t *testing.T) {
			if !strings.Contains(string(cards), "\n## "+name+"\n") {
				t.Errorf("models/README.md has no model card (## %s)", name)
			}
			if got := ModelPath("", game); got != "models/"+name {
				t.Errorf("ModelPath(\"\", %q) = %q", game, got)
			}
			gamestest.MoveFromStart(t, g, "mcts:16:models/"+name)
		})
	}
}

// A short form of an illegal move is refused with the rule that forbids it, as its long form
// is, not with the notation's list of first words; what the short form cannot mean keeps the
// parser's word.
func TestShortIllegalMove(t *testing.T) {
	m := newMatch(t, "yinsh", "white")
	if err := m.Pos.PlayMoves(midgame); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ in, want string }{
		{"d6-d9", "move d6-d9: the ring cannot go there (a ring moves in a line over empty points"},
		{"move d6-d9", "move d6-d9: the ring cannot go there"},
		// One kind of move is legal: its refusal of the long form speaks, even where it
		// cannot read it.
		{"d6-a6", `"move d6-a6": there is no point a6`},
		{"d4-e9", `"move d4-e9": d4 and e9 are not on one line`},
		{"row d6-d9", `row d6-d9`}, // another kind, as given: its own complaint
		{"", "want place P, move P-Q"},
	}
	for _, tt := range tests {
		before := m.Pos.Moves()
		err := m.Play(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Play(%q): %v, want %q", tt.in, err, tt.want)
		}
		if !slices.Equal(m.Pos.Moves(), before) {
			t.Fatalf("Play(%q) changed the game", tt.in)
		}
	}
	// Gygès has no first words: its parser speaks.
	g := newMatch(t, "gyges", "south")
	if err := g.Play("b1-d4"); err == nil || !strings.Contains(err.Error(), "b1-d4") {
		t.Errorf("gyges, b1-d4 in the set-up: %v", err)
	}
}
