package train

import (
	"testing"
	"time"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/internal/testgames"
	"github.com/zerogames/zero/train/replay"
)

// TestEmbeddedServerSync pins the embedded server's durability: a server that listens syncs its
// store at every write (a remote worker drops a game once the server has it); one that serves
// only the run's own workers syncs every localSyncEvery (see there why nothing is lost).
func TestEmbeddedServerSync(t *testing.T) {
	tests := []struct {
		opt  Transport
		want time.Duration
	}{
		{Transport{}, localSyncEvery},
		{Transport{Listen: "127.0.0.1:4222"}, 0},
		{Transport{Listen: "0.0.0.0:4222", TLSCert: "c.pem", TLSKey: "k.pem"}, 0},
	}
	for _, tt := range tests {
		cfg := embeddedServer("run", tt.opt)
		if cfg.SyncEvery != tt.want || cfg.Listen != tt.opt.Listen || cfg.Dir == "" {
			t.Errorf("--listen %q: %+v; want SyncEvery %v", tt.opt.Listen, cfg, tt.want)
		}
	}
	if localSyncEvery <= 0 || localSyncEvery > 2*time.Second {
		t.Errorf("localSyncEvery = %v: a machine's crash could lose more than the games in progress and a second's", localSyncEvery)
	}
}

// TestNoTargetGameCountedOnce: a game with no targets (no full search in it: playout cap
// randomization) delivered twice — redelivered after a restart or a late acknowledgement — is
// a duplicate the second time, as games with targets are, and stays one after a resume.
func TestNoTargetGameCountedOnce(t *testing.T) {
	dir := t.TempDir()
	window := replay.Window{Min: 100, Max: 100, Exponent: 1, Growth: 0}
	b, err := replay.Open(dir, "tictactoe", window, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := &run[testgames.Board]{buffer: b}
	g := &replay.Game{ID: "w/s/1", Actions: []env.Action{0, 3, 1, 4, 2}, Result: env.Win0}
	for i, want := range []bool{false, true} {
		if dup, err := r.addGame(g); err != nil || dup != want {
			t.Fatalf("delivery %d: duplicate %v (%v), want %v", i+1, dup, err, want)
		}
	}
	if r.games != 1 {
		t.Errorf("%d games counted, want 1", r.games)
	}
	b.Close()
	if b, err = replay.Open(dir, "tictactoe", window, 0); err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if !b.Has(g.ID) {
		t.Errorf("after a resume the buffer does not know game %s", g.ID)
	}
}
