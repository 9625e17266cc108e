package replay

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/internal/atomicfile"
)

// Window sizes the window of recent samples minibatches are drawn from, growing with the number
// of samples ever added, N, as KataGo does: Min·(1 + Growth·((N/Min)^Exponent − 1)/Exponent),
// never less than Min (or N, while N < Min), never more than Max.
type Window struct {
	Min      int     `yaml:"min"`      // the window while the run is young (KataGo: 250,000)
	Max      int     `yaml:"max"`      // the cap (KataGo: 22,000,000)
	Exponent float64 `yaml:"exponent"` // how the window grows (KataGo: 0.75)
	Growth   float64 `yaml:"growth"`   // (KataGo: 0.4)
}

// Validate checks a window configuration.
func (w Window) Validate() error {
	switch {
	case w.Min < 1:
		return fmt.Errorf("min: %d, want ≥ 1", w.Min)
	case w.Max < w.Min:
		return fmt.Errorf("max: %d, want ≥ min (%d)", w.Max, w.Min)
	case !(w.Exponent > 0 && w.Exponent <= 1):
		return fmt.Errorf("exponent: %v, want in (0, 1]", w.Exponent)
	case !(w.Growth >= 0):
		return fmt.Errorf("growth: %v, want ≥ 0", w.Growth)
	}
	return nil
}

// Size is the window after total samples have been added.
func (w Window) Size(total int64) int {
	if total <= int64(w.Min) {
		return w.Min
	}
	x := float64(total) / float64(w.Min)
	size := float64(w.Min) * (1 + w.Growth*(math.Pow(x, w.Exponent)-1)/w.Exponent)
	return int(min(size, float64(w.Max)))
}

// shardMagic starts every shard file, followed by a format version, the game's name, and the
// number of samples added before the shard was begun (so that the count of samples ever added,
// the window's clock, survives the deletion of old shards).
const (
	shardMagic   = "ZRPL"
	shardVersion = 4
	// oldestShardVersion is the oldest format read (version 2: no flags in the targets;
	// version 3: no game ids).
	oldestShardVersion = 2
	shardExt           = ".zrp"
	// gamesPerShard: a new shard is started after this many games, so old shards can be
	// deleted once the window has passed them.
	gamesPerShard = 2000
)

// shardFile is what the buffer does with the shard it appends to: an *os.File, or in tests one
// whose writes fail.
type shardFile interface {
	io.Writer
	Stat() (os.FileInfo, error)
	Truncate(size int64) error
	Sync() error
	Close() error
}

// openShard opens a shard for appending; tests replace it to make writes fail.
var openShard = defaultOpenShard

