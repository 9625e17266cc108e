package yinsh

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/zerogames/zero/env"
)

// ref is a deliberately naive YINSH written straight from the spec, with maps and coordinates
// instead of bitboards and tables, and its own reading of the turn structure. The engine must
// agree with it on every legal move list and every result along many random games.
type ref struct {
	cell          map[[2]int]byte // 'W','B' rings; 'w','b' markers
	removed       [2]int
	placed        int
	pool          int
	blitz         bool
	queue         []int // players who still have rows to resolve, in order (the mover first)
	decider       int
	mover         int
	awaitRing     bool
	lastPass      bool
	over          bool
	winner        int // -1 draw
	decisionsLeft int
}

var refDirs = [][2]int{{0, 1}, {1, 0}, {1, 1}, {0, -1}, {-1, 0}, {-1, -1}}

func refOn(x, y int) bool { // y is 1-based here
	lo := map[int][2]int{0: {2, 5}, 1: {1, 7}, 2: {1, 8}, 3: {1, 9}, 4: {1, 10}, 5: {2, 10}, 6: {2, 11}, 7: {3, 11}, 8: {4, 11}, 9: {5, 11}, 10: {7, 10}}
	r, ok := lo[x]
	return ok && y >= r[0] && y <= r[1]
}

func refName(x, y int) string { return fmt.Sprintf("%c%d", 'a'+x, y) }

func (r *ref) ringChar(p int) byte   { return "WB"[p] }
func (r *ref) markerChar(p int) byte { return "wb"[p] }

func (r *ref) rows(p int) []string {
	var out []string
	m := r.markerChar(p)
	for x := 0; x < 11; x++ {
		for y := 1; y <= 11; y++ {
			for _, d := range refDirs[:3] {
				ok := true
				for k := 0; k < 5; k++ {
					if r.cell[[2]int{x + k*d[0], y + k*d[1]}] != m {
						ok = false
					}
				}
				if ok {
					out = append(out, "row "+refName(x, y)+"-"+refName(x+4*d[0], y+4*d[1]))
				}
			}
		}
	}
	return out
}

func (r *ref) moves(p int) []string {
	var out []string
	for pos, c := range r.cell {
		if c != r.ringChar(p) {
			continue
		}
		for _, d := range refDirs {
			jumped := false
			for k := 1; ; k++ {
				x, y := pos[0]+k*d[0], pos[1]+k*d[1]
				if !refOn(x, y) {
					break
				}
				c := r.cell[[2]int{x, y}]
				if c == 'W' || c == 'B' {
					break
				}
				if c == 'w' || c == 'b' {
					jumped = true
					continue
				}
				out = append(out, "move "+refName(pos[0], pos[1])+"-"+refName(x, y))
				if jumped {
					break
				}
			}
		}
	}
	return out
}

func (r *ref) legal() []string {
	var out []string
	switch {
	case r.over:
	case r.placed < 10:
		for x := 0; x < 11; x++ {
			for y := 1; y <= 11; y++ {
				if refOn(x, y) && r.cell[[2]int{x, y}] == 0 {
					out = append(out, "place "+refName(x, y))
				}
			}
		}
	case r.awaitRing:
		for pos, c := range r.cell {
			if c == r.ringChar(r.decider) {
				out = append(out, "ring "+refName(pos[0], pos[1]))
			}
		}
	case len(r.queue) > 0:
		out = r.rows(r.decider)
	default:
		out = r.moves(r.decider)
		if len(out) == 0 {
			out = []string{"pass"}
		}
	}
	slices.Sort(out)
	return out
}

func refPoint(s string) [2]int {
	var c byte
	var y int
	fmt.Sscanf(s, "%c%d", &c, &y)
	return [2]int{int(c - 'a'), y}
}

// nextDecider walks the queue of players with rows to resolve, dropping those with none, then
// starts the next turn.
func (r *ref) nextDecider() {
	for len(r.queue) > 0 && len(r.rows(r.queue[0])) == 0 {
		r.queue = r.queue[1:]
	}
	if len(r.queue) > 0 {
		r.decider = r.queue[0]
		return
	}
	// The next turn needs a marker: with the pool empty the game ends (the rows above may have
	// refilled it).
	if r.pool == 0 {
		r.score()
		return
	}
	next := 1 - r.mover
	r.decider, r.mover = next, next
}

func (r *ref) score() {
	r.over = true
	switch {
	case r.removed[0] > r.removed[1]:
		r.winner = 0
	case r.removed[1] > r.removed[0]:
		r.winner = 1
	default:
		r.winner = -1
	}
}

