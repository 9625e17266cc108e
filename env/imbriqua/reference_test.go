package imbriqua

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/zerogames/zero/env"
)

// ref is a deliberately naive Imbriqua written straight from the spec, sharing nothing with the
// engine: coordinates instead of bitboards, a predicate over every (pawn, square) pair instead
// of rays, and the deck as the physical piles — a draw stack whose unknown cards are 0, and a
// discard stack turned over when the draw stack runs out, so each pile's order comes out of the
// handling of the cards rather than from a formula. The engine must agree with it on every
// legal decision list, who decides, the card, the score and the result.
type ref struct {
	board       [8][8]int // [file][rank]: 0 empty, 1 light, 2 dark
	openingLeft int
	draw        []int // the top card is the last; 0 is a face-down card of the first pile
	discard     []int
	pilesUsed   int
	notDrawn    []int // the cards 1-10 still face down in the first pile
	player      int   // whose turn: 0 light, 1 dark
	stage       string
	card        int
	placed      [2]int
	hasPlaced   bool
	chainAt     [2]int
	bonusLeft   int
	winner      int // 0 light, 1 dark, -1 draw
}

func newRef() *ref {
	r := &ref{openingLeft: 8, stage: "opening", draw: []int{11, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}}
	for k := 1; k <= 10; k++ {
		r.notDrawn = append(r.notDrawn, k)
	}
	return r
}

func (r *ref) clone() *ref {
	c := *r
	c.draw = slices.Clone(r.draw)
	c.discard = slices.Clone(r.discard)
	c.notDrawn = slices.Clone(r.notDrawn)
	return &c
}

func refSquare(x, y int) string { return fmt.Sprintf("%c%d", 'a'+x, y+1) }

func refParse(s string) [2]int { return [2]int{int(s[0] - 'a'), int(s[1] - '1')} }

// decider is who decides: 0, 1, -1 for chance, -2 at the end (env's numbering).
func (r *ref) decider() int {
	switch r.stage {
	case "opening":
		return (8 - r.openingLeft) % 2
	case "draw":
		return -1
	case "penalty":
		return 1 - r.player
	case "over":
		return -2
	}
	return r.player
}

func (r *ref) empties() int {
	n := 0
	for x := 0; x < 8; x++ {
		for y := 0; y < 8; y++ {
			if r.board[x][y] == 0 {
				n++
			}
		}
	}
	return n
}

func abs(x int) int { return max(x, -x) }

// jumpOK tells whether card (1..10) takes the mover's pawn on p to q, from the card's table.
func (r *ref) jumpOK(card int, p, q [2]int) bool {
	own, opp := r.player+1, 2-r.player
	dx, dy := q[0]-p[0], q[1]-p[1]
	orth := (dx == 0) != (dy == 0)
	diag := dx != 0 && abs(dx) == abs(dy)
	if (card%2 == 1 && !orth) || (card%2 == 0 && !diag) || r.board[q[0]][q[1]] != 0 {
		return false
	}
	dist := max(abs(dx), abs(dy))
	sx, sy := dx/dist, dy/dist
	var crossed []int
	for i := 1; i < dist; i++ {
		crossed = append(crossed, r.board[p[0]+i*sx][p[1]+i*sy])
	}
	n := func(v int) int {
		c := 0
		for _, x := range crossed {
			if x == v {
				c++
			}
		}
		return c
	}
	switch card {
	case 1, 2:
		return dist == 1
	case 3, 4:
		return n(own)+n(opp) == 0
	case 5, 6:
		return dist == 2 && crossed[0] == opp
	case 7, 8:
		return n(opp) == 1 && n(own) == 0
	}
	return dist == 3 && crossed[0] == opp && crossed[1] == opp
}

// options lists the card's decisions for the pawns on from.
func (r *ref) options(card int, from [][2]int) []string {
	var out []string
	sep := "-"
	if card >= 5 {
		sep = "x"
	}
	for _, p := range from {
		for x := 0; x < 8; x++ {
			for y := 0; y < 8; y++ {
				if r.jumpOK(card, p, [2]int{x, y}) {
					out = append(out, refSquare(p[0], p[1])+sep+refSquare(x, y))
				}
			}
		}
	}
	return out
}

func (r *ref) pawnsOf(p int) [][2]int {
	var out [][2]int
	for x := 0; x < 8; x++ {
		for y := 0; y < 8; y++ {
			if r.board[x][y] == p+1 {
				out = append(out, [2]int{x, y})
			}
		}
	}
	return out
}

// allowed is the pawns the card's colour allows: all the mover's for green, the placed one
// for red.
func (r *ref) allowed() [][2]int {
	if r.card <= 6 {
		return r.pawnsOf(r.player)
	}
	if r.hasPlaced {
		return [][2]int{r.placed}
	}
	return nil
}

