package mcts

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/gyges"
	"github.com/zerogames/zero/env/imbriqua"
	"github.com/zerogames/zero/env/yinsh"
	"github.com/zerogames/zero/internal/testgames"
)

func mustAB[S env.State[S]](t testing.TB, g env.Game[S], depth int, seed uint64) *AlphaBeta[S] {
	t.Helper()
	ab, err := NewAlphaBeta(g, depth, 0, seed)
	if err != nil {
		t.Fatal(err)
	}
	return ab
}

// TestAlphaBetaExact: deep enough to see the end, alpha-beta's value is the exact one
// (expectimax through Gamble's dice) and its move keeps it, from positions of random games.
func TestAlphaBetaExact(t *testing.T) {
	check := func(t *testing.T, name string, value float64, ok bool, want float64) {
		t.Helper()
		if math.Abs(value-want) > 1e-9 || !ok {
			t.Errorf("%s: value %v, exact %v; move optimal: %v", name, value, want, ok)
		}
	}
	rng := rand.New(rand.NewPCG(4, 4))
	for i := 0; i < 30; i++ {
		st := testgames.TicTacToe.New()
		for n := rng.IntN(6); n > 0 && st.ToMove() != env.Terminal; n-- {
			legal := st.Legal(nil)
			st = st.Play(legal[rng.IntN(len(legal))])
		}
		if st.ToMove() == env.Terminal {
			continue
		}
		res, err := mustAB(t, testgames.TicTacToe, MaxABDepth, uint64(i)).Search(context.Background(), st)
		if err != nil {
			t.Fatal(err)
		}
		opt := testgames.Optimal(st)
		check(t, st.String(), res.Value*sign(st.ToMove()), contains(opt, res.Best), testgames.Expectimax(st))
	}
	for _, moves := range []string{"", "safe", "risky;roll1", "risky;roll2", "risky;roll3"} {
		st := replay(t, testgames.Gamble, moves)
		res, err := mustAB(t, testgames.Gamble, MaxABDepth, 1).Search(context.Background(), st)
		if err != nil {
			t.Fatal(err)
		}
		check(t, "gamble "+moves, res.Value*sign(st.ToMove()), contains(testgames.Optimal(st), res.Best), testgames.Expectimax(st))
	}
}

func contains(xs []env.Action, a env.Action) bool {
	for _, x := range xs {
		if x == a {
			return true
		}
	}
	return false
}

// TestAlphaBetaTactics: on the tactics suite's positions, ab:1 takes every win in one, ab:2
// every forced block (the 21 positions the Gygès model lost included), ab:3 every win in two.
func TestAlphaBetaTactics(t *testing.T) {
	abTactics(t, gyges.Basic, gygesBasicTactics, gyges.Basic.ParsePosition)
	abTactics(t, gyges.Advanced, append(append([]tactic(nil), gygesAdvancedTactics...), mustBlockPositions(t)...), gyges.Advanced.ParsePosition)
	abTactics(t, yinsh.Blitz, yinshBlitzTactics, nil)
	abTactics(t, yinsh.Normal, yinshTactics, nil)
	abTactics(t, imbriqua.Game, imbriquaTactics, nil)
}

func abTactics[S env.State[S]](t *testing.T, g env.Game[S], tactics []tactic, parse func(string) (S, error)) {
	check := env.WinChecker(g)
	for i, tc := range tactics {
		var st S
		var err error
		if tc.positions != "" {
			st, err = parse(tc.positions)
		} else {
			st, _, err = env.Replay(g, tc.moves)
		}
		if err != nil {
			t.Fatal(err)
		}
		depth := map[tacticKind]int{winIn1: 1, blockIn1: 2, winIn2: 3}[tc.kind]
		for seed := uint64(1); seed <= 2; seed++ {
			res, err := mustAB(t, g, depth, seed).Search(context.Background(), st)
			if err != nil {
				t.Fatal(err)
			}
			if !goodMove(tc.kind, st.Play(res.Best), st.ToMove(), check) {
				t.Errorf("%s %s %d: ab:%d (seed %d) chose %s, value %v", g.Info().Name, tc.kind, i, depth, seed, env.ActionString(st, res.Best), res.Value)
			}
		}
	}
}

