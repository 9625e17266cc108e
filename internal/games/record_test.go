package games_test

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/yinsh"
	"github.com/zerogames/zero/internal/games"
	"github.com/zerogames/zero/selfplay"
)

func TestReadRecordRefuses(t *testing.T) {
	good := selfplay.Record{Game: "yinsh", Sides: [2]string{"white", "black"}, Players: [2]string{"human", "random"},
		Moves: []string{"place f6", "place e5"}, Result: "none"}
	edit := func(f func(r *selfplay.Record)) string {
		r := good
		r.Moves = slices.Clone(good.Moves)
		f(&r)
		return string(r.MarshalFile())
	}
	line := func(f func(r *selfplay.Record)) string {
		r := good
		r.Moves = slices.Clone(good.Moves)
		f(&r)
		return string(r.MarshalLine())
	}
	tests := []struct{ name, text, wantErr string }{
		{"good", edit(func(*selfplay.Record) {}), ""},
		{"not JSON", "place f6", "not a game record"},
		{"unknown field", `{"format":"zero-game/1","game":"yinsh","elo":3}`, `unknown field "elo"`},
		{"a game line's field", `{"format":"zero-game/1","game":"yinsh","seeds":[1,2,3]}`, `unknown field "seeds"`},
		{"two objects", edit(func(*selfplay.Record) {}) + "{}", "data after the JSON object"},
		{"other format", strings.Replace(edit(func(*selfplay.Record) {}), "zero-game/1", "pgn", 1), `format: "pgn"`},
		{"unknown game", edit(func(r *selfplay.Record) { r.Game = "go" }), `game: unknown game "go"`},
		{"players", edit(func(r *selfplay.Record) { r.Sides = [2]string{"red", "blue"} }), "players: want who played white and black"},
		{"illegal move", edit(func(r *selfplay.Record) { r.Moves[1] = "place f6" }), `moves: move 2: place f6: the point is taken`},
		{"wrong result", edit(func(r *selfplay.Record) { r.Result = "white" }), `result: "white", but the moves give "none"`},
		{"no such result", edit(func(r *selfplay.Record) { r.Result = "red" }), `result: "red", want none, draw, white or black`},
		{"resigned by a stranger", edit(func(r *selfplay.Record) { r.Resigned = "red" }), `resigned: "red" is not a player`},
		{"resigned, result not the other", edit(func(r *selfplay.Record) { r.Resigned = "white" }), `result: "none", but the moves give "black"`},
		{"resigned", edit(func(r *selfplay.Record) { r.Resigned, r.Result = "white", "black" }), ""},
		{"too large", strings.Repeat(" ", selfplay.MaxRecordSize+1), "larger than"},
		{"a game line", line(func(*selfplay.Record) {}), ""},
		{"game lines", line(func(*selfplay.Record) {}) + line(func(r *selfplay.Record) { r.Moves = r.Moves[:1] }), "2 games: want one"},
		{"a game line of the wrong sides", line(func(r *selfplay.Record) { r.Sides = [2]string{"black", "white"} }), `sides: ["black" "white"]`},
		{"a game line's bad second move", line(func(*selfplay.Record) {}) + line(func(r *selfplay.Record) { r.Moves[1] = "place f6" }),
			"game 2: moves: move 2: place f6: the point is taken"},
		{"a game line without sides", `{"game":"yinsh","players":["a","b"],"moves":"","decisions":0,"result":"none","seeds":[0,0,0]}`,
			"want a format"},
		{"a game line's decisions", strings.Replace(line(func(*selfplay.Record) {}), `"decisions":2`, `"decisions":3`, 1),
			"decisions: 3, but the moves are 2"},
		// Decoding errors name the field and what it wants, never a Go type.
		{"a number for a name", `{"format":"zero-game/1","game":3}`, "game: want the game's name, a string, not a number"},
		{"a file's moves as a string", `{"format":"zero-game/1","game":"yinsh","players":{"white":"a","black":"b"},"moves":"place f6","result":"none"}`,
			"moves: want a list of moves, each a string"},
		{"a line's moves as a list", strings.Replace(line(func(*selfplay.Record) {}), `"moves":"place f6;place e5"`, `"moves":["place f6","place e5"]`, 1),
			"moves: want the moves as one string, separated by ';'"},
		{"a negative seed", strings.Replace(line(func(*selfplay.Record) {}), `"seeds":[0,0,0]`, `"seeds":[-1,0,0]`, 1),
			"seeds: want three integers from 0 to 18446744073709551615, not -1"},
		{"sides as a string", strings.Replace(line(func(*selfplay.Record) {}), `"sides":["white","black"]`, `"sides":"white"`, 1),
			"sides: want the game's two sides, a list of two strings, not a string"},
		{"a list", `[1, 2]`, "not a game record: want a JSON object, not a list"},
	}
	for _, tt := range tests {
		_, err := games.ReadRecord(strings.NewReader(tt.text))
		if err != nil && (strings.Contains(err.Error(), "Go ") || strings.Contains(err.Error(), "json:")) {
			t.Errorf("%s: the error shows Go's words: %v", tt.name, err)
		}
		if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.wantErr)
		}
	}
	if _, err := games.LoadRecord("/nonexistent/game.json"); err == nil {
		t.Error("a missing file loaded")
	}
}

