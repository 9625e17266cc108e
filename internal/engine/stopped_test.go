package engine

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// A go infinite stopped at once answers at least one simulation, whatever the player: a uct
// search answered "info visits 0 value 1.000 win 1.000" and every move at the uniform share.
func TestStoppedStreamSearched(t *testing.T) {
	visits := regexp.MustCompile(`(?m)^info visits (\d+) `)
	for _, tc := range []struct{ game, player string }{
		{"gyges", "uct:50"},
		{"gyges-advanced", "uct:100000"},
		{"yinsh-blitz", "uct:50"},
		{"imbriqua", "ucb1:50"},
	} {
		s, _ := NewSession(tc.game)
		var out strings.Builder
		in := "player " + tc.player + "\ngo infinite\nstop\n"
		if err := s.Serve(context.Background(), strings.NewReader(in), &out); err != nil {
			t.Fatal(err)
		}
		m := visits.FindAllStringSubmatch(out.String(), -1)
		if len(m) == 0 {
			t.Fatalf("%s %s: no info line in %q", tc.game, tc.player, out.String())
		}
		total := 0
		for _, v := range m {
			n, _ := strconv.Atoi(v[1])
			total += n
		}
		if total < 1 {
			t.Errorf("%s %s: a stopped stream answered %d simulations:\n%s", tc.game, tc.player, total, out.String())
		}
		// go visits stopped at once: the moves answered include a searched one (a win rate),
		// not every move unsearched at the uniform share.
		s, _ = NewSession(tc.game)
		out.Reset()
		in = "player " + tc.player + "\ngo visits 100000000\nstop\n"
		if err := s.Serve(context.Background(), strings.NewReader(in), &out); err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`(?m) win=[0-9.]+$`).MatchString(out.String()) {
			t.Errorf("%s %s: a stopped go visits answered no searched move:\n%s", tc.game, tc.player, out.String())
		}
	}
}
