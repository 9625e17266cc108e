package train

// Resuming a run: the checkpoint a session starts from, checked to be the run's own, and the
// fall-back to an older one when the newest is damaged.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/zerogames/zero/internal/atomicfile"
	"github.com/zerogames/zero/models"
	"github.com/zerogames/zero/net"
	"github.com/zerogames/zero/train/runfolder"
)

// startWeights is what a session starts from (weights): the network, the optimizer and the
// trainer's generator, and, if the newest checkpoint was damaged, the older one taken instead
// and the damaged ones after it.
type startWeights struct {
	w        *net.Weights
	opt      *net.Optimizer
	pcg      *rand.PCG
	fellBack *runfolder.CheckpointEntry
	damaged  []string
}

// weights loads the newest checkpoint, or makes the first weights. It writes nothing (open
// calls it before the folder is touched): a fall-back to an older checkpoint is applied by
// fallBack once the session is under way.
func (r *run[S]) weights() (startWeights, error) {
	pcg := rand.NewPCG(r.cfg.Seed, 0x7472_6169_6e)
	if r.init != nil {
		h := r.init.Header
		r.logf("starting from the weights of %s (%s, step %d)", r.cfg.Init, h.Game, h.Step)
		if h.Net.Blocks != r.cfg.Net.Blocks {
			r.logf("deepened from %d residual blocks to %d: the new ones start as the identity", h.Net.Blocks, r.cfg.Net.Blocks)
		}
		return startWeights{w: r.init.Weights, opt: net.NewOptimizer(r.init.Weights), pcg: pcg}, nil
	}
	if r.state.Checkpoint == "" {
		w, err := net.NewWeights(r.spec, r.cfg.Net, rand.New(rand.NewPCG(r.cfg.Seed, 0x6e6574)))
		if err != nil {
			return startWeights{}, err
		}
		return startWeights{w: w, opt: net.NewOptimizer(w), pcg: pcg}, nil
	}
	if err := pcg.UnmarshalBinary(r.state.RNG); err != nil {
		return startWeights{}, fmt.Errorf("%s: rng: %w", filepath.Join(r.dir, runfolder.StateFile), err)
	}
	// The newest checkpoint, or if it is damaged (a disk's fault: checkpoints are written
	// atomically) the newest good one before it, whose steps since are trained again.
	newest := runfolder.CheckpointEntry{File: r.state.Checkpoint, Step: r.state.Step, Elapsed: r.state.Elapsed}
	candidates := []runfolder.CheckpointEntry{newest}
	for _, c := range slices.Backward(r.state.Checkpoints) {
		if c.File != newest.File && c.Step < newest.Step {
			candidates = append(candidates, c)
		}
	}
	var first error
	var damaged []string
	for _, c := range candidates {
		path := filepath.Join(r.dir, c.File)
		ck, err := net.Load(models.ReadDisk, path, r.spec)
		if err == nil && (ck.Header.Step != c.Step || ck.Optimizer == nil) {
			err = fmt.Errorf("it holds step %d (state.json says %d) and optimizer state %v", ck.Header.Step, c.Step, ck.Optimizer != nil)
		}
		if err != nil {
			if first == nil {
				first = fmt.Errorf("resuming from %s: %w", path, err)
			}
			r.logf("resuming: %s is damaged: %v", path, err)
			damaged = append(damaged, c.File)
			continue
		}
		sw := startWeights{w: ck.Weights, opt: ck.Optimizer, pcg: pcg}
		if c != newest {
			sw.fellBack, sw.damaged = &c, damaged
		}
		return sw, nil
	}
	return startWeights{}, fmt.Errorf("%w (and no checkpoint before it is whole)", first)
}

// ownCheckpoints refuses a resume where a checkpoint state.json lists is whole but not the
// file the run wrote (its size and SHA-256 are not those recorded with it): another process
// wrote it over the run's (a second trainer in the folder), or it was copied in, and resuming
// would take the other's weights, or its rating, as the run's. A file that does not load is
// damage, left to weights (which falls back past a damaged newest checkpoint). It writes
// nothing.
func (r *run[S]) ownCheckpoints() error {
	for _, c := range r.state.Checkpoints {
		if c.SHA256 == "" {
			continue // listed before files were recorded with their digest
		}
		path := filepath.Join(r.dir, c.File)
		size, sum, err := fileDigest(path)
		if err != nil || size == c.Size && sum == c.SHA256 {
			continue // missing or unreadable: damage, as a file that does not load
		}
		ck, err := net.Load(models.ReadDisk, path, r.spec)
		if err != nil {
			continue
		}
		return fmt.Errorf("resuming: %s is not the checkpoint %s lists (written by session %d: %d bytes, SHA-256 %.12s…) "+
			"but another, of step %d saved %s (%d bytes, SHA-256 %.12s…): another process wrote it over the run's, or it was copied in; "+
			"put the run's own file back, or start a new run from this one (--init %s, with another --run)",
			path, runfolder.StateFile, c.Session, c.Size, c.SHA256, ck.Header.Step, ck.Header.Created.Local().Format(time.DateTime), size, sum, path)
	}
	return nil
}