func (r *ref) legal() []string {
	var out []string
	switch r.stage {
	case "opening", "bonus", "place":
		edgeOK := r.stage != "place"
		if !edgeOK { // the edge only when no other square is empty
			edgeOK = true
			for x := 1; x < 7; x++ {
				for y := 1; y < 7; y++ {
					if r.board[x][y] == 0 {
						edgeOK = false
					}
				}
			}
		}
		for x := 0; x < 8; x++ {
			for y := 0; y < 8; y++ {
				onEdge := x == 0 || x == 7 || y == 0 || y == 7
				if r.board[x][y] == 0 && (edgeOK || !onEdge) {
					out = append(out, refSquare(x, y))
				}
			}
		}
	case "draw":
		for _, k := range r.notDrawn {
			out = append(out, fmt.Sprintf("card %d", k))
		}
	case "act":
		out = r.options(r.card, r.allowed())
	case "chain":
		out = append(r.options(r.card, [][2]int{r.chainAt}), "stop")
	case "penalty":
		for _, p := range r.pawnsOf(r.player) {
			out = append(out, "remove "+refSquare(p[0], p[1]))
		}
	}
	slices.Sort(out)
	return out
}

func (r *ref) beginTurn() {
	r.hasPlaced = false
	if r.empties() == 0 {
		r.turnOver()
		return
	}
	r.stage = "place"
}

func (r *ref) turnOver() {
	if len(r.draw) == 0 {
		r.draw, r.discard = r.discard, nil
	}
	r.card = r.draw[len(r.draw)-1]
	r.draw = r.draw[:len(r.draw)-1]
	if r.card == 0 {
		r.stage = "draw"
		return
	}
	r.act()
}

func (r *ref) act() {
	switch {
	case r.card == 11 && r.empties() >= 2:
		r.stage, r.bonusLeft = "bonus", 2
	case r.card != 11 && len(r.options(r.card, r.allowed())) > 0:
		r.stage = "act"
	case len(r.pawnsOf(r.player)) > 0:
		r.stage = "penalty"
	default:
		r.endTurn()
	}
}

func (r *ref) endTurn() {
	r.discard = append(r.discard, r.card)
	if len(r.draw) == 0 {
		r.pilesUsed++
	}
	if r.pilesUsed == 4 {
		r.score()
		return
	}
	r.player = 1 - r.player
	r.beginTurn()
}

// framed counts p's framed squares, once per line.
func (r *ref) framed(p int) int {
	n := 0
	at := func(x, y int) int {
		if x < 0 || x > 7 || y < 0 || y > 7 {
			return -1
		}
		return r.board[x][y]
	}
	for x := 0; x < 8; x++ {
		for y := 0; y < 8; y++ {
			if r.board[x][y] != 0 {
				continue
			}
			for _, d := range [][2]int{{1, 0}, {0, 1}, {1, 1}, {1, -1}} {
				if at(x+d[0], y+d[1]) == p+1 && at(x-d[0], y-d[1]) == p+1 {
					n++
				}
			}
		}
	}
	return n
}

func (r *ref) score() {
	r.stage = "over"
	l, d := r.framed(0), r.framed(1)
	if l == d {
		l, d = len(r.pawnsOf(0)), len(r.pawnsOf(1))
	}
	switch {
	case l > d:
		r.winner = 0
	case d > l:
		r.winner = 1
	default:
		r.winner = -1
	}
}

func (r *ref) play(m string) {
	switch {
	case r.stage == "opening":
		p := refParse(m)
		r.board[p[0]][p[1]] = r.decider() + 1
		if r.openingLeft--; r.openingLeft == 0 {
			r.player = 0
			r.beginTurn()
		}
	case r.stage == "place":
		p := refParse(m)
		r.board[p[0]][p[1]] = r.player + 1
		r.placed, r.hasPlaced = p, true
		r.turnOver()
	case r.stage == "bonus":
		p := refParse(m)
		r.board[p[0]][p[1]] = r.player + 1
		if r.bonusLeft--; r.bonusLeft == 0 {
			r.endTurn()
		}
	case r.stage == "draw":
		fmt.Sscanf(m, "card %d", &r.card)
		r.notDrawn = slices.DeleteFunc(r.notDrawn, func(k int) bool { return k == r.card })
		r.act()
	case r.stage == "penalty":
		p := refParse(m[len("remove "):])
		r.board[p[0]][p[1]] = 0
		r.endTurn()
	case m == "stop":
		r.endTurn()
	default: // a move or a jump
		p, q := refParse(m[:2]), refParse(m[3:])
		dx, dy := q[0]-p[0], q[1]-p[1]
		dist := max(abs(dx), abs(dy))
		for i := 1; i < dist; i++ {
			r.board[p[0]+i*dx/dist][p[1]+i*dy/dist] = 0 // only captured pawns stand between
		}
		r.board[q[0]][q[1]] = r.board[p[0]][p[1]]
		r.board[p[0]][p[1]] = 0
		if r.card >= 5 && r.card <= 8 && len(r.options(r.card, [][2]int{q})) > 0 {
			r.stage, r.chainAt = "chain", q
			return
		}
		r.endTurn()
	}
}

