package gyges

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/zerogames/zero/env"
)

// ref is a deliberately naive Gygès written straight from the spec: the board as written (row
// index 0 is row 1), each player's own direction and goal, a movement followed one step at a
// time with the connections used kept in a map, outcomes collected as notation strings. It
// shares nothing with the engine but the notation. The engine must agree with it on every
// legal move list, position and result along many random games.
type ref struct {
	board    [6][6]int // [row][col], piece size or 0
	toMove   int       // 0 south, 1 north
	placed   [2][4]int // pieces placed by each player, by size
	advanced bool
	moves    int
	moveCap  int
	over     bool
	winner   int      // -1 draw
	cached   []string // the legal moves, once worked out for this position

	// misread reads some rulings otherwise, so that a rulings test can show that its position
	// depends on the ruling it tests.
	misread misreading
	// secondBounces counts the bounces on a piece already bounced on in the same move.
	secondBounces int
}

// misreading is a set of rulings read otherwise than the spec does.
type misreading struct {
	reuse                 bool // a connection may be used twice
	startBlocks           bool // the vacated start square may not be passed through
	noRepass              bool // no square may be passed twice (the start counts as passed)
	noSecondBounce        bool // no bounce on a piece already bounced on in the move
	goalAnyStep           bool // the goal may be entered before the last step of a movement
	goalFirstMovementOnly bool // the goal may not be entered after a bounce
	ownGoal               bool // the goal on one's own side may be entered ("x-owngoal")
	endOnStart            bool // a move may end where it started ("x-x")
	sameSizeBack          bool // a replacement may put the same size back on the start square
	noStartDrop           bool // the drop may not be the vacated start square
	anyDrop               bool // the drop may be any empty square
	nearestOnly           bool // only the nearest occupied row, even if all its pieces are blocked
}

type refSq struct{ r, c int }

func (q refSq) String() string { return string([]byte{byte('a' + q.c), byte('1' + q.r)}) }

// refOutcome is a move's outcome: where it ends (or the goal) and, for a replacement, the drop.
type refOutcome struct {
	start, end, drop refSq
	goal, replace    bool
}

func (o refOutcome) String() string {
	switch {
	case o.goal:
		return o.start.String() + "-goal"
	case o.replace:
		return o.start.String() + "-" + o.end.String() + "*" + o.drop.String()
	}
	return o.start.String() + "-" + o.end.String()
}

func refParse(s string) refSq { return refSq{int(s[1] - '1'), int(s[0] - 'a')} }

type refEdge struct{ a, b refSq }

func edgeOf(a, b refSq) refEdge {
	if b.r < a.r || (b.r == a.r && b.c < a.c) {
		a, b = b, a
	}
	return refEdge{a, b}
}

func (r *ref) settingUp() bool {
	n := 0
	for p := range 2 {
		for k := 1; k <= 3; k++ {
			n += r.placed[p][k]
		}
	}
	return n < 12
}

// startRow is player p's start row; farRow the row from which he enters the goal.
func startRow(p int) int { return 5 * p }
func farRow(p int) int   { return 5 - 5*p }

func (r *ref) legal() []string {
	if r.cached == nil {
		r.cached = r.work()
	}
	return r.cached
}

func (r *ref) work() []string {
	out := []string{}
	switch {
	case r.over:
	case r.settingUp():
		row := startRow(r.toMove)
		for k := 1; k <= 3; k++ {
			if r.placed[r.toMove][k] == 2 {
				continue
			}
			for c := range 6 {
				if r.board[row][c] == 0 {
					out = append(out, fmt.Sprintf("%d@%v", k, refSq{row, c}))
				}
			}
		}
	default:
		// Rows from the mover's side: the nearest occupied row whose pieces can move.
		for i := range 6 {
			row := i
			if r.toMove == 1 {
				row = 5 - i
			}
			for c := range 6 {
				if r.board[row][c] != 0 {
					out = append(out, r.pieceMoves(refSq{row, c})...)
				}
			}
			if len(out) > 0 || r.misread.nearestOnly && r.rowOccupied(row) {
				break
			}
		}
	}
	slices.Sort(out)
	return out
}

