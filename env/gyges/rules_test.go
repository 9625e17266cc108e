package gyges

import (
	"flag"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/zerogames/zero/env"
)

// A ruling row sets up a hand-made position (all 12 pieces) and checks what the spec's rulings
// say of it. Every row also runs turned by 180° with north to move, its moves and paths turned
// alike, so both frames are checked; and the engine's whole legal list must equal the
// reference implementation's.
//
// Where a row names a misreading (a ruling read otherwise, see reference_test.go), the
// reference read that way must differ on the moves the row names: proof that the position
// really depends on the ruling it tests.
type ruling struct {
	name     string
	game     *Game // nil: Basic
	position string
	legal    []string          // must be legal
	illegal  []string          // must not be legal
	only     string            // if set, the whole legal list, sorted, ';'-joined
	starts   string            // if set, the squares the legal moves start from, ';'-joined
	paths    map[string]string // move → its Path
	misread  misreading
	adds     []string // moves the misreading makes legal
	removes  []string // moves the misreading makes illegal
	// sameUnderMisreading: the misreading changes nothing here (and the reference applied it).
	sameUnderMisreading bool
	play                string // moves to play after the checks
	status              string // the start of the status line after them
}

func TestRulings(t *testing.T) {
	cap1 := mustGame(Config{MoveCap: 1})
	cap2 := mustGame(Config{MoveCap: 2})
	rows := []ruling{
		{
			name:     "the start position: each piece moves exactly its size, turning at will, bouncing on what it lands on",
			position: "321123/000000/000000/000000/000000/321123 s",
			only: "a1-a4;a1-b3;a1-c2;b1-a2;b1-b3;b1-c2;c1-a2;c1-b3;c1-c2;c1-d2;c1-e3;c1-f2;d1-a2;" +
				"d1-b3;d1-c2;d1-d2;d1-e3;d1-f2;e1-d2;e1-e3;e1-f2;f1-d2;f1-e3;f1-f4",
			illegal: []string{"a1-a3", "a1-a2", "c1-c3", "b1-b2", "a1-goal"},
			paths:   map[string]string{"a1-a4": "a1-a4", "c1-a2": "c1-b1^b1-a2", "d1-a2": "d1-c1^c1-b1^b1-a2", "c1-e3": "c1-d1^d1-e1^e1-e3"},
		},
		{
			name:     "a piece must come from the nearest occupied row",
			position: "100000/320000/100000/000000/000023/332211 s",
			only:     "a1-b1",
			illegal:  []string{"a2-a5", "b2-b4"},
		},
		{
			name:     "every piece of the nearest row blocked: the next occupied row moves",
			position: "333322/221111/000000/000000/000000/000000 s",
			starts:   "a2;b2;c2;d2;e2;f2",
			legal:    []string{"a2-a4", "c2-a3", "f2-a3"},
			paths:    map[string]string{"f2-a3": "f2-e2^e2-d2^d2-c2^c2-b2^b2-a3"},
			misread:  misreading{nearestOnly: true},
			removes:  []string{"a2-a4", "c2-a3", "f2-f3"},
		},
		{
			name:     "no connection twice in one move, even with bounces",
			position: "100000/320000/100000/000000/000023/332211 s",
			only:     "a1-b1",
			illegal:  []string{"a1-c1", "a1-a4"},
			misread:  misreading{reuse: true},
			adds:     []string{"a1-c1", "a1-a4"},
		},
		{
			name:     "the vacated start square may be passed through",
			position: "002000/030200/000000/000000/000322/111133 s",
			legal:    []string{"c1-d1", "c1-c3"},
			paths:    map[string]string{"c1-d1": "c1-b2^b2-d1"},
			misread:  misreading{startBlocks: true},
			removes:  []string{"c1-d1"},
		},
		{
			name:     "a square may be passed again in a later movement of the move",
			position: "300100/100001/130320/022200/000030/000000 s",
			legal:    []string{"a1-c3"},
			paths:    map[string]string{"a1-c3": "a1-a2^a2-a3^a3-b3^b3-c3"},
			misread:  misreading{noRepass: true},
			removes:  []string{"a1-c3"},
		},
		{
			name:                "a piece may be bounced on twice through other connections (it never reaches more)",
			position:            "000320/000120/000002/010010/030200/030013 s",
			misread:             misreading{noSecondBounce: true},
			sameUnderMisreading: true,
		},
		{
			name:     "a move may not end on its start square",
			position: "000320/000120/000002/010010/030200/030013 s",
			illegal:  []string{"d1-d1"},
			misread:  misreading{endOnStart: true},
			adds:     []string{"d1-d1"},
		},
		{
			name:     "the goal only by the last step of a movement",
			position: "002000/210000/001000/200100/003030/301302 s",
			illegal:  []string{"c1-goal"},
			misread:  misreading{goalAnyStep: true},
			adds:     []string{"c1-goal"},
		},
		{
			name:     "a bounce may end in the goal; reaching it wins",
			position: "200000/000000/103210/132000/103203/000000 s",
			legal:    []string{"a1-goal"},
			paths:    map[string]string{"a1-goal": "a1-a3^a3-a4^a4-b4^b4-goal"},
			misread:  misreading{goalFirstMovementOnly: true},
			removes:  []string{"a1-goal"},
			play:     "a1-goal",
			status:   "game over: south wins",
		},
		{
			name:     "never into one's own goal",
			position: "000300/003000/000102/203020/302010/010100 s",
			only:     "d1-a1;d1-b2;d1-d2;d1-e1;d1-e3;d1-f2",
			misread:  misreading{ownGoal: true},
			adds:     []string{"d1-owngoal"},
		},
		{
			name:     "the move cap draws",
			game:     cap2,
			position: "321123/000000/000000/000000/000000/321123 s",
			play:     "c1-c2;c6-c5",
			status:   "game over: draw by the move cap",
		},
		{
			name:     "a win made by the last move before the cap stands",
			game:     cap1,
			position: "200000/000000/103210/132000/103203/000000 s",
			play:     "a1-goal",
			status:   "game over: south wins",
		},
		{
			name:     "advanced: the drop no further than the opponent's nearest row, that row included",
			game:     Advanced,
			position: "002000/020031/010301/030000/032021/000000 s",
			legal:    []string{"c1-b2*a5", "c1-b2*d5", "c1-b2*a1"},
			illegal:  []string{"c1-b2*a6", "c1-b2*f6"},
			misread:  misreading{anyDrop: true},
			adds:     []string{"c1-b2*a6", "c1-b2*f6"},
			play:     "c1-b2*a5",
			status:   "north to move",
		},
		{
			name:     "advanced: no piece of the same size back on the vacated start square",
			game:     Advanced,
			position: "002000/020031/010301/030000/032021/000000 s",
			illegal:  []string{"c1-b2*c1"},
			misread:  misreading{sameSizeBack: true},
			adds:     []string{"c1-b2*c1"},
		},
		{
			name:     "advanced: the drop may be the vacated start square",
			game:     Advanced,
			position: "020100/000013/000120/000002/003003/032010 s",
			legal:    []string{"b1-d1*b1"},
			misread:  misreading{noStartDrop: true},
			removes:  []string{"b1-d1*b1"},
		},
		{
			name:     "advanced: a replacement at the end of a series of bounces",
			game:     Advanced,
			position: "200000/000000/103210/132000/103203/000000 s",
			legal:    []string{"a1-a4*a1", "a1-b4*c1", "a1-goal"},
			paths:    map[string]string{"a1-a4*b3": "a1-a3^a3-a4*b3", "a1-b4*c1": "a1-a3^a3-a4^a4-b4*c1"},
		},
		{
			// A replacement is a move: a row whose only moves are replacements is not blocked.
			// The same position in the basic game, where row 1 is, moves from row 2.
			name:     "advanced: a row whose only moves are replacements is the playable row",
			game:     Advanced,
			position: "032300/103112/010003/020200/000000/000000 s",
			starts:   "d1",
			legal:    []string{"d1-f2*a1", "d1-f2*a4"},
		},
		{
			name:     "basic: the same row, blocked without replacements: the next occupied row moves",
			position: "032300/103112/010003/020200/000000/000000 s",
			starts:   "a2;c2;d2;e2;f2",
			illegal:  []string{"d1-f2"},
		},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) { row.check(t) })
		t.Run(row.name+" (turned, north to move)", func(t *testing.T) { row.turned().check(t) })
	}
}

