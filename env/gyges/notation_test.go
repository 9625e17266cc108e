package gyges

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/zerogames/zero/env"
)

// legalText lists the legal actions' notation in the order Legal gives.
func legalText(s State) string {
	var parts []string
	for _, a := range s.Legal(nil) {
		parts = append(parts, env.ActionString(s, a))
	}
	return strings.Join(parts, ";")
}

func TestSetUp(t *testing.T) {
	s := Basic.New()
	want := "1@a1;1@b1;1@c1;1@d1;1@e1;1@f1;2@a1;2@b1;2@c1;2@d1;2@e1;2@f1;3@a1;3@b1;3@c1;3@d1;3@e1;3@f1"
	if got := legalText(s); got != want {
		t.Fatalf("south's first placements: %q", got)
	}
	s, _, err := env.ReplayFrom(s, "3@c1")
	if err != nil {
		t.Fatal(err)
	}
	// North places on his own start row; the list is in his frame (f6 first).
	if got := legalText(s); !strings.HasPrefix(got, "1@f6;1@e6;1@d6;1@c6;1@b6;1@a6;2@f6") || strings.Count(got, ";") != 17 {
		t.Fatalf("north's first placements: %q", got)
	}
	if s.Position() != "003000/000000/000000/000000/000000/000000 n" {
		t.Fatalf("position %q", s.Position())
	}
	s, _, err = env.ReplayFrom(s, "3@a6;3@f1;1@b6")
	if err != nil {
		t.Fatal(err)
	}
	if got := legalText(s); strings.Contains(got, "3@") || !strings.Contains(got, "2@a1") || strings.Contains(got, "@c1") {
		t.Errorf("south has placed both triples and c1 and f1 are taken: %q", got)
	}
	s, _, err = env.ReplayFrom(s, "2@a1;2@c6;2@b1;3@d6;1@d1;2@e6;1@e1;1@f6")
	if err != nil {
		t.Fatal(err)
	}
	if s.Position() != "223113/000000/000000/000000/000000/312321 s" || s.status() != "south to move; 0 of 200 moves made, basic rule" {
		t.Fatalf("after the set-up: %s, %q", s.Position(), s.status())
	}
	if legalText(s) == "" || strings.Contains(legalText(s), "@") {
		t.Fatalf("south moves first: %q", legalText(s))
	}
}

func TestIllegal(t *testing.T) {
	start := Basic.New()
	afterTriples, _, _ := env.ReplayFrom(start, "3@a1;3@a6;3@b1;3@b6")
	twoPlaced, _, _ := env.ReplayFrom(start, "3@c1;3@c6")
	pos := func(text string) State {
		s, err := Basic.ParsePosition(text)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	adv := func(text string) State {
		s, err := Advanced.ParsePosition(text)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	begin := pos("321123/000000/000000/000000/000000/321123 s")
	tests := []struct {
		name string
		s    State
		move string
		want string // a part of the error
	}{
		{"a placement off the start row", start, "3@c2", "south places on his start row, row 1"},
		{"north's placement off his start row", start.Play(0), "3@c1", "north places on his start row, row 6"},
		{"a third triple", afterTriples, "3@c1", "south has placed both his pieces of size 3"},
		{"a taken square", twoPlaced, "1@c1", "c1 is taken"},
		{"a move during the set-up", start, "a1-a2", "must place a piece first"},
		{"a placement after the set-up", begin, "3@c1", "the set-up is over"},
		{"a placement off the start row after the set-up", begin, "3@c2", "the set-up is over"},
		{"an empty square", begin, "a2-a3", "no piece on a2"},
		{"a piece off the playable row", pos("100000/320000/100000/000000/000023/332211 s"), "a2-a5", "south must move a piece from row 1"},
		{"north off his playable row", pos("100000/320000/100000/000000/000023/332211 n"), "a2-a5", "north must move a piece from row 6"},
		{"too few steps", begin, "a1-a3", "cannot reach a3"},
		{"onto a piece", begin, "c1-b1", "b1 is occupied: a movement that ends there bounces"},
		{"onto a piece, advanced", adv("321123/000000/000000/000000/000000/321123 s"), "c1-b1", "bounces or replaces"},
		{"the goal out of reach", begin, "a1-goal", "cannot reach the goal"},
		{"back to the start", pos("000320/000120/000002/010010/030200/030013 s"), "d1-d1", "may not end where it started"},
		{"a replacement in the basic rule", begin, "c1-b1*c2", "advanced rule"},
		{"a replacement of nothing", adv("321123/000000/000000/000000/000000/321123 s"), "c1-c2*c3", "c2 is empty"},
		{"a drop on a piece", adv("321123/000000/000000/000000/000000/321123 s"), "c1-b1*d1", "d1: it is occupied"},
		{"a drop beyond the opponent's row", adv("002000/020031/010301/030000/032021/000000 s"), "c1-b2*a6", "beyond the opponent's nearest row, row 5"},
		{"the same size back", adv("002000/020031/010301/030000/032021/000000 s"), "c1-b2*c1", "the same size back on c1"},
		{"a replacement out of reach", adv("321123/000000/000000/000000/000000/321123 s"), "c1-f1*c2", "no movement of the piece on c1 ends on f1"},
		{"into the goal with a drop", begin, "a1-goal*c2", "replaces nothing"},
		{"a bad square", begin, "a1-g2", "not a square"},
		{"upper case", begin, "A1-a2", "not a square"},
		{"a path", begin, "c1-b1^b1-a2", "not a square"},
		{"nonsense", begin, "pass", "want a placement"},
		{"after the end", pos("200000/000000/103210/132000/103203/000000 s").Play(mustParse(t, pos("200000/000000/103210/132000/103203/000000 s"), "a1-goal")), "a6-a5", "the game is over"},
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
			if a, perr := tt.s.ParseAction(tt.move); perr == nil {
				if _, err := tt.s.Path(a); err == nil {
					t.Errorf("Path(%q) of an illegal action has no error", tt.move)
				}
			}
		})
	}
}

