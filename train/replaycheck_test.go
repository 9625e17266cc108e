package train_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zerogames/zero/env/yinsh"
	"github.com/zerogames/zero/train"
	"github.com/zerogames/zero/train/replay"
)

// TestResumePastReplayDamage (issue 48): a run whose replay shard has a flipped byte resumes
// with a warning naming the shard, the damaged bytes and the game lost, and trains on; the
// shard is left as it was, CheckReplay lists the damage, RepairReplay rewrites the shard with
// its other records, after which CheckReplay finds nothing. A run whose shards were moved
// aside resumes too, the samples they held said lost, its count of samples never going back.
func TestResumePastReplayDamage(t *testing.T) {
	if testing.Short() {
		t.Skip("trains for a few seconds")
	}
	dir := t.TempDir()
	cfg := tiny(t)
	cfg.Eval.Games = 0
	cfg.Stop.Steps = 10
	if err := train.Run(context.Background(), yinsh.Blitz, cfg, dir, train.Options{}); err != nil {
		t.Fatal(err)
	}
	shards, _ := filepath.Glob(filepath.Join(dir, "replay", "*.zrp"))
	if len(shards) == 0 {
		t.Fatal("no shard")
	}
	newest := shards[len(shards)-1]
	data, err := os.ReadFile(newest)
	if err != nil {
		t.Fatal(err)
	}
	// The first record of the newest shard, with a record after it.
	first := 4 + 2 + 1 + len(cfg.Game) + 8
	size := 4 + int(binary.LittleEndian.Uint32(data[first:])) + 4
	if first+size >= len(data) {
		t.Fatalf("%s holds one record: nothing after the damage", newest)
	}
	before, err := train.CheckReplay(dir)
	if err != nil || len(before.Damage) != 0 {
		t.Fatalf("CheckReplay of the whole run: %v, %v", err, before.Damage)
	}
	lostSamples := len(firstGame(t, newest).Targets)
	data[first+4+size/2] ^= 0x20
	if err := os.WriteFile(newest, data, 0o644); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("replay: warning: %s: bytes %d to %d (%d bytes) do not read as records (damaged): 1 game (%d samples) lost",
		newest, first, first+size-1, size, lostSamples)

	cfg.Stop.Steps = 12
	var out strings.Builder
	if err := train.Run(context.Background(), yinsh.Blitz, cfg, dir, train.Options{Out: &out}); err != nil {
		t.Fatalf("resuming past a damaged record: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), want) || !strings.Contains(out.String(), "stopped at step 12") {
		t.Errorf("the output lacks %q or the stop:\n%s", want, out.String())
	}
	if after, _ := os.ReadFile(newest); string(after) != string(data) {
		t.Errorf("the resume changed the damaged shard")
	}
	r, err := train.CheckReplay(dir)
	if err != nil || len(r.Damage) != 1 || r.Damage[0].Shard != newest || r.Damage[0].Offset != int64(first) || r.Damage[0].Games != 1 {
		t.Fatalf("CheckReplay: %v, damage %v", err, r.Damage)
	}
	games := len(r.Games)
	// The shard written again with its other records (and, if it is still the newest, an
	// empty one after it whose header keeps the count of samples, the lost game's with them).
	if _, did, err := train.RepairReplay(dir); err != nil || len(did) == 0 || !strings.HasPrefix(did[0], newest+": written again with its") {
		t.Fatalf("RepairReplay: %v, %q", err, did)
	}
	if r, err = train.CheckReplay(dir); err != nil || len(r.Damage) != 0 || len(r.Games) != games {
		t.Fatalf("CheckReplay after the repair: %v, damage %v, %d games (want %d)", err, r.Damage, len(r.Games), games)
	}

	// The shards moved aside (the run had one): the run resumes, saying how many
	// samples are lost, every one it had counted.
	shards, _ = filepath.Glob(filepath.Join(dir, "replay", "*.zrp"))
	for _, p := range shards {
		if err := os.Rename(p, p+".aside"); err != nil {
			t.Fatal(err)
		}
	}
	state := readState(t, dir)
	r, err = train.CheckReplay(dir)
	if err != nil || len(r.Damage) != 1 || r.Damage[0].Kind != replay.MissingSamples || r.Damage[0].Samples != state.Samples || len(r.Games) != 0 {
		t.Fatalf("CheckReplay, the shards gone: %v, %v (the state counts %d samples)", err, r.Damage, state.Samples)
	}
	cfg.Stop.Steps = 14
	out.Reset()
	if err := train.Run(context.Background(), yinsh.Blitz, cfg, dir, train.Options{Out: &out}); err != nil {
		t.Fatalf("resuming without the newest shard: %v\n%s", err, out.String())
	}
	if want := fmt.Sprintf("replay: warning: %s: the run's state counts %d samples more than the shards hold", filepath.Join(dir, "replay"), r.Damage[0].Samples); !strings.Contains(out.String(), want) {
		t.Errorf("the output lacks %q:\n%s", want, out.String())
	}
	if after := readState(t, dir); after.Samples < state.Samples || after.Step != 14 {
		t.Errorf("after resuming: %d samples ever added, step %d; before: %d samples", after.Samples, after.Step, state.Samples)
	}
}

// firstGame is the first game of the shard at path.
func firstGame(t *testing.T, path string) *replay.Game {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, filepath.Base(path)), data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, games, err := replay.ReadGames(dir)
	if err != nil || len(games) == 0 {
		t.Fatalf("%s: %d games, %v", path, len(games), err)
	}
	return games[0]
}