// TestAlphaBetaPVHorizon: a line that stops at the horizon ends there; a forced result's goes
// on through the win its last turn's shortcut saw. After a1;b2;c3;a2 X must block c2: ab:1
// sees no end (value 0), and its line is its one move, not continued into O's win past the
// horizon (it was, the value still 0). After a1;b1;c1;b2;a3;a2 O threatens b3 and c2: ab:2
// proves the loss, and its line is X's move and O's win.
func TestAlphaBetaPVHorizon(t *testing.T) {
	g := testgames.TicTacToe
	for _, tc := range []struct {
		moves string
		depth int
		value float64
		pv    int // the line's length
	}{
		{"a1;b2;c3;a2", 1, 0, 1},
		{"a1;b1;c1;b2;a3;a2", 2, -1, 2},
	} {
		st, _, err := env.Replay(g, tc.moves)
		if err != nil {
			t.Fatal(err)
		}
		for seed := uint64(1); seed <= 5; seed++ {
			res, err := mustAB(t, g, tc.depth, seed).Search(context.Background(), st)
			if err != nil {
				t.Fatal(err)
			}
			end := st
			for _, a := range res.PV {
				end = end.Play(a)
			}
			if res.Value*float64(1-2*int(st.ToMove())) != tc.value || len(res.PV) != tc.pv || (tc.value != 0) != (end.ToMove() == env.Terminal) {
				t.Errorf("%s, ab:%d, seed %d: value %v, line of %d ending at %v; want %v, %d", tc.moves, tc.depth, seed, res.Value, len(res.PV), end.ToMove(), tc.value, tc.pv)
			}
		}
	}
}

// TestAlphaBetaSeeds: the same seed chooses alike; other seeds break the ties of the start
// position (every Gygès placement is as good to a search that sees no end) differently.
func TestAlphaBetaSeeds(t *testing.T) {
	g := gyges.Basic
	choices := map[env.Action]bool{}
	for seed := uint64(1); seed <= 8; seed++ {
		a1, _ := mustAB(t, g, 2, seed).Search(context.Background(), g.New())
		a2, _ := mustAB(t, g, 2, seed).Search(context.Background(), g.New())
		if a1.Best != a2.Best {
			t.Fatalf("seed %d: %v then %v", seed, a1.Best, a2.Best)
		}
		choices[a1.Best] = true
	}
	if len(choices) < 3 {
		t.Errorf("8 seeds chose %d different placements", len(choices))
	}
}

