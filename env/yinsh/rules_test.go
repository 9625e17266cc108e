package yinsh

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/zerogames/zero/env"
)

// blocked: black's ring on a2 and white's on k10 can neither move (every line from them is
// filled with markers up to the edge of the board), with colours mixed so that no row exists.
const blocked = "W=k10 B=a2 " +
	"w=a3,a5,b2,d2,f2,c4,e6,g8,i10,k8,g10,e10,j9,h7,f5,d3,b1 " +
	"b=a4,c2,e2,g2,b3,d5,f7,h9,j11,k9,k7,j10,h10,f10,i8,g6,e4"

// step plays one action; if legal is set it must first be the list of legal actions.
type step struct {
	legal string
	play  string
}

func TestRulings(t *testing.T) {
	tests := []struct {
		name  string
		spec  string
		steps []step
		end   string            // the status line after the steps
		check func(State) error // more to check at the end
	}{
		{
			name: "a row on the ring's line of travel",
			spec: "W=e1,k7 B=a2,k9 b=e2,e3,e4,e5 white",
			steps: []step{{"", "move e1-e6"}, {"row e1-e5", "row e1-e5"},
				{"ring e6;ring k7", "ring k7"}},
			end: "black to move",
			check: func(s State) error {
				return expect(s.removed == [2]uint8{1, 0} && s.markers[0].empty() && s.Pool() == 51,
					"one white ring removed, the 5 markers back in the pool")
			},
		},
		{
			name: "rows for both players in one move: the mover's first, then the opponent's before his move",
			spec: "W=e1,k7 B=a2,k9 b=e2,e3,e4,e5,b6,c6,d6,f6 w=e6 white",
			steps: []step{{"", "move e1-e7"}, {"row e1-e5", "row e1-e5"},
				{"ring e7;ring k7", "ring k7"}, {"row b6-f6", "row b6-f6"},
				{"ring a2;ring k9", "ring a2"}},
			end: "black to move",
		},
		{
			name: "six in a row: the owner chooses which five",
			spec: "W=e4,k7 B=a2,k9 w=e1,e2,e3,e5,e6 white",
			steps: []step{{"", "move e4-d4"}, {"row e1-e5;row e2-e6", "row e2-e6"},
				{"ring d4;ring k7", "ring d4"}},
			end: "black to move",
			check: func(s State) error {
				e1, _ := ParsePoint("e1")
				return expect(s.markers[0] == cellBit(int(pointCell[e1])), "e1 alone left")
			},
		},
		{
			name:  "seven in a row: three choices",
			spec:  "W=e4,k7 B=a2,k9 w=e1,e2,e3,e5,e6,e7 white",
			steps: []step{{"", "move e4-d4"}, {"row e1-e5;row e2-e6;row e3-e7", "row e3-e7"}},
			end:   "white to remove a ring",
		},
		{
			name: "intersecting rows: removing one breaks the other",
			spec: "W=e5,k7 B=a2,k9 w=e1,e2,e3,e4,b5,c5,d5,f5 white",
			steps: []step{{"", "move e5-e6"}, {"row b5-f5;row e1-e5", "row e1-e5"},
				{"ring e6;ring k7", "ring k7"}},
			end: "black to move",
			check: func(s State) error {
				return expect(s.removed == [2]uint8{1, 0} && s.markers[0].count() == 4, "one row, one ring")
			},
		},
		{
			name: "two separate rows: both removed, two rings",
			spec: "W=e1,k7 B=a2,k9 b=e2,e3,e4 w=b2,c2,d2,f2,b4,c4,d4,f4 white",
			steps: []step{{"", "move e1-e5"}, {"row b2-f2;row b4-f4", "row b2-f2"},
				{"ring e5;ring k7", "ring e5"}, {"row b4-f4", "row b4-f4"}, {"ring k7", "ring k7"}},
			end: "black to move",
			check: func(s State) error {
				return expect(s.removed == [2]uint8{2, 0}, "two white rings removed")
			},
		},
		{
			name: "the mover's third row wins at once, though he made the opponent's too",
			spec: "W=e1,k7 B=a2,k9 b=e2,e3,e4,e5,b6,c6,d6,f6 w=e6 removed=2,0 white",
			steps: []step{{"", "move e1-e7"}, {"row e1-e5", "row e1-e5"},
				{"ring e7;ring k7", "ring k7"}},
			end: "game over: white wins",
		},
		{
			name: "the opponent's third row, made by the mover, wins before the opponent moves",
			spec: "W=e1,k7 B=a2,k9 b=b6,c6,d6,f6 w=e6 removed=0,2 white",
			steps: []step{{"", "move e1-e7"}, {"row b6-f6", "row b6-f6"},
				{"ring a2;ring k9", "ring k9"}},
			end: "game over: black wins",
		},
		{
			name:  "blitz: the first row wins",
			spec:  "W=e1,k7 B=a2,k9 b=e2,e3,e4,e5 white blitz",
			steps: []step{{"", "move e1-e6"}, {"row e1-e5", "row e1-e5"}, {"", "ring k7"}},
			end:   "game over: white wins",
		},
		{
			name: "blitz: rows for both, the mover wins",
			spec: "W=e1,k7 B=a2,k9 b=e2,e3,e4,e5,b6,c6,d6,f6 w=e6 white blitz",
			steps: []step{{"", "move e1-e7"}, {"row e1-e5", "row e1-e5"},
				{"", "ring e7"}},
			end: "game over: white wins",
		},
		{
			name:  "markers run out: more rings removed wins",
			spec:  "W=e1,k7 B=a2,k9 pool=1 removed=1,0 white",
			steps: []step{{"", "move e1-e2"}},
			end:   "game over: white wins",
		},
		{
			name:  "markers run out: equal rings removed is a draw",
			spec:  "W=e1,k7 B=a2,k9 pool=1 removed=1,1 white",
			steps: []step{{"", "move e1-e2"}},
			end:   "game over: draw",
		},
		{
			name: "the 51st marker makes the mover's row: the row puts 5 markers back, the game goes on",
			spec: "W=e1,k7 B=a2,k9 b=e2,e3,e4,e5 pool=1 white",
			steps: []step{{"", "move e1-e6"}, {"row e1-e5", "row e1-e5"},
				{"ring e6;ring k7", "ring k7"}, {"", "move k9-k10"}},
			end: "white to move",
			check: func(s State) error {
				return expect(s.Pool() == 4 && s.removed == [2]uint8{1, 0}, "5 markers back in the pool, one used by black's move")
			},
		},
		{
			name: "the 51st marker makes the opponent's row: he resolves it, then moves",
			spec: "W=e1,k7 B=a2,k9 b=b6,c6,d6,f6 w=e6 pool=1 white",
			steps: []step{{"", "move e1-e7"}, {"row b6-f6", "row b6-f6"},
				{"ring a2;ring k9", "ring k9"}},
			end: "black to move",
			check: func(s State) error {
				return expect(s.Pool() == 5 && s.removed == [2]uint8{0, 1}, "5 markers back in the pool")
			},
		},
		{
			name: "the 51st marker makes rows for both: both resolved, then the opponent moves",
			spec: "W=e1,k7 B=a2,k9 b=e2,e3,e4,e5,b6,c6,d6,f6 w=e6 pool=1 white",
			steps: []step{{"", "move e1-e7"}, {"row e1-e5", "row e1-e5"}, {"", "ring k7"},
				{"row b6-f6", "row b6-f6"}, {"", "ring k9"}},
			end: "black to move",
			check: func(s State) error {
				return expect(s.Pool() == 10 && s.removed == [2]uint8{1, 1}, "10 markers back in the pool")
			},
		},
		{
			name: "the pool refilled by the last marker's row empties again: the game ends then",
			spec: "W=e1,k7 B=a2,k9 b=e2,e3,e4,e5 pool=1 white",
			steps: []step{{"", "move e1-e6"}, {"", "row e1-e5"}, {"", "ring k7"},
				{"", "move a2-a3"}, {"", "move e6-e7"}, {"", "move a3-a4"}, {"", "move e7-e8"},
				{"", "move a4-a5"}},
			end: "game over: white wins",
			check: func(s State) error {
				return expect(s.Pool() == 0, "the pool empty at white's turn")
			},
		},
		{
			name: "the 51st marker's row refills the pool, then the opponent passes and the game goes on",
			spec: blocked + " W=c5 w=d6,e7,f8,g9 pool=1 white",
			steps: []step{{"", "move c5-c6"}, {"row c5-g9", "row c5-g9"}, {"ring c6;ring k10", "ring k10"},
				{"pass", "pass"}, {"", "move c6-c7"}},
			end: "black to move",
			check: func(s State) error {
				return expect(s.Pool() == 4 && !s.passed, "5 markers back, none used by the pass, one by white's move")
			},
		},
		{
			name: "the last marker makes the winning row",
			spec: "W=e1,k7 B=a2,k9 b=e2,e3,e4,e5 pool=1 removed=2,2 white",
			steps: []step{{"", "move e1-e6"}, {"row e1-e5", "row e1-e5"},
				{"ring e6;ring k7", "ring e6"}},
			end: "game over: white wins",
		},
		{
			name:  "the end comes before a pass: no marker left and no ring able to move",
			spec:  blocked + " W=f6 pool=1 removed=0,1 white",
			steps: []step{{"", "move f6-f8"}},
			end:   "game over: black wins",
		},
		{
			name: "pass: a player none of whose rings can move passes, then play goes on",
			spec: blocked + " W=f6 white",
			steps: []step{{"", "move f6-f8"}, {"pass", "pass"}, {"", "move f8-f9"},
				{"pass", "pass"}},
			end: "white to move",
			check: func(s State) error {
				return expect(s.Pool() == 51-34-2, "no marker used by a pass")
			},
		},
		{
			name:  "two passes in succession end the game, scored by rings removed",
			spec:  blocked + " removed=0,1 white",
			steps: []step{{"pass", "pass"}, {"pass", "pass"}},
			end:   "game over: black wins",
		},
		{
			name:  "two passes in succession: a draw on equal rings",
			spec:  blocked + " black",
			steps: []step{{"pass", "pass"}, {"pass", "pass"}},
			end:   "game over: draw",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := position(t, tt.spec)
			for i, st := range tt.steps {
				if st.legal != "" {
					if got := legalText(s); got != st.legal {
						t.Fatalf("before step %d (%s): legal = %q, want %q\n%v", i+1, st.play, got, st.legal, s)
					}
				}
				next, _, err := env.PlayText(s, st.play)
				if err != nil {
					t.Fatalf("step %d: %v\n%v", i+1, err, s)
				}
				s = next
			}
			if got := s.status(); got != tt.end {
				t.Fatalf("after the steps: %q, want %q\n%v", got, tt.end, s)
			}
			if tt.check != nil {
				if err := tt.check(s); err != nil {
					t.Fatalf("%v\n%v", err, s)
				}
			}
		})
	}
}

