package gyges

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/zerogames/zero/env"
)

// The accessors read the board as written, in either player's frame.
func TestViewAccessors(t *testing.T) {
	tests := []struct {
		position string
		at       map[string]int
		side     env.Player
		row      int
		toPlace  [2][4]int // by player, by size
	}{
		{"321123/000000/000000/000000/000000/321123 s", map[string]int{"a1": 3, "c1": 1, "f6": 3, "c3": 0}, 0, 1, [2][4]int{}},
		{"321123/000000/000000/000000/000000/321123 n", map[string]int{"a1": 3, "c1": 1, "f6": 3, "d6": 1}, 1, 6, [2][4]int{}},
		// South's row 1 all blocked: row 2 moves.
		{"333322/221111/000000/000000/000000/000000 s", map[string]int{"a2": 2, "c2": 1, "f1": 2}, 0, 2, [2][4]int{}},
		// North to move: his nearest occupied row is row 4.
		{"332211/000000/312000/001230/000000/000000 n", map[string]int{"a1": 3, "c4": 1, "e4": 3, "a3": 3, "f6": 0}, 1, 4, [2][4]int{}},
		{"300000/000000/000000/000000/000000/000000 n", map[string]int{"a1": 3}, 1, 0, [2][4]int{{0, 2, 2, 1}, {0, 2, 2, 2}}},
		{"312000/000000/000000/000000/000000/300100 n", map[string]int{"b1": 1, "d6": 1}, 1, 0, [2][4]int{{0, 1, 1, 1}, {0, 1, 2, 1}}},
	}
	for _, tt := range tests {
		s, err := Advanced.ParsePosition(tt.position)
		if err != nil {
			t.Fatal(err)
		}
		for name, want := range tt.at {
			sq, _ := ParseSquare(name)
			if got := s.At(sq); got != want {
				t.Errorf("%s: At(%s) = %d, want %d", tt.position, name, got, want)
			}
		}
		if s.Side() != tt.side || s.PlayableRow() != tt.row {
			t.Errorf("%s: side %d, playable row %d; want %d, %d", tt.position, s.Side(), s.PlayableRow(), tt.side, tt.row)
		}
		for p := range 2 {
			for k := 1; k <= 3; k++ {
				if got := s.ToPlace(env.Player(p), k); got != tt.toPlace[p][k] {
					t.Errorf("%s: ToPlace(%s, %d) = %d, want %d", tt.position, Names[p], k, got, tt.toPlace[p][k])
				}
			}
		}
	}
}

// Every legal move's Route is a way the rules allow, movement by movement, and is the way Path
// prints: through games of random moves with both rules.
func TestRoute(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, g := range []*Game{Basic, Advanced} {
		for game := range 3 {
			s := g.New()
			for ply := 0; s.ToMove() != env.Terminal && ply < 80; ply++ {
				for _, a := range s.Legal(nil) {
					checkRoute(t, fmt.Sprintf("%s game %d ply %d", g.Info().Name, game, ply), s, a)
				}
				legal := s.Legal(nil)
				s = s.Play(legal[rng.IntN(len(legal))])
			}
		}
	}
}

func checkRoute(t *testing.T, where string, s State, a env.Action) {
	t.Helper()
	move := env.ActionString(s, a)
	route, err := s.Route(a)
	if err != nil {
		t.Fatalf("%s: Route(%s): %v", where, move, err)
	}
	if s.SettingUp() {
		if route != nil {
			t.Fatalf("%s: a placement has the route %v", where, route)
		}
		return
	}
	path, _ := s.Path(a)
	var segs []string
	start, _ := ParseSquare(move[:2])
	empty := func(sq int) bool { return sq == start || s.At(sq) == 0 }
	for j, m := range route {
		size := s.At(m[0])
		if j == 0 && m[0] != start || j > 0 && m[0] != route[j-1][len(route[j-1])-1] {
			t.Fatalf("%s: %s goes %v: movement %d starts elsewhere", where, move, route, j)
		}
		if len(m) != size+1 {
			t.Fatalf("%s: %s goes %v: movement %d takes %d steps from a piece of size %d", where, move, route, j, len(m)-1, size)
		}
		for i := 1; i < len(m); i++ {
			p, q := m[i-1], m[i]
			next := q != Goal && (p/6 == q/6 && (p-q == 1 || q-p == 1) || p%6 == q%6 && (p-q == 6 || q-p == 6))
			intoGoal := q == Goal && i == len(m)-1 && p/6 == 5-5*int(s.Side())
			if !next && !intoGoal {
				t.Fatalf("%s: %s goes %v: %d to %d is not a step", where, move, route, p, q)
			}
			if i < len(m)-1 && !empty(q) {
				t.Fatalf("%s: %s goes %v through the piece on %s", where, move, route, SquareName(q))
			}
		}
		segs = append(segs, SquareName(m[0])+"-"+SquareName(m[len(m)-1]))
	}
	want, _, _ := strings.Cut(path, "*")
	if got := strings.Join(segs, "^"); got != want {
		t.Fatalf("%s: %s goes %v, printed %q, but Path is %q", where, move, route, got, path)
	}
}