func defaultOpenShard(path string) (shardFile, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// Buffer is a run's replay buffer: shards in a folder, and in memory the games whose samples are
// in the window. It is safe for concurrent use.
type Buffer struct {
	mu      sync.Mutex
	dir     string
	game    string
	window  Window
	games   []*Game  // oldest first; some of the oldest may lie partly outside the window
	shardOf []int    // the shard number of each game in games
	samples []sample // the samples of games, oldest first
	total   int64    // samples ever added, the window's clock
	shard   int      // the shard being appended to
	inShard int      // games in it
	file    shardFile
	buf     []byte
	ids     map[string]struct{} // the IDs of games
	retired *idSet              // the IDs of the games the window has passed (RetiredFile)
	// toRetire are the retired ids not yet appended to RetiredFile: written, and synced, before
	// a shard is removed. A failed append stops the appends (and so the removals) for the
	// session: what it left is the file's tail, which Open cuts off.
	toRetire   *idSet
	retireErr  error  // the failed append's
	retiredCut string // what Open left out of RetiredFile ("" if nothing)
	broken     error  // set when a failed write could not be undone, or a sync failed (syncErr)
	syncErr    error  // set when a sync failed: final (see Sync)
	cut        []Cut  // what Open cut off
	damage     []Damage
}

// Cut is a torn record that Open cut off the end of the newest shard: a game that the process
// before was writing when it died.
type Cut struct {
	Shard   string // the shard's path
	Offset  int64  // where the record started
	Bytes   int64  // the bytes cut off
	Samples int    // the samples of the game lost, -1 if the part written does not say
}

func (c Cut) String() string {
	samples := "an unknown number of samples"
	if c.Samples >= 0 {
		samples = fmt.Sprintf("%d samples", c.Samples)
	}
	return fmt.Sprintf("%s: cut off a game the last process was writing when it stopped (%d bytes from byte %d, %s lost)",
		c.Shard, c.Bytes, c.Offset, samples)
}

// Cuts are the torn records Open cut off (none after a clean stop).
func (b *Buffer) Cuts() []Cut { return b.cut }

type sample struct {
	game   int32 // index in games, shifted when old games are dropped
	target int32
}

// Sample is one training sample: a decision of a recorded game.
type Sample struct {
	Game   *Game
	Target int // index in Game.Targets
}

// Open opens (creating it if need be) the replay buffer in dir for a game, loading the games
// whose samples are in the window. A torn record at the end of the newest shard (a write cut by
// a crash) is cut off. Damage does not stop it: a span of records that does not read is skipped
// and reading goes on at the next whole record, a header one byte of which is damaged is read as
// the game's, a missing shard is passed over; each is reported (Damage), with its bytes and the
// games and samples lost, and the damaged files are left as they are (Repair rewrites them).
// A shard of another game or of a format this build does not read is an error.
//
// synced is the count of samples ever added that the caller knows were made durable (a run's
// saved state; 0 if it knows none). A crash tears only what was not yet synced, so a tail that
// looks torn is cut off only if the shards hold synced samples without it; else it is damage,
// and the samples the shards lack are reported lost (with the newest shard removed, say). The
// count of samples ever added never goes back: it is at least synced, and counts the samples
// lost in the newest shard that its damaged records tell. After damage in the newest shard, or
// samples lost, the next game starts a new shard, whose header keeps the count.
func Open(dir, game string, w Window, synced int64) (*Buffer, error) {
	if err := w.Validate(); err != nil {
		return nil, fmt.Errorf("replay window: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	b := &Buffer{dir: dir, game: game, window: w, ids: map[string]struct{}{}}
	retired, rewrite, cut, err := readRetired(dir)
	if err != nil {
		return nil, err
	}
	b.retired, b.toRetire, b.retiredCut = retired, newIDSet(), cut
	f, err := readFolder(dir, game, synced, false)
	if err != nil {
		return nil, err
	}
	for _, sh := range f.shards {
		b.total = max(b.total, sh.before)
		for _, g := range sh.games {
			b.addLocked(g, sh.n)
		}
		b.shard, b.inShard = sh.n, len(sh.games)
		if sh.version != shardVersion {
			b.inShard = gamesPerShard // an older format is not appended to: the next game starts a shard
		}
	}
	b.total = f.total
	if f.newestDamaged() {
		b.inShard = gamesPerShard
	}
	b.damage = f.damage
	if f.headerCut != "" {
		// The crash came while its header was being written: it holds no game.
		if err := os.Remove(f.headerCut); err != nil {
			return nil, err
		}
	}
	if f.torn != nil {
		if err := os.Truncate(f.torn.Shard, f.torn.Offset); err != nil {
			return nil, fmt.Errorf("%s: cutting off a torn record: %w", f.torn.Shard, err)
		}
		b.cut = append(b.cut, *f.torn)
	}
	if len(f.shards) > 0 {
		// What a killed process wrote may be in the OS's cache only: durable before the caller
		// counts it (a run's state counts every sample read here).
		if err := syncShard(f.shards[len(f.shards)-1].path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("replay: %w", err)
		}
	}
	if len(f.shards) > 0 || f.headerCut != "" {
		if err := atomicfile.SyncDir(dir); err != nil {
			return nil, fmt.Errorf("replay: %w", err)
		}
	}
	if rewrite {
		// Folded into ranges, a tail that does not read gone (the next append must not follow
		// it).
		if err := writeRetired(dir, b.retired); err != nil {
			b.retireErr = fmt.Errorf("%s: %w", filepath.Join(dir, RetiredFile), err)
		}
	}
	b.trimLocked()
	return b, nil
}

// Damage is what Open found damaged and skipped, in the folder's order (none in a sound
// folder): a caller resuming a run logs each as a warning.
func (b *Buffer) Damage() []Damage { return b.damage }

// syncShard syncs the file at path.
func syncShard(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (b *Buffer) shardPath(n int) string { return shardPath(b.dir, n) }

func shardPath(dir string, n int) string {
	return filepath.Join(dir, fmt.Sprintf("%06d%s", n, shardExt))
}

// ErrNoShards is ReadGames' and ReadNewest's error for a folder that holds no game yet: no
// shard, or only one whose header a crash cut short.
var ErrNoShards = errors.New("no replay shards (" + shardExt + " files)")

// ReadGames reads the games recorded in the replay shards in dir, oldest first, and the name of
// their game, without changing anything: a run may be training in the folder meanwhile. A torn
// record at the end of the newest shard (a game being written, or one a crash cut short) is
// left out, as is a shard deleted while it is read (the window had passed it), and damaged
// records (Scan reports them); shards of different games, or no shard at all, is an error.
func ReadGames(dir string) (string, []*Game, error) {
	r, err := Scan(dir, "", 0)
	if err != nil {
		return "", nil, err
	}
	return r.Game, r.Games, nil
}

// ReadNewest is ReadGames for the newest n games only (fewer if the shards hold fewer),
// oldest first: it reads shards from the newest back until it has them, so a watcher of a
// long run reads one shard or two, not the whole buffer.
func ReadNewest(dir string, n int) (string, []*Game, error) {
	r, err := ScanNewest(dir, n)
	if err != nil {
		return "", nil, err
	}
	return r.Game, r.Games, nil
}

// readShard reads and parses shard n of dir (parseShard's game and last); found is false if
// the shard is gone (removed between the listing and the read).
func readShard(dir string, n int, game string, last bool) (sh shard, found bool, err error) {
	path := shardPath(dir, n)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return sh, false, nil
	}
	if err != nil {
		return sh, false, err
	}
	sh, err = parseShard(path, data, game, last)
	return sh, true, err
}

// shardNumbers lists the numbers of the shards in dir, ascending.
func shardNumbers(dir string) ([]int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var ns []int
	for _, e := range entries {
		var n int
		if name := e.Name(); strings.HasSuffix(name, shardExt) {
			// Only the name shardPath writes: 1.zrp or 0000001.zrp would be read as 000001.zrp,
			// a second copy of its games or in its place.
			_, err := fmt.Sscanf(name, "%d"+shardExt, &n)
			if err != nil || n < 0 || filepath.Base(shardPath(dir, n)) != name {
				return nil, fmt.Errorf("%s: not a replay shard name (want six digits or more, as 000001%s)", filepath.Join(dir, name), shardExt)
			}
			ns = append(ns, n)
		}
	}
	slices.Sort(ns)
	return ns, nil
}

func shardHeader(game string, version uint16) []byte {
	h := []byte(shardMagic)
	h = binary.LittleEndian.AppendUint16(h, version)
	h = append(h, byte(len(game)))
	return append(h, game...)
}

// shard is what a shard file holds.
type shard struct {
	n       int    // its number (set by readFolder)
	path    string // (set by readFolder)
	size    int    // the file's
	game    string
	version uint16
	before  int64 // the samples added before the shard was begun
	games   []*Game
	records [][2]int // where each game's record is in the file: offset and size
	samples int64    // the games' samples
	// damage is what does not read in it, in order: its header, spans of records.
	damage []Damage
	// torn is where a torn last record starts (a write cut short by a crash), -1 if none; the
	// samples of its game, if the part written holds it (-1 if not), and the records in it by
	// spanRecords (-1 if they do not chain).
	torn                   int
	tornSamples, tornGames int
	// headerCut tells that the file holds only the start of a header (a crash as the shard
	// was begun): it holds no game.
	headerCut bool
}

// parseShard reads the shard at path, whose content is data, of game ("" for whichever game
// its header names). Records that do not read are skipped (framing.go) and reported in its
// damage, as is a header that one damaged byte changed (if game is given). Only the newest
// shard (last) may end in a torn record or a header cut short: its torn tail is told apart,
// for the caller to judge (a crash's, or damage); elsewhere a tail is a damaged span. Another
// game's shard, a format this build does not read, or a record whose checksum matches but that
// does not read, is an error.
func parseShard(path string, data []byte, game string, last bool) (shard, error) {
	sh := shard{game: game, version: shardVersion, torn: -1, size: len(data)}
	if len(data) >= 6 && string(data[:4]) == shardMagic {
		sh.version = binary.LittleEndian.Uint16(data[4:])
	}
	if game == "" && len(data) >= 7 && string(data[:4]) == shardMagic && len(data) >= 7+int(data[6]) {
		sh.game = string(data[7 : 7+int(data[6])])
	}
	header := shardHeader(sh.game, sh.version)
	if sh.version < oldestShardVersion || sh.version > shardVersion || sh.game == "" || !bytes.HasPrefix(data, header) {
		v, damaged := damagedHeader(data, game)
		switch {
		case damaged:
			sh.version, header = v, shardHeader(game, v)
			sh.damage = append(sh.damage, Damage{Kind: DamagedHeader, Shard: path, Bytes: int64(len(header))})
		case len(data) >= 7 && string(data[:4]) == shardMagic && (sh.version < oldestShardVersion || sh.version > shardVersion):
			return sh, fmt.Errorf("%s: replay format version %d, this build reads %d to %d", path, sh.version, oldestShardVersion, shardVersion)
		case len(data) >= 7 && string(data[:4]) == shardMagic && len(data) >= 7+int(data[6]):
			return sh, fmt.Errorf("%s: a replay of %q, not %q", path, data[7:7+int(data[6])], sh.game)
		case last && (sh.game == "" && bytes.HasPrefix([]byte(shardMagic), data[:min(len(data), len(shardMagic))]) ||
			len(data) < len(header) && bytes.HasPrefix(header, data)):
			sh.headerCut = true
			return sh, nil
		case sh.game == "":
			return sh, fmt.Errorf("%s: not a replay shard", path)
		default:
			return sh, fmt.Errorf("%s: not a replay shard of %q", path, sh.game)
		}
	}
	off := len(header)
	if len(data) < off+8 {
		if last {
			sh.headerCut = true
			return sh, nil
		}
		return sh, fmt.Errorf("%s: the header is cut short", path)
	}
	sh.before = int64(binary.LittleEndian.Uint64(data[off:]))
	off += 8
	for off < len(data) {
		g, size, err := readRecord(data[off:], sh.version)
		if err == nil {
			sh.games = append(sh.games, g)
			sh.records = append(sh.records, [2]int{off, size})
			sh.samples += int64(len(g.Targets))
			off += size
			continue
		}
		if !errors.Is(err, errTorn) && !errors.Is(err, errChecksum) {
			// Its checksum matched, so no damage made it: the file is not ours.
			return sh, fmt.Errorf("%s: at byte %d: %w", path, off, err)
		}
		next := nextRecord(data, off, size, sh.version)
		games, samples := spanRecords(data[off:next], sh.version)
		if next == len(data) && last {
			// A write cut short by a crash leaves a part of the last record of the newest
			// shard: a record running past the end, a whole last one whose checksum fails (its
			// pages not all written), or zeros.
			sh.torn, sh.tornSamples, sh.tornGames = off, tornSamples(data[off:]), games
			break
		}
		sh.damage = append(sh.damage, Damage{Kind: DamagedRecords, Shard: path, Offset: int64(off), Bytes: int64(next - off), Games: games, Samples: samples})
		off = next
	}
	return sh, nil
}

// Add records a finished game: appended to the current shard at once (a killed process keeps
// it), then its samples join the window.
func (b *Buffer) Add(g *Game) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.file == nil || b.inShard >= gamesPerShard {
		if err := b.nextShardLocked(); err != nil {
			return err
		}
	}
	rec, err := appendRecord(b.buf[:0], g)
	if err != nil {
		return err
	}
	b.buf = rec
	if b.broken != nil {
		return b.broken
	}
	st, err := b.file.Stat()
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	if _, err := b.file.Write(rec); err != nil {
		// A record cut short (a full disk) would hide the games appended after it: cut it off,
		// or, if that fails too, take no more games.
		if terr := b.file.Truncate(st.Size()); terr != nil {
			b.broken = fmt.Errorf("replay: %s is damaged after a failed write (%v; cutting it off: %v): no more games are recorded", b.shardPath(b.shard), err, terr)
			return b.broken
		}
		return fmt.Errorf("replay: %w", err)
	}
	b.inShard++
	b.addLocked(g, b.shard)
	b.trimLocked()
	return nil
}

func (b *Buffer) nextShardLocked() error {
	if b.file != nil {
		if err := b.closeFileLocked(); err != nil {
			return err
		}
	}
	if b.inShard > 0 || b.shard == 0 {
		b.shard, b.inShard = b.shard+1, 0
	}
	path := b.shardPath(b.shard)
	f, err := openShard(path)
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	if st, err := f.Stat(); err == nil && st.Size() == 0 {
		if _, err := f.Write(binary.LittleEndian.AppendUint64(shardHeader(b.game, shardVersion), uint64(b.total))); err != nil {
			f.Close()
			return fmt.Errorf("replay: %w", err)
		}
		// The new shard's name is durable before any game synced in it is counted.
		if err := atomicfile.SyncDir(b.dir); err != nil {
			f.Close()
			return fmt.Errorf("replay: %w", err)
		}
	}
	b.file = f
	return nil
}

func (b *Buffer) addLocked(g *Game, shard int) {
	b.games = append(b.games, g)
	b.shardOf = append(b.shardOf, shard)
	if g.ID != "" {
		b.ids[g.ID] = struct{}{}
	}
	gi := int32(len(b.games) - 1)
	for t := range g.Targets {
		b.samples = append(b.samples, sample{gi, int32(t)})
	}
	b.total += int64(len(g.Targets))
}

// trimLocked drops the samples beyond the window, the games left with none, and the shards
// left with no game.
func (b *Buffer) trimLocked() {
	excess := len(b.samples) - b.window.Size(b.total)
	if excess <= 0 {
		return
	}
	b.samples = b.samples[excess:]
	drop := int(b.samples[0].game)
	if drop == 0 {
		return
	}
	for _, g := range b.games[:drop] {
		if g.ID != "" {
			delete(b.ids, g.ID)
			if !b.retired.has(g.ID) {
				b.retired.add(g.ID)
				if b.retireErr == nil {
					b.toRetire.add(g.ID)
				}
			}
		}
	}
	var gone []int
	for _, n := range b.shardOf[:drop] {
		if n != b.shardOf[drop] && n != b.shard && (len(gone) == 0 || gone[len(gone)-1] != n) {
			gone = append(gone, n)
		}
	}
	// The shards' ids are durably retired before the shards go: else a crash would forget them.
	// An old shard left behind is only disk (Open reads it, and its games are trimmed again).
	if len(gone) > 0 && b.retireLocked() {
		for _, n := range gone {
			os.Remove(b.shardPath(n))
		}
	}
	b.games = slices.Delete(b.games, 0, drop)
	b.shardOf = slices.Delete(b.shardOf, 0, drop)
	for i := range b.samples {
		b.samples[i].game -= int32(drop)
	}
}

// Total is the number of samples ever added (the run's clock for the window and the
// training ratio).
func (b *Buffer) Total() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.total
}

// GamesSince is the number of games recorded after the clock (Total) read total: the newest
// games, back to the one whose samples reach total. It counts only games still in the window.
func (b *Buffer) GamesSince(total int64) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	t, n := b.total, 0
	for i := len(b.games) - 1; i >= 0 && t > total; i-- {
		t -= int64(len(b.games[i].Targets))
		n++
	}
	return n
}

