package selfplay

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/gyges"
	"github.com/zerogames/zero/env/imbriqua"
	"github.com/zerogames/zero/env/yinsh"
	"github.com/zerogames/zero/internal/testgames"
	"github.com/zerogames/zero/mcts"
	"github.com/zerogames/zero/net"
)

func TestParseSpec(t *testing.T) {
	good := []struct {
		text string
		want Spec
	}{
		{"random", Spec{Text: "random", Kind: "random"}},
		{"uct:200", Spec{Text: "uct:200", Kind: "uct", Simulations: 200}},
		{"ucb1:50", Spec{Text: "ucb1:50", Kind: "ucb1", Simulations: 50}},
		{"mcts:800:runs/yinsh/ckpt-000100.zero", Spec{Text: "mcts:800:runs/yinsh/ckpt-000100.zero", Kind: "mcts",
			Simulations: 800, Checkpoint: "runs/yinsh/ckpt-000100.zero"}},
		{"mcts:8:C:\\nets\\a.zero", Spec{Text: "mcts:8:C:\\nets\\a.zero", Kind: "mcts", Simulations: 8, Checkpoint: "C:\\nets\\a.zero"}},
		{"ab:2", Spec{Text: "ab:2", Kind: "ab", Depth: 2}},
		{"uct:1s:threads=3", Spec{Text: "uct:1s:threads=3", Kind: "uct", Time: time.Second, Threads: 3}},
		{"ucb1:500:threads=1", Spec{Text: "ucb1:500:threads=1", Kind: "ucb1", Simulations: 500, Threads: 1}},
		{"mcts:2s:threads=2:a.zck", Spec{Text: "mcts:2s:threads=2:a.zck", Kind: "mcts", Time: 2 * time.Second,
			Checkpoint: "a.zck", Settings: "threads=2", Threads: 2}},
		{"mcts:400:c_puct=1:threads=256:a.zck", Spec{Text: "mcts:400:c_puct=1:threads=256:a.zck", Kind: "mcts", Simulations: 400,
			Checkpoint: "a.zck", Settings: "c_puct=1:threads=256", Threads: 256}},
		{"ab:8", Spec{Text: "ab:8", Kind: "ab", Depth: 8}},
		{"ab:4:1s", Spec{Text: "ab:4:1s", Kind: "ab", Depth: 4, Time: time.Second}},
		{"ab:3:250ms", Spec{Text: "ab:3:250ms", Kind: "ab", Depth: 3, Time: 250 * time.Millisecond}},
		{"ab:2:eval=none", Spec{Text: "ab:2:eval=none", Kind: "ab", Depth: 2, EndsOnly: true}},
		{"ab:6:eval=none:1s", Spec{Text: "ab:6:eval=none:1s", Kind: "ab", Depth: 6, Time: time.Second, EndsOnly: true}},
		{"uct:1s", Spec{Text: "uct:1s", Kind: "uct", Time: time.Second}},
		{"ucb1:250ms", Spec{Text: "ucb1:250ms", Kind: "ucb1", Time: 250 * time.Millisecond}},
		{"mcts:1.5s:a.zck", Spec{Text: "mcts:1.5s:a.zck", Kind: "mcts", Time: 1500 * time.Millisecond, Checkpoint: "a.zck"}},
		{"mcts:400:c_puct=0.6:a.zck", Spec{Text: "mcts:400:c_puct=0.6:a.zck", Kind: "mcts", Simulations: 400,
			Checkpoint: "a.zck", Settings: "c_puct=0.6"}},
		{"mcts:1s:c_puct=2:fpu_reduction=0:solver=false:C:\\a=b.zck", Spec{Text: "mcts:1s:c_puct=2:fpu_reduction=0:solver=false:C:\\a=b.zck",
			Kind: "mcts", Time: time.Second, Checkpoint: "C:\\a=b.zck", Settings: "c_puct=2:fpu_reduction=0:solver=false"}},
		{"mcts:8:dir/c_puct=1:a.zck", Spec{Text: "mcts:8:dir/c_puct=1:a.zck", Kind: "mcts", Simulations: 8, Checkpoint: "dir/c_puct=1:a.zck"}},
		{"mcts:8:./step=1.zck", Spec{Text: "mcts:8:./step=1.zck", Kind: "mcts", Simulations: 8, Checkpoint: "./step=1.zck"}},
		{"mcts:8:rule=ucb1:solver=false:root_proof=0:a.zck", Spec{Text: "mcts:8:rule=ucb1:solver=false:root_proof=0:a.zck", Kind: "mcts",
			Simulations: 8, Checkpoint: "a.zck", Settings: "rule=ucb1:solver=false:root_proof=0"}},
		{"mcts:400:symmetries=8:c_puct=0.6:a.zck", Spec{Text: "mcts:400:symmetries=8:c_puct=0.6:a.zck", Kind: "mcts", Simulations: 400,
			Checkpoint: "a.zck", Settings: "symmetries=8:c_puct=0.6", Symmetries: 8}},
		{"mcts:400:symmetries=1:a.zck", Spec{Text: "mcts:400:symmetries=1:a.zck", Kind: "mcts", Simulations: 400,
			Checkpoint: "a.zck", Settings: "symmetries=1", Symmetries: 1}},
	}
	for _, tc := range good {
		got, err := ParseSpec(tc.text)
		if err != nil || got != tc.want {
			t.Errorf("ParseSpec(%q) = %+v, %v; want %+v", tc.text, got, err, tc.want)
		}
	}
	bad := []struct{ text, says string }{
		{"", "unknown kind"},
		{"uct", "simulations"},
		{"uct:", "simulations"},
		{"uct:0", "simulations"},
		{"uct:-5", "simulations"},
		{"uct:+5", "simulations"},
		{"uct:1e3", "simulations"},
		{"uct:0s", "time a move"},
		{"uct:-1s", "time a move"},
		{"uct:+1s", "time a move"},
		{"uct:1x", "time a move"},
		{"uct:1.5", "time a move"},
		{"mcts:0ms:a.zck", "time a move"},
		{"uct:200:x", `the setting "x": uct's only setting is threads=K (uct:N:threads=K)`},
		{"random:3", "no parameter"},
		{"mcts:800", "mcts:N:CHECKPOINT or mcts:TIME:CHECKPOINT"},
		{"mcts:800:", "mcts:N:CHECKPOINT or mcts:TIME:CHECKPOINT"},
		{"mcts:x:a.zero", "simulations"},
		{"mcts:400:c_puct=0.6:", "mcts:N:CHECKPOINT or mcts:TIME:CHECKPOINT"},
		{"mcts:400:c_puct=0.6", `no checkpoint after the setting "c_puct=0.6"`},
		{"mcts:400:cpuct=0.6:a.zck", `the setting "cpuct=0.6": "cpuct" is not a search parameter (rule, c_puct, c_puct_base, fpu_reduction,`},
		{"mcts:400:C_PUCT=0.6:a.zck", `"C_PUCT" is not a search parameter`},
		{"mcts:400:c_puct =0.6:a.zck", `"c_puct " is not a search parameter`},
		{"mcts:400:temperature=1:a.zck", `"temperature" is not a search parameter`},
		{"mcts:400:step=1.zck", `no checkpoint after the setting "step=1.zck" (mcts:N:KEY=VALUE:CHECKPOINT; a checkpoint whose name holds "=" is written ./NAME)`},
		{"mcts:400:step=1:a.zck", `"step" is not a search parameter (rule, c_puct, c_puct_base, fpu_reduction, ucb_c, dirichlet_alpha, noise_fraction, gumbel,`},
		{"mcts:400:c_puct=1:c_puct=2:a.zck", `the setting "c_puct=2": c_puct is set twice`},
		{"mcts:400:c_puct=~:a.zck", `"~" is not one plain value`},
		{"mcts:400:solver=null:a.zck", `"null" is not one plain value`},
		{"mcts:400:c_puct=0.6 # more:a.zck", `"0.6 # more" is not one plain value`},
		{"mcts:400:c_puct=[1]:a.zck", `"[1]" is not one plain value`},
		{"mcts:400:c_puct=0.6::a.zck", "an empty field before the checkpoint"},
		{"mcts:400:c_puct=high:a.zck", `the setting "c_puct=high": "high" is not a value of c_puct: line 1: cannot unmarshal !!str`},
		{"mcts:400:solver=maybe:a.zck", `"maybe" is not a value of solver`},
		{"mcts:400:rule=alphazero:a.zck", `"alphazero" is not a value of rule`},
		{"mcts:400:c_puct=:a.zck", `"c_puct=" has no value`},
		{"mcts:400:c_puct=-1:a.zck", "c_puct = -1: want a number from 0 to 100"},
		{"mcts:400:symmetries=0:a.zck", `the setting "symmetries=0": "0" is not a whole number of symmetries ≥ 1`},
		{"mcts:1s:threads=0:a.zck", `the setting "threads=0": "0" is not a whole number of threads from 1 to 256`},
		{"mcts:1s:threads=257:a.zck", `"257" is not a whole number of threads from 1 to 256`},
		{"mcts:1s:threads=2:threads=2:a.zck", `the setting "threads=2": threads is set twice`},
		{"uct:1s:threads=x", `player "uct:1s:threads=x": the setting "threads=x": "x" is not a whole number of threads`},
		{"uct:1s:c_puct=1", `the setting "c_puct=1": uct's only setting is threads=K (uct:N:threads=K)`},
		{"ucb1:10:threads=2:x", `the setting "threads=2:x": ucb1's only setting is threads=K`},
		{"mcts:400:symmetries=+2:a.zck", `"+2" is not a whole number of symmetries`},
		{"mcts:400:symmetries=all:a.zck", `"all" is not a whole number of symmetries`},
		{"mcts:400:symmetries=:a.zck", `"" is not a whole number of symmetries`},
		{"mcts:400:symmetries=2:symmetries=4:a.zck", `the setting "symmetries=4": symmetries is set twice`},
		{"mcts:400:symmetry=2:a.zck", `"symmetry" is not a search parameter (rule, c_puct,`},
		{"mcts:400:in_flight=0:a.zck", "in_flight = 0: want 1 to 256"},
		{"alphazero", "unknown kind"},
		{"ab", "depth"},
		{"ab:", "depth"},
		{"ab:0", "depth"},
		{"ab:x", "depth"},
		{"ab:-1", "depth"},
		{"ab:+2", "depth"},
		{"ab:9", "depth"},
		{"ab:2:", "time a move"},
		{"ab:2:0s", "time a move"},
		{"ab:2:-1s", "time a move"},
		{"ab:2:soon", "time a move"},
		{"ab:2:eval=game", `the setting "eval=game": want eval=none`},
		{"ab:2:eval=", `the setting "eval=": want eval=none`},
		{"ab:2:tt=off", `the setting "tt=off": an ab player's only setting is eval=none`},
		{"ab:2:eval=none:eval=none", `the setting "eval=none" is given twice`},
		{"ab:2:1s:eval=none", `the setting "eval=none" comes before the time a move`},
		{"ab:2:eval=none:", "time a move"},
		{"ab:2:eval=none:soon", "time a move"},
		{"UCT:5", "unknown kind"},
	}
	for _, tc := range bad {
		if _, err := ParseSpec(tc.text); err == nil || !strings.Contains(err.Error(), tc.says) || !strings.Contains(err.Error(), "\""+tc.text+"\"") {
			t.Errorf("ParseSpec(%q): err = %v, want one naming the spec and saying %q", tc.text, err, tc.says)
		}
	}
}

