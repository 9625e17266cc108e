package train

// Checkpoints: writing them with the state that names them, and trimming the old ones.

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/zerogames/zero/internal/atomicfile"
	"github.com/zerogames/zero/internal/duration"
	"github.com/zerogames/zero/net"
	"github.com/zerogames/zero/net/nettrain"
	"github.com/zerogames/zero/train/runfolder"
)

// checkpoint writes the weights and optimizer of the current step, then the state naming it,
// hands it to evaluation and trims the checkpoints kept.
func (r *run[S]) checkpoint(t *nettrain.Trainer, pcg *rand.PCG) error {
	step := r.step.Load()
	entry := runfolder.CheckpointEntry{File: filepath.Join(runfolder.CheckpointDir, fmt.Sprintf("step-%08d%s", step, runfolder.CheckpointExt)), Step: step, Elapsed: r.elapsed()}
	path := filepath.Join(r.dir, entry.File)
	r.mu.Lock()
	r.writing = entry.File // trim leaves it while the state does not list it
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.writing = ""
		r.mu.Unlock()
	}()
	if err := net.Save(path, t.Weights(), t.Optimizer(), step, time.Now()); err != nil {
		return err
	}
	// The file as the state records it, for a resume to tell it from another (ownCheckpoints).
	var err error
	if entry.Size, entry.SHA256, err = fileDigest(path); err != nil {
		return err
	}
	rng, err := pcg.MarshalBinary()
	if err != nil {
		return err
	}
	r.mu.Lock()
	// Every recorded game is on disk before the state counts it: synced under mu, which games
	// are added under (addGame), so that none comes between the sync and the count.
	if err := r.buffer.Sync(); err != nil {
		r.mu.Unlock()
		return err
	}
	if err := r.buffer.RetireErr(); err != nil && !r.retireLogged {
		r.logf("replay: writing the retired game ids: %v (the shards the window passes stay on the disk this session)", err)
		r.retireLogged = true
	}
	r.state.Step, r.state.Checkpoint, r.state.Elapsed, r.state.RNG = step, entry.File, entry.Elapsed, rng
	r.state.Games, r.state.Samples = r.gamesStart+r.games, r.buffer.Total()
	entry.Session = r.state.Sessions
	r.state.Checkpoints = slices.DeleteFunc(r.state.Checkpoints, func(c runfolder.CheckpointEntry) bool { return c.File == entry.File })
	r.state.Checkpoints = append(r.state.Checkpoints, entry)
	err = r.saveStateLocked()
	r.mu.Unlock()
	if err != nil {
		return err
	}
	r.logf("checkpoint %s: step %d, %s of training", filepath.Join(r.dir, entry.File), step,
		duration.Seconds(entry.Elapsed))
	if r.cfg.Eval.Games > 0 {
		// The newest checkpoint replaces one still waiting: evaluation never falls behind.
		select {
		case <-r.evalQueue:
		default:
		}
		r.evalQueue <- entry
	}
	r.trim()
	return nil
}

// saveGames saves the state if games were recorded since it was saved, once they are on disk.
func (r *run[S]) saveGames() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	games, samples := r.gamesStart+r.games, r.buffer.Total()
	if games == r.state.Games && samples == r.state.Samples {
		return nil
	}
	if err := r.buffer.Sync(); err != nil {
		return err
	}
	r.state.Games, r.state.Samples = games, samples
	return r.saveStateLocked()
}

func (r *run[S]) saveStateLocked() error {
	data, err := json.MarshalIndent(&r.state, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteBytes(filepath.Join(r.dir, runfolder.StateFile), append(data, '\n'))
}

// trim drops from the state the checkpoints beyond the last KeepLast, except the best rated
// and those of the evaluation under way (the checkpoint rated and its opponents, until it
// ends), then deletes every checkpoint file in the folder that the state does not list, but
// the one being written: a file whose deletion failed is tried again at the next trim, and
// one left by a process killed between its checkpoint and its state goes too.
func (r *run[S]) trim() {
	r.mu.Lock()
	defer r.mu.Unlock()
	keep := r.cfg.Trainer.KeepLast
	best := r.ladder.Best(r.state.Checkpoints)
	var kept []runfolder.CheckpointEntry
	for i, c := range r.state.Checkpoints {
		if i >= len(r.state.Checkpoints)-keep || c.Name() == best || c.File == r.state.Checkpoint || slices.Contains(r.rating, c.File) {
			kept = append(kept, c)
		}
	}
	if len(kept) < len(r.state.Checkpoints) {
		was := r.state.Checkpoints
		r.state.Checkpoints = kept
		if err := r.saveStateLocked(); err != nil {
			// The state on disk still lists them: they are dropped at the next trim.
			r.state.Checkpoints = was
			r.logf("checkpoints: %v", err)
			return
		}
	}
	// The state no longer names the others: a crash from here on leaves at worst a stray file.
	entries, err := os.ReadDir(filepath.Join(r.dir, runfolder.CheckpointDir))
	if err != nil {
		r.logf("checkpoints: %v", err)
		return
	}
	for _, e := range entries {
		f := filepath.Join(runfolder.CheckpointDir, e.Name())
		if !checkpointName.MatchString(e.Name()) || f == r.writing ||
			slices.ContainsFunc(kept, func(c runfolder.CheckpointEntry) bool { return c.File == f }) {
			continue
		}
		err := os.Remove(filepath.Join(r.dir, f))
		switch {
		case err == nil || errors.Is(err, os.ErrNotExist):
			delete(r.failedRemoval, f)
		case !r.failedRemoval[f]:
			// Said once: it is tried again at every trim.
			r.logf("checkpoints: %v (tried again at each checkpoint)", err)
			if r.failedRemoval == nil {
				r.failedRemoval = map[string]bool{}
			}
			r.failedRemoval[f] = true
		}
	}
}