// Has tells whether the buffer has had a game of this ID: in the window, or one the window
// has passed (RetiredFile).
func (b *Buffer) Has(id string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, ok := b.ids[id]
	return ok || b.retired.has(id)
}

// retireLocked appends the ids waiting to RetiredFile, folded and synced, and tells whether
// they are there (none waiting: true).
func (b *Buffer) retireLocked() bool {
	if b.retireErr != nil {
		return false
	}
	if b.toRetire.empty() {
		return true
	}
	if err := appendRetired(b.dir, b.toRetire.encode()); err != nil {
		b.retireErr = fmt.Errorf("%s: %w", filepath.Join(b.dir, RetiredFile), err)
		b.toRetire = newIDSet()
		return false
	}
	b.toRetire = newIDSet()
	return true
}

// RetiredCut says what Open left out of RetiredFile: a tail that did not read ("" if nothing).
func (b *Buffer) RetiredCut() string { return b.retiredCut }

// RetireErr is the failure that stopped the appends to RetiredFile, and with them the removal
// of the shards the window has passed (they stay on the disk, and the next Open reads them),
// or nil.
func (b *Buffer) RetireErr() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.retireErr
}

// Each calls f with each game in the window, oldest first (f must not keep or change them).
func (b *Buffer) Each(f func(*Game)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, g := range b.games {
		f(g)
	}
}

