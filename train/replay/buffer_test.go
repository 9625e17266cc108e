package replay

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/yinsh"
)

// randomGame plays a random YINSH blitz game and gives every other decision with a choice a
// made-up policy target.
func randomGame(seed uint64) *Game {
	rng := rand.New(rand.NewPCG(seed, 1))
	w := env.NewWalker[yinsh.State](rng, yinsh.NumActions)
	s := yinsh.Blitz.New()
	g := &Game{Step: int64(seed)}
	for s.ToMove() != env.Terminal {
		legal := s.Legal(nil)
		if len(legal) > 1 && len(g.Actions)%2 == 0 {
			t := Target{Ply: len(g.Actions), Value: 0.25}
			if len(g.Actions)%6 == 0 {
				t.Value, t.Proven = 1, true
			}
			for i, a := range legal[:min(3, len(legal))] {
				t.Policy = append(t.Policy, PolicyEntry{a, []float32{0.5, 0.25, 0.25}[i]})
			}
			g.Targets = append(g.Targets, t)
		}
		a := w.Step(s)
		g.Actions = append(g.Actions, a)
		s = s.Play(a)
	}
	g.Result = s.Result()
	return g
}

// sameGame compares games, policy shares to their recorded precision (1/65535).
func sameGame(a, b *Game) bool {
	if !reflect.DeepEqual(a.Actions, b.Actions) || a.Result != b.Result || a.Step != b.Step || len(a.Targets) != len(b.Targets) {
		return false
	}
	for i, t := range a.Targets {
		u := b.Targets[i]
		if t.Ply != u.Ply || t.Value != u.Value || t.Proven != u.Proven || len(t.Policy) != len(u.Policy) {
			return false
		}
		for j, e := range t.Policy {
			if e.Action != u.Policy[j].Action || math.Abs(float64(e.Prob-u.Policy[j].Prob)) > 0.6/65535 {
				return false
			}
		}
	}
	return true
}

var small = Window{Min: 1000, Max: 1000, Exponent: 0.75, Growth: 0.4}

func TestRecordRoundTrip(t *testing.T) {
	for seed := range uint64(20) {
		g := randomGame(seed)
		rec, err := appendRecord(nil, g)
		if err != nil {
			t.Fatal(err)
		}
		back, n, err := readRecord(rec, shardVersion)
		if err != nil || n != len(rec) {
			t.Fatalf("read back: %v (%d of %d bytes)", err, n, len(rec))
		}
		if !sameGame(g, back) {
			t.Fatalf("game %d does not survive its record", seed)
		}
	}
}

func TestReopenKeepsEverything(t *testing.T) {
	dir := t.TempDir()
	b, err := Open(dir, "yinsh-blitz", small, 0)
	if err != nil {
		t.Fatal(err)
	}
	var want []*Game
	for seed := range uint64(10) {
		g := randomGame(seed)
		want = append(want, g)
		if err := b.Add(g); err != nil {
			t.Fatal(err)
		}
	}
	total := b.Total()
	// No Close: a killed process does not close its files.
	b2, err := Open(dir, "yinsh-blitz", small, 0)
	if err != nil {
		t.Fatal(err)
	}
	if b2.Total() != total || len(b2.games) != len(want) {
		t.Fatalf("reopened: %d samples in %d games, want %d in %d", b2.Total(), len(b2.games), total, len(want))
	}
	for i := range want {
		if !sameGame(b2.games[i], want[i]) {
			t.Fatalf("game %d differs after reopening", i)
		}
	}
}

