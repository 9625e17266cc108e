package replay

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// damageFolder is a replay folder of three sessions, a shard each, of four games each, with
// where each record is: the folder a run leaves, every sample synced.
type damageFolder struct {
	dir     string
	games   []*Game  // oldest first
	offsets [][]int  // offsets[s][j]: where game j of shard s+1 starts
	sizes   [][]int  // and its record's size
	samples []int64  // samples[s]: shard s+1's
	total   int64    // samples ever added
	files   [][]byte // each shard's content
}

func newDamageFolder(t *testing.T) *damageFolder {
	t.Helper()
	f := &damageFolder{dir: t.TempDir()}
	header := len(shardHeader("yinsh-blitz", shardVersion)) + 8
	for s := range 3 {
		b, err := Open(f.dir, "yinsh-blitz", small, f.total)
		if err != nil {
			t.Fatal(err)
		}
		off := header
		f.offsets, f.sizes, f.samples = append(f.offsets, nil), append(f.sizes, nil), append(f.samples, 0)
		for j := range 4 {
			g := randomGame(uint64(10*s + j))
			if err := b.Add(g); err != nil {
				t.Fatal(err)
			}
			rec, _ := appendRecord(nil, g)
			f.games = append(f.games, g)
			f.offsets[s] = append(f.offsets[s], off)
			f.sizes[s] = append(f.sizes[s], len(rec))
			f.samples[s] += int64(len(g.Targets))
			off += len(rec)
		}
		f.total = b.Total()
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(f.shard(s + 1))
		if err != nil || len(data) != off {
			t.Fatalf("shard %d: %d bytes, want %d (%v)", s+1, len(data), off, err)
		}
		f.files = append(f.files, data)
	}
	return f
}

func (f *damageFolder) shard(n int) string { return shardPath(f.dir, n) }

// gameSamples is the samples of game j of shard s (1-based).
func (f *damageFolder) gameSamples(s, j int) int64 { return int64(len(f.games[4*(s-1)+j].Targets)) }

// write replaces shard s's content.
func (f *damageFolder) write(t *testing.T, s int, data []byte) {
	t.Helper()
	if err := os.WriteFile(f.shard(s), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// flip changes one byte of shard s.
func (f *damageFolder) flip(t *testing.T, s, at int) {
	data := bytes.Clone(f.files[s-1])
	data[at] ^= 0xff
	f.write(t, s, data)
}

// contents reads every file of the folder.
func contents(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		m[e.Name()] = string(data)
	}
	return m
}

// sameGames compares a list of games with the folder's games numbered keep.
func sameGames(got []*Game, want []*Game) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d games, want %d", len(got), len(want))
	}
	for i := range want {
		if !sameGame(got[i], want[i]) {
			return fmt.Errorf("game %d is not the one recorded", i)
		}
	}
	return nil
}

