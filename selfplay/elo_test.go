package selfplay

import (
	"math"
	"strings"
	"testing"
)

// games makes n games between a and b, alternating sides, in which a scores the given points
// (wins first, then draws).
func games(a, b, n int, wins, draws int) []Outcome {
	var out []Outcome
	for k := range n {
		s := 0.0
		switch {
		case k < wins:
			s = 1
		case k < wins+draws:
			s = 0.5
		}
		if k%2 == 0 {
			out = append(out, Outcome{First: a, Second: b, Score: s})
		} else {
			out = append(out, Outcome{First: b, Second: a, Score: 1 - s})
		}
	}
	return out
}

func TestRate(t *testing.T) {
	near := func(got, want, tol float64) bool { return math.Abs(got-want) <= tol }
	t.Run("3 to 1 is 400·log10(3) Elo", func(t *testing.T) {
		// 100 games, a wins 75 (alternate sides: a wins 37 or 38 with each side), no prior:
		// the likelihood's maximum is where the expected score is 3/4.
		g := games(0, 1, 100, 75, 0)
		r, err := Rate([]string{"b", "a"}, swap(g), 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		want := 400 * math.Log10(3)
		if !near(r.Players[1].Elo, want, 2) {
			t.Errorf("Elo %v, want about %v", r.Players[1].Elo, want)
		}
		// The standard error of a logistic fit: 1/√(n p (1-p)) natural units.
		se := 1 / math.Sqrt(100*0.75*0.25) / eloScale
		if !near(r.Players[1].CI95, 1.96*se, 0.02*1.96*se) {
			t.Errorf("CI95 %v, want about %v", r.Players[1].CI95, 1.96*se)
		}
		if r.Players[0].Elo != 0 || r.Players[0].CI95 != 0 || r.Anchor != "b" {
			t.Errorf("anchor: %+v", r.Players[0])
		}
		if r.Players[1].Games != 100 || r.Players[1].Points != 75 {
			t.Errorf("a: %+v", r.Players[1])
		}
	})
	t.Run("even", func(t *testing.T) {
		r, err := Rate([]string{"a", "b"}, games(0, 1, 40, 10, 20), 0, 2)
		if err != nil {
			t.Fatal(err)
		}
		if !near(r.Players[1].Elo, 0, 1e-6) || !near(r.Advantage, 0, 1e-6) {
			t.Errorf("%+v", r)
		}
	})
	t.Run("first-side advantage", func(t *testing.T) {
		// Equal players; side 0 scores 3/4 of the points either way.
		var g []Outcome
		for k := range 200 {
			a, b := k%2, 1-k%2
			s := 0.0
			if (k/2)%4 < 3 {
				s = 1
			}
			g = append(g, Outcome{First: a, Second: b, Score: s})
		}
		r, err := Rate([]string{"a", "b"}, g, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !near(r.Advantage, 400*math.Log10(3), 3) || !near(r.Players[1].Elo, 0, 3) {
			t.Errorf("advantage %v, b %v", r.Advantage, r.Players[1].Elo)
		}
	})
	t.Run("a perfect score is finite with the prior", func(t *testing.T) {
		g := append(games(1, 0, 20, 20, 0), games(2, 1, 20, 15, 0)...)
		names := []string{"random", "uct:200", "uct:1000"}
		if _, err := Rate(names, g, 0, 0); err == nil {
			t.Error("no prior: a perfect score was rated")
		}
		r, err := Rate(names, g, 0, 2)
		if err != nil {
			t.Fatal(err)
		}
		p := r.Players
		if !(p[0].Elo == 0 && p[1].Elo > 100 && p[2].Elo > p[1].Elo+50) || math.IsInf(p[1].Elo, 0) || p[1].CI95 <= 0 {
			t.Errorf("%+v", p)
		}
		// The ratings' chain: uct:1000 is rated only through uct:200; its interval is wider.
		if p[2].CI95 <= p[1].CI95 {
			t.Errorf("intervals %v then %v: the further player should be less certain", p[1].CI95, p[2].CI95)
		}
	})
	t.Run("a side winning every game is finite with the prior", func(t *testing.T) {
		// A short evaluation match: each player wins both games it begins.
		for _, n := range []int{2, 10} {
			var g []Outcome
			for k := range n {
				g = append(g, Outcome{First: k % 2, Second: 1 - k%2, Score: 1})
			}
			if _, err := Rate([]string{"a", "b"}, g, 0, 0); err == nil {
				t.Errorf("%d games, no prior: an infinite advantage was rated", n)
			}
			r, err := Rate([]string{"a", "b"}, g, 0, 2)
			if err != nil {
				t.Fatalf("%d games: %v", n, err)
			}
			if !(r.Advantage > 50 && r.Advantage < 1000) || !near(r.Players[1].Elo, 0, 1e-6) {
				t.Errorf("%d games: advantage %v, b %v", n, r.Advantage, r.Players[1].Elo)
			}
		}
	})
	t.Run("bad input", func(t *testing.T) {
		bad := []struct {
			names  []string
			games  []Outcome
			anchor int
			says   string
		}{
			{[]string{"a"}, nil, 0, "two players"},
			{[]string{"a", "b"}, games(0, 1, 2, 1, 0), 2, "anchor"},
			{[]string{"a", "b", "c"}, games(0, 1, 2, 1, 0), 0, "c played no game"},
			{[]string{"a", "b"}, []Outcome{{0, 0, 1}}, 0, "between players 0 and 0"},
			{[]string{"a", "b"}, []Outcome{{0, 1, 0.7}}, 0, "scored 0.7"},
		}
		for _, tc := range bad {
			if _, err := Rate(tc.names, tc.games, tc.anchor, 2); err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("%v %v: err = %v, want %q", tc.names, tc.games, err, tc.says)
			}
		}
	})
}

// swap exchanges players 0 and 1.
func swap(g []Outcome) []Outcome {
	out := make([]Outcome, len(g))
	for i, o := range g {
		out[i] = Outcome{First: 1 - o.First, Second: 1 - o.Second, Score: o.Score}
	}
	return out
}
