package selfplay

import (
	"strings"
	"testing"
)

// TestSpecBounds: every number of a spec has a bound, so that no spec makes a player allocate
// or search without end (issue 48: mcts:10:in_flight=1000000000 allocated a billion leaves'
// policies and died out of memory); the bounds themselves are taken.
func TestSpecBounds(t *testing.T) {
	for _, text := range []string{
		"uct:1000000000", "ucb1:24h", "mcts:1000000000:a.zck", "mcts:24h:a.zck", "ab:8:24h",
		"mcts:8:in_flight=256:max_nodes=1073741824:root_proof_nodes=1099511627776:a.zck",
		"mcts:8:c_puct=100:ucb_c=100:dirichlet_alpha=100:gumbel_scale=100:c_scale=100:virtual_loss=100:a.zck",
		"mcts:8:c_puct_base=1e9:c_visit=1e6:fpu_reduction=-2:gumbel=true:gumbel_actions=65536:a.zck",
	} {
		if _, err := ParseSpec(text); err != nil {
			t.Errorf("ParseSpec(%q): %v", text, err)
		}
	}
	for _, tc := range []struct{ text, says string }{
		{"uct:1000000001", `the number of simulations "1000000001" is not a whole number from 1 to 1000000000`},
		{"ucb1:99999999999999999999", `the number of simulations "99999999999999999999" is not a whole number from 1 to 1000000000`},
		{"mcts:1000000001:a.zck", "from 1 to 1000000000"},
		{"uct:24h0m1s", "the time a move 24h0m1s is more than 24h0m0s"},
		{"mcts:1000h:a.zck", "the time a move 1000h0m0s is more than 24h0m0s"},
		{"ab:4:25h", "the time a move 25h0m0s is more than 24h0m0s"},
		{"mcts:10:in_flight=1000000000:a.zck", "mcts: in_flight = 1000000000: want 1 to 256"},
		{"mcts:10:in_flight=257:a.zck", "in_flight = 257: want 1 to 256"},
		{"mcts:10:max_nodes=1073741825:a.zck", "max_nodes = 1073741825: want 1 to 1073741824 (2^30)"},
		{"mcts:10:max_nodes=9223372036854775807:a.zck", "max_nodes = 9223372036854775807: want 1 to 1073741824"},
		{"mcts:10:root_proof_nodes=1099511627777:a.zck", "root_proof_nodes = 1099511627777: want 1 to 1099511627776 (2^40)"},
		{"mcts:10:gumbel_actions=65537:a.zck", "gumbel_actions = 65537: want 1 to 65536"},
		{"mcts:10:c_puct=101:a.zck", "c_puct = 101: want a number from 0 to 100"},
		{"mcts:10:c_puct=.inf:a.zck", "c_puct = +Inf: want a number from 0 to 100"},
		{"mcts:10:c_puct=.nan:a.zck", "c_puct = NaN: want a number from 0 to 100"},
		{"mcts:10:c_puct_base=1e10:a.zck", "c_puct_base = 1e+10: want a number from 0 to 1e9"},
		{"mcts:10:fpu_reduction=-2.5:a.zck", "fpu_reduction = -2.5: want a number from -2 to 2"},
		{"mcts:10:fpu_reduction=-.inf:a.zck", "fpu_reduction = -Inf"},
		{"mcts:10:ucb_c=1e300:a.zck", "ucb_c = 1e+300: want a number from 0 to 100"},
		{"mcts:10:dirichlet_alpha=1000:a.zck", "dirichlet_alpha = 1000: want a number from 0 to 100"},
		{"mcts:10:noise_fraction=2:a.zck", "noise_fraction = 2: want a number in [0, 1]"},
		{"mcts:10:gumbel_scale=1e9:a.zck", "gumbel_scale = 1e+09: want a number from 0 to 100"},
		{"mcts:10:c_visit=1e7:a.zck", "c_visit = 1e+07: want a number from 0 to 1e6"},
		{"mcts:10:c_scale=101:a.zck", "c_scale = 101: want a number from 0 to 100"},
		{"mcts:10:virtual_loss=1e300:a.zck", "virtual_loss = 1e+300: want a number from 0 to 100"},
		{"mcts:10:scan_depth=9:a.zck", "scan_depth = 9: want 1 (the root) to 8"},
		{"mcts:10:root_proof=9:a.zck", "root_proof = 9: want 0 (off) to 8 turns"},
	} {
		_, err := ParseSpec(tc.text)
		if err == nil || !strings.Contains(err.Error(), tc.says) || !strings.HasPrefix(err.Error(), "player \""+tc.text+"\": ") {
			t.Errorf("ParseSpec(%q): err = %v, want one naming the spec and saying %q", tc.text, err, tc.says)
		}
	}
}