// Len is the number of samples in the window.
func (b *Buffer) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.samples)
}

// Draw appends n samples drawn uniformly (with replacement) from the window to dst.
func (b *Buffer) Draw(rng *rand.Rand, n int, dst []Sample) []Sample {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.samples) == 0 {
		return dst
	}
	for range n {
		s := b.samples[rng.IntN(len(b.samples))]
		dst = append(dst, Sample{Game: b.games[s.game], Target: int(s.target)})
	}
	return dst
}

// Sync makes every game added so far durable (fsync). A failed sync is final: on Linux a
// second fsync after a write-back error may report success with the pages lost, so every later
// Sync and Add returns the error, and nothing added is ever told durable by this buffer again.
func (b *Buffer) Sync() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.syncErr != nil {
		return b.syncErr
	}
	if b.file == nil {
		return nil
	}
	if err := b.file.Sync(); err != nil {
		return b.syncFailedLocked(err)
	}
	return nil
}

// syncFailedLocked makes a failed sync of the current shard final (see Sync).
func (b *Buffer) syncFailedLocked(err error) error {
	b.syncErr = fmt.Errorf("replay: syncing %s: %w (the games added since the last sync may not be on disk: no more are recorded)", b.shardPath(b.shard), err)
	if b.broken == nil {
		b.broken = b.syncErr
	}
	return b.syncErr
}

