// Package runfolder is a training run's folder: its layout, its state (state.json), the list
// of its checkpoints, its Elo ladder (ratings.json) and the lock of the process training in it.
// Package train writes it; the dashboard, zero report and zero replay read it, without linking
// the trainer (gorgonia) or the game server (NATS).
//
// A run folder holds everything the run knows, so that it can stop at any moment and resume:
//
//	config.yaml       the configuration (game and net fixed for the life of the run): edit it,
//	                  or give another with --config, to change a setting for the next session
//	config-history/   session-NNNN.yaml: the configuration each session ran with, and what
//	                  changed since the session before (history.go)
//	state.json        counters, the trainer's generator, the checkpoints (written atomically)
//	checkpoints/      step-NNNNNNNN.zck files: weights and optimizer state (atomic)
//	replay/           the replay buffer's shards (torn tails are cut off on opening)
//	metrics.jsonl     one JSON record per line: train, selfplay, eval (zero report draws them)
//	events.out.tfevents.*  the same values for TensorBoard, a file a session (tfevents)
//	ratings.json      every evaluation game and the Elo ladder (written atomically)
//	nats/             the embedded NATS server's store: the games not yet taken
//	worker.token      the secret remote workers connect with (zero train --listen)
//	run.id            the run's identity on a NATS server: one account serves one run
//	lock              names the process training in the folder, which holds an OS lock on
//	                  the folder itself (lock.go)
//
// The lock (lock.go) is an flock on the folder itself, opened read-only, so that a
// killed trainer releases it and deleting the lock file does not (it only loses
// the holder's name); the lock file is flock'ed too, for an older zero and for
// file systems that cannot lock a folder (NFS). A second trainer is refused before
// it reads anything, with the first's pid, host and start. Holder takes the lock
// shared for an instant, to tell whether a run is trained now (the dashboard).
package runfolder

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/zerogames/zero/selfplay"
)

// The files and folders of a run folder (the package's doc says what each holds).
const (
	ConfigFile  = "config.yaml"
	StateFile   = "state.json"
	RatingsFile = "ratings.json"
	MetricsFile = "metrics.jsonl"
	// CheckpointDir is the folder of the checkpoints, CheckpointExt ends their names.
	CheckpointDir = "checkpoints"
	CheckpointExt = ".zck"
	// ReplayDir is the folder of the replay buffer's shards (`zero replay dump` reads them).
	ReplayDir = "replay"
	// HistoryDir is the folder of the session records (session-NNNN.yaml).
	HistoryDir = "config-history"
	// NATSDir is the embedded NATS server's store; TokenFile the remote workers' secret; RunIDFile
	// the run's identity on a NATS server.
	NATSDir   = "nats"
	TokenFile = "worker.token"
	RunIDFile = "run.id"
)

// State is state.json: what a run needs besides its checkpoint and buffer to resume.
type State struct {
	Game string `json:"game"`
	// Sessions counts the processes that ran it; each seeds its self-play afresh.
	Sessions int `json:"sessions"`
	// Step is the training step of Checkpoint.
	Step int64 `json:"step"`
	// Checkpoint is the newest checkpoint, relative to the run folder ("" before the first).
	Checkpoint string `json:"checkpoint"`
	// Checkpoints are the checkpoints kept, oldest first.
	Checkpoints []CheckpointEntry `json:"checkpoints"`
	// Elapsed is the run's working time over all its sessions, in seconds, at Checkpoint.
	Elapsed float64 `json:"elapsed_seconds"`
	// Games is the number of self-play games played (those without a sample are not in the
	// buffer); Samples is the buffer's count of samples ever added when Games was counted, so
	// that a resume after a kill can add the games recorded since (absent in a state.json
	// from before it was written, where those games stay uncounted).
	Games   int64 `json:"games"`
	Samples int64 `json:"samples,omitempty"`
	// RNG is the state of the generator that draws minibatches and symmetries.
	RNG []byte `json:"rng"`
}

