package train

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zerogames/zero/train/runfolder"
)

// TestRepairReplayWhileTraining: RepairReplay rewrites shards, so it is refused, changing
// nothing, while a process holds the run folder.
func TestRepairReplayWhileTraining(t *testing.T) {
	dir := t.TempDir()
	shard := filepath.Join(dir, runfolder.ReplayDir, "000001.zrp")
	if err := os.MkdirAll(filepath.Dir(shard), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(shard, []byte("ZRPL damaged"), 0o644); err != nil {
		t.Fatal(err)
	}
	lock, err := runfolder.Take(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	_, _, err = RepairReplay(dir)
	if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "stop it before repairing its replay buffer") {
		t.Errorf("RepairReplay while the folder is held: %v", err)
	}
	if data, _ := os.ReadFile(shard); string(data) != "ZRPL damaged" {
		t.Errorf("the shard was changed: %q", data)
	}
}