func expect(ok bool, what string) error {
	if ok {
		return nil
	}
	return errorString("expected: " + what)
}

type errorString string

func (e errorString) Error() string { return string(e) }

func TestIllegal(t *testing.T) {
	opening := newState(false).Play(env.Action(placeBase + 40))
	tests := []struct {
		name string
		s    State
		move string
		want string // a part of the error
	}{
		{"placing on a ring", opening, "place " + PointName(40), "the point is taken"},
		{"moving in the opening", opening, "move e1-e2", "must place a ring"},
		{"the opponent's ring", position(t, "W=e1 B=a2 white"), "move a2-a3", "no white ring on a2"},
		{"an empty point", position(t, "W=e1 B=a2 white"), "move f6-f7", "no white ring on f6"},
		{"over a ring", position(t, "W=e1 B=e3 white"), "move e1-e4", "cannot go there"},
		{"beyond the first empty point after markers", position(t, "W=e1 B=a2 b=e2 white"), "move e1-e4", "cannot go there"},
		{"a row when none is due", position(t, "W=e1 B=a2 white"), "row e1-e5", "must move a ring"},
		{"a ring removal when none is due", position(t, "W=e1 B=a2 white"), "ring e1", "must move a ring"},
		{"pass while a ring can move", position(t, "W=e1 B=a2 white"), "pass", "has a ring that can move"},
		{"a move when pass is forced", position(t, blocked+" white"), "move k10-k9", "pass"},
		{"a ring instead of the row", position(t, "W=e1,k7 B=a2,k9 b=e2,e3,e4,e5 white").Play(env.Action(moveAction(mustPoint("e1"), 0, 5))), "ring k7", "must remove a row"},
		{"not on one line", position(t, "W=e1 B=a2 white"), "move e1-f3", "not on one line"},
		{"a row given from its upper end", position(t, "W=e1 B=a2 white"), "row c8-c4", "lower end of a row first"},
		{"a row of four", position(t, "W=e1 B=a2 white"), "row c4-c7", "a row is 5 markers"},
		{"no such point", position(t, "W=e1 B=a2 white"), "place a1", "no point a1"},
		{"upper case", position(t, "W=e1 B=a2 white"), "MOVE e1-e2", "want place P"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.s
			got, _, err := env.PlayText(tt.s, tt.move)
			if err == nil {
				t.Fatalf("%q was accepted", tt.move)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("%q: error %q, want it to say %q", tt.move, err, tt.want)
			}
			if got != before {
				t.Fatalf("%q: refused, but the state changed", tt.move)
			}
		})
	}
}