// fileDigest is the size and SHA-256 (hex) of the file at path.
func fileDigest(path string) (int64, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return 0, "", err
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}

// fallBack makes c, an older checkpoint than the state's newest, the run's newest in r.state
// (open saves it), the damaged ones after it out of the list. Their ladder players are renamed
// as their files will be (setAside), their games kept under the new names, and ratings.json
// saved before the state: a checkpoint trained again at the same step is rated afresh, not
// with the damaged one's games and rating.
func (r *run[S]) fallBack(c runfolder.CheckpointEntry, damaged []string) error {
	r.logf("resuming from %s (step %d) instead, the newest whole checkpoint: its %d steps since are trained again",
		filepath.Join(r.dir, c.File), c.Step, r.state.Step-c.Step)
	r.aside = map[string]string{}
	renamed := false
	for _, f := range damaged {
		name := runfolder.CheckpointEntry{File: f}.Name()
		suffix := asideSuffix(func(suffix string) bool {
			_, err := os.Lstat(filepath.Join(r.dir, f+suffix))
			return err == nil || slices.Contains(r.ladder.Players, name+suffix)
		})
		r.aside[f] = suffix
		renamed = r.ladder.Rename(name, name+suffix) || renamed
	}
	r.state.Step, r.state.Checkpoint, r.state.Elapsed = c.Step, c.File, c.Elapsed
	r.state.Checkpoints = slices.DeleteFunc(r.state.Checkpoints, func(e runfolder.CheckpointEntry) bool { return slices.Contains(damaged, e.File) })
	if !renamed {
		return nil
	}
	data, err := json.MarshalIndent(&r.ladder, "", "  ")
	if err == nil {
		err = atomicfile.WriteBytes(filepath.Join(r.dir, runfolder.RatingsFile), append(data, '\n'))
	}
	return err
}

// asideSuffix is the first of ".damaged", ".damaged-2", ".damaged-3", … that taken does not
// report taken: a checkpoint damaged twice at one step keeps both.
func asideSuffix(taken func(suffix string) bool) string {
	suffix := ".damaged"
	for k := 2; taken(suffix); k++ {
		suffix = fmt.Sprintf(".damaged-%d", k)
	}
	return suffix
}

// setAside renames the damaged checkpoints to FILE.damaged (or .damaged-2, …, as fallBack
// chose; kept for a look, out of the run's way), once the state no longer names them.
func (r *run[S]) setAside(damaged []string) {
	for _, f := range damaged {
		path := filepath.Join(r.dir, f)
		if err := os.Rename(path, path+r.aside[f]); err != nil && !errors.Is(err, os.ErrNotExist) {
			r.logf("checkpoints: %v", err)
		}
	}
}

// readJSON reads a JSON file into v; a missing file leaves v as it is.
// stateless refuses a run folder with no state.json that holds what only a run that saved one
// writes (checkpoints, ratings, recorded games): starting again there would write over the
// run's files, its checkpoints among them. A folder with none of them is a new run's, or one
// whose first session was killed before it saved anything.
func stateless(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, runfolder.StateFile)); !errors.Is(err, os.ErrNotExist) {
		return nil
	}
	var found []string
	for _, pattern := range []string{runfolder.RatingsFile, filepath.Join(runfolder.CheckpointDir, "*"+runfolder.CheckpointExt), filepath.Join(runfolder.ReplayDir, "*.zrp")} {
		m, _ := filepath.Glob(filepath.Join(dir, pattern))
		switch {
		case len(m) == 1 && m[0] == filepath.Join(dir, pattern):
			found = append(found, m[0])
		case len(m) == 1:
			found = append(found, fmt.Sprintf("%s (1 file)", filepath.Join(dir, pattern)))
		case len(m) > 1:
			found = append(found, fmt.Sprintf("%s (%d files)", filepath.Join(dir, pattern), len(m)))
		}
	}
	if len(found) == 0 {
		return nil
	}
	return fmt.Errorf("%s: no %s, but the folder holds a run's files: %s; restore %s (or start the run in another folder): training here would start again over them",
		dir, runfolder.StateFile, strings.Join(found, ", "), runfolder.StateFile)
}