// TestDamageCostsItsRecords damages a run's replay folder as a disk can (a flipped byte in a
// record's payload, in its length, in a shard's header; a shard cut short in the middle of a
// record; a page of zeros over records; a shard removed) and checks that the run goes on past
// it: Open keeps every other record (the games, exactly), reports the damage with its file,
// bytes, games and samples, keeps the count of samples ever added, and changes nothing; Scan
// reports the same; Repair rewrites the damaged shards with the records that read (the damaged
// file kept aside), after which Scan and Open find nothing; and games added after an Open that
// found damage go to a new shard, the damaged one left as it was.
func TestDamageCostsItsRecords(t *testing.T) {
	type want struct {
		lost   []int // the games lost, numbered as added
		damage []Damage
		aside  []int // the shards Repair rewrites, the damaged file kept aside
	}
	header := len(shardHeader("yinsh-blitz", shardVersion))
	tests := []struct {
		name   string
		damage func(t *testing.T, f *damageFolder)
		want   func(f *damageFolder) want
	}{
		{"a byte in a payload, in an older shard", func(t *testing.T, f *damageFolder) {
			f.flip(t, 2, f.offsets[1][1]+4+20) // an action's byte
		}, func(f *damageFolder) want {
			return want{[]int{5}, []Damage{{Kind: DamagedRecords, Shard: f.shard(2), Offset: int64(f.offsets[1][1]), Bytes: int64(f.sizes[1][1]), Games: 1, Samples: f.gameSamples(2, 1)}}, []int{2}}
		}},
		{"a byte in a length field", func(t *testing.T, f *damageFolder) {
			f.flip(t, 2, f.offsets[1][1]+1)
		}, func(f *damageFolder) want {
			return want{[]int{5}, []Damage{{Kind: DamagedRecords, Shard: f.shard(2), Offset: int64(f.offsets[1][1]), Bytes: int64(f.sizes[1][1]), Games: 1, Samples: f.gameSamples(2, 1)}}, []int{2}}
		}},
		{"a byte in a length field, the length past the shard's end", func(t *testing.T, f *damageFolder) {
			f.flip(t, 2, f.offsets[1][2]+3)
		}, func(f *damageFolder) want {
			return want{[]int{6}, []Damage{{Kind: DamagedRecords, Shard: f.shard(2), Offset: int64(f.offsets[1][2]), Bytes: int64(f.sizes[1][2]), Games: 1, Samples: f.gameSamples(2, 2)}}, []int{2}}
		}},
		{"a byte in a checksum", func(t *testing.T, f *damageFolder) {
			f.flip(t, 2, f.offsets[1][1]+f.sizes[1][1]-2)
		}, func(f *damageFolder) want {
			return want{[]int{5}, []Damage{{Kind: DamagedRecords, Shard: f.shard(2), Offset: int64(f.offsets[1][1]), Bytes: int64(f.sizes[1][1]), Games: 1, Samples: f.gameSamples(2, 1)}}, []int{2}}
		}},
		{"a byte in a payload, in the newest shard", func(t *testing.T, f *damageFolder) {
			f.flip(t, 3, f.offsets[2][1]+4+20)
		}, func(f *damageFolder) want {
			return want{[]int{9}, []Damage{{Kind: DamagedRecords, Shard: f.shard(3), Offset: int64(f.offsets[2][1]), Bytes: int64(f.sizes[2][1]), Games: 1, Samples: f.gameSamples(3, 1)}}, []int{3}}
		}},
		{"a byte in a header's name", func(t *testing.T, f *damageFolder) {
			f.flip(t, 2, 9)
		}, func(f *damageFolder) want {
			return want{nil, []Damage{{Kind: DamagedHeader, Shard: f.shard(2), Bytes: int64(header)}}, []int{2}}
		}},
		{"a byte in a header's magic", func(t *testing.T, f *damageFolder) {
			f.flip(t, 3, 0)
		}, func(f *damageFolder) want {
			return want{nil, []Damage{{Kind: DamagedHeader, Shard: f.shard(3), Bytes: int64(header)}}, []int{3}}
		}},
		{"a byte in the header of an empty newest shard", func(t *testing.T, f *damageFolder) {
			// A session killed between beginning its shard and recording a game in it.
			empty := binary.LittleEndian.AppendUint64(shardHeader("yinsh-blitz", shardVersion), uint64(f.total))
			empty[1] ^= 0xff
			if err := os.WriteFile(f.shard(4), empty, 0o644); err != nil {
				t.Fatal(err)
			}
		}, func(f *damageFolder) want {
			// The next game is not appended to it.
			return want{nil, []Damage{{Kind: DamagedHeader, Shard: f.shard(4), Bytes: int64(header)}}, []int{4}}
		}},
		{"an older shard cut short in a record", func(t *testing.T, f *damageFolder) {
			f.write(t, 2, f.files[1][:f.offsets[1][2]+10])
		}, func(f *damageFolder) want {
			// The bytes say nothing of the games (the last is gone whole); the next shard's
			// header gives their samples.
			return want{[]int{6, 7}, []Damage{{Kind: DamagedRecords, Shard: f.shard(2), Offset: int64(f.offsets[1][2]), Bytes: 10, Games: -1, Samples: f.gameSamples(2, 2) + f.gameSamples(2, 3)}}, []int{2}}
		}},
		{"the newest shard cut short in a record, its samples synced", func(t *testing.T, f *damageFolder) {
			f.write(t, 3, f.files[2][:f.offsets[2][2]+10])
		}, func(f *damageFolder) want {
			// Not torn: the state counted those samples; the file is left as it is.
			return want{[]int{10, 11}, []Damage{{Kind: DamagedRecords, Shard: f.shard(3), Offset: int64(f.offsets[2][2]), Bytes: 10, Games: -1, Samples: f.gameSamples(3, 2) + f.gameSamples(3, 3)}}, []int{3}}
		}},
		{"zeros over every record of the newest shard", func(t *testing.T, f *damageFolder) {
			data := bytes.Clone(f.files[2])
			clear(data[f.offsets[2][0]:])
			f.write(t, 3, data)
		}, func(f *damageFolder) want {
			// No game of it left: the next game must not be appended after the zeros.
			return want{[]int{8, 9, 10, 11}, []Damage{{Kind: DamagedRecords, Shard: f.shard(3), Offset: int64(f.offsets[2][0]), Bytes: int64(len(f.files[2]) - f.offsets[2][0]), Games: -1, Samples: f.samples[2]}}, []int{3}}
		}},
		{"the shards after an empty one removed", func(t *testing.T, f *damageFolder) {
			f.write(t, 2, f.files[1][:f.offsets[1][0]])
			os.Remove(f.shard(3))
		}, func(f *damageFolder) want {
			// Its header counts fewer samples than the state: the next game starts a shard
			// whose header counts them all.
			return want{[]int{4, 5, 6, 7, 8, 9, 10, 11}, []Damage{{Kind: MissingSamples, Shard: f.dir, Games: -1, Samples: f.samples[1] + f.samples[2]}}, nil}
		}},
		{"a page of zeros over three records", func(t *testing.T, f *damageFolder) {
			data := bytes.Clone(f.files[0])
			clear(data[f.offsets[0][0]+30 : f.offsets[0][2]+30])
			f.write(t, 1, data)
		}, func(f *damageFolder) want {
			return want{[]int{0, 1, 2}, []Damage{{Kind: DamagedRecords, Shard: f.shard(1), Offset: int64(f.offsets[0][0]), Bytes: int64(f.offsets[0][3] - f.offsets[0][0]), Games: -1,
				Samples: f.gameSamples(1, 0) + f.gameSamples(1, 1) + f.gameSamples(1, 2)}}, []int{1}}
		}},
		{"an older shard removed", func(t *testing.T, f *damageFolder) {
			os.Remove(f.shard(2))
		}, func(f *damageFolder) want {
			return want{[]int{4, 5, 6, 7}, []Damage{{Kind: MissingShard, Shard: f.shard(2), Games: -1, Samples: f.samples[1]}}, nil}
		}},
		{"the newest shard removed", func(t *testing.T, f *damageFolder) {
			os.Remove(f.shard(3))
		}, func(f *damageFolder) want {
			return want{[]int{8, 9, 10, 11}, []Damage{{Kind: MissingSamples, Shard: f.dir, Games: -1, Samples: f.samples[2]}}, nil}
		}},
		{"every shard removed", func(t *testing.T, f *damageFolder) {
			for s := range 3 {
				os.Remove(f.shard(s + 1))
			}
		}, func(f *damageFolder) want {
			return want{[]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, []Damage{{Kind: MissingSamples, Shard: f.dir, Games: -1, Samples: f.total}}, nil}
		}},
		{"two spans in two shards", func(t *testing.T, f *damageFolder) {
			f.flip(t, 1, f.offsets[0][3]+4+30)
			f.flip(t, 2, f.offsets[1][0]+4+12)
		}, func(f *damageFolder) want {
			return want{[]int{3, 4}, []Damage{
				{Kind: DamagedRecords, Shard: f.shard(1), Offset: int64(f.offsets[0][3]), Bytes: int64(f.sizes[0][3]), Games: 1, Samples: f.gameSamples(1, 3)},
				{Kind: DamagedRecords, Shard: f.shard(2), Offset: int64(f.offsets[1][0]), Bytes: int64(f.sizes[1][0]), Games: 1, Samples: f.gameSamples(2, 0)},
			}, []int{1, 2}}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newDamageFolder(t)
			w := tt.want(f)
			var kept []*Game
			for i, g := range f.games {
				if !slices.Contains(w.lost, i) {
					kept = append(kept, g)
				}
			}
			tt.damage(t, f)
			before := contents(t, f.dir)

			// A resume opens it, keeping every other game, the count of samples, and the files.
			b, err := Open(f.dir, "yinsh-blitz", small, f.total)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			if err := sameGames(b.games, kept); err != nil {
				t.Errorf("Open: %v", err)
			}
			if !slices.Equal(b.Damage(), w.damage) {
				t.Errorf("Open's damage:\n%v\nwant\n%v", b.Damage(), w.damage)
			}
			if b.Total() != f.total || len(b.Cuts()) != 0 {
				t.Errorf("Open: %d samples ever added, want %d; cuts %v", b.Total(), f.total, b.Cuts())
			}
			b.Close()
			if after := contents(t, f.dir); !maps.Equal(after, before) {
				t.Errorf("Open changed the folder")
			}
			for _, d := range w.damage {
				if s := d.String(); !strings.Contains(s, d.Shard) || d.Kind == DamagedRecords && !strings.Contains(s, fmt.Sprintf("bytes %d to %d", d.Offset, d.Offset+d.Bytes-1)) {
					t.Errorf("%q does not name the file and its bytes", s)
				}
			}

			// Scan reports the same.
			r, err := Scan(f.dir, "yinsh-blitz", f.total)
			if err != nil {
				t.Fatalf("Scan: %v", err)
			}
			if err := sameGames(r.Games, kept); err != nil || !slices.Equal(r.Damage, w.damage) || r.Total != f.total {
				t.Errorf("Scan: %v; damage %v; %d samples", err, r.Damage, r.Total)
			}

			// Repair, and nothing is left to find.
			r, did, err := Repair(f.dir, "yinsh-blitz", f.total)
			if err != nil || !slices.Equal(r.Damage, w.damage) || len(did) == 0 {
				t.Fatalf("Repair: %v, damage %v, did %q", err, r.Damage, did)
			}
			for _, s := range w.aside {
				aside, err := os.ReadFile(f.shard(s) + ".damaged")
				if err != nil || string(aside) != before[filepath.Base(f.shard(s))] {
					t.Errorf("the damaged %s is not kept aside whole: %v", f.shard(s), err)
				}
			}
			r, err = Scan(f.dir, "yinsh-blitz", f.total)
			if err != nil || len(r.Damage) != 0 || r.Torn != nil || r.Total != f.total {
				t.Fatalf("Scan after Repair: %v, damage %v, torn %v, %d samples", err, r.Damage, r.Torn, r.Total)
			}
			if err := sameGames(r.Games, kept); err != nil {
				t.Errorf("Scan after Repair: %v", err)
			}
			if _, did, err := Repair(f.dir, "yinsh-blitz", f.total); err != nil || len(did) != 0 {
				t.Errorf("a second Repair: %v, did %q", err, did)
			}
			b, err = Open(f.dir, "yinsh-blitz", small, f.total)
			if err != nil || len(b.Damage()) != 0 || b.Total() != f.total {
				t.Fatalf("Open after Repair: %v, damage %v, %d samples", err, b.Damage(), b.Total())
			}
			if err := sameGames(b.games, kept); err != nil {
				t.Errorf("Open after Repair: %v", err)
			}
			g := randomGame(99)
			if err := b.Add(g); err != nil {
				t.Fatal(err)
			}
			b.Close()
			b, err = Open(f.dir, "yinsh-blitz", small, f.total+int64(len(g.Targets)))
			if err != nil || len(b.Damage()) != 0 || b.Total() != f.total+int64(len(g.Targets)) {
				t.Fatalf("reopened after Repair and a game: %v, damage %v, %d samples", err, b.Damage(), b.Total())
			}
			if err := sameGames(b.games, append(slices.Clone(kept), g)); err != nil {
				t.Errorf("reopened after Repair and a game: %v", err)
			}
			b.Close()
		})
	}

	// Without Repair: the games added after an Open that found damage go to a new shard, the
	// damaged files are left as they were, and the next Open finds the same damage (counted
	// again by the shards' headers), but the samples missing, which the new shard's header now
	// counts.
	for _, tt := range tests {
		t.Run(tt.name+", then a game", func(t *testing.T) {
			f := newDamageFolder(t)
			w := tt.want(f)
			tt.damage(t, f)
			before := contents(t, f.dir)
			b, err := Open(f.dir, "yinsh-blitz", small, f.total)
			if err != nil {
				t.Fatal(err)
			}
			kept := len(b.games)
			g := randomGame(99)
			if err := b.Add(g); err != nil {
				t.Fatal(err)
			}
			b.Close()
			after := contents(t, f.dir)
			for name, data := range before {
				if after[name] != data {
					t.Errorf("%s changed", name)
				}
			}
			added := int64(len(g.Targets))
			b, err = Open(f.dir, "yinsh-blitz", small, f.total+added)
			if err != nil || len(b.games) != kept+1 || !sameGame(b.games[kept], g) || b.Total() != f.total+added {
				t.Fatalf("reopened: %v, %d games (want %d), %d samples (want %d)", err, len(b.games), kept+1, b.Total(), f.total+added)
			}
			defer b.Close()
			again := slices.DeleteFunc(slices.Clone(w.damage), func(d Damage) bool { return d.Kind == MissingSamples })
			if !slices.Equal(b.Damage(), again) {
				t.Errorf("reopened, damage:\n%v\nwant\n%v", b.Damage(), again)
			}
		})
	}
}