func mustPoint(name string) int {
	p, err := ParsePoint(name)
	if err != nil {
		panic(err)
	}
	return p
}

func TestZeroValueIsTheStart(t *testing.T) {
	if (State{}) != Normal.New() {
		t.Fatalf("State{} is not the start of a normal game")
	}
}

// TestSymmetriesAreTheHexagons: the 12 point maps are distinct, closed under composition, and
// keep the board's adjacency (so they are symmetries of the board, not just permutations).
func TestSymmetriesAreTheHexagons(t *testing.T) {
	index := map[[numPoints]uint8]int{}
	for k := 0; k < numSymmetries; k++ {
		if _, dup := index[symPoint[k]]; dup {
			t.Fatalf("symmetry %d repeats another", k)
		}
		index[symPoint[k]] = k
	}
	for a := 0; a < numSymmetries; a++ {
		for b := 0; b < numSymmetries; b++ {
			var comp [numPoints]uint8
			for p := range comp {
				comp[p] = symPoint[a][symPoint[b][p]]
			}
			if _, ok := index[comp]; !ok {
				t.Fatalf("symmetry %d after %d is none of the 12", a, b)
			}
		}
		for p := 0; p < numPoints; p++ {
			for d := 0; d < 6; d++ {
				if rayLen[p][d] == 0 {
					continue
				}
				q := int(cellPoint[rays[p][d][0]])
				sp, sq := int(symPoint[a][p]), int(symPoint[a][q])
				if e := int(symDir[a][d]); rayLen[sp][e] == 0 || int(cellPoint[rays[sp][e][0]]) != sq {
					t.Fatalf("symmetry %d does not keep %s next to %s", a, PointName(p), PointName(q))
				}
			}
		}
	}
}

