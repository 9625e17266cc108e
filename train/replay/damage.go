package replay

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/zerogames/zero/internal/atomicfile"
)

// DamageKind says what a Damage is.
type DamageKind int

const (
	// DamagedRecords: the bytes [Offset, Offset+Bytes) of a shard do not read as records; the
	// games they held are lost, the records before and after them are read.
	DamagedRecords DamageKind = iota
	// DamagedHeader: one byte of a shard's header (its first Bytes bytes) is damaged; the shard
	// is read as the run's game's, in the format its version names. No game is lost.
	DamagedHeader
	// MissingShard: the shard is not in the folder, though shards before and after it are.
	MissingShard
	// MissingSamples: the run's state counted Samples more samples than the shards hold (the
	// newest shard removed or cut short); Shard is the folder.
	MissingSamples
)

// Damage is a part of a replay folder that does not read: what Open skips (and reports, the run
// logs it), what Scan lists and what Repair removes.
type Damage struct {
	Kind   DamageKind
	Shard  string // the shard's path (the folder's for MissingSamples)
	Offset int64  // where the damaged bytes start
	Bytes  int64  // how many there are (0 when missing)
	// Games is the number of games lost, -1 if the damaged bytes do not say; Samples the
	// number of their samples, -1 if unknown: the shards' count of samples ever added gives it
	// when the span is the only loss before the next shard, else the damaged records' own counts.
	Games   int
	Samples int64
}

func (d Damage) String() string {
	switch d.Kind {
	case DamagedHeader:
		return fmt.Sprintf("%s: one byte of its header (bytes 0 to %d) is damaged: read as the run's game's shard all the same, no game lost", d.Shard, d.Bytes-1)
	case MissingShard:
		return fmt.Sprintf("%s is missing (the shards before and after it are there): %s lost", d.Shard, d.lost())
	case MissingSamples:
		return fmt.Sprintf("%s: the run's state counts %d samples more than the shards hold (its newest shard removed or cut short): those games are lost", d.Shard, d.Samples)
	}
	return fmt.Sprintf("%s: bytes %d to %d (%d bytes) do not read as records (damaged): %s lost; the other records read", d.Shard, d.Offset, d.Offset+d.Bytes-1, d.Bytes, d.lost())
}

// lost says the games and samples lost.
func (d Damage) lost() string {
	games := "an unknown number of games"
	switch {
	case d.Games == 1:
		games = "1 game"
	case d.Games >= 0:
		games = fmt.Sprintf("%d games", d.Games)
	}
	if d.Samples < 0 {
		return games + " (samples unknown)"
	}
	return fmt.Sprintf("%s (%s)", games, nouns(d.Samples, "sample"))
}