func (r *ref) rowOccupied(row int) bool {
	for c := range 6 {
		if r.board[row][c] != 0 {
			return true
		}
	}
	return false
}

func (r *ref) pieceMoves(start refSq) []string {
	outcomes := map[refOutcome]bool{}
	other := map[string]bool{} // outcomes only a misreading allows, in their own notation
	v := r.misread
	b := r.board
	size := b[start.r][start.c]
	b[start.r][start.c] = 0 // the start square is empty during the move
	empty := func(q refSq) bool { return b[q.r][q.c] == 0 }
	used := map[refEdge]bool{}
	bounced := map[refSq]int{} // bounces on each square so far in this move
	passed := map[refSq]int{}
	// step makes one step of a movement that has left steps to go, from at; first tells
	// whether this is the first movement of the move.
	var step func(at refSq, left int, first bool)
	steps, depth := 0, 0 // depth: bounces so far
	step = func(at refSq, left int, first bool) {
		if steps++; steps > 1e6 {
			panic("the reference is lost in a move: a misreading without a bound?")
		}
		if (left == 1 || v.goalAnyStep) && at.r == farRow(r.toMove) && (first || !v.goalFirstMovementOnly) {
			outcomes[refOutcome{start: start, goal: true}] = true
		}
		if v.ownGoal && left == 1 && at.r == startRow(r.toMove) {
			other[start.String()+"-owngoal"] = true
		}
		for _, d := range []refSq{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
			next := refSq{at.r + d.r, at.c + d.c}
			if next.r < 0 || next.r > 5 || next.c < 0 || next.c > 5 {
				continue
			}
			e := edgeOf(at, next)
			if used[e] && (!v.reuse || depth > 6) {
				continue
			}
			was := used[e]
			used[e] = true
			switch {
			case left > 1:
				blocked := (v.startBlocks && next == start) || (v.noRepass && passed[next] > 0)
				if empty(next) && !blocked {
					passed[next]++
					step(next, left-1, first)
					passed[next]--
				}
			case empty(next):
				if next != start {
					outcomes[refOutcome{start: start, end: next}] = true
				} else if v.endOnStart {
					other[start.String()+"-"+start.String()] = true
				}
			default:
				if r.advanced {
					for _, drop := range r.drops(start, next) {
						outcomes[refOutcome{start: start, end: next, drop: drop, replace: true}] = true
					}
				}
				if bounced[next] > 0 {
					r.secondBounces++
					if v.noSecondBounce {
						break
					}
				}
				bounced[next]++
				depth++
				step(next, b[next.r][next.c], false)
				depth--
				bounced[next]--
			}
			used[e] = was
		}
	}
	step(start, size, true)
	var out []string
	for o := range outcomes {
		out = append(out, o.String())
	}
	for o := range other {
		out = append(out, o)
	}
	return out
}

// drops lists where the piece on x may go when the piece from start replaces it.
func (r *ref) drops(start, x refSq) []refSq {
	after := r.board
	after[x.r][x.c] = after[start.r][start.c]
	after[start.r][start.c] = 0
	displaced := r.board[x.r][x.c]
	// The opponent's nearest occupied row, counted from his side.
	opp := 1 - r.toMove
	limit := -1
	for i := 0; i < 6 && limit < 0; i++ {
		row := i
		if opp == 1 {
			row = 5 - i
		}
		for c := range 6 {
			if after[row][c] != 0 {
				limit = row
			}
		}
	}
	var out []refSq
	v := r.misread
	for row := range 6 {
		beyond := (opp == 1 && row > limit) || (opp == 0 && row < limit)
		if beyond && !v.anyDrop {
			continue
		}
		for c := range 6 {
			q := refSq{row, c}
			if after[row][c] != 0 || (q == start && (v.noStartDrop || displaced == r.board[start.r][start.c] && !v.sameSizeBack)) {
				continue
			}
			out = append(out, q)
		}
	}
	return out
}