func (row ruling) check(t *testing.T) {
	g := row.game
	if g == nil {
		g = Basic
	}
	s, err := g.ParsePosition(row.position)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range s.Legal(nil) {
		got = append(got, env.ActionString(s, a))
	}
	slices.Sort(got)
	r := refFrom(t, row.position, g)
	if want := r.legal(); !slices.Equal(got, want) {
		t.Fatalf("engine and reference disagree:\nengine    %q\nreference %q\n%v", got, want, s)
	}
	if row.only != "" && strings.Join(got, ";") != row.only {
		t.Errorf("legal = %q\nwant    %q", strings.Join(got, ";"), row.only)
	}
	if row.starts != "" {
		var starts []string
		for _, m := range got {
			if i := len(starts); i == 0 || starts[i-1] != m[:2] {
				starts = append(starts, m[:2])
			}
		}
		if strings.Join(starts, ";") != row.starts {
			t.Errorf("moves start from %q, want %q", strings.Join(starts, ";"), row.starts)
		}
	}
	for _, m := range row.legal {
		if !slices.Contains(got, m) {
			t.Errorf("%s is not legal", m)
		}
	}
	for _, m := range row.illegal {
		if slices.Contains(got, m) {
			t.Errorf("%s is legal", m)
		}
		if a, err := s.ParseAction(m); err == nil {
			if _, err := env.Apply(s, a); err == nil {
				t.Errorf("env.Apply(%s) accepted it", m)
			}
		}
	}
	for m, want := range row.paths {
		a, err := s.ParseAction(m)
		if err != nil {
			t.Fatal(err)
		}
		if p, err := s.Path(a); err != nil || p != want {
			t.Errorf("Path(%s) = %q, %v; want %q", m, p, err, want)
		}
	}
	if row.misread != (misreading{}) {
		m := refFrom(t, row.position, g)
		m.misread = row.misread
		other := m.legal()
		for _, x := range row.adds {
			if !slices.Contains(other, x) {
				t.Errorf("the misreading does not make %s legal: the position does not test the ruling", x)
			}
		}
		for _, x := range row.removes {
			if slices.Contains(other, x) {
				t.Errorf("the misreading does not make %s illegal: the position does not test the ruling", x)
			}
		}
		if row.sameUnderMisreading {
			if !slices.Equal(other, got) {
				t.Errorf("the misreading changes the legal moves: %q", other)
			}
			if m.secondBounces == 0 {
				t.Errorf("the reference never bounced twice on one piece here")
			}
		}
	}
	if row.play != "" {
		next, _, err := env.ReplayFrom(s, row.play)
		if err != nil {
			t.Fatal(err)
		}
		if st := next.status(); !strings.HasPrefix(st, row.status) {
			t.Errorf("after %s: %q, want %q", row.play, st, row.status)
		}
	}
}