func TestTornTailIsCutOff(t *testing.T) {
	dir := t.TempDir()
	b, _ := Open(dir, "yinsh-blitz", small, 0)
	for seed := range uint64(3) {
		b.Add(randomGame(seed))
	}
	b.Close()
	path := filepath.Join(dir, "000001.zrp")
	data, _ := os.ReadFile(path)
	last, _ := appendRecord(nil, randomGame(2))
	start := len(data) - len(last)
	samples := len(randomGame(2).Targets)
	// What a crash leaves at the end of the newest shard, and what Open must report of it.
	tails := []struct {
		name    string
		data    []byte
		samples int // of the game lost, -1: the part written does not say
	}{
		{"1 byte short", data[:len(data)-1], samples},
		{"7 bytes short", data[:len(data)-7], samples},
		{"50 bytes short", data[:len(data)-50], samples},
		{"only the length", data[:start+4], -1},
		{"whole, a page not written", append(bytes.Clone(data[:len(data)-20]), make([]byte, 20)...), samples},
		{"zeros for the whole record", append(bytes.Clone(data[:start]), make([]byte, len(last))...), -1},
	}
	for _, tail := range tails {
		os.WriteFile(path, tail.data, 0o644)
		b2, err := Open(dir, "yinsh-blitz", small, 0)
		if err != nil {
			t.Fatalf("%s: %v", tail.name, err)
		}
		if len(b2.games) != 2 {
			t.Fatalf("%s: %d games kept, want the 2 whole ones", tail.name, len(b2.games))
		}
		want := []Cut{{Shard: path, Offset: int64(start), Bytes: int64(len(tail.data) - start), Samples: tail.samples}}
		if !slices.Equal(b2.Cuts(), want) {
			t.Errorf("%s: Cuts() = %v, want %v", tail.name, b2.Cuts(), want)
		}
		// The file was cut back to its good part, and the buffer goes on from there.
		if err := b2.Add(randomGame(9)); err != nil {
			t.Fatal(err)
		}
		b2.Close()
		b3, err := Open(dir, "yinsh-blitz", small, 0)
		if err != nil || len(b3.games) != 3 {
			t.Fatalf("after adding past a cut: %d games, %v", len(b3.games), err)
		}
		os.RemoveAll(dir)
		os.MkdirAll(dir, 0o755)
	}
}

// TestDamageIsRefused: what no damage makes (a shard of another game, a stranger's file, a name
// shardPath does not write, a format this build does not read, a record whose checksum matches
// but that does not read) is refused; damage is not (TestDamageCostsItsRecords).
func TestDamageIsRefused(t *testing.T) {
	tests := []struct {
		name   string
		damage func(dir string)
		want   string
	}{
		{"another game's shard", func(dir string) {
			os.WriteFile(filepath.Join(dir, "000003.zrp"), shardHeader("yinsh", shardVersion), 0o644)
		}, `a replay of "yinsh", not "yinsh-blitz"`},
		{"a stranger's file", func(dir string) {
			os.WriteFile(filepath.Join(dir, "000003.zrp"), []byte("hello, world"), 0o644)
		}, `not a replay shard of "yinsh-blitz"`},
		{"a shard copied under a short name", func(dir string) {
			data, _ := os.ReadFile(filepath.Join(dir, "000001.zrp"))
			os.WriteFile(filepath.Join(dir, "1.zrp"), data, 0o644) // read as 000001.zrp a second time
		}, "1.zrp: not a replay shard name"},
		{"a shard under a long name", func(dir string) {
			os.Rename(filepath.Join(dir, "000001.zrp"), filepath.Join(dir, "0000001.zrp"))
		}, "0000001.zrp: not a replay shard name"},
		{"a newer format", func(dir string) {
			h := shardHeader("yinsh-blitz", 9)
			os.WriteFile(filepath.Join(dir, "000003.zrp"), h, 0o644)
		}, "replay format version 9"},
		{"a newer format, its records whole", func(dir string) {
			data, _ := os.ReadFile(filepath.Join(dir, "000001.zrp"))
			data[4] = shardVersion + 1 // one byte from this format's header: never taken for damage
			os.WriteFile(filepath.Join(dir, "000003.zrp"), data, 0o644)
		}, fmt.Sprintf("replay format version %d", shardVersion+1)},
		{"another game's name two bytes from this one's, its records whole", func(dir string) {
			data, _ := os.ReadFile(filepath.Join(dir, "000001.zrp"))
			copy(data[7:], "yinsh-blixx")
			os.WriteFile(filepath.Join(dir, "000003.zrp"), data, 0o644)
		}, `a replay of "yinsh-blixx", not "yinsh-blitz"`},
		{"an older format than read", func(dir string) {
			os.WriteFile(filepath.Join(dir, "000003.zrp"), shardHeader("yinsh-blitz", 1), 0o644)
		}, "replay format version 1, this build reads 2 to 4"},
		{"unknown flags in a target", func(dir string) {
			g := &Game{Actions: []env.Action{1, 2}, Targets: []Target{{Ply: 0, Value: 1, Proven: true, Policy: []PolicyEntry{{1, 1}}}}}
			rec, _ := appendRecord(nil, g)
			rec[4+1+8+2+4+2+2+4] |= 0x80 // the flags byte of the one target
			binary.LittleEndian.PutUint32(rec[len(rec)-4:], crc32.Checksum(rec[4:len(rec)-4], castagnoli))
			data := binary.LittleEndian.AppendUint64(shardHeader("yinsh-blitz", shardVersion), 100)
			os.WriteFile(filepath.Join(dir, "000003.zrp"), append(data, rec...), 0o644)
		}, "unknown flags 0x81"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for shard := range 2 { // two shards: Open gives each session a new one
				b, _ := Open(dir, "yinsh-blitz", small, 0)
				for seed := range uint64(3) {
					b.Add(randomGame(seed + uint64(10*shard)))
				}
				b.Close()
			}
			tt.damage(dir)
			_, err := Open(dir, "yinsh-blitz", small, 0)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Open: %v; want an error saying %q", err, tt.want)
			}
		})
	}
}