func (r *ref) play(m string) {
	r.cached = nil
	if size, at, ok := strings.Cut(m, "@"); ok {
		k := int(size[0] - '0')
		q := refParse(at)
		r.board[q.r][q.c] = k
		r.placed[r.toMove][k]++
		r.toMove = 1 - r.toMove
		if !r.settingUp() && len(r.legal()) == 0 {
			r.over, r.winner = true, -1
		}
		return
	}
	from, rest, _ := strings.Cut(m, "-")
	to, drop, replace := strings.Cut(rest, "*")
	start := refParse(from)
	size := r.board[start.r][start.c]
	r.board[start.r][start.c] = 0
	r.moves++
	if to == "goal" {
		r.over, r.winner = true, r.toMove
		r.toMove = 1 - r.toMove
		return
	}
	end := refParse(to)
	if replace {
		d := refParse(drop)
		r.board[d.r][d.c] = r.board[end.r][end.c]
	}
	r.board[end.r][end.c] = size
	r.toMove = 1 - r.toMove
	if r.moves >= r.moveCap || len(r.legal()) == 0 {
		r.over, r.winner = true, -1
	}
}

func (r *ref) position() string {
	var sb strings.Builder
	for row := range 6 {
		if row > 0 {
			sb.WriteByte('/')
		}
		for c := range 6 {
			sb.WriteByte(byte('0' + r.board[row][c]))
		}
	}
	sb.WriteString([]string{" s", " n"}[r.toMove])
	return sb.String()
}

// refFrom sets the reference up from a position string (all 12 pieces).
func refFrom(t *testing.T, pos string, g *Game) *ref {
	r := &ref{advanced: g.cfg.Advanced, moveCap: g.cfg.MoveCap}
	rows := strings.Split(pos[:41], "/")
	for row := range 6 {
		for c := range 6 {
			k := int(rows[row][c] - '0')
			r.board[row][c] = k
			if k > 0 {
				r.placed[row/3][k]++ // any split: only the total matters after the set-up
			}
		}
	}
	if pos[42] == 'n' {
		r.toMove = 1
	}
	if r.settingUp() {
		t.Fatalf("refFrom wants a position after the set-up: %q", pos)
	}
	return r
}

// compare plays a random game in both implementations from s and r, checking at every step.
func compare(t *testing.T, name string, s State, r *ref, rng *rand.Rand) env.Result {
	t.Helper()
	var history []string
	for {
		var got []string
		for _, a := range s.Legal(nil) {
			got = append(got, env.ActionString(s, a))
		}
		slices.Sort(got)
		want := r.legal()
		if !slices.Equal(got, want) {
			t.Fatalf("%s after %q (%s):\nengine    %q\nreference %q\n%v", name, strings.Join(history, ";"), r.position(), got, want, s)
		}
		checkBounds(t, s)
		if p := s.Position(); p != r.position() {
			t.Fatalf("%s after %q: engine at %s, reference at %s", name, strings.Join(history, ";"), p, r.position())
		}
		if r.over {
			want := env.Draw
			if r.winner >= 0 {
				want = env.WinFor(env.Player(r.winner))
			}
			if s.Result() != want || s.ToMove() != env.Terminal {
				t.Fatalf("%s after %q: result %d, reference %d", name, strings.Join(history, ";"), s.Result(), want)
			}
			return want
		}
		if int(s.ToMove()) != r.toMove {
			t.Fatalf("%s after %q: engine says %d decides, reference %d", name, strings.Join(history, ";"), s.ToMove(), r.toMove)
		}
		m := want[rng.IntN(len(want))]
		history = append(history, m)
		next, _, err := env.PlayText(s, m)
		if err != nil {
			t.Fatalf("%s after %q: %v", name, strings.Join(history, ";"), err)
		}
		s = next
		r.play(m)
	}
}