var squareName = regexp.MustCompile(`[a-f][1-6]`)

// turnText turns every square named in text by 180° (a1 ↔ f6) and swaps the players' names.
func turnText(text string) string {
	text = squareName.ReplaceAllStringFunc(text, func(sq string) string {
		return string([]byte{'a' + 'f' - sq[0], '1' + '6' - sq[1]})
	})
	return strings.NewReplacer("south", "north", "north", "south").Replace(text)
}

func turnAll(list []string) []string {
	var out []string
	for _, m := range list {
		out = append(out, turnText(m))
	}
	return out
}

// turnPosition is a position turned by 180°, the other player to move.
func turnPosition(pos string) string {
	board, who, _ := strings.Cut(pos, " ")
	rows := strings.Split(board, "/")
	slices.Reverse(rows)
	for i, r := range rows {
		b := []byte(r)
		slices.Reverse(b)
		rows[i] = string(b)
	}
	return strings.Join(rows, "/") + map[string]string{"s": " n", "n": " s"}[who]
}

// turned is the row with the board turned by 180° and the other player to move.
func (row ruling) turned() ruling {
	row.position = turnPosition(row.position)
	row.legal, row.illegal = turnAll(row.legal), turnAll(row.illegal)
	row.adds, row.removes = turnAll(row.adds), turnAll(row.removes)
	if row.only != "" {
		list := turnAll(strings.Split(row.only, ";"))
		slices.Sort(list)
		row.only = strings.Join(list, ";")
	}
	if row.starts != "" {
		list := turnAll(strings.Split(row.starts, ";"))
		slices.Sort(list)
		row.starts = strings.Join(list, ";")
	}
	paths := map[string]string{}
	for m, p := range row.paths {
		paths[turnText(m)] = turnText(p)
	}
	row.paths = paths
	row.play, row.status = turnText(row.play), turnText(row.status)
	return row
}

// TestNoLegalMove: with the game's 12 pieces the player to move always seems to have a move
// (see the package doc), so the ruling is shown on made-up material: 18 triples on a
// checkerboard, none of which can take its second step. The check is the one Play makes.
func TestNoLegalMove(t *testing.T) {
	s := Basic.New()
	for sq := range numSquares {
		if (sq/6+sq%6)%2 == 0 {
			s.put(sq, 3)
		}
	}
	s.settle()
	if s.Result() != env.Draw || s.ToMove() != env.Terminal || len(s.Legal(nil)) != 0 {
		t.Fatalf("no legal move: result %d, to move %d, %d legal moves", s.Result(), s.ToMove(), len(s.Legal(nil)))
	}
	if st := s.status(); !strings.HasPrefix(st, "game over: draw, south has no legal move") {
		t.Errorf("status %q", st)
	}
}