// Close syncs and closes the current shard.
func (b *Buffer) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.closeFileLocked()
}

func (b *Buffer) closeFileLocked() error {
	if b.file == nil {
		return nil
	}
	err := b.syncErr // final: a sync after it proves nothing
	if err == nil {
		if serr := b.file.Sync(); serr != nil {
			err = b.syncFailedLocked(serr)
		}
	}
	err = errors.Join(err, b.file.Close())
	b.file = nil
	return err
}

// Materialize rebuilds a sample for training: the decision's state, turned by symmetry sym,
// observed into obs; its policy target, mapped by the same symmetry, written densely into
// policy (Info.NumActions values, zero off the target); and the value target, the game's result
// from the decider's side, returned.
func Materialize[S env.State[S]](g env.Game[S], s Sample, sym int, obs, policy []float32) (float32, error) {
	t := &s.Game.Targets[s.Target]
	state := g.New()
	for i, a := range s.Game.Actions[:t.Ply] {
		if state.ToMove() == env.Terminal {
			return 0, fmt.Errorf("replay: a recorded game ends at decision %d of %d", i, t.Ply)
		}
		state = state.Play(a)
	}
	decider := state.ToMove()
	if decider != 0 && decider != 1 {
		return 0, fmt.Errorf("replay: the target at decision %d is not a player's decision", t.Ply)
	}
	state.Symmetry(sym).Observe(obs)
	clear(policy)
	for _, e := range t.Policy {
		policy[g.MapAction(sym, e.Action)] = e.Prob
	}
	return s.Game.Result.Value(decider), nil
}