func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"random", "uct:200", "mcts:800:a.zero", "uct:", "mcts::", "x:1:2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		sp, err := ParseSpec(text)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		if sp.Text != text || (sp.Kind != "random" && sp.Kind != "ab" && (sp.Simulations < 1) == (sp.Time <= 0)) || sp.Kind == "ab" && sp.Depth < 1 {
			t.Fatalf("ParseSpec(%q) = %+v", text, sp)
		}
		if sp.Time > time.Second {
			return // a player that thinks for minutes
		}
		if _, err := NewPlayer(testgames.TicTacToe, sp); err != nil && sp.Kind != "mcts" {
			t.Fatalf("NewPlayer(%+v): %v", sp, err)
		}
	})
}

// saveTinyNet writes a checkpoint of a tiny network of random weights (seeded) for game at path.
func saveTinyNet(t *testing.T, path string, info *env.Info, game any) string {
	t.Helper()
	spec, err := net.SpecOf(info, game)
	if err != nil {
		t.Fatal(err)
	}
	w, err := net.NewWeights(spec, net.Config{Blocks: 1, Channels: 4, PolicyChannels: 2, ValueChannels: 1, ValueHidden: 4},
		rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if err := net.Save(path, w, nil, 0, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	return path
}

// An mcts:N:CHECKPOINT player loads its checkpoint and plays; a missing one is refused with
// the spec and the file named, and so is another game's.
func TestMCTSPlayer(t *testing.T) {
	g := testgames.TicTacToe
	dir := t.TempDir()
	save := func(name string, info *env.Info, game any) string {
		return saveTinyNet(t, filepath.Join(dir, name), info, game)
	}
	ttt := save("ttt.zck", g.Info(), g)
	sp, _ := ParseSpec("mcts:20:" + ttt)
	p, err := NewPlayer(g, sp)
	if err != nil {
		t.Fatal(err)
	}
	// A new player holds no cache (PlayerCacheBytes) until its first search.
	if sr := p.(*Searcher[testgames.Board]); !sr.released {
		t.Errorf("a new mcts player holds its cache before any search")
	}
	rec, err := PlayGame(context.Background(), g, Setup[testgames.Board]{Players: [2]Player[testgames.Board]{p, &Random[testgames.Board]{}},
		Names: [2]string{sp.Text, "random"}})
	if err != nil || rec.Result == "none" {
		t.Fatalf("a game of the mcts player: %+v, %v", rec, err)
	}
	// An arena says what the player's network ran on, and only for players with one.
	res, err := Arena(context.Background(), g, ArenaConfig{Players: []string{sp.Text, "uct:5"}, Games: 2, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if want := p.(*Searcher[testgames.Board]).Engine(); want == "" || len(res.Engines) != 1 || res.Engines[sp.Text] != want {
		t.Errorf("arena's engines: %q; want {%s: %q}", res.Engines, sp.Text, want)
	}
	// Release gives back the tree and the cache of the network's answers; the next search
	// makes them again and answers as a new player does.
	sr := p.(*Searcher[testgames.Board])
	sr.Release()
	if !sr.released || sr.search.Visits() != 0 {
		t.Fatalf("after Release: released %v, %d visits at the root", sr.released, sr.search.Visits())
	}
	q, err := NewPlayer(g, sp)
	if err != nil {
		t.Fatal(err)
	}
	start := g.New()
	got, err := sr.Analyze(context.Background(), start, Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := q.Analyze(context.Background(), start, Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sr.released || !reflect.DeepEqual(got, want) {
		t.Errorf("the search after Release (released %v):\n%+v\nwant a new player's:\n%+v", sr.released, got, want)
	}
	// A spec's settings change the game's search parameters, and nothing else.
	set, err := ParseSpec("mcts:20:c_puct=2.5:fpu_reduction=0:" + ttt)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := NewPlayer(g, set)
	if err != nil {
		t.Fatal(err)
	}
	wantParams := PlayParams(g.Info().Name)
	wantParams.CPuct, wantParams.FPUReduction = 2.5, 0
	if got := ps.(*Searcher[testgames.Board]).search.Params(); !reflect.DeepEqual(got, wantParams) {
		t.Errorf("%s searches with\n%+v\nwant\n%+v", set.Text, got, wantParams)
	}
	if got := sr.search.Params(); !reflect.DeepEqual(got, PlayParams(g.Info().Name)) {
		t.Errorf("%s searches with\n%+v\nwant the game's PlayParams\n%+v", sp.Text, got, PlayParams(g.Info().Name))
	}
	// symmetries=K wraps the network in mcts.Symmetric (search parameters unchanged); more than
	// the game has is refused, naming the spec.
	sym, err := ParseSpec("mcts:20:symmetries=8:" + ttt)
	if err != nil {
		t.Fatal(err)
	}
	psym, err := NewPlayer(g, sym)
	if err != nil {
		t.Fatal(err)
	}
	if s := psym.(*Searcher[testgames.Board]).search; !reflect.DeepEqual(s.Params(), PlayParams(g.Info().Name)) {
		t.Errorf("%s searches with\n%+v\nwant the game's PlayParams", sym.Text, s.Params())
	} else if _, ok := s.Oracle().(*mcts.Symmetric[testgames.Board]); !ok {
		t.Errorf("%s asks %T, want an mcts.Symmetric", sym.Text, s.Oracle())
	}
	if _, ok := sr.search.Oracle().(*mcts.Observer[testgames.Board]); !ok {
		t.Errorf("%s asks %T, want the network's Observer", sp.Text, sr.search.Oracle())
	}
	sym9, _ := ParseSpec("mcts:20:symmetries=9:" + ttt)
	if _, err := NewPlayer(g, sym9); err == nil || !strings.Contains(err.Error(), `player "`+sym9.Text+`": mcts: 9 symmetries asked of tictactoe, which has 8`) {
		t.Errorf("%s: err = %v", sym9.Text, err)
	}
	// A game's own parameters (its registration's, SetPlayParams) reach its players.
	SetPlayParams("imbriqua", func(p *mcts.Params) { p.CPuct = 0.7 })
	defer SetPlayParams("imbriqua", nil)
	ig := imbriqua.Game
	isp, err := ParseSpec("mcts:4:" + save("imbriqua.zck", ig.Info(), ig))
	if err != nil {
		t.Fatal(err)
	}
	ip, err := NewPlayer(ig, isp)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ip.(*Searcher[imbriqua.State]).search.Params(), PlayParams("imbriqua"); !reflect.DeepEqual(got, want) || reflect.DeepEqual(want, mcts.DefaultParams()) {
		t.Errorf("an Imbriqua player searches with\n%+v\nwant Imbriqua's PlayParams, not the defaults\n%+v", got, want)
	}
	gamble := save("gamble.zck", testgames.Gamble.Info(), testgames.Gamble)
	for _, text := range []string{"mcts:10:" + filepath.Join(dir, "a.zck"), "mcts:10:" + gamble} {
		sp, _ := ParseSpec(text)
		if _, err := NewPlayer(g, sp); err == nil || !strings.Contains(err.Error(), `player "`+text+`": checkpoint `+text[len("mcts:10:"):]) {
			t.Errorf("%s: err = %v", text, err)
		}
	}
}

// cheat plays the first action of the action space, legal or not.
type cheat struct{}

func (cheat) NewGame(testgames.Board, uint64) {}
func (cheat) Choose(context.Context, testgames.Board, int) (env.Action, error) {
	return 0, nil
}
func (cheat) Played(testgames.Board, env.Action) error { return nil }
func (cheat) Analyze(context.Context, testgames.Board, Limits, func(int, int)) (Analysis, error) {
	return Analysis{}, nil
}

func TestPlayGame(t *testing.T) {
	g := testgames.TicTacToe
	mk := func(text string) Player[testgames.Board] {
		sp, err := ParseSpec(text)
		if err != nil {
			t.Fatal(err)
		}
		p, err := NewPlayer(g, sp)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	names := [2]string{"uct:50", "random"}
	players := [2]Player[testgames.Board]{mk(names[0]), mk(names[1])}
	setup := Setup[testgames.Board]{Players: players, Names: names, ChanceSeed: 1, Seeds: [2]uint64{2, 3}}
	rec, err := PlayGame(context.Background(), g, setup)
	if err != nil {
		t.Fatal(err)
	}
	end, actions, err := env.Replay(g, rec.MoveList())
	if err != nil {
		t.Fatalf("the record %q does not replay: %v", rec.Moves, err)
	}
	if len(actions) != len(rec.Moves) || g.Info().ResultName(end.Result()) != rec.Result || end.ToMove() != env.Terminal {
		t.Errorf("record %+v: replays to %d decisions and %s", rec, len(actions), g.Info().ResultName(end.Result()))
	}
	again, err := PlayGame(context.Background(), g, setup)
	if err != nil || !slices.Equal(again.Moves, rec.Moves) {
		t.Errorf("the same seeds played %q then %q (%v)", rec.Moves, again.Moves, err)
	}
	// Cheating: x takes a1, then o tries a1 again.
	_, err = PlayGame(context.Background(), g, Setup[testgames.Board]{Players: [2]Player[testgames.Board]{cheat{}, cheat{}},
		Names: [2]string{"cheat-x", "cheat-o"}})
	if err == nil || !strings.Contains(err.Error(), "cheat-o") || !strings.Contains(err.Error(), "illegal a1") {
		t.Errorf("an illegal move: err = %v", err)
	}
}

// TestAlphaBetaEval: ab:D values the positions past its depth by the game's heuristic (Gygès
// has one), ab:D:eval=none by the ends of the game only: on a position of the movement with no
// end within 2 turns, ab:2's value is the heuristic's and ab:2:eval=none's is 0.
func TestAlphaBetaEval(t *testing.T) {
	g := gyges.Advanced
	s, err := g.ParsePosition("202110/000330/000000/000200/000100/030123 s")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		spec string
		zero bool
	}{{"ab:2", false}, {"ab:2:eval=none", true}, {"ab:2:eval=none:1h", true}} {
		sp, err := ParseSpec(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		p, err := NewPlayer(g, sp)
		if err != nil {
			t.Fatal(err)
		}
		an, err := p.Analyze(context.Background(), s, Limits{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if (an.Value == 0) != tc.zero || an.Value <= -1 || an.Value >= 1 {
			t.Errorf("%s: value %v", tc.spec, an.Value)
		}
	}
}

// TestAlphaBetaPlayer: ab:9 sees tic-tac-toe to its end: it never loses to random, and the
// same seeds play the same game.
func TestAlphaBetaPlayer(t *testing.T) {
	g := testgames.TicTacToe
	sp, err := ParseSpec("ab:8")
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(0); seed < 10; seed++ {
		ab, err := NewPlayer(g, sp)
		if err != nil {
			t.Fatal(err)
		}
		players := [2]Player[testgames.Board]{ab, &Random[testgames.Board]{}}
		names := [2]string{"ab:8", "random"}
		if seed%2 == 1 {
			players[0], players[1], names[0], names[1] = players[1], players[0], names[1], names[0]
		}
		setup := Setup[testgames.Board]{Players: players, Names: names, ChanceSeed: seed, Seeds: [2]uint64{seed, seed + 1}}
		rec, err := PlayGame(context.Background(), g, setup)
		if err != nil {
			t.Fatal(err)
		}
		loser := map[string]string{"x": names[1], "o": names[0]}[rec.Result]
		if loser == "ab:8" {
			t.Errorf("seed %d: ab:8 lost %s", seed, rec.Moves)
		}
		again, _ := PlayGame(context.Background(), g, setup)
		if !slices.Equal(again.Moves, rec.Moves) {
			t.Errorf("seed %d: %q then %q", seed, rec.Moves, again.Moves)
		}
	}
}

// TestOpening: the random opening is the same for two games with the same chance seed and
// the players are told of it.
func TestOpening(t *testing.T) {
	g := testgames.TicTacToe
	sp, _ := ParseSpec("uct:30")
	mk := func() Player[testgames.Board] {
		p, err := NewPlayer(g, sp)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	var openings []string
	for seeds := range 2 {
		setup := Setup[testgames.Board]{Players: [2]Player[testgames.Board]{mk(), mk()}, Names: [2]string{"a", "b"},
			ChanceSeed: 5, Seeds: [2]uint64{uint64(seeds), 9}, Opening: 3}
		rec, err := PlayGame(context.Background(), g, setup)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Opening != 3 {
			t.Errorf("record's opening %d", rec.Opening)
		}
		openings = append(openings, strings.Join(rec.Moves[:3], ";"))
	}
	if openings[0] != openings[1] {
		t.Errorf("openings %q and %q differ with the same chance seed", openings[0], openings[1])
	}
}

// Limits.Untimed drops a timed spec's time: the search runs exactly the simulations asked (the
// engine's go visits N), where without it the spec's millisecond ends it far sooner.
func TestUntimedLimits(t *testing.T) {
	g := yinsh.Blitz
	sp, err := ParseSpec("uct:1ms")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		lim   Limits
		exact bool
	}{
		{Limits{Simulations: 3000, Untimed: true}, true},
		{Limits{Simulations: 3000}, false}, // 3000 playouts of YINSH take far more than 1 ms
	} {
		p, err := NewPlayer(g, sp)
		if err != nil {
			t.Fatal(err)
		}
		p.NewGame(g.New(), 1)
		an, err := p.Analyze(context.Background(), g.New(), tc.lim, nil)
		if err != nil {
			t.Fatal(err)
		}
		if (an.Work == 3000) != tc.exact {
			t.Errorf("%+v: %d simulations", tc.lim, an.Work)
		}
	}
}

// Limits.Untimed drops an alpha-beta spec's time too: ab:6:1ms searches to depth 6 for go
// visits (some 0.1 s on a Gygès position after the set-up), where its millisecond stops it
// at a shallower depth.
func TestUntimedAlphaBeta(t *testing.T) {
	st, err := gyges.Basic.ParsePosition("321123/000000/000000/000000/000000/321123 s")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := ParseSpec("ab:6:1ms")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		lim  Limits
		full bool
	}{
		{Limits{Simulations: 1, Untimed: true}, true},
		{Limits{Simulations: 1}, false},
	} {
		p, err := NewPlayer(gyges.Basic, sp)
		if err != nil {
			t.Fatal(err)
		}
		p.NewGame(st, 1)
		depth := 0
		if _, err := p.Analyze(context.Background(), st, tc.lim, func(done, _ int) { depth = done }); err != nil {
			t.Fatal(err)
		}
		if (depth == 6) != tc.full {
			t.Errorf("%+v: depth %d of 6", tc.lim, depth)
		}
	}
}

// Limits.Cap bounds a search's time whatever the spec's budget (a server's bound): uct:N and
// ab:D stop within it, and a spec's own shorter time stands.
func TestCappedLimits(t *testing.T) {
	st, err := gyges.Basic.ParsePosition("321123/000000/000000/000000/000000/321123 s")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		spec    string
		lim     Limits
		bounded bool // the search stops before its own end
	}{
		{"uct:100000000", Limits{Cap: 20 * time.Millisecond}, true},
		{"uct:100000000", Limits{Simulations: 50000000, Cap: 20 * time.Millisecond}, true},
		{"uct:100000000", Limits{Untimed: true, Cap: 20 * time.Millisecond}, true},
		{"uct:300", Limits{Cap: time.Hour}, false}, // the spec's N ends it
		{"uct:1ms", Limits{Cap: time.Hour}, true},  // the spec's time stands
		{"ab:8", Limits{Cap: 20 * time.Millisecond}, true},
		{"ab:8:1h", Limits{Cap: 20 * time.Millisecond}, true},
		{"ab:8", Limits{Untimed: true, Cap: 20 * time.Millisecond}, true},
		{"ab:2", Limits{Cap: time.Hour}, false},
	} {
		sp, err := ParseSpec(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		p, err := NewPlayer(gyges.Basic, sp)
		if err != nil {
			t.Fatal(err)
		}
		p.NewGame(st, 1)
		depth := 0
		an, err := p.Analyze(context.Background(), st, tc.lim, func(done, _ int) { depth = done })
		if err != nil {
			t.Fatal(err)
		}
		whole := an.Work == sp.Simulations
		if sp.Kind == "ab" {
			whole = depth == sp.Depth
		}
		if whole == tc.bounded || an.Moves == nil {
			t.Errorf("%s with %+v: %d simulations (nodes), depth %d, %d moves", tc.spec, tc.lim, an.Work, depth, len(an.Moves))
		}
	}
}

// TestSearchThreads: a search bounded by time alone grows its tree from every core
// (SearchThreads), a search of N simulations from one, reproducibly, unless the spec sets
// threads=K; the helpers' oracles are the player's kind (a network engine of its own, random
// games); an arena shares the cores among the games it plays at once.
func TestSearchThreads(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	g := testgames.TicTacToe
	ttt := saveTinyNet(t, filepath.Join(t.TempDir(), "ttt.zck"), g.Info(), g)
	ctx := context.Background()
	for _, tc := range []struct {
		spec    string
		lim     Limits
		helpers int
	}{
		{"mcts:20:" + ttt, Limits{}, 0},
		{"mcts:30ms:" + ttt, Limits{}, 1},
		{"mcts:20:" + ttt, Limits{Simulations: math.MaxInt, Time: 30 * time.Millisecond}, 1}, // go infinite, go movetime
		{"mcts:20:" + ttt, Limits{Simulations: 50, Time: time.Second}, 0},                    // a cap: still N simulations
		{"mcts:20:threads=3:" + ttt, Limits{}, 2},
		{"mcts:30ms:threads=1:" + ttt, Limits{}, 0},
		{"uct:30ms", Limits{}, 1},
		{"uct:100", Limits{}, 0},
		{"ucb1:30ms:threads=4", Limits{}, 3},
	} {
		sp, err := ParseSpec(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		p, err := NewPlayer(g, sp)
		if err != nil {
			t.Fatal(err)
		}
		st := g.New()
		p.NewGame(st, 1)
		if _, err := p.Analyze(ctx, st, tc.lim, nil); err != nil {
			t.Fatal(err)
		}
		sr := p.(*Searcher[testgames.Board])
		if got := sr.search.Helpers(); got != tc.helpers {
			t.Errorf("%s with %+v: %d helpers, want %d", tc.spec, tc.lim, got, tc.helpers)
		}
		for k, h := range sr.helpers[:sr.search.Helpers()] {
			want := fmt.Sprintf("%T", sr.search.Oracle())
			if got := fmt.Sprintf("%T", h); got != want || h == sr.search.Oracle() {
				t.Errorf("%s: helper %d asks %s, want an oracle of its own of type %s", tc.spec, k, got, want)
			}
		}
		if _, err := p.Choose(ctx, st, 0); err != nil {
			t.Fatal(err)
		}
	}
	// An arena's timed players take their share of the cores: with both games at once, one each.
	for _, tc := range []struct{ workers, threads int }{{2, 1}, {1, 2}} {
		specs := []string{"uct:20ms", "uct:20ms:threads=1"}
		if _, err := Arena(ctx, g, ArenaConfig{Players: specs, Games: 2, Workers: tc.workers, Seed: 1}); err != nil {
			t.Fatal(err)
		}
		sp, _ := ParseSpec("uct:20ms")
		got := arenaThreads(sp, tc.workers, len(specs), 2)
		if got != tc.threads {
			t.Errorf("workers %d: an arena's uct:20ms searches from %d threads, want %d", tc.workers, got, tc.threads)
		}
	}
}