// TestAlphaBetaLimits: depths out of range are refused; a time cap still gives a complete
// first iteration; a search allocates nothing once its buffers (and its transposition table)
// have grown, the classical search of Gygès' heuristic as the one of the ends only; a cancelled
// context stops the search.
func TestAlphaBetaLimits(t *testing.T) {
	for _, d := range []int{0, -1, MaxABDepth + 1} {
		if _, err := NewAlphaBeta(gyges.Advanced, d, 0, 1); err == nil {
			t.Errorf("depth %d accepted", d)
		}
	}
	st, err := gyges.Advanced.ParsePosition(gygesAdvancedTactics[1].positions)
	if err != nil {
		t.Fatal(err)
	}
	ab, err := NewAlphaBeta(gyges.Advanced, MaxABDepth, time.Millisecond, 1)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res, err := ab.Search(context.Background(), st)
	if err != nil || res.Depth < 1 || res.Depth >= MaxABDepth || !env.IsLegal(st, res.Best) {
		t.Fatalf("capped search: %+v, %v", res, err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("a 1 ms cap took %v", el)
	}
	ends := mustAB(t, gyges.Advanced, 3, 1)
	ends.EndsOnly()
	for _, ab3 := range []*AlphaBeta[gyges.State]{mustAB(t, gyges.Advanced, 3, 1), ends} {
		ab3.Search(context.Background(), st)
		if n := testing.AllocsPerRun(3, func() { ab3.Search(context.Background(), st) }); n != 0 {
			t.Errorf("a search (heuristic %v) allocates %v times", ab3.heuristic != nil, n)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := mustAB(t, gyges.Advanced, 3, 1).Search(ctx, st); err == nil {
		t.Errorf("a cancelled search ran")
	}
}

// TestWinLine: env.WinLine finds a line exactly where env.CanWin says there is one, and the line
// is the decider's own decisions ending in his win: on every fifth decision of random games and
// on the decisions just before their ends (where most are wins).
func TestWinLine(t *testing.T) {
	testWinLine(t, yinsh.Blitz)
	testWinLine(t, gyges.Advanced)
}

func testWinLine[S env.State[S]](t *testing.T, g env.Game[S]) {
	positions := abPositions(g, 4)
	for i := range 8 {
		w := env.NewWalker[S](rand.New(rand.NewPCG(uint64(i), 12)), g.Info().NumActions)
		for s := g.New(); s.ToMove() != env.Terminal; {
			n := s.Play(w.Step(s))
			if n.ToMove() == env.Terminal && s.ToMove() >= 0 {
				positions = append(positions, s)
			}
			s = n
		}
	}
	wins := 0
	for i, s := range positions {
		p := s.ToMove()
		can, _ := env.CanWin(s, nil)
		ok, line, _ := env.WinLine(s, nil, nil)
		if ok != can || ok != (len(line) > 0) {
			t.Errorf("%s position %d: CanWin %v, WinLine %v %v", g.Info().Name, i, can, ok, line)
			continue
		}
		if !ok {
			continue
		}
		wins++
		st := s
		for _, a := range line {
			if st.ToMove() != p {
				break
			}
			st = st.Play(a)
		}
		if st.ToMove() != env.Terminal || st.Result() != env.WinFor(p) {
			t.Errorf("%s position %d: the line %v does not end in %v's win", g.Info().Name, i, line, p)
		}
	}
	if wins == 0 {
		t.Errorf("%s: no position with a win in its turn among %d", g.Info().Name, len(positions))
	}
	t.Logf("%s: %d positions, %d with a win", g.Info().Name, len(positions), wins)
}

// imbriquaLate returns the players' decisions from turn from on (0-based) of seeded random
// Imbriqua games: chance by its probabilities, the players uniformly.
func imbriquaLate(seed uint64, games, from int) []imbriqua.State {
	g := imbriqua.Game
	rng := rand.New(rand.NewPCG(seed, seed))
	var out []imbriqua.State
	for range games {
		s := g.New()
		for s.ToMove() != env.Terminal {
			if s.ToMove() == env.Chance {
				s = s.Play(env.SampleOutcome(s.Chances(nil), rng.Float64()))
				continue
			}
			if s.Turn() >= from {
				out = append(out, s)
			}
			legal := s.Legal(nil)
			s = s.Play(legal[rng.IntN(len(legal))])
		}
	}
	return out
}

// searchBoth runs two alpha-beta searches of s.
func searchBoth[S env.State[S]](t *testing.T, a, b *AlphaBeta[S], s S) (ABResult, ABResult) {
	t.Helper()
	ra, err := a.Search(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := b.Search(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	return ra, rb
}

// TestAlphaBetaEndBound: Imbriqua tells how soon it can end (env.EndBound), and alpha-beta that
// values only the ends of the game (EndsOnly) skips what cannot reach an end within its depth. Its answers are those of the search without the
// bound (values, best moves, proofs), at fewer positions. Positions of seeded random games at
// each decision from turn 38 on (the game's last 6 turns), depth 2 (and proofs of 2 turns):
// the end is out of reach up to turn 41 and within it after.
func TestAlphaBetaEndBound(t *testing.T) {
	g := imbriqua.Game
	var with, without int64
	checked, nonzero := 0, 0
	for _, s := range imbriquaLate(5, 3, 38) {
		bounded, plain := mustAB(t, g, 2, 1), mustAB(t, g, 2, 1)
		bounded.EndsOnly() // the bound serves the search that values the ends only
		plain.EndsOnly()
		plain.turnsToEnd = nil
		rb, rp := searchBoth(t, bounded, plain, s)
		if rb.Best != rp.Best || rb.Value != rp.Value || rb.Depth != rp.Depth {
			t.Fatalf("with the bound: %s %v (depth %d); without: %s %v (depth %d), at\n%v", env.ActionString(s, rb.Best), rb.Value, rb.Depth, env.ActionString(s, rp.Best), rp.Value, rp.Depth, s)
		}
		with, without = with+rb.Nodes, without+rp.Nodes
		if rb.Nodes > rp.Nodes {
			t.Errorf("the bound searched more: %d positions against %d, at\n%v", rb.Nodes, rp.Nodes, s)
		}
		legal := s.Legal(nil)
		for _, a := range legal[:min(len(legal), 4)] {
			vb, okb := bounded.Prove(s.Play(a), s.ToMove(), 1, 0)
			vp, okp := plain.Prove(s.Play(a), s.ToMove(), 1, 0)
			if vb != vp || okb != okp {
				t.Fatalf("Prove after %s: %v %v with the bound, %v %v without, at\n%v", env.ActionString(s, a), vb, okb, vp, okp, s)
			}
		}
		checked++
		if rb.Value != 0 {
			nonzero++
		}
	}
	if nonzero == 0 || nonzero == checked {
		t.Errorf("%d of %d positions had a value other than 0: the end must be within reach of some and not others", nonzero, checked)
	}
	if with*4 > without {
		t.Errorf("the bound saved too little: %d positions against %d", with, without)
	}
	t.Logf("%d positions (%d valued other than 0): %d positions searched with the bound, %d without", checked, nonzero, with, without)
}

// TestAlphaBetaKillers: the killer moves (the last move that cut the search off at a ply,
// tried first there) change the order of the search only: Prove and Search answer the same with
// and without them, at fewer positions in all. Imbriqua's last 4 turns from seeded random games,
// proved to the end.
func TestAlphaBetaKillers(t *testing.T) {
	g := imbriqua.Game
	var with, without int64
	proven := 0
	for _, s := range imbriquaLate(9, 4, 40) {
		killers, plain := mustAB(t, g, 4, 1), mustAB(t, g, 4, 1)
		plain.noKillers = true
		for _, a := range s.Legal(nil) {
			vk, okk := killers.Prove(s.Play(a), s.ToMove(), 3, 0)
			vp, okp := plain.Prove(s.Play(a), s.ToMove(), 3, 0)
			if vk != vp || okk != okp {
				t.Fatalf("Prove after %s: %v %v with killers, %v %v without, at\n%v", env.ActionString(s, a), vk, okk, vp, okp, s)
			}
			with, without = with+killers.nodes, without+plain.nodes
			if okk {
				proven++
			}
		}
		rk, rp := searchBoth(t, killers, plain, s)
		if rk.Best != rp.Best || rk.Value != rp.Value {
			t.Fatalf("Search: %s %v with killers, %s %v without, at\n%v", env.ActionString(s, rk.Best), rk.Value, env.ActionString(s, rp.Best), rp.Value, s)
		}
	}
	if proven == 0 {
		t.Fatal("no move proven: the comparison shows nothing")
	}
	if with >= without {
		t.Errorf("killers searched %d positions, %d without them", with, without)
	}
	t.Logf("%d moves proven; %d positions with killers, %d without", proven, with, without)
}

// mateTrees are two hand-built trees whose best moves differ only by the distance of a forced
// result. winTree (player 0 to move): move 0 wins in his next turn (player 1's one reply, then
// a win), move 1 wins at once, move 2 wins in his next turn through a card (chance) and his own
// second decision, move 3 draws. lossTree (player 0 to move, every move loses): move 0 lets
// player 1 win at once, move 1 only in player 1's second turn, move 2 after player 0's own
// second decision (a turn of two decisions) in player 1's first.
func mateTrees() (winTree, lossTree []tnode) {
	winTree = []tnode{
		0: dec(0, 1, 2, 7, 3),
		1: dec(1, 4),
		2: end(env.Win0),
		3: end(env.Draw),
		4: dec(0, 5, 6),
		5: end(env.Win0), 6: end(env.Draw),
		7:  dec(1, 8),
		8:  chance([]float64{0.5, 0.5}, 9, 9),
		9:  dec(0, 10),
		10: dec(0, 5, 6),
	}
	lossTree = []tnode{
		0: dec(0, 1, 2, 3),
		1: dec(1, 4, 5),
		2: dec(1, 6),
		3: dec(0, 10),
		4: end(env.Win1), 5: end(env.Draw),
		6: dec(0, 7),
		7: dec(1, 8, 9),
		8: end(env.Win1), 9: end(env.Draw),
		10: dec(1, 11), 11: end(env.Win1),
	}
	return winTree, lossTree
}

// TestAlphaBetaMateDistance: ab:D takes the fastest win and the slowest loss, whatever its
// seed (the root's shuffle) and its depth: iterative deepening stops at the first depth that
// forces a result, and a loss keeps the move that survived the depth before.
func TestAlphaBetaMateDistance(t *testing.T) {
	win, loss := mateTrees()
	for _, c := range []struct {
		name  string
		tab   []tnode
		depth int
		best  env.Action
		value float64
	}{{"win", win, 1, 1, 1}, {"win", win, 4, 1, 1}, {"loss", loss, 4, 1, -1}, {"loss", loss, 8, 1, -1}} {
		g := newTree(c.tab)
		for seed := uint64(0); seed < 24; seed++ {
			res, err := mustAB(t, g, c.depth, seed).Search(context.Background(), tpos{0})
			if err != nil {
				t.Fatal(err)
			}
			if res.Best != c.best || res.Value != c.value {
				t.Errorf("%s, ab:%d seed %d: move %d value %v, want move %d value %v", c.name, c.depth, seed, res.Best, res.Value, c.best, c.value)
			}
		}
	}
}