func TestAgainstReference(t *testing.T) {
	games := 100
	if testing.Short() {
		games = 25
	}
	short, _ := NewGame(Config{MoveCap: 12})
	shortAdvanced, _ := NewGame(Config{Advanced: true, MoveCap: 12})
	for _, g := range []*Game{Basic, Advanced, short, shortAdvanced} {
		name := fmt.Sprintf("%s cap %d", g.info.Name, g.cfg.MoveCap)
		results := map[env.Result]int{}
		for i := range games {
			rng := rand.New(rand.NewPCG(uint64(i), 8))
			r := &ref{advanced: g.cfg.Advanced, moveCap: g.cfg.MoveCap}
			results[compare(t, fmt.Sprintf("%s game %d", name, i), g.New(), r, rng)]++
		}
		t.Logf("%s: %d games from the start, results %v", name, games, results)
	}
}

// TestAgainstReferenceFromPositions plays from crowded hand-written positions, where bounces
// chain and the blocked-row exception comes up more often than from the start.
func TestAgainstReferenceFromPositions(t *testing.T) {
	positions := []string{
		benchPosition,
		"321123/000000/000000/000000/000000/321123 n",
		"123321/321000/000123/000000/000000/000000 n",
		"000000/003300/012210/012210/003300/000000 s",
		"000000/003300/012210/012210/003300/000000 n",
		"310013/200020/010100/020002/300003/000000 s",
		"000000/000000/000000/000000/231132/132231 s",
		"000000/000000/000000/000000/231132/132231 n",
	}
	games := 8
	if testing.Short() {
		games = 3
	}
	for _, g := range []*Game{Basic, Advanced} {
		for _, pos := range positions {
			s, err := g.ParsePosition(pos)
			if err != nil {
				t.Fatal(err)
			}
			for i := range games {
				rng := rand.New(rand.NewPCG(uint64(i), 9))
				compare(t, fmt.Sprintf("%s from %s game %d", g.info.Name, pos, i), s, refFrom(t, pos, g), rng)
			}
		}
	}
}

// TestHardPositions compares the legal moves at positions whose bounces branch so much that
// the generator's bounds come into play (found by a search for the slowest Legal); random
// games seldom reach such positions.
func TestHardPositions(t *testing.T) {
	hard := []string{
		"310000/013000/010030/010202/030020/000200 s",
		"000030/003000/200200/012030/300201/001100 s",
		"000000/102300/030200/002030/100210/130000 s",
		"300003/000200/031020/101202/000031/000000 s",
	}
	games := []*Game{Basic, Advanced}
	if testing.Short() {
		games = games[:1]
	}
	for _, g := range games {
		for _, pos := range hard {
			for _, pos := range []string{pos, turnPosition(pos)} {
				s, err := g.ParsePosition(pos)
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, a := range s.Legal(nil) {
					got = append(got, env.ActionString(s, a))
				}
				slices.Sort(got)
				if want := refFrom(t, pos, g).legal(); !slices.Equal(got, want) {
					t.Errorf("%s %s:\nengine    %q\nreference %q", g.info.Name, pos, got, want)
				}
				checkBounds(t, s)
				if n := g.CountLegal(s); n != len(s.Legal(nil)) {
					t.Errorf("%s %s: CountLegal = %d, Legal lists %d", g.info.Name, pos, n, len(s.Legal(nil)))
				}
			}
		}
	}
}

// checkBounds: the bounds the search uses past a number of bounces never change what Legal
// finds, whether they come into play at once, one or both of them.
func checkBounds(t *testing.T, s State) {
	t.Helper()
	want := s.Legal(nil)
	for _, limits := range []searchLimits{{0, 1 << 30}, {1 << 30, 0}, {0, 0}} {
		if got := s.legal(nil, limits); !slices.Equal(got, want) {
			t.Fatalf("at %s, with the bounds from the first bounce (%+v), Legal finds %d actions, not %d", s.Position(), limits, len(got), len(want))
		}
	}
}
