package net

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zerogames/zero/env/yinsh"
	"github.com/zerogames/zero/models"
)

// trained returns weights and an optimizer state as after steps training steps: every value,
// batchnorm statistics and moments included, random, so that a checkpoint's round trip is
// checked on every tensor.
func trained(t *testing.T, spec *Spec, cfg Config, steps int) (*Weights, *Optimizer, *rand.Rand) {
	t.Helper()
	rng := rand.New(rand.NewPCG(11, 12))
	w, err := NewWeights(spec, cfg, rng)
	if err != nil {
		t.Fatal(err)
	}
	w.Randomize(rng)
	opt := NewOptimizer(w)
	opt.Config, opt.Step = DefaultOptimizer(), int64(steps)
	for _, m := range [][][]float32{opt.First, opt.Second} {
		for _, x := range m {
			for i := range x {
				x[i] = rng.Float32()
			}
		}
	}
	return w, opt, rng
}

func smallConfig() Config {
	return Config{Blocks: 1, Channels: 8, PolicyChannels: 2, ValueChannels: 2, ValueHidden: 8}
}

func TestCheckpointRoundTrip(t *testing.T) {
	spec := yinshSpec(t)
	w, opt, _ := trained(t, spec, smallConfig(), 2)
	path := filepath.Join(t.TempDir(), "net.ckpt")
	created := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	if err := Save(path, w, opt, 2, created); err != nil {
		t.Fatal(err)
	}
	c, err := Load(models.ReadFile, path, spec)
	if err != nil {
		t.Fatal(err)
	}
	h := c.Header
	if h.Game != "yinsh" || h.Step != 2 || !h.Created.Equal(created) || h.Net != w.Config || h.Format != FormatVersion {
		t.Errorf("header %+v", h)
	}
	for i, p := range w.Params {
		if q := c.Weights.Params[i]; q.Name != p.Name || !slices.Equal(q.Data, p.Data) {
			t.Errorf("%s differs after the round trip", p.Name)
		}
	}
	o, got := opt, c.Optimizer
	if got == nil || got.Step != o.Step || got.Config.Method != o.Config.Method {
		t.Fatalf("optimizer %+v", got)
	}
	for k := range o.First {
		if !slices.Equal(o.First[k], got.First[k]) || !slices.Equal(o.Second[k], got.Second[k]) {
			t.Errorf("optimizer moment %d differs after the round trip", k)
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("the directory holds %d files after a save, want 1 (no temporary left)", len(entries))
	}
	hdr, size, err := Inspect(models.ReadFile, path)
	if fi, _ := os.Stat(path); err != nil || hdr.Game != "yinsh" || size != fi.Size() {
		t.Errorf("Inspect: %v, %q, %d bytes", err, hdr.Game, size)
	}
}

// TestCheckpointRefused holds Load to refusing every kind of bad file with an error naming it.
func TestCheckpointRefused(t *testing.T) {
	spec := yinshSpec(t)
	w, opt, _ := trained(t, spec, smallConfig(), 1)
	dir := t.TempDir()
	good := filepath.Join(dir, "good.ckpt")
	if err := Save(good, w, opt, 1, time.Now()); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	hdrEnd := len(magic) + 8 + int(binary.LittleEndian.Uint32(data[len(magic)+4:]))
	blitz, err := SpecOf(yinsh.Blitz.Info(), yinsh.Blitz)
	if err != nil {
		t.Fatal(err)
	}
	dense, err := NewSpec(yinsh.Normal.Info(), nil) // YINSH with a dense head: another shape
	if err != nil {
		t.Fatal(err)
	}
	flip := func(at int) []byte {
		b := slices.Clone(data)
		b[at] ^= 0x10
		return b
	}
	version := slices.Clone(data)
	binary.LittleEndian.PutUint32(version[len(magic):], FormatVersion+1)
	// A header with a field this program does not know, under a correct checksum.
	hdr := data[len(magic)+8 : hdrEnd]
	extra := append([]byte(`{"future":1,`), hdr[1:]...)
	unknown := append([]byte(magic), 0, 0, 0, 0, 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(unknown[len(magic):], FormatVersion)
	binary.LittleEndian.PutUint32(unknown[len(magic)+4:], uint32(len(extra)))
	unknown = append(unknown, extra...)
	unknown = append(unknown, data[hdrEnd:len(data)-4]...)
	unknown = binary.LittleEndian.AppendUint32(unknown, crc32.Checksum(unknown, castagnoli))
	// forge writes the header edit makes of the good one, the same weights after it and a
	// correct checksum: what no accident makes, so only the header's own checks refuse it.
	forge := func(edit func(h map[string]any) []byte) []byte {
		var h map[string]any
		if err := json.Unmarshal(hdr, &h); err != nil {
			t.Fatal(err)
		}
		text := edit(h)
		if text == nil {
			if text, err = json.Marshal(h); err != nil {
				t.Fatal(err)
			}
		}
		b := append([]byte(magic), 0, 0, 0, 0, 0, 0, 0, 0)
		binary.LittleEndian.PutUint32(b[len(magic):], FormatVersion)
		binary.LittleEndian.PutUint32(b[len(magic)+4:], uint32(len(text)))
		b = append(b, text...)
		b = append(b, data[hdrEnd:len(data)-4]...)
		return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
	}
	// A net of 32 × 512 over the small net's tensors: a loader that believed the net config
	// would allocate hundreds of megabytes before finding out.
	bigNet := forge(func(h map[string]any) []byte {
		h["net"].(map[string]any)["blocks"], h["net"].(map[string]any)["channels"] = 32, 512
		return nil
	})
	negative := forge(func(h map[string]any) []byte {
		ts := h["tensors"].([]any)
		ts[0].(map[string]any)["shape"] = []int{-1, 2}
		return nil
	})
	overflow := forge(func(h map[string]any) []byte {
		ts := h["tensors"].([]any)
		ts[0].(map[string]any)["shape"] = []int{1 << 32, 1 << 32}
		return nil
	})
	junk := forge(func(map[string]any) []byte { return append(slices.Clone(hdr), ` {"game":"x"}`...) })
	// A NaN among the weights (the 3rd value of the first tensor) and an infinity in the
	// optimizer's state (its last value), each under a correct checksum: a diverged network.
	poison := func(at int, v float32) []byte {
		b := slices.Clone(data[:len(data)-4])
		binary.LittleEndian.PutUint32(b[at:], math.Float32bits(v))
		return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
	}
	nan := poison(hdrEnd+8, float32(math.NaN()))
	inf := poison(len(data)-8, float32(math.Inf(1)))
	// The same net under the next version of YINSH's encodings.
	nextEncoding := *spec
	nextEncoding.Encoding = spec.Encoding + 1
	cases := []struct {
		name string
		data []byte
		spec *Spec
		want string
	}{
		{"empty", nil, spec, "truncated"},
		{"cut in the magic", data[:4], spec, "truncated"},
		{"cut in the header", data[:hdrEnd-10], spec, "truncated"},
		{"cut in the weights", data[:hdrEnd+1000], spec, "truncated"},
		{"cut before the checksum", data[:len(data)-4], spec, "truncated"},
		{"trailing bytes", append(slices.Clone(data), 0), spec, "corrupt"},
		{"flipped in the magic", flip(2), spec, "bad magic"},
		{"flipped in the header", flip(hdrEnd - 20), spec, "corrupt"},
		{"flipped in the weights", flip(hdrEnd + 100), spec, "corrupt: checksum"},
		{"flipped in the optimizer state", flip(len(data) - 40), spec, "corrupt: checksum"},
		{"flipped in the checksum", flip(len(data) - 1), spec, "corrupt: checksum"},
		{"future format", version, spec, "format version"},
		{"unknown header field", unknown, spec, `corrupt header: json: unknown field "future"`},
		{"other variant", data, blitz, "wrong game"},
		{"other encoding", data, &nextEncoding, "wrong encoding: the checkpoint reads version 1 of yinsh's observation and actions, this program writes version 2"},
		{"other shape", data, dense, "wrong shape"},
		{"net config not the tensors'", bigNet, spec, "corrupt header: the tensors are not those of its net config's layout"},
		{"negative dimension", negative, spec, "corrupt header: tensor stem.w has shape [-1 2]"},
		{"overflowing shape", overflow, spec, "corrupt header: tensor stem.w has shape [4294967296 4294967296]"},
		{"junk after the header", junk, spec, "corrupt header: 12 bytes after its JSON"},
		{"a NaN in the weights", nan, spec, "tensor stem.w holds NaN at index 2 (the network diverged)"},
		{"an infinity in the optimizer state", inf, spec, "holds +Inf at index"},
		{"other game", data, synthetic(t, "yinsh", 14, 11, 11, 5016), "wrong shape"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, "bad.ckpt")
			if err := os.WriteFile(path, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(models.ReadFile, path, c.spec)
			if err == nil {
				t.Fatal("loaded")
			}
			if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("error %q: want the file and %q", err, c.want)
			}
			// A file refused for itself, not for the game it is loaded for (the cases for
			// spec), is refused by Inspect too, in the same words (zero net info).
			if c.spec != spec {
				return
			}
			if _, _, err := Inspect(models.ReadFile, path); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("Inspect: %v, want the file and %q", err, c.want)
			}
		})
	}
}