var searchBudget = flag.Int("nomove.restarts", 100, "restarts of TestNoMoveSearch's hill climbing")

// TestNoMoveSearch looks for a position of the game's 12 pieces in which no piece can move,
// by hill climbing on the number of pieces that can move from random placements (swapping two
// squares at a time). None has been found (go test -run NoMoveSearch -nomove.restarts 20000:
// at least 5 pieces could always move); the test fails if one turns up, since the package doc
// says so.
func TestNoMoveSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	fewest := numPieces
	for range *searchBudget {
		var board [numSquares]int
		for i, sq := range rng.Perm(numSquares)[:numPieces] {
			board[sq] = i%3 + 1
		}
		movable := func() int {
			var s State
			for sq, k := range board {
				s.put(sq, k)
			}
			n, occ := 0, s.occupied()
			for m := occ; m != 0; m &= m - 1 {
				if s.canMove(occ, lowest(m)) {
					n++
				}
			}
			return n
		}
		n := movable()
		for range 400 {
			i, j := rng.IntN(numSquares), rng.IntN(numSquares)
			board[i], board[j] = board[j], board[i]
			if m := movable(); m <= n {
				n = m
			} else {
				board[i], board[j] = board[j], board[i]
			}
		}
		fewest = min(fewest, n)
		if n == 0 {
			t.Fatalf("no piece can move in %v", board)
		}
	}
	t.Logf("at least %d pieces could always move", fewest)
}

// TestPlainMove: the quick test never claims a move the search does not find, and it decides
// most positions of random games.
func TestPlainMove(t *testing.T) {
	decided, positions := 0, 0
	for _, g := range []*Game{Basic, Advanced} {
		for i := range 30 {
			w := env.NewWalker[State](rand.New(rand.NewPCG(uint64(i), 11)), g.info.NumActions)
			for s := g.New(); s.ToMove() != env.Terminal; s = s.Play(w.Step(s)) {
				if s.SettingUp() {
					continue
				}
				occ := s.occupied()
				search := false
				for m := occ; m != 0; m &= m - 1 {
					search = search || s.canMove(occ, lowest(m))
				}
				quick := s.plainMove(occ)
				if quick && !search {
					t.Fatalf("plainMove claims a move at %s", s.Position())
				}
				positions++
				if quick {
					decided++
				}
			}
		}
	}
	if decided < positions*9/10 {
		t.Errorf("the quick test decides only %d of %d positions", decided, positions)
	}
}

// TestCanWinAgreesAfterEachMove: canWin, which stops its walk at the first movement into the
// goal, answers as playing every legal action does (env.CanWin), at the positions after each
// move, and a fifth of those after each pair of moves, of hand-picked positions (the
// benchmark position and the one where the bounces branch the most), under both rules; the
// positions hold both answers.
func TestCanWinAgreesAfterEachMove(t *testing.T) {
	tests := []struct{ name, position string }{
		{"benchmark", benchPosition},
		{"most bounces", "310000/013000/010030/010202/030020/000200 s"},
	}
	for _, g := range benchGames {
		for _, tt := range tests {
			t.Run(g.info.Name+"/"+tt.name, func(t *testing.T) {
				s, err := g.ParsePosition(tt.position)
				if err != nil {
					t.Fatal(err)
				}
				var buf []env.Action
				count := [2]int{}
				check := func(c State) {
					var want bool
					want, buf = env.CanWin(c, buf)
					if got := c.canWin(); got != want {
						t.Fatalf("canWin = %v, playing every action says %v, at\n%v", got, want, c)
					}
					if want {
						count[1]++
					} else {
						count[0]++
					}
				}
				for _, a := range s.Legal(nil) {
					c := s.Play(a)
					check(c)
					if c.Result() != env.Ongoing {
						continue
					}
					for k, b := range c.Legal(nil) {
						if k%5 == 0 { // a fifth of them keeps the test fast
							check(c.Play(b))
						}
					}
				}
				if count[0] == 0 || count[1] == 0 {
					t.Fatalf("%d positions that cannot be won at once, %d that can: the check needs both", count[0], count[1])
				}
			})
		}
	}
}