var _ io.Closer = (*Buffer)(nil)

// MaterializeLegal rebuilds a sample as the network's trainer takes it (net.Batch): the
// decision's state turned by symmetry sym, observed into obs; its legal actions (ascending)
// appended to legal, with the policy target of each appended to policy (0 where the search
// gave nothing); and the value target, the result from the decider's side.
func MaterializeLegal[S env.State[S]](g env.Game[S], s Sample, sym int, obs []float32, legal []env.Action, policy []float32) ([]env.Action, []float32, float32, error) {
	t := &s.Game.Targets[s.Target]
	state := g.New()
	for i, a := range s.Game.Actions[:t.Ply] {
		if state.ToMove() == env.Terminal {
			return legal, policy, 0, fmt.Errorf("replay: a recorded game ends at decision %d of %d", i, t.Ply)
		}
		state = state.Play(a)
	}
	decider := state.ToMove()
	if decider != 0 && decider != 1 {
		return legal, policy, 0, fmt.Errorf("replay: the target at decision %d is not a player's decision", t.Ply)
	}
	turned := state.Symmetry(sym)
	turned.Observe(obs)
	start := len(legal)
	legal = turned.Legal(legal)
	for range len(legal) - start {
		policy = append(policy, 0)
	}
	for _, e := range t.Policy {
		i, ok := slices.BinarySearch(legal[start:], g.MapAction(sym, e.Action))
		if !ok {
			return legal, policy, 0, fmt.Errorf("replay: the target at decision %d gives action %d, which is not legal", t.Ply, e.Action)
		}
		policy[start+i] = e.Prob
	}
	return legal, policy, s.Game.Result.Value(decider), nil
}
