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
type Outbox struct {
	dir   string
	max   int
	mu    sync.Mutex
	n     int // files in dir
	seq   int64
	added chan struct{} // a game was added
	freed chan struct{} // closed and replaced when a game leaves
}

const outboxExt = ".game"

// OpenOutbox opens the outbox in dir (creating it), holding at most max games.
func OpenOutbox(dir string, max int) (*Outbox, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	o := &Outbox{dir: dir, max: max, added: make(chan struct{}, 1), freed: make(chan struct{})}
	o.n = len(o.names())
	return o, nil
}

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