// TestLoadTransfer: a checkpoint starts the network of another variant of its board (YINSH
// blitz weights for YINSH) with its weights intact, and is still refused for another shape or
// when damaged.
func TestLoadTransfer(t *testing.T) {
	spec := yinshSpec(t)
	w, opt, _ := trained(t, spec, smallConfig(), 1)
	dir := t.TempDir()
	path := filepath.Join(dir, "normal.zck")
	if err := Save(path, w, opt, 7, time.Now()); err != nil {
		t.Fatal(err)
	}
	blitz, err := SpecOf(yinsh.Blitz.Info(), yinsh.Blitz)
	if err != nil {
		t.Fatal(err)
	}
	c, err := LoadTransfer(models.ReadFile, path, blitz)
	if err != nil {
		t.Fatalf("yinsh weights for yinsh-blitz: %v", err)
	}
	if c.Header.Game != "yinsh" || c.Header.Step != 7 || len(c.Weights.Params) != len(w.Params) {
		t.Fatalf("loaded %s step %d with %d tensors", c.Header.Game, c.Header.Step, len(c.Weights.Params))
	}
	for i, p := range w.Params {
		if !slices.Equal(p.Data, c.Weights.Params[i].Data) {
			t.Fatalf("tensor %s differs", p.Name)
		}
	}
	dense, err := NewSpec(yinsh.Normal.Info(), nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	damaged := filepath.Join(dir, "damaged.zck")
	if err := os.WriteFile(damaged, data[:len(data)-4], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, path string
		spec       *Spec
		want       string
	}{
		{"other shape", path, dense, "wrong shape"},
		{"other game", path, synthetic(t, "yinsh", 14, 11, 11, 5016), "wrong shape"},
		{"damaged", damaged, blitz, "truncated"},
		{"missing", filepath.Join(dir, "none.zck"), blitz, "none.zck"},
	} {
		if _, err := LoadTransfer(models.ReadFile, c.path, c.spec); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}

// TestCheckpointRandomDamage flips random bytes of a good file, a thousand times: each damaged
// file must be refused with an error (the checksum, or a check before it), never loaded, never
// a panic.
func TestCheckpointRandomDamage(t *testing.T) {
	spec := synthetic(t, "six", 3, 6, 6, 40)
	w, opt, rng := trained(t, spec, Config{Blocks: 1, Channels: 4, PolicyChannels: 1, ValueChannels: 1, ValueHidden: 4}, 1)
	path := filepath.Join(t.TempDir(), "net.ckpt")
	if err := Save(path, w, opt, 1, time.Now()); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		bad := slices.Clone(good)
		for range 1 + rng.IntN(3) {
			at := rng.IntN(len(bad))
			bad[at] ^= byte(1 + rng.IntN(255))
		}
		if _, err := decode(bad, spec, false); err == nil {
			t.Fatalf("damage %d loaded", i)
		}
	}
}

// TestCheckpointVersions: a checkpoint plays only the encoding it learned, under any revision
// of the rules; a file from before the encoding was recorded apart has the encoding its "rules"
// number says, and one from before either was recorded is version 1; another encoding still
// starts a training run (LoadTransfer).
func TestCheckpointVersions(t *testing.T) {
	v1 := yinshSpec(t)
	if v1.Encoding != 1 {
		t.Fatalf("YINSH's encoding %d: this test assumes 1", v1.Encoding)
	}
	at := func(rules, encoding int) *Spec {
		s := *v1
		s.Rules, s.Encoding = rules, encoding
		return &s
	}
	w, _, _ := trained(t, v1, smallConfig(), 0)
	dir := t.TempDir()
	save := func(name string, spec *Spec) string {
		path := filepath.Join(dir, name)
		w.Spec = spec
		if err := Save(path, w, nil, 3, time.Now()); err != nil {
			t.Fatal(err)
		}
		return path
	}
	r1e1, r2e1, r2e2 := save("r1e1.zck", at(1, 1)), save("r2e1.zck", at(2, 1)), save("r2e2.zck", at(2, 2))
	w.Spec = v1
	// The files earlier builds wrote: without "encoding", and without either field.
	rewrite := func(name, from string, cut ...string) string {
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		hdrEnd := len(magic) + 8 + int(binary.LittleEndian.Uint32(data[len(magic)+4:]))
		hdr := string(data[len(magic)+8 : hdrEnd])
		for _, c := range cut {
			if !strings.Contains(hdr, c) {
				t.Fatalf("header %s: no %s", hdr, c)
			}
			hdr = strings.Replace(hdr, c, "", 1)
		}
		old := append([]byte(magic), 0, 0, 0, 0, 0, 0, 0, 0)
		binary.LittleEndian.PutUint32(old[len(magic):], FormatVersion)
		binary.LittleEndian.PutUint32(old[len(magic)+4:], uint32(len(hdr)))
		old = append(append(old, hdr...), data[hdrEnd:len(data)-4]...)
		old = binary.LittleEndian.AppendUint32(old, crc32.Checksum(old, castagnoli))
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, old, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	unrecorded := rewrite("unrecorded.zck", r1e1, `"rules":1,`, `"encoding":1,`)
	oneNumber := rewrite("one-number.zck", r2e2, `"encoding":2,`) // "rules":2 numbered both
	for _, c := range []struct {
		name     string
		path     string
		spec     *Spec
		transfer bool
		want     string // "" to load
	}{
		{"same versions", r1e1, at(1, 1), false, ""},
		{"an earlier rules revision, same encoding", r1e1, at(2, 1), false, ""},
		{"a later rules revision, same encoding", r2e1, at(1, 1), false, ""},
		{"not recorded, read as 1", unrecorded, at(2, 1), false, ""},
		{"not recorded, for encoding 2", unrecorded, at(2, 2), false, "reads version 1 of yinsh's observation and actions, this program writes version 2"},
		{"one number for both, read as encoding 2", oneNumber, at(2, 2), false, ""},
		{"one number for both, for encoding 1", oneNumber, at(2, 1), false, "reads version 2 of yinsh's observation and actions, this program writes version 1"},
		{"encoding 2 for encoding 1", r2e2, at(2, 1), false, "reads version 2 of yinsh's observation and actions, this program writes version 1"},
		{"encoding 2 to start encoding 1's training", r2e2, at(1, 1), true, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			load := Load
			if c.transfer {
				load = LoadTransfer
			}
			ck, err := load(models.ReadFile, c.path, c.spec)
			switch {
			case c.want == "" && err != nil:
				t.Fatal(err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), "wrong encoding: the checkpoint "+c.want)):
				t.Fatalf("err = %v, want %q", err, c.want)
			case err == nil && ck.Header.Step != 3:
				t.Fatalf("loaded step %d, want 3", ck.Header.Step)
			}
		})
	}
}

