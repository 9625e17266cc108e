package dist

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/zerogames/zero/internal/atomicfile"
	"github.com/zerogames/zero/train/replay"
)

// Outbox is a worker's games that the server did not take: one file a game (its replay record,
// which holds its id and a checksum), written whole or not at all, named so that the oldest
// sorts first. It is bounded: a worker whose outbox is full waits before it adds a game (and so
// plays no more) until the server takes some.
//
// An outbox holds the games of one game and rules revision, in a folder of its own named after
// them, since a record does not say which game it is: a worker started again with the same
// folder for another game (or a new revision of the rules) leaves the old games where they are,
// and a publisher sends an outbox's games only for its own game (NewPublisher checks).
type Outbox struct {
	dir   string
	game  string
	rules int
	max   int
	mu    sync.Mutex
	n     int // files in dir
	seq   int64
	added chan struct{} // a game was added
	freed chan struct{} // closed and replaced when a game leaves
}

const outboxExt = ".game"

// OpenOutbox opens the outbox of game (env.Info.Name) under its rules revision in dir: its
// folder dir/GAME.rREVISION, created if need be. It holds at most max games.
func OpenOutbox(dir, game string, rules, max int) (*Outbox, error) {
	if !ValidName(game) {
		return nil, fmt.Errorf("outbox: game %q: want letters, digits, '.', '_' or '-'", game)
	}
	dir = filepath.Join(dir, fmt.Sprintf("%s.r%d", game, rules))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	o := &Outbox{dir: dir, game: game, rules: rules, max: max, added: make(chan struct{}, 1), freed: make(chan struct{})}
	o.n = len(o.names())
	return o, nil
}

// Dir is the outbox's folder (its game's, under the folder given to OpenOutbox).
func (o *Outbox) Dir() string { return o.dir }

// Len is the number of games in the outbox.
func (o *Outbox) Len() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.n
}

// Put adds a game (id, and its record as replay.AppendGame wrote it), waiting while the
// outbox is full, until ctx ends.
func (o *Outbox) Put(ctx context.Context, id string, record []byte) error {
	for {
		o.mu.Lock()
		if o.n < o.max {
			o.n++
			o.seq++
			name := fmt.Sprintf("%020d-%06d%s", time.Now().UnixNano(), o.seq%1_000_000, outboxExt)
			o.mu.Unlock()
			if err := atomicfile.WriteBytes(filepath.Join(o.dir, name), record); err != nil {
				o.mu.Lock()
				o.n--
				o.mu.Unlock()
				return fmt.Errorf("outbox: keeping game %s: %w", id, err)
			}
			select {
			case o.added <- struct{}{}:
			default:
			}
			return nil
		}
		freed := o.freed
		o.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil // the game is lost, as a game in progress would be
		case <-freed:
		}
	}
}

// names lists the games' files, oldest first.
func (o *Outbox) names() []string {
	entries, _ := os.ReadDir(o.dir)
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), outboxExt) {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names
}

// read reads a game's file.
func (o *Outbox) read(name string) (string, []byte, error) {
	data, err := os.ReadFile(filepath.Join(o.dir, name))
	if err != nil {
		return "", nil, err
	}
	g, err := replay.DecodeGame(data)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", filepath.Join(o.dir, name), err)
	}
	if g.ID == "" {
		return "", nil, fmt.Errorf("%s: a game without id", filepath.Join(o.dir, name))
	}
	return g.ID, data, nil
}

// remove deletes a game the server took.
func (o *Outbox) remove(name string) {
	if os.Remove(filepath.Join(o.dir, name)) != nil {
		return
	}
	o.left()
}

// setAside renames a damaged file out of the way (kept for a look).
func (o *Outbox) setAside(name string) {
	if os.Rename(filepath.Join(o.dir, name), filepath.Join(o.dir, name+".damaged")) == nil {
		o.left()
	}
}

func (o *Outbox) left() {
	o.mu.Lock()
	o.n--
	close(o.freed)
	o.freed = make(chan struct{})
	o.mu.Unlock()
}