// TestSyncedTail: a tail of the newest shard that reads as no record is cut off as torn only
// beyond what the caller counted synced; within it, it is damage, reported with the samples
// counted, and the file is left as it was.
func TestSyncedTail(t *testing.T) {
	f := newDamageFolder(t)
	last := f.offsets[2][3] // the newest game's record: its length damaged to run past the end
	data := bytes.Clone(f.files[2])
	binary.LittleEndian.PutUint32(data[last:], uint32(len(data)))
	tests := []struct {
		name   string
		synced int64
		cut    bool
	}{
		{"all synced", f.total, false},
		{"the last game not synced", f.total - f.gameSamples(3, 3), true},
	}
	for _, tt := range tests {
		f.write(t, 3, data)
		b, err := Open(f.dir, "yinsh-blitz", small, tt.synced)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if len(b.games) != 11 {
			t.Errorf("%s: %d games, want 11", tt.name, len(b.games))
		}
		size := int64(f.sizes[2][3])
		after, _ := os.ReadFile(f.shard(3))
		if tt.cut {
			want := []Cut{{Shard: f.shard(3), Offset: int64(last), Bytes: size, Samples: int(f.gameSamples(3, 3))}}
			if !slices.Equal(b.Cuts(), want) || len(b.Damage()) != 0 || len(after) != last || b.Total() != f.total-f.gameSamples(3, 3) {
				t.Errorf("%s: cuts %v, damage %v, %d bytes left, %d samples", tt.name, b.Cuts(), b.Damage(), len(after), b.Total())
			}
		} else {
			want := []Damage{{Kind: DamagedRecords, Shard: f.shard(3), Offset: int64(last), Bytes: size, Games: 1, Samples: f.gameSamples(3, 3)}}
			if !slices.Equal(b.Damage(), want) || len(b.Cuts()) != 0 || !bytes.Equal(after, data) || b.Total() != f.total {
				t.Errorf("%s: damage %v, cuts %v, file changed %v, %d samples", tt.name, b.Damage(), b.Cuts(), !bytes.Equal(after, data), b.Total())
			}
		}
		b.Close()
	}
}

