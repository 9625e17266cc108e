package train_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zerogames/zero/env/yinsh"
	"github.com/zerogames/zero/train"
	"github.com/zerogames/zero/train/dist"
	"github.com/zerogames/zero/train/dist/natstest"
	"github.com/zerogames/zero/train/runfolder"
)

// TestExternalCluster: a run on a 3-node NATS cluster with its streams in 3 replicas (zero
// train --nats URL --replicas 3) trains; it resumes after the node leading its games' stream
// is gone; a second run on the same account is refused before it touches the first's streams.
func TestExternalCluster(t *testing.T) {
	cl := natstest.Start(t, 3)
	opt := train.Options{Transport: train.Transport{NATS: cl.URL(), Replicas: 3}}
	cfg := tiny(t)
	dir := t.TempDir()
	cfg.Stop.Steps = 2
	cfg.Eval.Games = 0 // not what is tested
	if err := train.Run(context.Background(), yinsh.Blitz, cfg, dir, opt); err != nil {
		t.Fatal(err)
	}
	first := readState(t, dir)
	if first.Step != 2 || first.Games == 0 {
		t.Fatalf("the first session: step %d, %d games; want step 2 and games", first.Step, first.Games)
	}
	id, err := os.ReadFile(filepath.Join(dir, runfolder.RunIDFile))
	if err != nil || strings.TrimSpace(string(id)) == "" {
		t.Fatalf("the run's identity: %q, %v", id, err)
	}

	other := filepath.Join(t.TempDir(), "other")
	err = train.Run(context.Background(), yinsh.Blitz, cfg, other, opt)
	if !errors.Is(err, dist.ErrOtherRun) || !strings.Contains(err.Error(), strings.TrimSpace(string(id))) {
		t.Errorf("a second run on the same account: %v; want %v naming run %s", err, dist.ErrOtherRun, id)
	}
	if ents, err := os.ReadDir(other); err == nil {
		t.Errorf("the refused run left its folder, with %d files", len(ents))
	}

	leader := cl.StreamLeader(t, dist.Stream)
	cl.Stop(t, leader)
	// The run's streams elect new leaders before the trainer comes back (one starting during
	// the election is refused with "no responders", as a restart would be).
	for _, name := range []string{dist.Stream, "KV_" + dist.RunBucket, "KV_" + dist.FlowBucket, "OBJ_" + dist.WeightsBucket} {
		for end := time.Now().Add(20 * time.Second); cl.StreamLeader(t, name) == leader; time.Sleep(50 * time.Millisecond) {
			if time.Now().After(end) {
				t.Fatalf("stream %s still led by the stopped %s after 20s", name, leader)
			}
		}
	}
	opt.Transport.NATS = cl.URL()
	// Past what the first session's games pay for (train ratio 2, batch 16): new games must come.
	cfg.Stop.Steps = int64(first.Samples)*2/16 + 4
	if err := train.Run(context.Background(), yinsh.Blitz, cfg, dir, opt); err != nil {
		t.Fatalf("resumed without %s, the stream's leader: %v", leader, err)
	}
	if st := readState(t, dir); st.Step != cfg.Stop.Steps || st.Games <= first.Games {
		t.Errorf("the second session: step %d, %d games; want step %d and more than %d games", st.Step, st.Games, cfg.Stop.Steps, first.Games)
	}
}
