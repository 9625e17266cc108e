package games_test

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zerogames/zero/internal/games"
	"github.com/zerogames/zero/internal/games/gamestest"
	"github.com/zerogames/zero/selfplay"
)

// TestSearchAgent: a uct agent finds the YINSH blitz win in one of mcts's tests through
// positions, its analysis shares sum to 1 with the choice first, and Limit bounds its work.
func TestSearchAgent(t *testing.T) {
	g, _ := games.Lookup("yinsh-blitz")
	a, err := g.NewAgent("uct:300", 1)
	if err != nil {
		t.Fatal(err)
	}
	p := g.NewPosition()
	if err := p.PlayMoves("place e2;place e4;place e5;place h8;place d4;place a5;place a2;place k7;place k10;place b7;" +
		"move e2-e3;move e4-f5;move e3-d2;move h8-h9;move e5-e6;move h9-h10;move e6-f7;move h10-i10"); err != nil {
		t.Fatal(err)
	}
	var calls, last int
	an, err := a.Analyze(context.Background(), p, selfplay.Limits{}, func(done, total int) {
		calls++
		if total != 300 || done < last {
			t.Errorf("progress(%d, %d) after %d", done, total, last)
		}
		last = done
	})
	if err != nil {
		t.Fatal(err)
	}
	if an.Best() != "move d4-f4" || an.Work != 300 || calls < 2 || last != 300 {
		t.Fatalf("analysis %+v after %d progress calls", an, calls)
	}
	sum := 0.0
	for i, m := range an.Moves {
		sum += m.Share
		if i > 0 && m.Share > an.Moves[0].Share {
			t.Errorf("%s has more of the search than the choice", m.Move)
		}
		if m.WinProb > 1 || m.WinProb < 0 && m.WinProb != -1 {
			t.Errorf("%s: win probability %v", m.Move, m.WinProb)
		}
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Errorf("shares sum to %v", sum)
	}
	for !p.Over() {
		an, err := a.Analyze(context.Background(), p, selfplay.Limits{Simulations: 50}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if an.Work != 50 {
			t.Errorf("Limits{Simulations: 50}: %d simulations", an.Work)
		}
		if err := p.Play(an.Best()); err != nil {
			t.Fatal(err)
		}
	}
	if p.Result() != "white" || !strings.HasPrefix(p.Moves()[len(p.Moves())-2], "row e2-e6") {
		t.Errorf("the game ended %s after %v", p.Result(), p.Moves())
	}
	if _, err := g.NewAgent("mcts:10:a.zero", 1); err == nil || !strings.Contains(err.Error(), "checkpoint a.zero") {
		t.Errorf("an mcts agent of a missing checkpoint: %v", err)
	}
}

// TestNetworkPlayers: mcts:N:CHECKPOINT agents and arena players search with the checkpoint's
// network; a checkpoint of another game is refused.
func TestNetworkPlayers(t *testing.T) {
	g, _ := games.Lookup("yinsh-blitz")
	dir := t.TempDir()
	path := filepath.Join(dir, "yinsh-blitz.zero")
	gamestest.Checkpoint(t, g, path)
	if an := gamestest.MoveFromStart(t, g, "mcts:16:"+path); an.Work != 16 || len(an.Moves) != 85 {
		t.Errorf("analysis %+v", an)
	}
	res, err := g.Arena(context.Background(), selfplay.ArenaConfig{
		Players: []string{"random", "mcts:8:" + path}, Games: 2, Opening: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Records) != 2 || res.Records[0].Players != [2]string{"random", "mcts:8:" + path} {
		t.Errorf("arena: %+v", res.Records)
	}
	other, _ := games.Lookup("imbriqua")
	wrong := filepath.Join(dir, "imbriqua.zero")
	gamestest.Checkpoint(t, other, wrong)
	if _, err := g.NewAgent("mcts:16:"+wrong, 1); err == nil || !strings.Contains(err.Error(), "imbriqua") {
		t.Errorf("an imbriqua checkpoint for yinsh-blitz: %v", err)
	}
}

// TestAlphaBetaAgent: an ab:1 agent finds the YINSH blitz win in one through positions (the
// move, then the row and the ring), saying it wins; bad ab specs are refused by name.
func TestAlphaBetaAgent(t *testing.T) {
	g, _ := games.Lookup("yinsh-blitz")
	a, err := g.NewAgent("ab:1", 1)
	if err != nil {
		t.Fatal(err)
	}
	p := g.NewPosition()
	if err := p.PlayMoves("place e2;place e4;place e5;place h8;place d4;place a5;place a2;place k7;place k10;place b7;" +
		"move e2-e3;move e4-f5;move e3-d2;move h8-h9;move e5-e6;move h9-h10;move e6-f7;move h10-i10"); err != nil {
		t.Fatal(err)
	}
	for !p.Over() {
		an, err := a.Analyze(context.Background(), p, selfplay.Limits{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if an.Value != 1 || an.Moves[0].WinProb != 1 {
			t.Fatalf("analysis %+v: want a proven win", an)
		}
		if err := p.PlayMoves(an.Best()); err != nil {
			t.Fatal(err)
		}
	}
	if got := p.Result(); got != "white" {
		t.Errorf("the game ended %q, want white's win", got)
	}
	for _, spec := range []string{"ab:0", "ab:x", "ab:9", "ab:2:soon"} {
		if _, err := g.NewAgent(spec, 1); err == nil || !strings.Contains(err.Error(), spec) {
			t.Errorf("NewAgent(%q): err = %v", spec, err)
		}
	}
}