// TestShippedCheckpoints: from any working folder, models/GAME.zck names the model the binary
// ships (package models), for Inspect as for Load.
func TestShippedCheckpoints(t *testing.T) {
	t.Chdir(t.TempDir())
	names := models.Names()
	if len(names) == 0 {
		t.Fatal("no shipped model")
	}
	for _, name := range names {
		h, size, err := Inspect(models.ReadFile, "models/"+name)
		if err != nil || h.Game+models.Ext != name || size == 0 {
			t.Errorf("Inspect(models.ReadFile, models/%s): %s, %d bytes, %v", name, h.Game, size, err)
		}
	}
	if _, _, err := Inspect(models.ReadFile, "models/none.zck"); !os.IsNotExist(err) {
		t.Errorf("a model not shipped: %v", err)
	}
	spec, err := SpecOf(yinsh.Blitz.Info(), yinsh.Blitz)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadEngine(models.ReadFile, "models/yinsh-blitz.zck", spec); err != nil {
		t.Errorf("LoadEngine(models.ReadFile, models/yinsh-blitz.zck): %v", err)
	}
}

// TestSaveRefusesADivergedNet: weights holding a NaN are not written (the file is not made).
func TestSaveRefusesADivergedNet(t *testing.T) {
	spec := yinshSpec(t)
	w, opt, _ := trained(t, spec, smallConfig(), 1)
	w.Params[1].Data[0] = float32(math.NaN())
	path := filepath.Join(t.TempDir(), "bad.ckpt")
	err := Save(path, w, opt, 1, time.Now())
	if err == nil || !strings.Contains(err.Error(), "not saved: tensor "+w.Params[1].Name+" holds NaN at index 0") {
		t.Fatalf("Save of a NaN weight: %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused checkpoint was written: %v", err)
	}
}

