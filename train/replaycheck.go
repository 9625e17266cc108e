package train

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/zerogames/zero/train/replay"
	"github.com/zerogames/zero/train/runfolder"
)

// CheckReplay reads the replay buffer of the run folder dir as a resume opens it, and changes
// nothing (the run may be training): the games that read, and every damaged span, header or
// missing shard (replay.Scan), judged against the run's state (its game, and its count of
// samples ever added, of which those the shards lack are lost).
func CheckReplay(dir string) (*replay.Report, error) {
	st, err := replayState(dir)
	if err != nil {
		return nil, err
	}
	return replay.Scan(filepath.Join(dir, runfolder.ReplayDir), st.Game, st.Samples)
}

// RepairReplay rewrites the damaged shards of the run folder dir's replay buffer with the
// records that read, keeping each damaged file beside it (replay.Repair), under the folder's
// lock: it is refused while a process trains in the folder. It returns the report of the buffer
// before, and what it did.
func RepairReplay(dir string) (*replay.Report, []string, error) {
	replayDir := filepath.Join(dir, runfolder.ReplayDir)
	if _, err := os.Stat(replayDir); err != nil {
		return nil, nil, err // the lock would make the folder
	}
	lock, err := runfolder.TakeFor(dir, "run folder %s is %w: %s trains in it; stop it before repairing its replay buffer")
	if err != nil {
		return nil, nil, err
	}
	defer lock.Release()
	st, err := replayState(dir)
	if err != nil {
		return nil, nil, err
	}
	return replay.Repair(replayDir, st.Game, st.Samples)
}

// replayState is what the run's state says of its replay buffer: its game and its count of
// samples ever added (zero values without a state.json).
func replayState(dir string) (runfolder.State, error) {
	var st runfolder.State
	if err := runfolder.ReadJSON(filepath.Join(dir, runfolder.StateFile), &st); err != nil {
		return st, fmt.Errorf("the run's state: %w", err)
	}
	return st, nil
}