// TestPerftMidgame pins the leaf counts from the benchmark position of docs/BENCHMARKS.md.
func TestPerftMidgame(t *testing.T) {
	s, _, err := env.Replay[State](Normal, midgameMoves)
	if err != nil {
		t.Fatal(err)
	}
	want := []uint64{24, 595, 15088, 379881}
	bufs := env.PerftBuffers(len(want), NumActions)
	for d, n := range want {
		if got := env.Perft(s, d+1, bufs); got != n {
			t.Fatalf("perft(%d) = %d, want %d", d+1, got, n)
		}
		if got := env.PerftBulk(s, d+1, bufs); got != n {
			t.Fatalf("bulk perft(%d) = %d, want %d", d+1, got, n)
		}
	}
}

// midgameMoves is the position 40 decisions into a random game (seed 7) of docs/BENCHMARKS.md.
const midgameMoves = "place k7;place a3;place h9;place c3;place d3;place d9;place i6;place c7;place f2;place g3;move h9-f9;move c3-c2;move d3-d1;move c7-f10;move i6-d6;move d9-d8;move f9-g10;move c2-e2;move k7-i7;move g3-b3;move d1-e1;move d8-b6;move g10-g11;move b3-c4;move i7-e7;move e2-f3;move g11-g9;move a3-a5;move d6-c5;move f3-h3;move e7-e4;move h3-g2;move e4-b1;move b6-b7;move c5-b5;move c4-c1;move g9-i11;move g2-g4;move f2-d2;move c1-c6"