// TestSaveRefusesTooLarge: a checkpoint no reader would read (more than models.MaxBytes) is
// not written. The net, 64 blocks × 256 channels (75 M parameters, 302 MB), is its shapes
// only: nothing of its size is allocated.
func TestSaveRefusesTooLarge(t *testing.T) {
	spec := yinshSpec(t)
	cfg := Config{Blocks: 64, Channels: 256, PolicyChannels: 16, ValueChannels: 2, ValueHidden: 64}
	w := &Weights{Spec: spec, Config: cfg, Params: layoutOf(spec, cfg)}
	path := filepath.Join(t.TempDir(), "large.zck")
	err := Save(path, w, nil, 1, time.Now())
	if err == nil || !strings.Contains(err.Error(), "net: not saved: "+path+" would be 302") || !strings.Contains(err.Error(), "more than the 268435456 a checkpoint may hold") {
		t.Fatalf("Save of a 302 MB checkpoint: %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused checkpoint was written: %v", err)
	}
}

// TestCheckpointBytes: CheckpointBytes is the size of the file Save writes, within the few
// bytes its header's numbers may differ by (the step, the time, the optimizer's settings).
func TestCheckpointBytes(t *testing.T) {
	spec := yinshSpec(t)
	w, opt, _ := trained(t, spec, smallConfig(), 1)
	dir := t.TempDir()
	for _, withOpt := range []bool{false, true} {
		o := opt
		if !withOpt {
			o = nil
		}
		path := filepath.Join(dir, "net.zck")
		if err := Save(path, w, o, 12345, time.Now()); err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := CheckpointBytes(spec, w.Config, withOpt); got < st.Size()-400 || got > st.Size() {
			t.Errorf("optimizer %v: CheckpointBytes %d, the file %d bytes", withOpt, got, st.Size())
		}
	}
}

// TestReaderChoosesShipped: whether models/NAME finds the binary's copy of a shipped model is
// the caller's choice (the Reader): models.ReadFile finds it where no such file is on the disk
// (the tests run in net/, which has no models folder), models.ReadDisk does not.
func TestReaderChoosesShipped(t *testing.T) {
	path := models.Path("gyges" + models.Ext)
	if _, err := os.Stat(path); err == nil {
		t.Skip(path, "is on the disk here: the test needs a folder without it")
	}
	h, _, err := Inspect(models.ReadFile, path)
	if err != nil || h.Game != "gyges" {
		t.Fatalf("models.ReadFile: %+v, %v; want the shipped gyges model", h, err)
	}
	if _, _, err := Inspect(models.ReadDisk, path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("models.ReadDisk found %s: %v", path, err)
	}
}