// TestReadersSkipDamage: ReadGames and ReadNewest (zero replay dump, the dashboard) leave a
// damaged record out and read the rest, ScanNewest reporting it.
func TestReadersSkipDamage(t *testing.T) {
	f := newDamageFolder(t)
	f.flip(t, 3, f.offsets[2][2]+4+20)
	game, games, err := ReadGames(f.dir)
	want := slices.Delete(slices.Clone(f.games), 10, 11)
	if err != nil || game != "yinsh-blitz" || sameGames(games, want) != nil {
		t.Fatalf("ReadGames: %q, %d games, %v", game, len(games), err)
	}
	r, err := ScanNewest(f.dir, 3)
	if err != nil || sameGames(r.Games, want[len(want)-3:]) != nil || len(r.Damage) != 1 || r.Damage[0].Offset != int64(f.offsets[2][2]) {
		t.Fatalf("ScanNewest: %v, %d games, damage %v", err, len(r.Games), r.Damage)
	}
	// A damaged header's name, in the newest shard: the game is the one most shards name.
	f.flip(t, 3, 8)
	if game, games, err := ReadNewest(f.dir, 20); err != nil || game != "yinsh-blitz" || sameGames(games, f.games) != nil {
		t.Fatalf("ReadNewest, a header's name damaged: %q, %d games, %v", game, len(games), err)
	}
}

// TestResyncIsFast: finding the next record after a damaged length tries every offset; over
// 1 MiB of random bytes (the worst a scan meets) the layout walk rejects them in tens of
// milliseconds, not the time a checksum over a record's length at every offset would take. A
// record in the bytes is found at its start, and spanRecords counts a whole one as one game.
func TestResyncIsFast(t *testing.T) {
	var data []byte
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 200 {
		data, _ = appendRecord(data, randomGame(uint64(i)))
	}
	first, _ := recordAt(data, shardVersion)
	span := bytes.Clone(data[:first])
	junk := make([]byte, 1<<20)
	for i := range junk {
		junk[i] = byte(rng.Uint32())
	}
	data = append(junk, data[first:]...)
	start := time.Now()
	if next := nextRecord(data, 0, 0, shardVersion); next != len(junk) {
		t.Fatalf("next record at %d, want %d", next, len(junk))
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("scanning 1 MiB for the next record took %v", d)
	}
	if games, samples := spanRecords(span, shardVersion); games != 1 || samples != int64(len(randomGame(0).Targets)) {
		t.Errorf("spanRecords of a whole record: %d games, %d samples", games, samples)
	}
}
