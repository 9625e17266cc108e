package train

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zerogames/zero/env/yinsh"
	"github.com/zerogames/zero/selfplay"
	"github.com/zerogames/zero/train/runfolder"
)

// trimFolder is a run folder's checkpoints for trim: a file for each step of listed, listed
// in the state (the last one its newest), and one for each of stray, which it does not list.
func trimFolder(t *testing.T, listed, stray []int64) (*run[yinsh.State], *strings.Builder) {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, runfolder.CheckpointDir), 0o755); err != nil {
		t.Fatal(err)
	}
	out := &strings.Builder{}
	r := &run[yinsh.State]{dir: dir, console: console{out: out}}
	r.cfg.Trainer.KeepLast = 2
	for _, step := range append(slices.Clone(listed), stray...) {
		if err := os.WriteFile(filepath.Join(dir, stepFile(step)), []byte("ZERO"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, step := range listed {
		r.state.Checkpoints = append(r.state.Checkpoints, runfolder.CheckpointEntry{File: stepFile(step), Step: step})
	}
	r.state.Checkpoint, r.state.Step = stepFile(listed[len(listed)-1]), listed[len(listed)-1]
	return r, out
}

func stepFile(step int64) string {
	return filepath.Join(runfolder.CheckpointDir, fmt.Sprintf("step-%08d%s", step, runfolder.CheckpointExt))
}

// checkTrimmed checks that the folder's checkpoints are those of the steps on disk (and the
// other files in others), and that the state, in memory and on disk, lists those of listed.
func checkTrimmed(t *testing.T, when string, r *run[yinsh.State], disk, listed []int64, others ...string) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(r.dir, runfolder.CheckpointDir))
	if err != nil {
		t.Fatal(err)
	}
	var got, want []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	for _, step := range disk {
		want = append(want, filepath.Base(stepFile(step)))
	}
	want = append(want, others...)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("%s: on disk %q, want %q", when, got, want)
	}
	var saved runfolder.State
	data, err := os.ReadFile(filepath.Join(r.dir, runfolder.StateFile))
	if err == nil {
		err = json.Unmarshal(data, &saved)
	}
	if err != nil {
		t.Fatalf("%s: %v", when, err)
	}
	for what, list := range map[string][]runfolder.CheckpointEntry{"state": r.state.Checkpoints, "state.json": saved.Checkpoints} {
		var steps []int64
		for _, c := range list {
			steps = append(steps, c.Step)
		}
		if !slices.Equal(steps, listed) {
			t.Errorf("%s: the %s lists steps %v, want %v", when, what, steps, listed)
		}
	}
}

// TestTrimKeeps: a trim keeps the last keep_last checkpoints, the best rated, and while an
// evaluation is under way the checkpoint it rates and its opponents, and the checkpoint being
// written; it deletes every other checkpoint file of the folder, those the state no longer
// lists included (an older session's deletion failed). The evaluation's files go once it ends.
func TestTrimKeeps(t *testing.T) {
	r, _ := trimFolder(t, []int64{10, 20, 30, 40, 50, 60, 70, 80}, []int64{5, 90})
	for _, other := range []string{"step-00000045.zck.damaged", "mine.zck"} {
		if err := os.WriteFile(filepath.Join(r.dir, runfolder.CheckpointDir, other), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r.ladder = runfolder.Ladder{Players: []string{"random", "step-00000010", "step-00000030"}, Rated: []string{"step-00000010", "step-00000030"},
		Ratings: &selfplay.Ratings{Players: []selfplay.Rating{{Name: "random"}, {Name: "step-00000010", Elo: 100}, {Name: "step-00000030", Elo: 50}}}}
	r.rating = []string{stepFile(40), stepFile(30)} // step 40 plays step 30
	r.writing = stepFile(90)
	r.trim()
	checkTrimmed(t, "while step 40 is rated", r, []int64{10, 30, 40, 70, 80, 90}, []int64{10, 30, 40, 70, 80},
		"mine.zck", "step-00000045.zck.damaged")
	r.writing = ""
	r.rated()
	checkTrimmed(t, "once rated", r, []int64{10, 70, 80}, []int64{10, 70, 80}, "mine.zck", "step-00000045.zck.damaged")
}

// TestTrimRetries: a checkpoint whose deletion fails is deleted at a later trim, though the
// state no longer lists it; the failure is said once.
func TestTrimRetries(t *testing.T) {
	r, out := trimFolder(t, []int64{20, 30}, nil)
	// A folder that is not empty cannot be removed: the deletion of "step 10" fails.
	stuck := filepath.Join(r.dir, stepFile(10))
	if err := os.MkdirAll(filepath.Join(stuck, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.state.Checkpoints = slices.Insert(r.state.Checkpoints, 0, runfolder.CheckpointEntry{File: stepFile(10), Step: 10})
	r.trim()
	r.trim()
	checkTrimmed(t, "deletion failed", r, []int64{10, 20, 30}, []int64{20, 30})
	if n := strings.Count(out.String(), stuck); n != 1 {
		t.Errorf("the failed deletion said %d times, want once:\n%s", n, out)
	}
	if err := os.Remove(filepath.Join(stuck, "x")); err != nil {
		t.Fatal(err)
	}
	r.trim()
	checkTrimmed(t, "deletion possible again", r, []int64{20, 30}, []int64{20, 30})
}
