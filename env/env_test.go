package env_test

import (
	"slices"
	"testing"

	"github.com/zerogames/zero/env"
)

func TestResultValue(t *testing.T) {
	tests := []struct {
		r      env.Result
		p      env.Player
		want   float32
		winner env.Player
	}{
		{env.Win0, 0, 1, 0}, {env.Win0, 1, -1, 0}, {env.Win1, 0, -1, 1}, {env.Win1, 1, 1, 1},
		{env.Draw, 0, 0, env.Terminal}, {env.Draw, 1, 0, env.Terminal}, {env.Ongoing, 0, 0, env.Terminal},
	}
	for _, tt := range tests {
		if got := tt.r.Value(tt.p); got != tt.want {
			t.Errorf("Result(%d).Value(%d) = %v, want %v", tt.r, tt.p, got, tt.want)
		}
		if got := tt.r.Winner(); got != tt.winner {
			t.Errorf("Result(%d).Winner() = %d, want %d", tt.r, got, tt.winner)
		}
	}
	if env.WinFor(0) != env.Win0 || env.WinFor(1) != env.Win1 {
		t.Errorf("WinFor is wrong")
	}
}

func TestSplitMoves(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", []string{}},
		{"place f6", []string{"place f6"}},
		{" place f6 ;place e5;; \n move f6-f9\n", []string{"place f6", "place e5", "move f6-f9"}},
	}
	for _, tt := range tests {
		if got := env.SplitMoves(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("SplitMoves(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSampleOutcome(t *testing.T) {
	outcomes := []env.Outcome{{Action: 3, Prob: 0.25}, {Action: 5, Prob: 0.5}, {Action: 9, Prob: 0.25}}
	tests := []struct {
		u    float64
		want env.Action
	}{{0, 3}, {0.2499, 3}, {0.25, 5}, {0.7499, 5}, {0.75, 9}, {0.99999, 9}}
	for _, tt := range tests {
		if got := env.SampleOutcome(outcomes, tt.u); got != tt.want {
			t.Errorf("SampleOutcome(u=%v) = %d, want %d", tt.u, got, tt.want)
		}
	}
}

func TestInfoNames(t *testing.T) {
	in := &env.Info{PlayerNames: [2]string{"white", "black"}}
	for _, tt := range []struct{ got, want string }{
		{in.PlayerName(0), "white"}, {in.PlayerName(1), "black"}, {in.PlayerName(env.Chance), "chance"},
		{in.PlayerName(env.Terminal), "none"}, {in.ResultName(env.Ongoing), "none"},
		{in.ResultName(env.Win1), "black"}, {in.ResultName(env.Draw), "draw"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