func TestWindow(t *testing.T) {
	w := Window{Min: 250000, Max: 22000000, Exponent: 0.75, Growth: 0.4}
	tests := []struct {
		total int64
		want  int
	}{{0, 250000}, {250000, 250000}, {2500000, 250000 + 616455}, {1e12, 22000000}}
	for _, tt := range tests {
		if got := w.Size(tt.total); got < tt.want-1 || got > tt.want+1 {
			t.Errorf("Size(%d) = %d, want %d", tt.total, got, tt.want)
		}
	}
	for _, bad := range []Window{{Min: 0, Max: 1, Exponent: 1}, {Min: 5, Max: 4, Exponent: 1}, {Min: 1, Max: 1, Exponent: 0}, {Min: 1, Max: 1, Exponent: 1, Growth: -1}} {
		if bad.Validate() == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

func TestWindowDropsOldGamesAndShards(t *testing.T) {
	dir := t.TempDir()
	w := Window{Min: 50, Max: 50, Exponent: 1, Growth: 0}
	total := int64(0)
	for session := range 3 {
		b, err := Open(dir, "yinsh-blitz", w, 0)
		if err != nil {
			t.Fatal(err)
		}
		// The count of samples ever added survives the deletion of the shards that held them.
		if b.Total() != total {
			t.Fatalf("session %d opens with %d samples ever added, want %d", session, b.Total(), total)
		}
		for seed := range uint64(10) {
			g := randomGame(seed + uint64(100*session))
			b.Add(g)
			total += int64(len(g.Targets))
		}
		if b.Len() != 50 || b.Total() != total {
			t.Fatalf("window holds %d samples of %d, want 50 of %d", b.Len(), b.Total(), total)
		}
		b.Close()
	}
	shards, _ := filepath.Glob(filepath.Join(dir, "*.zrp"))
	if len(shards) != 1 {
		t.Fatalf("%d shards left; the window needs only the newest", len(shards))
	}
}

func TestDrawAndMaterialize(t *testing.T) {
	b, _ := Open(t.TempDir(), "yinsh-blitz", small, 0)
	g := randomGame(3)
	b.Add(g)
	rng := rand.New(rand.NewPCG(1, 2))
	samples := b.Draw(rng, 200, nil)
	seen := map[int]bool{}
	for _, s := range samples {
		seen[s.Target] = true
	}
	if len(seen) < len(g.Targets)/2 {
		t.Fatalf("200 draws saw %d of %d samples", len(seen), len(g.Targets))
	}
	info := yinsh.Blitz.Info()
	obs := make([]float32, info.Observation.Size())
	want := make([]float32, info.Observation.Size())
	policy := make([]float32, info.NumActions)
	for _, s := range samples[:20] {
		sym := rng.IntN(info.Symmetries)
		v, err := Materialize[yinsh.State](yinsh.Blitz, s, sym, obs, policy)
		if err != nil {
			t.Fatal(err)
		}
		tg := g.Targets[s.Target]
		state, _, _ := env.ReplayFrom(yinsh.Blitz.New(), "")
		for _, a := range g.Actions[:tg.Ply] {
			state = state.Play(a)
		}
		state.Symmetry(sym).Observe(want)
		if !reflect.DeepEqual(obs, want) {
			t.Fatalf("sample at ply %d: the observation is not the turned state's", tg.Ply)
		}
		if v != g.Result.Value(state.ToMove()) {
			t.Fatalf("value %v, want the result from the decider's side", v)
		}
		for _, e := range tg.Policy {
			if policy[yinsh.Blitz.MapAction(sym, e.Action)] != e.Prob {
				t.Fatalf("policy of %d not moved to its image under symmetry %d", e.Action, sym)
			}
		}
	}
}

// TestGamesSince counts the newest games recorded after a reading of the clock, across a reopen.
func TestGamesSince(t *testing.T) {
	dir := t.TempDir()
	b, err := Open(dir, "yinsh-blitz", small, 0)
	if err != nil {
		t.Fatal(err)
	}
	clock := []int64{0} // clock[i]: Total after i games
	for i := range 5 {
		if err := b.Add(randomGame(uint64(i + 1))); err != nil {
			t.Fatal(err)
		}
		clock = append(clock, b.Total())
	}
	b.Close()
	if b, err = Open(dir, "yinsh-blitz", small, 0); err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, c := range []struct {
		total int64
		want  int
	}{
		{clock[5], 0},
		{clock[5] + 10, 0},
		{clock[4], 1},
		{clock[4] - 1, 2}, // a reading in the middle of a game's samples counts it
		{clock[2], 3},
		{clock[0], 5},
	} {
		if got := b.GamesSince(c.total); got != c.want {
			t.Errorf("GamesSince(%d) = %d, want %d (clock %v)", c.total, got, c.want, clock)
		}
	}
}

// fullDisk is a shard whose writes fail, as on a full disk, after room more bytes: the write
// that crosses it writes what fits and fails; its truncation fails too when truncFails.
type fullDisk struct {
	*os.File
	room       int
	truncFails bool
}

func (f *fullDisk) Write(p []byte) (int, error) {
	if len(p) <= f.room {
		f.room -= len(p)
		return f.File.Write(p)
	}
	n, _ := f.File.Write(p[:f.room])
	f.room = 0
	return n, errors.New("no space left on device")
}

func (f *fullDisk) Truncate(size int64) error {
	if f.truncFails {
		return errors.New("input/output error")
	}
	return f.File.Truncate(size)
}

// flakySync is a shard whose next sync fails, as after a write-back error, and whose syncs
// after it succeed, as Linux's may with the pages lost.
type flakySync struct {
	*os.File
	fail bool
}

func (f *flakySync) Sync() error {
	if f.fail {
		f.fail = false
		return errors.New("input/output error")
	}
	return f.File.Sync()
}

// TestFailedSyncIsFinal: once a sync failed, every later Sync (and Add, and Close) fails too,
// though the disk's next sync would succeed: the games added before it are never told durable
// (a consumer acknowledges its games only after a Sync that succeeds).
func TestFailedSyncIsFinal(t *testing.T) {
	var disk *flakySync
	openShard = func(path string) (shardFile, error) {
		f, err := defaultOpenShard(path)
		if err != nil {
			return nil, err
		}
		disk = &flakySync{File: f.(*os.File)}
		return disk, nil
	}
	defer func() { openShard = defaultOpenShard }()
	b, err := Open(t.TempDir(), "yinsh-blitz", small, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Add(randomGame(1)); err != nil {
		t.Fatal(err)
	}
	if err := b.Sync(); err != nil {
		t.Fatal(err)
	}
	b.Add(randomGame(2))
	disk.fail = true
	for i, op := range []func() error{b.Sync, b.Sync, func() error { return b.Add(randomGame(3)) }, b.Close} {
		if err := op(); err == nil || !strings.Contains(err.Error(), "input/output error") {
			t.Errorf("operation %d after a failed sync: err = %v, want the sync's error", i, err)
		}
	}
}

// TestFailedWrite: a game whose write fails part-way is cut off the shard, so the games written
// after it are read back; if it cannot be cut off, the buffer takes no more games, and a reopen
// keeps the games before it.
func TestFailedWrite(t *testing.T) {
	for _, truncFails := range []bool{false, true} {
		t.Run(fmt.Sprintf("truncation fails %v", truncFails), func(t *testing.T) {
			dir := t.TempDir()
			var disk *fullDisk
			openShard = func(path string) (shardFile, error) {
				f, err := defaultOpenShard(path)
				if err != nil {
					return nil, err
				}
				disk = &fullDisk{File: f.(*os.File), room: 1 << 30, truncFails: truncFails}
				return disk, nil
			}
			defer func() { openShard = defaultOpenShard }()
			b, err := Open(dir, "yinsh-blitz", small, 0)
			if err != nil {
				t.Fatal(err)
			}
			var want []*Game
			for seed := range uint64(3) {
				g := randomGame(seed)
				if err := b.Add(g); err != nil {
					t.Fatal(err)
				}
				want = append(want, g)
			}
			total := b.Total()
			disk.room = 20 // the next record is cut after 20 bytes
			err = b.Add(randomGame(3))
			if err == nil || !strings.Contains(err.Error(), "no space left on device") {
				t.Fatalf("a failed write: err = %v", err)
			}
			if b.Total() != total || len(b.games) != len(want) {
				t.Fatalf("after a failed write: %d samples in %d games, want %d in %d", b.Total(), len(b.games), total, len(want))
			}
			disk.room = 1 << 30 // room again
			g := randomGame(4)
			err = b.Add(g)
			switch {
			case truncFails && (err == nil || !strings.Contains(err.Error(), "damaged after a failed write")):
				t.Fatalf("adding after a write that could not be cut off: err = %v", err)
			case !truncFails && err != nil:
				t.Fatalf("adding after a failed write that was cut off: %v", err)
			case !truncFails:
				want = append(want, g)
			}
			b.Close()
			b2, err := Open(dir, "yinsh-blitz", small, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer b2.Close()
			if len(b2.games) != len(want) {
				t.Fatalf("reopened: %d games, want %d", len(b2.games), len(want))
			}
			for i := range want {
				if !sameGame(b2.games[i], want[i]) {
					t.Fatalf("game %d differs after reopening", i)
				}
			}
		})
	}
}

// TestOlderShards: a shard of version 2 (no target flags) is read as nothing proven, and the
// next game goes to a new shard of the present version, never appended to the old one.
func TestOlderShards(t *testing.T) {
	dir := t.TempDir()
	// A version 2 record of a two-decision game with one target, laid out by hand.
	payload := []byte{byte(env.Win0)}
	payload = binary.LittleEndian.AppendUint64(payload, 7)
	payload = binary.LittleEndian.AppendUint16(payload, 2)
	payload = binary.LittleEndian.AppendUint16(payload, 40)
	payload = binary.LittleEndian.AppendUint16(payload, 41)
	payload = binary.LittleEndian.AppendUint16(payload, 1)
	payload = binary.LittleEndian.AppendUint16(payload, 0)
	payload = binary.LittleEndian.AppendUint32(payload, math.Float32bits(0.5))
	payload = binary.LittleEndian.AppendUint16(payload, 1)
	payload = binary.LittleEndian.AppendUint16(payload, 40)
	payload = binary.LittleEndian.AppendUint16(payload, 65535)
	rec := binary.LittleEndian.AppendUint32(nil, uint32(len(payload)))
	rec = append(rec, payload...)
	rec = binary.LittleEndian.AppendUint32(rec, crc32.Checksum(payload, castagnoli))
	old := append(binary.LittleEndian.AppendUint64(shardHeader("yinsh-blitz", 2), 0), rec...)
	if err := os.WriteFile(filepath.Join(dir, "000001.zrp"), old, 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := Open(dir, "yinsh-blitz", small, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := &Game{Actions: []env.Action{40, 41}, Result: env.Win0, Step: 7,
		Targets: []Target{{Ply: 0, Value: 0.5, Policy: []PolicyEntry{{40, 1}}}}}
	if b.Len() != 1 || !sameGame(b.games[0], want) {
		t.Fatalf("the version 2 shard reads as %d samples, %+v", b.Len(), b.games)
	}
	g := randomGame(3)
	if err := b.Add(g); err != nil {
		t.Fatal(err)
	}
	b.Close()
	if data, _ := os.ReadFile(filepath.Join(dir, "000001.zrp")); !bytes.Equal(data, old) {
		t.Errorf("the version 2 shard was written to")
	}
	b, err = Open(dir, "yinsh-blitz", small, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if len(b.games) != 2 || !sameGame(b.games[0], want) || !sameGame(b.games[1], g) {
		t.Errorf("after a reopen: %d games", len(b.games))
	}
}

// TestGameIDs: a game's ID survives its record and a reopen, the buffer knows the IDs of the
// games in its window and, through RetiredFile, those the window passed, after their shards
// are removed and across reopens; a message's payload decodes only whole.
func TestGameIDs(t *testing.T) {
	dir := t.TempDir()
	b, err := Open(dir, "yinsh-blitz", Window{Min: 40, Max: 40, Exponent: 1, Growth: 0}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for seed := range uint64(12) {
		g := randomGame(seed)
		g.ID = fmt.Sprintf("host-1/5f3a/%d", seed)
		ids = append(ids, g.ID)
		if err := b.Add(g); err != nil {
			t.Fatal(err)
		}
	}
	if !b.Has(ids[11]) || !b.Has(ids[0]) || b.Has("host-1/5f3a/99") || b.Has("host-1/5f3b/0") {
		t.Errorf("Has: newest %v, oldest (past the window) %v, never added %v %v", b.Has(ids[11]), b.Has(ids[0]), b.Has("host-1/5f3a/99"), b.Has("host-1/5f3b/0"))
	}
	if b.retired.has(ids[11]) || !b.retired.has(ids[0]) {
		t.Errorf("retired: the newest %v (in the window), the oldest %v", b.retired.has(ids[11]), b.retired.has(ids[0]))
	}
	b.Close()
	b2, err := Open(dir, "yinsh-blitz", Window{Min: 40, Max: 40, Exponent: 1, Growth: 0}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !b2.Has(ids[11]) || b2.games[len(b2.games)-1].ID != ids[11] {
		t.Errorf("after a reopen the newest game is %q, want %q", b2.games[len(b2.games)-1].ID, ids[11])
	}
	// A second session's games (in a shard of their own) push the first session's out of the
	// window: its shard is removed, its ids are remembered in RetiredFile.
	odd := []string{"odd id", "host-2/5f3a/007", "7"}
	for seed := range uint64(12) {
		g := randomGame(seed + 100)
		g.ID = fmt.Sprintf("host-1/77aa/%d", seed)
		if seed < uint64(len(odd)) {
			g.ID = odd[seed]
		}
		if err := b2.Add(g); err != nil {
			t.Fatal(err)
		}
	}
	b2.Close()
	if _, err := os.Stat(filepath.Join(dir, "000001.zrp")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the first session's shard, past the window: %v", err)
	}
	// Appended before the shard's removal, the ids of its 12 games folded into one line.
	if data, err := os.ReadFile(filepath.Join(dir, RetiredFile)); err != nil || string(data) != "R \"host-1/5f3a\" 0 11\n" {
		t.Errorf("%s: %q, %v", RetiredFile, data, err)
	}
	b3, err := Open(dir, "yinsh-blitz", Window{Min: 40, Max: 40, Exponent: 1, Growth: 0}, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer b3.Close()
	for _, id := range append(slices.Clone(ids), append(odd, "host-1/77aa/5", "host-1/77aa/11")...) {
		if !b3.Has(id) {
			t.Errorf("after its shard's removal and a reopen, game %q is unknown", id)
		}
	}
	for _, id := range []string{"host-1/5f3a/12", "host-1/77aa/12", "host-2/5f3a/7", "odd", "host-1/5f3a/", "", "07"} {
		if b3.Has(id) {
			t.Errorf("game %q, never added, is known", id)
		}
	}
	g := randomGame(3)
	g.ID = ids[3]
	rec, err := AppendGame(nil, g)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeGame(rec)
	if err != nil || back.ID != g.ID || !sameGame(back, g) {
		t.Fatalf("DecodeGame: %v, id %q", err, back.ID)
	}
	if _, err := DecodeGame(rec[:len(rec)-1]); err == nil {
		t.Error("a record cut short decodes")
	}
	if _, err := DecodeGame(append(rec, 0)); err == nil {
		t.Error("a record with a byte after it decodes")
	}
	g.ID = strings.Repeat("x", MaxID+1)
	if _, err := AppendGame(nil, g); err == nil {
		t.Error("an id longer than MaxID is recorded")
	}
}

// TestVersion3Shard: a shard of format 3 (no game ids) is read, and not appended to.
func TestVersion3Shard(t *testing.T) {
	dir := t.TempDir()
	g := randomGame(4)
	rec, _ := appendRecord(nil, g)
	// Format 3's record is format 4's without the id's length byte (an empty id).
	n := binary.LittleEndian.Uint32(rec)
	payload := rec[4 : 4+n-1]
	old := binary.LittleEndian.AppendUint32(nil, uint32(len(payload)))
	old = append(old, payload...)
	old = binary.LittleEndian.AppendUint32(old, crc32.Checksum(payload, castagnoli))
	shard := append(binary.LittleEndian.AppendUint64(shardHeader("yinsh-blitz", 3), 0), old...)
	os.WriteFile(filepath.Join(dir, "000001.zrp"), shard, 0o644)
	b, err := Open(dir, "yinsh-blitz", small, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.games) != 1 || !sameGame(b.games[0], g) {
		t.Fatalf("the version 3 shard reads as %d games", len(b.games))
	}
	b.Add(randomGame(5))
	b.Close()
	if data, _ := os.ReadFile(filepath.Join(dir, "000001.zrp")); !bytes.Equal(data, shard) {
		t.Errorf("the version 3 shard was written to")
	}
}

// TestReadGames reads a run's shards as `zero replay dump` does: every game, oldest first,
// the game's name from the headers, and the files left exactly as they were (a run may be
// training in the folder), a torn tail included.
func TestReadGames(t *testing.T) {
	dir := t.TempDir()
	b, err := Open(dir, "yinsh-blitz", small, 0)
	if err != nil {
		t.Fatal(err)
	}
	var want []*Game
	for seed := range uint64(5) {
		g := randomGame(seed)
		want = append(want, g)
		if err := b.Add(g); err != nil {
			t.Fatal(err)
		}
		if seed == 2 { // a second session: a second shard
			b.Close()
			if b, err = Open(dir, "yinsh-blitz", small, 0); err != nil {
				t.Fatal(err)
			}
		}
	}
	b.Close()
	newest := filepath.Join(dir, "000002.zrp")
	whole, err := os.ReadFile(newest)
	if err != nil {
		t.Fatal(err)
	}
	header := shardHeader("yinsh-blitz", shardVersion)
	tests := []struct {
		name   string
		newest []byte // the newest shard's content
		games  int    // games read
		err    string
	}{
		{"whole", whole, 5, ""},
		{"a torn tail", whole[:len(whole)-9], 4, ""},
		{"a header cut short", header[:5], 3, ""},
		{"the newest shard begun", whole[:len(header)+8], 3, ""},
		{"another game's", append(shardHeader("gyges", shardVersion), make([]byte, 8)...), 0, `000002.zrp: a replay of "gyges", not "yinsh-blitz"`},
		{"not a shard", []byte("hello, world"), 0, "000002.zrp: not a replay shard of \"yinsh-blitz\""},
	}
	for _, tt := range tests {
		if err := os.WriteFile(newest, tt.newest, 0o644); err != nil {
			t.Fatal(err)
		}
		game, games, err := ReadGames(dir)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: err = %v, want %q", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil || game != "yinsh-blitz" || len(games) != tt.games {
			t.Errorf("%s: %q, %d games, %v; want yinsh-blitz, %d games", tt.name, game, len(games), err, tt.games)
			continue
		}
		for i, g := range games {
			if !sameGame(g, want[i]) {
				t.Errorf("%s: game %d differs from the one added", tt.name, i)
			}
		}
		// The newest n, from the newest shards only: the same games as ReadGames's last n.
		for _, n := range []int{1, 2, 4, 100} {
			game, newest, err := ReadNewest(dir, n)
			if err != nil || game != "yinsh-blitz" || len(newest) != min(n, tt.games) {
				t.Errorf("%s: ReadNewest %d: %q, %d games, %v", tt.name, n, game, len(newest), err)
				continue
			}
			for i, g := range newest {
				if !sameGame(g, games[len(games)-len(newest)+i]) {
					t.Errorf("%s: ReadNewest %d: game %d differs", tt.name, n, i)
				}
			}
		}
		if data, _ := os.ReadFile(newest); !bytes.Equal(data, tt.newest) {
			t.Errorf("%s: reading changed the newest shard", tt.name)
		}
	}
	if _, _, err := ReadNewest(t.TempDir(), 3); err == nil || !strings.Contains(err.Error(), "no replay shards") {
		t.Errorf("ReadNewest, an empty folder: err = %v", err)
	}
	if _, _, err := ReadGames(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no replay shards") {
		t.Errorf("an empty folder: err = %v", err)
	}
	if _, _, err := ReadGames(filepath.Join(dir, "nothing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing folder: err = %v", err)
	}
}
