package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zerogames/zero/internal/games"
	"github.com/zerogames/zero/internal/games/gamestest"
)

// TestModelsAnywhere: from a working folder with no models in it, every command finds the
// shipped models (the binary holds them): play's and arena's defaults, a mcts:N:models/GAME.zck
// spec in the arena and the engine, net info; --models adds a folder before them, and a
// --models folder that is not there is an error, not a silent fallback.
func TestModelsAnywhere(t *testing.T) {
	t.Chdir(t.TempDir())
	mine := t.TempDir()
	blitz, err := games.Lookup("yinsh-blitz")
	if err != nil {
		t.Fatal(err)
	}
	gamestest.Checkpoint(t, blitz, filepath.Join(mine, "yinsh-blitz.zck"))
	file := filepath.Join(mine, "file")
	os.WriteFile(file, nil, 0o644)
	tests := []struct {
		name    string
		args    []string
		stdin   string
		wantOut []string
		wantErr string
	}{
		{"play's default", []string{"play", "--game", "yinsh-blitz", "--as", "black", "--seed", "1", "--record", "-"}, "quit\n",
			[]string{"you play black against mcts:400:models/yinsh-blitz.zck", "white (mcts:400:models/yinsh-blitz.zck) plays place "}, ""},
		{"play's default from --models", []string{"play", "--game", "yinsh-blitz", "--models", mine, "--record", "-"}, "quit\n",
			[]string{"you play white against mcts:400:" + filepath.ToSlash(filepath.Join(mine, "yinsh-blitz.zck"))}, ""},
		{"play's default, --models without the game's", []string{"play", "--game", "gyges", "--models", mine, "--record", "-"}, "quit\n",
			[]string{"you play south against mcts:400:models/gyges.zck"}, ""},
		{"an arena of a shipped model", []string{"arena", "--game", "gyges", "--players", "mcts:8:models/gyges.zck,random", "--games", "2", "--out", "a"}, "",
			[]string{"gyges: 2 games", "mcts:8:models/gyges.zck"}, ""},
		{"the engine plays a shipped model", []string{"engine", "--game", "imbriqua", "--player", "mcts:8:models/imbriqua.zck"}, "genmove\nquit\n",
			[]string{"= "}, ""},
		{"the engine's default, each game's shipped model", []string{"engine", "--game", "gyges"}, "player\ngame imbriqua\nplayer\nplayer random\ngame yinsh\nplayer\nquit\n",
			[]string{"= mcts:400:models/gyges.zck\n", "= mcts:400:models/imbriqua.zck\n", "= random\n"}, ""},
		{"net info", []string{"net", "info", "models/gyges-advanced.zck"}, "", []string{"gyges-advanced"}, ""},
		{"play, --models missing", []string{"play", "--models", "/nonexistent"}, "", nil, "--models /nonexistent: no such folder"},
		{"serve, --models missing", []string{"serve", "--models", "/nonexistent", "--addr", "127.0.0.1:0"}, "", nil, "--models /nonexistent: no such folder"},
		{"serve, --runs missing", []string{"serve", "--runs", "/nonexistent", "--addr", "127.0.0.1:0"}, "", nil, "--runs /nonexistent: no such folder"},
		{"serve, --runs a file", []string{"serve", "--runs", file, "--addr", "127.0.0.1:0"}, "", nil, "--runs " + file + ": not a folder"},
		{"arena, --models a file", []string{"arena", "--models", file}, "", nil, "--models " + file + ": not a folder"},
		{"a model not shipped", []string{"arena", "--players", "mcts:8:models/chess.zck,random"}, "", nil, "models/chess.zck"},
		// Refused before any game is played (the command's stdout then has none).
		{"arena, --out a file", []string{"arena", "--game", "gyges", "--players", "random,ab:1", "--games", "2", "--out", file}, "", nil, "--out: mkdir " + file + ": not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			err := run(context.Background(), tt.args, strings.NewReader(tt.stdin), &stdout, &stderr)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("error %v\nstderr: %s", err, stderr.String())
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
			}
			for _, part := range tt.wantOut {
				if !strings.Contains(stdout.String(), part) {
					t.Errorf("stdout lacks %q:\n%s", part, stdout.String())
				}
			}
		})
	}
	// The arena's default players: the game's model at 200 simulations against the baselines.
	for _, tt := range []struct{ dir, game, want string }{
		{"", "gyges", "mcts:200:models/gyges.zck,uct:1000,ab:2:eval=none"},
		{mine, "yinsh-blitz", "mcts:200:" + filepath.ToSlash(filepath.Join(mine, "yinsh-blitz.zck")) + ",uct:1000,ab:2:eval=none"},
		{mine, "yinsh", "mcts:200:models/yinsh.zck,uct:1000,ab:2:eval=none"},
	} {
		if got, err := defaultPlayers(tt.dir, tt.game); err != nil || strings.Join(got, ",") != tt.want {
			t.Errorf("defaultPlayers(%q, %q) = %q, %v; want %q", tt.dir, tt.game, got, err, tt.want)
		}
	}
	// A folder whose name has a comma: the players are a list, not split on it again.
	comma := filepath.Join(t.TempDir(), "m,x")
	os.Mkdir(comma, 0o755)
	gamestest.Checkpoint(t, blitz, filepath.Join(comma, "yinsh-blitz.zck"))
	if got, err := defaultPlayers(comma, "yinsh-blitz"); err != nil || len(got) != 3 || got[0] != "mcts:200:"+filepath.ToSlash(filepath.Join(comma, "yinsh-blitz.zck")) {
		t.Errorf("defaultPlayers(%q) = %q, %v", comma, got, err)
	}
	if _, err := defaultPlayers("", "tictactoe"); err == nil || !strings.Contains(err.Error(), "no model tictactoe.zck") {
		t.Errorf("a game without a model: %v", err)
	}
}