// TestPoolRefilledByTheLastRow is the game of the markers ruling: white's move f3-f7 takes the
// 51st marker and makes black's row e6-i6, which black removes (ring a4). The row's 5 markers
// are back in the pool, so the game goes on with black to move. Under the earlier reading the
// game ended there (perft 0 at every depth); the counts below are the ones after the fix.
func TestPoolRefilledByTheLastRow(t *testing.T) {
	s, _, err := env.Replay[State](Normal, poolRefilledMoves)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.status(); got != "black to move" || s.Pool() != 5 {
		t.Fatalf("%s with %d markers in the pool, want black to move with 5\n%v", got, s.Pool(), s)
	}
	want := []uint64{28, 572, 14036, 252216}
	bufs := env.PerftBuffers(len(want), NumActions)
	for d, n := range want {
		if got := env.Perft(s, d+1, bufs); got != n {
			t.Fatalf("perft(%d) = %d, want %d", d+1, got, n)
		}
	}
}

const poolRefilledMoves = "place f8;place h8;place h5;place d1;place c2;place i5;place f6;place b6;place i9;place d7;move f6-b2;move d1-d5;move c2-d3;move d7-e8;move f8-i11;move b6-g6;move i9-f9;move i5-h4;move h5-h6;move g6-g2;move b2-d4;move h8-h9;move d4-b4;move d5-e6;move h6-e3;move h9-j9;move b4-b1;move j9-k10;move e3-g5;move k10-f10;move i11-i8;move h4-j6;move f9-e9;move e8-c6;move g5-c5;move g2-g3;move i8-i6;move e6-e5;move c5-a3;move f10-e10;move b1-e1;move j6-j10;move a3-c3;move g3-g7;move e9-a5;move g7-i7;move e1-k7;move e10-c8;move i6-k8;move e5-e7;move k8-g8;move e7-g9;move a5-a2;move g9-g10;move d3-e4;move c8-b7;move c3-f3;move i7-h7;move a2-a4;move j10-j8;move f3-f7;row e6-i6;ring a4"

// randomBoard returns a bitboard holding each point with probability num/den.
func randomBoard(rng *rand.Rand, num, den int) bitboard {
	var b bitboard
	for p := range numPoints {
		if rng.IntN(den) < num {
			b.set(int(pointCell[p]))
		}
	}
	return b
}

// TestLineGather checks the lines read out of bitboards (used by the move generator) against
// reading them point by point.
func TestLineGather(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for range 2000 {
		b := randomBoard(rng, 1, 2)
		line := 0
		for axis := range 3 {
			for k := 0; k < []int{11, 11, 21}[axis]; k++ {
				var want uint64
				for i := range gridSize {
					if x, y, ok := lineXY(axis, k, i); ok && b.has(int(pointCell[gridPoint[x*gridSize+y]])) {
						want |= 1 << i
					}
				}
				if got := lineGathers[line].gather(b); got != want {
					t.Fatalf("axis %d line %d: gathered %b, want %b", axis, k, got, want)
				}
				line++
			}
		}
	}
}

// TestRows checks the rows found with shifts against looking at every five points in a line,
// on random boards from sparse to full.
func TestRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	for i := range 20000 {
		b := randomBoard(rng, i%8+1, 8)
		var want [3]bitboard
		for p := range numPoints {
			x, y := pointXY(p)
			for d := range 3 {
				row := true
				for k := range 5 {
					nx, ny := x+k*dirDX[d], y+k*dirDY[d]
					row = row && onBoard(nx, ny) && b.has(int(pointCell[gridPoint[nx*gridSize+ny]]))
				}
				if row {
					want[d].set(int(pointCell[p]))
				}
			}
		}
		if got := rowStarts(b); got != want {
			t.Fatalf("board %v: rows %v, want %v", b, got, want)
		}
		if got := hasRow(b); got != (want != [3]bitboard{}) {
			t.Fatalf("board %v: hasRow %v", b, got)
		}
	}
}