// The files zero wrote before records were one type (zero play's saves, an arena's
// games.jsonl, in testdata as those builds wrote them) read, replay, and write back byte for
// byte.
func TestRecordFilesRead(t *testing.T) {
	for _, tt := range []struct {
		file  string
		games int
		line  bool
	}{
		{"play-yinsh-blitz-resigned.json", 1, false},
		{"play-imbriqua-unfinished.json", 1, false},
		{"arena-gyges.jsonl", 12, true},
		{"arena-imbriqua.jsonl", 12, true},
	} {
		path := filepath.Join("testdata", tt.file)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := games.ReadRecords(bytes.NewReader(data))
		if err != nil || len(recs) != tt.games {
			t.Fatalf("%s: %d games, %v", tt.file, len(recs), err)
		}
		var back []byte
		for _, r := range recs {
			if tt.line {
				back = append(back, r.MarshalLine()...)
			} else {
				back = append(back, r.MarshalFile()...)
			}
		}
		if !bytes.Equal(back, data) {
			t.Errorf("%s written back:\n%s\nwant\n%s", tt.file, back, data)
		}
	}
	r, err := games.LoadRecord(filepath.Join("testdata", "arena-imbriqua.jsonl#3"))
	if err != nil || r.Game != "imbriqua" || r.Seeds == [3]uint64{} || r.Winner() != 0 && r.Winner() != 1 {
		t.Errorf("game 3 of an arena: %+v, %v", r, err)
	}
	for path, want := range map[string]string{
		"arena-imbriqua.jsonl":    "holds 12 games: load one as",
		"arena-imbriqua.jsonl#13": "holds 12 games, not 13",
		"arena-imbriqua.jsonl#x":  "want FILE#N",
	} {
		if _, err := games.LoadRecord(filepath.Join("testdata", path)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", path, err, want)
		}
	}
	r, err = games.LoadRecord(filepath.Join("testdata", "play-yinsh-blitz-resigned.json"))
	if err != nil || r.PlayerOf("white") != "human" || r.PlayerOf("black") != "uct:20" || r.Resigned != "white" || r.Winner() != 1 {
		t.Errorf("a saved game: %+v, %v", r, err)
	}
}

// TestActionRecord turns games kept as action indices (a run's replay buffer) into records: a
// whole game, one a side resigned, and the refusals; every record it makes reads back through
// the rules.
func TestActionRecord(t *testing.T) {
	g, err := games.Lookup("yinsh-blitz")
	if err != nil {
		t.Fatal(err)
	}
	var s yinsh.State = yinsh.Blitz.New()
	rng := rand.New(rand.NewPCG(3, 4))
	var whole []env.Action
	for s.ToMove() != env.Terminal {
		legal := s.Legal(nil)
		a := legal[rng.IntN(len(legal))]
		whole = append(whole, a)
		s = s.Play(a)
	}
	first := yinsh.Blitz.New().Legal(nil)[0]
	self := [2]string{games.SelfPlay, games.SelfPlay}
	tests := []struct {
		name     string
		actions  []env.Action
		result   env.Result
		resigned string
		err      string
	}{
		{"whole", whole, s.Result(), "", ""},
		{"black resigned", whole[:20], env.Win0, "black", ""},
		{"white resigned", whole[:21], env.Win1, "white", ""},
		{"the wrong result", whole, env.Draw, "", "result: draw, but the moves give " + g.Info().ResultName(s.Result())},
		{"unfinished, nobody won", whole[:20], env.Ongoing, "", "the game stops after 20 decisions, unfinished, and nobody won"},
		{"an illegal action", []env.Action{first, first}, env.Win0, "", "decision 2: place a2: the point is taken"},
		{"outside the actions", []env.Action{-1}, env.Win0, "", "decision 1: action -1 is outside yinsh-blitz's actions (0 to 5015)"},
	}
	for _, tt := range tests {
		r, err := games.ActionRecord(g, tt.actions, tt.result, self)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: err = %v, want %q", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil || r.Resigned != tt.resigned || len(r.Moves) != len(tt.actions) || r.Players != self {
			t.Errorf("%s: %+v, %v", tt.name, r, err)
			continue
		}
		back, err := games.ReadRecord(bytes.NewReader(r.MarshalLine()))
		if err != nil {
			t.Errorf("%s: read back: %v", tt.name, err)
			continue
		}
		if _, actions, err := env.Replay(yinsh.Blitz, back.MoveList()); err != nil || !slices.Equal(actions, tt.actions) {
			t.Errorf("%s: the moves read back are not the actions: %v", tt.name, err)
		}
	}
}