// agree compares the engine's state with the reference's; it returns the reference's legal
// decisions.
func agree(t *testing.T, s State, r *ref, history []string) []string {
	t.Helper()
	want := r.legal()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("after %q: %s\n%v", strings.Join(history, ";"), fmt.Sprintf(format, args...), s)
	}
	if got := legalText(s); got != strings.Join(want, ";") {
		fail("legal:\nengine    %s\nreference %s", got, strings.Join(want, ";"))
	}
	if int(s.ToMove()) != r.decider() {
		fail("engine says %d decides, reference %d", s.ToMove(), r.decider())
	}
	if want := [2]int{r.framed(0), r.framed(1)}; s.Score() != want {
		fail("score %v, reference %v", s.Score(), want)
	}
	if s.Pawns(0) != len(r.pawnsOf(0)) || s.Pawns(1) != len(r.pawnsOf(1)) {
		fail("pawn counts differ")
	}
	switch r.stage {
	case "act", "chain", "bonus", "penalty":
		if s.Card() != r.card {
			fail("card %d, reference %d", s.Card(), r.card)
		}
	case "draw":
		for _, o := range s.Chances(nil) {
			if o.Prob != 1/float64(len(r.notDrawn)) {
				fail("%s has probability %v with %d cards unknown", ActionString(o.Action), o.Prob, len(r.notDrawn))
			}
		}
	case "over":
		result := env.Draw
		if r.winner >= 0 {
			result = env.WinFor(env.Player(r.winner))
		}
		if s.Result() != result {
			fail("result %d, reference %d", s.Result(), result)
		}
	}
	return want
}

func TestAgainstReference(t *testing.T) {
	games := 400
	if testing.Short() {
		games = 80
	}
	results := map[env.Result]int{}
	for i := 0; i < games; i++ {
		rng := rand.New(rand.NewPCG(uint64(i), 3))
		s, r := Game.New(), newRef()
		var history []string
		for {
			want := agree(t, s, r, history)
			if r.stage == "over" {
				results[s.Result()]++
				break
			}
			m := want[rng.IntN(len(want))]
			history = append(history, m)
			var err error
			if s, _, err = env.PlayText(s, m); err != nil {
				t.Fatalf("after %q: %v", strings.Join(history, ";"), err)
			}
			r.play(m)
		}
	}
	t.Logf("%d games: light %d, dark %d, draws %d", games, results[env.Win0], results[env.Win1], results[env.Draw])
}

// TestTreeAgainstReference compares every node of the game tree a few decisions deep from
// positions that random games rarely reach in numbers: right after the opening and, crowded,
// from a position deep in a game.
func TestTreeAgainstReference(t *testing.T) {
	starts := []struct {
		moves string
		depth int
	}{
		{"a1;b1;h8;g8;a8;b8;h1;g1", 4},
		{"c3;c4;d4;d5;e4;e5;f5;e3", 4},
	}
	for _, st := range starts {
		if testing.Short() {
			st.depth = 3
		}
		s, r := Game.New(), newRef()
		for _, m := range strings.Split(st.moves, ";") {
			s, _, _ = env.PlayText(s, m)
			r.play(m)
		}
		var leaves [5]int
		walkBoth(t, s, r, strings.Split(st.moves, ";"), st.depth, leaves[:])
		t.Logf("%s: every node agrees to depth %d; nodes by depth %v", st.moves, st.depth, leaves[:st.depth+1])
		// The perft counts of TestPerft, from the reference.
		if st.moves == "a1;b1;h8;g8;a8;b8;h1;g1" && !slices.Equal(leaves[:st.depth+1], []int{1, 36, 360, 4048, 141216}[:st.depth+1]) {
			t.Errorf("the reference counts %v nodes by depth", leaves[:st.depth+1])
		}
	}
}

// walkBoth checks every node to depth below s against the reference and counts the nodes at
// each level into leaves.
func walkBoth(t *testing.T, s State, r *ref, history []string, depth int, leaves []int) {
	want := agree(t, s, r, history)
	leaves[0]++
	if depth == 0 {
		return
	}
	for _, m := range want {
		next, _, err := env.PlayText(s, m)
		if err != nil {
			t.Fatalf("after %q: %s: %v", strings.Join(history, ";"), m, err)
		}
		rn := r.clone()
		rn.play(m)
		walkBoth(t, next, rn, append(history[:len(history):len(history)], m), depth-1, leaves[1:])
	}
}

func FuzzParseAction(f *testing.F) {
	for _, seed := range []string{"c3", "card 7", "card 10", "c3-c5", "c3xc5", "stop", "remove d4",
		"a1xh8", "h8-a1", "card 11", "c3xc4", "x"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		a, err := State{}.ParseAction(text)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("%q: empty error", text)
			}
			return
		}
		if a < 0 || a >= NumActions {
			t.Fatalf("%q parses to %d, out of range", text, a)
		}
		// The notation is canonical: what parses prints back exactly.
		if back := ActionString(a); back != text {
			t.Fatalf("%q parses to %d, which prints as %q", text, a, back)
		}
	})
}