func nouns(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Report is what Scan read in a replay folder.
type Report struct {
	Game   string  // the game the shards are of
	Shards int     // the shards read
	Games  []*Game // the games that read, oldest first
	Damage []Damage
	// Torn is a record cut short at the end of the newest shard (what a crash leaves, or a game
	// being written as the folder was read), left out, or nil: not damage, the run's resume cuts
	// it off.
	Torn  *Cut
	Total int64 // the count of samples ever added
}

// Lost says the games and samples the damage cost, "1 game (28 samples)", with "at least"
// before a count some part of the damage does not give.
func (r *Report) Lost() string {
	sum := Damage{}
	gamesUnknown, samplesUnknown := false, false
	for _, d := range r.Damage {
		if d.Kind == DamagedHeader {
			continue
		}
		gamesUnknown = gamesUnknown || d.Games < 0
		samplesUnknown = samplesUnknown || d.Samples < 0
		sum.Games += max(d.Games, 0)
		sum.Samples += max(d.Samples, 0)
	}
	games := nouns(int64(sum.Games), "game")
	switch {
	case gamesUnknown && sum.Games == 0:
		games = "an unknown number of games"
	case gamesUnknown:
		games = "at least " + games
	}
	samples := nouns(sum.Samples, "sample")
	switch {
	case samplesUnknown && sum.Samples == 0:
		samples = "samples unknown"
	case samplesUnknown:
		samples = "at least " + samples
	}
	return fmt.Sprintf("%s (%s)", games, samples)
}

// folder is what the shards of a replay folder hold, read whole.
type folder struct {
	dir    string
	game   string
	shards []shard
	// headerCut is the newest shard, if it holds only the start of a header (a crash as it was
	// begun): it holds no game, and is removed.
	headerCut string
	torn      *Cut     // the newest shard's torn tail, to cut off
	damage    []Damage // in the folder's order
	fills     []fill   // the missing shards, as Repair writes them again (empty)
	total     int64    // the count of samples ever added
	// held is the count the shards keep once damage is removed: less than total when the newest
	// shard's lost samples, or samples missing, count in total only.
	held int64
}

// fill is an empty shard written in the place of a missing one.
type fill struct {
	n      int
	before int64
}

// readFolder reads the shards of dir, of game ("" for the game most of their headers name),
// and accounts for their damage: synced is the count of samples ever added that the caller
// knows were made durable (a run's saved state), so that what holds fewer is known as lost, and
// a tail of the newest shard that looks torn is torn only if it is beyond it. With live, a
// shard removed between the listing and its reading is passed over (a run trims its window
// meanwhile). It changes nothing.
func readFolder(dir, game string, synced int64, live bool) (*folder, error) {
	ns, err := shardNumbers(dir)
	if err != nil {
		return nil, err
	}
	if game == "" {
		game = folderGame(dir, ns)
	}
	f := &folder{dir: dir, game: game}
	for i, n := range ns {
		path := shardPath(dir, n)
		data, err := os.ReadFile(path)
		if live && errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		sh, err := parseShard(path, data, game, i == len(ns)-1)
		if err != nil {
			return nil, err
		}
		if sh.headerCut {
			f.headerCut = path
			continue
		}
		sh.n, sh.path = n, path
		f.shards = append(f.shards, sh)
	}
	var total int64
	for i := range f.shards {
		sh := &f.shards[i]
		if i > 0 {
			// What the shard's header says was added before it, beyond what the shards before
			// it hold, was lost between them: to the damage of the shard before, or with the
			// shards missing after it. If one loss is there, that is its count.
			prev := &f.shards[i-1]
			var missing []Damage
			for m := prev.n + 1; m < sh.n; m++ {
				missing = append(missing, Damage{Kind: MissingShard, Shard: shardPath(dir, m), Games: -1, Samples: -1})
				f.fills = append(f.fills, fill{m, total})
			}
			losses := len(missing)
			at := -1
			for j, d := range prev.damage {
				if d.Kind == DamagedRecords {
					losses++
					at = j
				}
			}
			if lost := sh.before - total; losses == 1 && lost >= 0 {
				if at >= 0 {
					prev.damage[at].Samples = lost
				} else {
					missing[0].Samples = lost
				}
			}
			f.damage = append(f.damage, prev.damage...)
			f.damage = append(f.damage, missing...)
		}
		total = max(total, sh.before) + sh.samples
	}
	f.held = total
	if len(f.shards) > 0 {
		newest := &f.shards[len(f.shards)-1]
		// The newest shard's known losses count in the clock, as a later shard's header counts
		// an older shard's.
		for _, d := range newest.damage {
			if d.Kind == DamagedRecords && d.Samples > 0 {
				total += d.Samples
			}
		}
		if newest.torn >= 0 {
			if total >= synced {
				f.torn = &Cut{Shard: newest.path, Offset: int64(newest.torn), Bytes: int64(newest.size - newest.torn), Samples: newest.tornSamples}
			} else {
				// The tail held samples the caller had counted synced: a crash cannot have torn
				// it. It is damage, and the file is left as it is.
				newest.damage = append(newest.damage, Damage{Kind: DamagedRecords, Shard: newest.path, Offset: int64(newest.torn),
					Bytes: int64(newest.size - newest.torn), Games: newest.tornGames, Samples: synced - total})
				total = synced
			}
		}
		if total < synced {
			unknown := -1
			for j, d := range newest.damage {
				if d.Kind == DamagedRecords && d.Samples < 0 {
					if unknown >= 0 {
						unknown = -2
						break
					}
					unknown = j
				}
			}
			if unknown >= 0 {
				newest.damage[unknown].Samples = synced - total
				total = synced
			}
		}
		f.damage = append(f.damage, newest.damage...)
	}
	if total < synced {
		f.damage = append(f.damage, Damage{Kind: MissingSamples, Shard: dir, Games: -1, Samples: synced - total})
		total = synced
	}
	f.total = total
	return f, nil
}

// newestDamaged tells whether the newest shard is damaged, or the count of samples ever added
// is not all in the shards: the next game then starts a shard (whose header keeps the count).
func (f *folder) newestDamaged() bool {
	if f.total > f.held {
		return true
	}
	if len(f.shards) == 0 {
		return false
	}
	return len(f.shards[len(f.shards)-1].damage) > 0
}

func (f *folder) report() *Report {
	r := &Report{Game: f.game, Shards: len(f.shards), Damage: f.damage, Torn: f.torn, Total: f.total}
	for _, sh := range f.shards {
		r.Games = append(r.Games, sh.games...)
	}
	return r
}

// folderGame is the game most of the shards' headers name (the oldest's of those named as
// often), "" if none has one: a header one damaged byte changed names no game of the others'.
func folderGame(dir string, ns []int) string {
	votes := map[string]int{}
	best := ""
	for _, n := range ns {
		f, err := os.Open(shardPath(dir, n))
		if err != nil {
			continue
		}
		h := make([]byte, 7+255)
		k, _ := f.Read(h)
		f.Close()
		h = h[:k]
		if len(h) < 7 || string(h[:4]) != shardMagic || len(h) < 7+int(h[6]) || h[6] == 0 {
			continue
		}
		name := string(h[7 : 7+int(h[6])])
		votes[name]++
		if best == "" || votes[name] > votes[best] {
			best = name
		}
	}
	return best
}

// Scan reads the replay folder dir as Open reads it, and changes nothing (a run may be training
// in it): every game that reads, and every damaged span, header or missing shard, each with its
// bytes and the games and samples lost. game is the run's game ("" for the one most shards
// name); synced is the count of samples ever added the run's state has (0 if unknown), of which
// any the shards lack are reported lost. A shard removed while it is read (the window passed it)
// is left out. A shard of another game, of a format this build does not read, or a record whose
// checksum matches but that does not read as one (no damage does that) is an error.
func Scan(dir, game string, synced int64) (*Report, error) {
	f, err := readFolder(dir, game, synced, true)
	if err != nil {
		return nil, err
	}
	if f.game == "" {
		return nil, fmt.Errorf("%s: %w", dir, ErrNoShards)
	}
	return f.report(), nil
}

// ScanNewest is Scan for the newest n games only (fewer if the shards hold fewer), oldest
// first: it reads shards from the newest back until it has them. The damage reported is that of
// the shards read; no count of samples is checked.
func ScanNewest(dir string, n int) (*Report, error) {
	ns, err := shardNumbers(dir)
	if err != nil {
		return nil, err
	}
	r := &Report{Game: folderGame(dir, ns[max(len(ns)-3, 0):])}
	for i := len(ns) - 1; i >= 0 && len(r.Games) < n; i-- {
		sh, found, err := readShard(dir, ns[i], r.Game, i == len(ns)-1)
		if err != nil {
			return nil, err
		}
		if !found || sh.headerCut {
			continue
		}
		r.Shards++
		r.Games = append(sh.games, r.Games...)
		r.Damage = append(sh.damage, r.Damage...)
		if sh.torn >= 0 {
			r.Torn = &Cut{Shard: shardPath(dir, ns[i]), Offset: int64(sh.torn), Bytes: int64(sh.size - sh.torn), Samples: sh.tornSamples}
		}
	}
	if r.Game == "" || r.Shards == 0 {
		return nil, fmt.Errorf("%s: %w", dir, ErrNoShards)
	}
	r.Games = r.Games[max(len(r.Games)-n, 0):]
	return r, nil
}

// Repair rewrites the damaged shards of the replay folder dir (of game, with synced as Scan's)
// with their records that read, each through a temporary file renamed over it and synced, the
// damaged file kept beside it as NNNNNN.zrp.damaged (.damaged-2, … if one is there). It also
// does what Open would: cuts a torn tail off the newest shard and removes a shard whose header
// a crash cut short. A missing shard is written again empty, its header keeping the count of
// samples ever added; so is a new newest shard when the count is not all in the shards. After
// it, Scan finds no damage. It returns the report of the folder before, and what it did, a
// sentence each. The caller holds the folder: nothing may write to it meanwhile.
func Repair(dir, game string, synced int64) (*Report, []string, error) {
	f, err := readFolder(dir, game, synced, false)
	if err != nil {
		return nil, nil, err
	}
	if f.game == "" {
		return nil, nil, fmt.Errorf("%s: %w", dir, ErrNoShards)
	}
	var did []string
	if f.headerCut != "" {
		if err := os.Remove(f.headerCut); err != nil {
			return nil, did, err
		}
		did = append(did, fmt.Sprintf("%s: removed (only the start of a header: a crash as it was begun; no game in it)", f.headerCut))
	}
	for _, sh := range f.shards {
		if len(sh.damage) == 0 {
			if f.torn != nil && f.torn.Shard == sh.path {
				if err := os.Truncate(sh.path, f.torn.Offset); err != nil {
					return nil, did, fmt.Errorf("%s: cutting off a torn record: %w", sh.path, err)
				}
				did = append(did, "cut off a torn record: "+f.torn.String())
			}
			continue
		}
		data, err := os.ReadFile(sh.path)
		if err != nil {
			return nil, did, err
		}
		out := binary.LittleEndian.AppendUint64(shardHeader(f.game, sh.version), uint64(sh.before))
		for _, rec := range sh.records {
			out = append(out, data[rec[0]:rec[0]+rec[1]]...)
		}
		aside, err := asidePath(sh.path)
		if err != nil {
			return nil, did, err
		}
		if err := atomicfile.WriteBytes(aside, data); err != nil {
			return nil, did, err
		}
		if err := atomicfile.WriteBytes(sh.path, out); err != nil {
			return nil, did, err
		}
		torn := ""
		if f.torn != nil && f.torn.Shard == sh.path {
			torn = " (and without its torn last record)"
		}
		did = append(did, fmt.Sprintf("%s: written again with its %s that read%s (%d bytes, was %d); the damaged file is kept as %s",
			sh.path, nouns(int64(len(sh.records)), "record"), torn, len(out), len(data), filepath.Base(aside)))
	}
	for _, m := range f.fills {
		if err := writeEmptyShard(dir, f.game, m.n, m.before); err != nil {
			return nil, did, err
		}
		did = append(did, fmt.Sprintf("%s: written again empty, its games lost (its header counts the %d samples added before it)", shardPath(dir, m.n), m.before))
	}
	if f.total > f.held {
		n := 1
		if len(f.shards) > 0 {
			n = f.shards[len(f.shards)-1].n + 1
		}
		if err := writeEmptyShard(dir, f.game, n, f.total); err != nil {
			return nil, did, err
		}
		did = append(did, fmt.Sprintf("%s: written empty, to keep the count of samples ever added, %d, which counts the %d lost (the run's next games go into it)",
			shardPath(dir, n), f.total, f.total-f.held))
	}
	return f.report(), did, nil
}

// writeEmptyShard writes shard n of dir as a header alone.
func writeEmptyShard(dir, game string, n int, before int64) error {
	return atomicfile.WriteBytes(shardPath(dir, n), binary.LittleEndian.AppendUint64(shardHeader(game, shardVersion), uint64(before)))
}

// asidePath is where a damaged shard is kept: PATH.damaged, or .damaged-2, … if taken.
func asidePath(path string) (string, error) {
	for i := 1; ; i++ {
		aside := path + ".damaged"
		if i > 1 {
			aside = fmt.Sprintf("%s-%d", aside, i)
		}
		_, err := os.Lstat(aside)
		if errors.Is(err, os.ErrNotExist) {
			return aside, nil
		}
		if err != nil {
			return "", err
		}
	}
}