func mustParse(t *testing.T, s State, move string) env.Action {
	t.Helper()
	a, err := s.ParseAction(move)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestParsePosition(t *testing.T) {
	good := []struct{ text, status string }{
		{"321123/000000/000000/000000/000000/321123 s", "south to move"},
		{"321123/000000/000000/000000/000000/321123 n", "north to move"},
		{benchPosition, "south to move"},
		{"000000/000000/000000/000000/000000/000000 s", "south to place (0 pieces placed)"},
		{"300000/000000/000000/000000/000000/000000 n", "north to place (1 piece placed)"},
		{"300000/000000/000000/000000/000000/000010 s", "south to place (2 pieces placed)"},
		{"321123/000000/000000/000000/000000/321120 n", "north to place (11 pieces placed)"},
	}
	for _, tt := range good {
		s, err := Basic.ParsePosition(tt.text)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if !strings.HasPrefix(s.status(), tt.status) {
			t.Errorf("%s: %q, want %q", tt.text, s.status(), tt.status)
		}
		if s.Position() != tt.text {
			t.Errorf("%s prints back as %s", tt.text, s.Position())
		}
	}
	bad := []struct{ text, want string }{
		{"", "want six rows"},
		{"321123/000000/000000/000000/000000/321123", "want six rows"},
		{"321123/000000/000000/000000/000000/321123 x", "want six rows"},
		{"321123/000000/000000/000000/000000/321123  s", "want six rows"},
		{"321123/000000/000000/000000/321123 s", "5 rows"},
		{"321123/000000/000000/000000/000000/000000/321123 s", "7 rows"},
		{"321123/00000/000000/000000/000000/321123 s", `row 2 "00000": want 6 sizes`},
		{"321123/000000/000400/000000/000000/321123 s", "4 on d3 is not a size"},
		{"321123/000000/00x000/000000/000000/321123 s", "x on c3 is not a size"},
		{"333333/000000/000000/000000/000000/000000 s", "6 pieces of size 3"},
		{"321123/000000/000000/003000/000000/021120 s", "a piece on c4 during the set-up"},
		{"331123/000000/000000/000000/000000/000000 n", "south has placed 3 pieces of size 3"},
		{"321123/000000/000000/000000/000000/321120 s", "south has placed 6 pieces and north 5: south cannot be the next to place"},
		{"300000/000000/000000/000000/000000/000000 s", "south cannot be the next to place"},
		{"000000/000000/000000/000000/000000/300000 n", "north cannot be the next to place"},
		{"321123/000000/000000/000000/000000/321133 s", "5 pieces of size 3"},
	}
	for _, tt := range bad {
		_, err := Basic.ParsePosition(tt.text)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want it to say %q", tt.text, err, tt.want)
		}
	}
}

