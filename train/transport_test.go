package train

import (
	"testing"
	"time"
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