// CheckpointEntry is one kept checkpoint.
type CheckpointEntry struct {
	File    string  `json:"file"`
	Step    int64   `json:"step"`
	Elapsed float64 `json:"elapsed_seconds"`
	// Session is the session that wrote the file; Size and SHA256 (hex) are the file's, so that
	// a resume refuses a whole checkpoint of that name that is not this one (another process
	// wrote it over the run's, or it was copied in). None is in a state.json from before they
	// were recorded: those files are not checked.
	Session int    `json:"session,omitempty"`
	Size    int64  `json:"size,omitempty"`
	SHA256  string `json:"sha256,omitempty"`
}

// Name is the checkpoint's name in the ladder: its file name without extension.
func (c CheckpointEntry) Name() string {
	return strings.TrimSuffix(filepath.Base(c.File), CheckpointExt)
}

// Ladder is ratings.json: every evaluation game, by player name, and the ratings they give.
type Ladder struct {
	Players []string           `json:"players"`
	Games   []selfplay.Outcome `json:"games"`
	Ratings *selfplay.Ratings  `json:"ratings,omitempty"`
	// Rated lists the checkpoints evaluated.
	Rated []string `json:"rated"`
}

// Index is name's place among the ladder's players, added if new.
func (l *Ladder) Index(name string) int {
	if i := slices.Index(l.Players, name); i >= 0 {
		return i
	}
	l.Players = append(l.Players, name)
	return len(l.Players) - 1
}

// Rating is a player's entry in the ladder's ratings.
func (l *Ladder) Rating(name string) (selfplay.Rating, bool) {
	if l.Ratings == nil {
		return selfplay.Rating{}, false
	}
	for _, r := range l.Ratings.Players {
		if r.Name == name {
			return r, true
		}
	}
	return selfplay.Rating{}, false
}

// Best is the highest rated of the checkpoints kept, "" if none is rated.
func (l *Ladder) Best(kept []CheckpointEntry) string {
	best, elo := "", math.Inf(-1)
	if l.Ratings == nil {
		return ""
	}
	for _, r := range l.Ratings.Players {
		if r.Elo > elo && slices.Contains(l.Rated, r.Name) &&
			slices.ContainsFunc(kept, func(c CheckpointEntry) bool { return c.Name() == r.Name }) {
			best, elo = r.Name, r.Elo
		}
	}
	return best
}

// Rename renames a player of the ladder, its games and rating kept under the new name, and
// tells whether it was there.
func (l *Ladder) Rename(from, to string) bool {
	i := slices.Index(l.Players, from)
	if i < 0 {
		return false
	}
	l.Players[i] = to
	for k, n := range l.Rated {
		if n == from {
			l.Rated[k] = to
		}
	}
	if l.Ratings != nil {
		for k := range l.Ratings.Players {
			if l.Ratings.Players[k].Name == from {
				l.Ratings.Players[k].Name = to
			}
		}
	}
	return true
}

// ReadState reads dir's state.json; a folder without one gives the zero State.
func ReadState(dir string) (State, error) {
	var st State
	err := ReadJSON(filepath.Join(dir, StateFile), &st)
	return st, err
}

// ReadLadder reads dir's ratings.json; a folder without one gives an empty ladder.
func ReadLadder(dir string) (*Ladder, error) {
	var l Ladder
	if err := ReadJSON(filepath.Join(dir, RatingsFile), &l); err != nil {
		return nil, err
	}
	return &l, nil
}

// ConfigGame is the game of dir's config.yaml ("" if it has none or cannot be read): what a
// run without a state yet is learning.
func ConfigGame(dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, ConfigFile))
	if err != nil {
		return ""
	}
	var c struct {
		Game string `yaml:"game"`
	}
	if yaml.Unmarshal(data, &c) != nil {
		return ""
	}
	return c.Game
}

// ReadJSON decodes the JSON file path into v; a missing file leaves v as it is.
func ReadJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