// TestPositionRoundTrip: every state of random games, but finished ones, prints as a position
// that parses back to it (the moves made toward the cap aside, which the notation omits).
func TestPositionRoundTrip(t *testing.T) {
	for _, g := range []*Game{Basic, Advanced} {
		for i := range 20 {
			w := env.NewWalker[State](rand.New(rand.NewPCG(uint64(i), 5)), g.info.NumActions)
			for s := g.New(); s.ToMove() != env.Terminal; s = s.Play(w.Step(s)) {
				back, err := g.ParsePosition(s.Position())
				if err != nil {
					t.Fatalf("%s: %v", g.info.Name, err)
				}
				want := s
				want.moves = 0
				if back != want {
					t.Fatalf("%s: %s parses back to %s", g.info.Name, s.Position(), back.Position())
				}
			}
		}
	}
}

func TestObserve(t *testing.T) {
	// The same board from either side: north's view of the turned board is south's view.
	for _, g := range []*Game{Basic, Advanced} {
		s, _ := g.ParsePosition(benchPosition)
		n, _ := g.ParsePosition("321030/001000/002000/000000/033000/011202 n")
		a, b := make([]float32, numPlanes*numSquares), make([]float32, numPlanes*numSquares)
		s.Observe(a)
		n.Observe(b)
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("%s: element %d differs: %v from south, %v from north", g.info.Name, i, a[i], b[i])
			}
		}
		// South's b1 (square 1) holds nothing, c1 a double: plane 1 (doubles) at cell 2.
		if a[planeDoubles*numSquares+0] != 1 || a[planeDoubles*numSquares+2] != 1 || a[planeSingles*numSquares+3] != 1 {
			t.Errorf("%s: the pieces of row 1 are not where south sees them", g.info.Name)
		}
		if a[planeNearRow*numSquares+0] != 1 || a[planeNearRow*numSquares+6] != 0 || a[planeFarRow*numSquares+35] != 1 {
			t.Errorf("%s: the nearest rows are wrong", g.info.Name)
		}
		if adv := a[planeAdvancedRule*numSquares]; adv != map[bool]float32{false: 0, true: 1}[g.cfg.Advanced] {
			t.Errorf("%s: advanced plane %v", g.info.Name, adv)
		}
	}
	// During the set-up the pieces left to place are planes of count/2, the mover's first.
	s, _ := Basic.ParsePosition("300000/000000/000000/000000/000000/000000 n")
	obs := make([]float32, numPlanes*numSquares)
	s.Observe(obs)
	if obs[(planeOwnToPlace+2)*numSquares] != 1 || obs[(planeTheirToPlace+2)*numSquares] != 0.5 || obs[(planeTheirToPlace)*numSquares] != 1 {
		t.Errorf("pieces to place: own triples %v, their triples %v, their singles %v",
			obs[(planeOwnToPlace+2)*numSquares], obs[(planeTheirToPlace+2)*numSquares], obs[planeTheirToPlace*numSquares])
	}
}

func FuzzParseAction(f *testing.F) {
	for _, seed := range []string{"3@c1", "1@f6", "b1-d4", "b1-goal", "b1-d4*e2", "a6-a1*f6", "a1-a1", "x", "3@c1*", "b1-goal*a1"} {
		f.Add(seed)
	}
	states := []State{Basic.New(), Advanced.New(), Advanced.New().Play(0)}
	for _, text := range []string{benchPosition, "321123/000000/000000/000000/000000/321123 n"} {
		for _, g := range []*Game{Basic, Advanced} {
			s, err := g.ParsePosition(text)
			if err != nil {
				f.Fatal(err)
			}
			states = append(states, s)
		}
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, s := range states {
			a, err := s.ParseAction(text)
			if err != nil {
				if err.Error() == "" {
					t.Fatalf("%q: an empty error", text)
				}
				continue
			}
			if a < 0 || int(a) >= s.numActions() {
				t.Fatalf("%q parses to %d, out of range", text, a)
			}
			// The notation is canonical: what parses prints back exactly.
			if back := env.ActionString(s, a); back != text {
				t.Fatalf("%q parses to %d, which prints as %q", text, a, back)
			}
		}
	})
}

func FuzzParsePosition(f *testing.F) {
	for _, seed := range []string{benchPosition, "321123/000000/000000/000000/000000/321123 s", "000000/000000/000000/000000/000000/000000 s", "300000/000000/000000/000000/000000/000000 n", "x"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s, err := Advanced.ParsePosition(text)
		if err != nil {
			return
		}
		if back := s.Position(); back != text {
			t.Fatalf("%q parses, and prints back as %q", text, back)
		}
		_ = s.Legal(nil)
	})
}