func (r *ref) play(m string) {
	verb, arg, _ := strings.Cut(m, " ")
	switch verb {
	case "place":
		r.cell[refPoint(arg)] = r.ringChar(r.decider)
		r.placed++
		r.decider = 1 - r.decider
		r.mover = r.decider
	case "move":
		a, b, _ := strings.Cut(arg, "-")
		from, to := refPoint(a), refPoint(b)
		r.cell[from] = r.markerChar(r.decider)
		r.cell[to] = r.ringChar(r.decider)
		dx, dy := sign(to[0]-from[0]), sign(to[1]-from[1])
		for x, y := from[0]+dx, from[1]+dy; [2]int{x, y} != to; x, y = x+dx, y+dy {
			switch r.cell[[2]int{x, y}] {
			case 'w':
				r.cell[[2]int{x, y}] = 'b'
			case 'b':
				r.cell[[2]int{x, y}] = 'w'
			}
		}
		r.pool--
		r.lastPass = false
		r.queue = []int{r.mover, 1 - r.mover}
		r.nextDecider()
	case "row":
		a, b, _ := strings.Cut(arg, "-")
		from, to := refPoint(a), refPoint(b)
		dx, dy := sign(to[0]-from[0]), sign(to[1]-from[1])
		for k := 0; k < 5; k++ {
			delete(r.cell, [2]int{from[0] + k*dx, from[1] + k*dy})
		}
		r.pool += 5
		r.awaitRing = true
	case "ring":
		delete(r.cell, refPoint(arg))
		r.removed[r.decider]++
		r.awaitRing = false
		if (r.blitz && r.removed[r.decider] == 1) || r.removed[r.decider] == 3 {
			r.over, r.winner = true, r.decider
			return
		}
		r.nextDecider()
	case "pass":
		if r.lastPass {
			r.score()
			return
		}
		r.lastPass = true
		r.queue = nil
		r.nextDecider()
	}
}

func sign(x int) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

func TestAgainstReference(t *testing.T) {
	games := 200
	if testing.Short() {
		games = 50
	}
	for _, g := range []*Game{Normal, Blitz} {
		results := map[env.Result]int{}
		for i := 0; i < games; i++ {
			rng := rand.New(rand.NewPCG(uint64(i), 99))
			r := &ref{cell: map[[2]int]byte{}, pool: poolSize, blitz: g.blitz}
			results[compareWithReference(t, fmt.Sprintf("%s game %d", g.info.Name, i), g.New(), r, rng)]++
		}
		t.Logf("%s: %d games, results %v", g.info.Name, games, results)
	}
}

// TestAgainstReferenceFromPositions plays random games from hand-made positions where passes,
// double passes and the last marker come up, which random games from the start almost never
// reach.
func TestAgainstReferenceFromPositions(t *testing.T) {
	// The blocked positions give each player one or two rings, so they are played in blitz,
	// where the first ring removed ends the game; the others end within two moves.
	specs := []string{
		blocked + " white blitz", blocked + " black blitz", blocked + " W=f6 white blitz", blocked + " W=f6 B=f8 black blitz",
		blocked + " W=f6 pool=3 white", blocked + " W=f6 B=e8 pool=2 removed=1,1 black",
		"W=e1,k7 B=a2,k9 b=e2,e3,e4,e5 pool=1 white", "W=e1,k7 B=a2,k9 b=e2,e3,e4,e5,b6,c6,d6,f6 w=e6 pool=2 white",
	}
	for i, spec := range specs {
		for j := range 20 {
			s := position(t, spec)
			rng := rand.New(rand.NewPCG(uint64(i), uint64(j)))
			compareWithReference(t, fmt.Sprintf("from %q, game %d", spec, j), s, refFrom(s), rng)
		}
	}
}

// refFrom builds the reference's position from a state between turns.
func refFrom(s State) *ref {
	r := &ref{cell: map[[2]int]byte{}, removed: [2]int{int(s.removed[0]), int(s.removed[1])},
		placed: int(s.placed), pool: s.Pool(), blitz: s.blitz, decider: int(s.toMove), mover: int(s.mover),
		lastPass: s.passed}
	for p := 0; p < numPoints; p++ {
		c := int(pointCell[p])
		x, y := pointXY(p)
		for i, b := range []bitboard{s.rings[0], s.rings[1], s.markers[0], s.markers[1]} {
			if b.has(c) {
				r.cell[[2]int{x, y + 1}] = "WBwb"[i]
			}
		}
	}
	return r
}

// compareWithReference plays s and r on together with random moves, checking that the legal
// moves, who decides and the result agree at every step, and returns the result.
func compareWithReference(t *testing.T, label string, s State, r *ref, rng *rand.Rand) env.Result {
	t.Helper()
	var history []string
	for {
		var got []string
		for _, a := range s.Legal(nil) {
			got = append(got, ActionString(a))
		}
		slices.Sort(got)
		want := r.legal()
		if !slices.Equal(got, want) {
			t.Fatalf("%s after %q:\nengine    %q\nreference %q\n%v", label, strings.Join(history, ";"), got, want, s)
		}
		if r.over {
			wantResult := env.Draw
			if r.winner >= 0 {
				wantResult = env.WinFor(env.Player(r.winner))
			}
			if s.Result() != wantResult {
				t.Fatalf("%s after %q: result %d, reference %d", label, strings.Join(history, ";"), s.Result(), wantResult)
			}
			return s.Result()
		}
		if int(s.ToMove()) != r.decider {
			t.Fatalf("%s after %q: engine says %d decides, reference %d", label, strings.Join(history, ";"), s.ToMove(), r.decider)
		}
		if len(want) == 0 {
			t.Fatalf("%s after %q: no legal move but the game goes on\n%v", label, strings.Join(history, ";"), s)
		}
		m := want[rng.IntN(len(want))]
		history = append(history, m)
		s, _, _ = env.PlayText(s, m)
		r.play(m)
	}
}

func FuzzParseAction(f *testing.F) {
	for _, seed := range []string{"place f6", "move f6-f9", "row c4-c8", "ring e5", "pass", "row c8-c4", "move a2-k10", "place k11", "x"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		a, err := State{}.ParseAction(text)
		if err != nil {
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
