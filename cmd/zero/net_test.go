package main

import (
	"context"
	"encoding/binary"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zerogames/zero/internal/games"
	"github.com/zerogames/zero/models"
	"github.com/zerogames/zero/net"
)

// TestNetCommands drives `zero net init`, `zero net info`, `zero net average` and `zero bench
// net` as a user would, through run, in a temporary directory.
func TestNetCommands(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	good := write("small.yaml", "game: yinsh-blitz\nnet:\n  blocks: 1\n  channels: 8\noptimizer:\n  method: sgd\n")
	unknown := write("unknown.yaml", "game: yinsh\nnet:\n  blockz: 1\n")
	invalid := write("invalid.yaml", "game: yinsh\nnet:\n  blocks: -1\n")
	noGame := write("nogame.yaml", "game: chess\n")
	ckpt := filepath.Join(dir, "net.ckpt")
	garbage := write("garbage.ckpt", "zeronet\n\x01\x00")
	deeper := write("deeper.yaml", "game: yinsh-blitz\nnet:\n  blocks: 2\n  channels: 8\n")
	other, deep := filepath.Join(dir, "other.ckpt"), filepath.Join(dir, "deep.ckpt")
	mean := filepath.Join(dir, "mean.ckpt")
	alias := filepath.Join(dir, "alias.ckpt") // another name of ckpt
	if err := os.Symlink("net.ckpt", alias); err != nil {
		t.Fatal(err)
	}
	small := net.DefaultConfig()
	small.Blocks, small.Channels = 1, 8 // good's net
	older := olderRules(t, dir, "yinsh-blitz", small)
	nan, nanRefused := diverged(t, dir, "yinsh-blitz", small)

	tests := []struct {
		name    string
		args    []string
		wantOut []string
		wantErr string
	}{
		{"init", []string{"net", "init", "--config", good, "--out", ckpt}, []string{"wrote " + ckpt, "fresh yinsh-blitz net"}, ""},
		{"init refuses to overwrite", []string{"net", "init", "--config", good, "--out", ckpt}, nil, "the file exists"},
		{"init overwrites with --force", []string{"net", "init", "--config", good, "--out", ckpt, "--force"}, []string{"wrote"}, ""},
		{"info", []string{"net", "info", ckpt}, []string{"game         yinsh-blitz (rules revision 2, encoding 1)", "checksum ok, every value finite", "1 block × 8 channels", "spatial, 59 planes + 1 off the grid", "optimizer    sgd"}, ""},
		{"init another", []string{"net", "init", "--config", good, "--out", other, "--seed", "2"}, []string{"wrote"}, ""},
		{"init a deeper net", []string{"net", "init", "--config", deeper, "--out", deep}, []string{"wrote"}, ""},
		{"average", []string{"net", "average", "--out", mean, ckpt, other}, []string{"wrote " + mean + ": the mean of 2 checkpoints of yinsh-blitz, steps 0 to 0"}, ""},
		{"info of a mean", []string{"net", "info", mean}, []string{"1 block × 8 channels", "optimizer    none saved"}, ""},
		{"average refuses to overwrite", []string{"net", "average", "--out", mean, ckpt, other}, nil, "the file exists"},
		{"average of a file twice", []string{"net", "average", "--out", mean + "2", ckpt, other, ckpt}, nil, "net average: " + ckpt + " is " + ckpt + " again: each checkpoint counts once"},
		{"average of a file under two names", []string{"net", "average", "--out", mean + "2", alias, other, ckpt}, nil, "net average: " + ckpt + " is " + alias + " again"},
		{"average of other nets", []string{"net", "average", "--out", mean + "2", ckpt, deep}, nil, "deep.ckpt: net"},
		{"average of an older revision of the rules", []string{"net", "average", "--out", mean + "2", ckpt, older}, nil, "older.ckpt: learned under revision 1 of yinsh-blitz's rules, this program plays revision 2"},
		{"average of a bad file", []string{"net", "average", "--out", mean + "2", ckpt, garbage}, nil, "garbage.ckpt: truncated"},
		{"average of a missing file", []string{"net", "average", "--out", mean + "2", ckpt, ckpt + "-missing"}, nil, "net.ckpt-missing"},
		{"average of nothing", []string{"net", "average", "--out", mean + "2"}, nil, "give the checkpoints to average"},
		{"average without --out", []string{"net", "average", ckpt}, nil, "--out: give"},
		// Run from cmd/zero, where models/ holds no file: the binary's copy, of encoding 1,
		// played widened to Gygès' encoding 2.
		{"info of a shipped model not on the disk", []string{"net", "info", "models/gyges.zck"}, []string{"(the binary's own shipped model, no such file here; ",
			"encoding 1; this program writes encoding 2 and plays this net widened to it (its 13 observation planes are the first of today's 21)"}, ""},
		{"info of a bad file", []string{"net", "info", garbage}, nil, "garbage.ckpt: truncated"},
		{"info of a diverged net: the loader's refusal", []string{"net", "info", nan}, nil, nanRefused},
		{"info without a file", []string{"net", "info"}, nil, "give one checkpoint file"},
		{"init with an unknown key", []string{"net", "init", "--config", unknown, "--out", ckpt + "2"}, nil, "unknown.yaml: line 3: net.blockz: no such setting (did you mean net.blocks?)"},
		{"init with a bad value", []string{"net", "init", "--config", invalid, "--out", ckpt + "2"}, nil, "invalid.yaml: net.blocks: must be in [0, 128], is -1"},
		{"init of an unknown game", []string{"net", "init", "--config", noGame, "--out", ckpt + "2"}, nil, `nogame.yaml: game: unknown game "chess"`},
		{"init without --out", []string{"net", "init", "--config", good}, nil, "--out: give"},
		{"net without action", []string{"net"}, nil, "give an action"},
		{"net unknown action", []string{"net", "frob"}, nil, `unknown action "frob"`},
		{"bench net", []string{"bench", "net", "--batch", "2", "--workers", "1", "--time", "1ms"}, []string{"net yinsh", "GEMM GFLOP/s", "     2        1"}, ""},
		{"bench net, synthetic", []string{"bench", "net", "--shape", "7x6x6:300", "--batch", "4", "--workers", "2", "--time", "1ms", "--train", "2"}, []string{"observation 7×6×6, 300 actions", "     4        2", "training (gorgonia, adam), batch 2"}, ""},
		{"bench net, a configuration's net on its game", []string{"bench", "net", "--config", "../../configs/imbriqua.yaml", "--batch", "1", "--workers", "1", "--time", "1ms"}, []string{"net imbriqua: observation 62×8×8"}, ""},
		{"bench net, a configuration of another game", []string{"bench", "net", "--game", "gyges", "--config", "../../configs/imbriqua.yaml"}, nil, "--game gyges: the configuration ../../configs/imbriqua.yaml is of imbriqua"},
		{"bench net, bad shape", []string{"bench", "net", "--shape", "6x6"}, nil, `--shape "6x6"`},
		{"bench net, a shape with text after it", []string{"bench", "net", "--shape", "7x6x6:300abc"}, nil, `--shape "7x6x6:300abc"`},
		{"bench net, a shape and a game", []string{"bench", "net", "--shape", "7x6x6:300", "--game", "gyges"}, nil, "--game gyges with --shape 7x6x6:300"},
		{"bench net, bad batch", []string{"bench", "net", "--batch", "0"}, nil, `--batch: "0"`},
		{"bench net, too large a batch", []string{"bench", "net", "--batch", "1,4097"}, nil, `--batch: "4097" is not a whole number from 1 to 4096`},
		{"bench net, too many workers", []string{"bench", "net", "--workers", "1000000"}, nil, `--workers: "1000000" is not a whole number from 1 to 256`},
		{"bench net, too large a training batch", []string{"bench", "net", "--train", "1000000"}, nil, "--train 1000000: want a batch size from 0 (none) to 4096"},
		{"bench net, too large a shape", []string{"bench", "net", "--shape", "7x6x6:1000000000"}, nil, `--shape "7x6x6:1000000000": want at most 1024x64x64:65536`},
		{"bench net, a shape whose net no checkpoint holds", []string{"bench", "net", "--shape", "1x64x64:65536"}, nil, "the net of synthetic-1x64x64:65536 would hold 4300620323 bytes of weights, more than the 268435456 of the largest checkpoint"},
		{"bench search", []string{"bench", "search", "--game", "gyges", "--player", "uct:10ms", "--threads", "1,2", "--positions", "1", "--rounds", "1", "--time", "10ms"},
			[]string{"bench search: gyges, uct:10ms, 1 positions × 1 rounds of 10ms a search", "threads  simulations/s  cores used  × 1 thread", "\n        1 ", "\n        2 "}, ""},
		{"bench search of the shipped model", []string{"bench", "search", "--game", "imbriqua", "--threads", "2", "--positions", "1", "--rounds", "1", "--time", "10ms"},
			[]string{"imbriqua, mcts:400:models/imbriqua.zck", "\n        2 "}, ""},
		{"bench search, not a search", []string{"bench", "search", "--player", "ab:2"}, nil, `--player "ab:2": a search of uct, ucb1 or mcts is measured, not ab`},
		{"bench search, threads in the spec", []string{"bench", "search", "--player", "uct:1s:threads=2"}, nil, "give the threads with --threads, not in the spec"},
		{"bench search, bad threads", []string{"bench", "search", "--threads", "0"}, nil, `--threads: "0"`},
		{"bench search, no positions", []string{"bench", "search", "--positions", "0"}, nil, "--positions 0: want 1 to 1000"},
		{"bench, unknown", []string{"bench", "frob"}, nil, `unknown benchmark "frob"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			err := run(context.Background(), tt.args, strings.NewReader(""), &stdout, &stderr)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("error %v\nstderr: %s", err, stderr.String())
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
			}
			for _, part := range tt.wantOut {
				if !strings.Contains(stdout.String(), part) {
					t.Errorf("stdout lacks %q:\n%s", part, stdout.String())
				}
			}
		})
	}

	// The mean written is the two nets' mean, and a refused average wrote nothing.
	if _, err := os.Stat(mean + "2"); err == nil {
		t.Errorf("%s2 exists: a refused average wrote it", mean)
	}
	g, err := games.Lookup("yinsh-blitz")
	if err != nil {
		t.Fatal(err)
	}
	spec, err := g.NetSpec()
	if err != nil {
		t.Fatal(err)
	}
	var nets []*net.Weights
	for _, path := range []string{ckpt, other, mean} {
		c, err := net.Load(models.ReadFile, path, spec)
		if err != nil {
			t.Fatal(err)
		}
		nets = append(nets, c.Weights)
	}
	differ := false
	for k, p := range nets[2].Params {
		for i, x := range p.Data {
			a, b := nets[0].Params[k].Data[i], nets[1].Params[k].Data[i]
			if want := float32((float64(a) + float64(b)) / 2); x != want {
				t.Fatalf("%s[%d] of the mean is %g, want %g", p.Name, i, x, want)
			}
			differ = differ || a != b
		}
	}
	if !differ {
		t.Error("the two nets averaged are the same: the check tells nothing")
	}
}

// diverged writes dir/diverged.ckpt, a fresh net of game whose first weight is a NaN under a
// correct checksum (what a diverged run would write, were Save not refusing it), and returns
// its path and the error net.Load refuses it with.
func diverged(t *testing.T, dir, game string, c net.Config) (string, string) {
	t.Helper()
	g, err := games.Lookup(game)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := g.NetSpec()
	if err != nil {
		t.Fatal(err)
	}
	w, err := net.NewWeights(spec, c, rand.New(rand.NewPCG(1, 0)))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "diverged.ckpt")
	if err := net.Save(path, w, nil, 0, time.Now()); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// magic, format, header size, header: the first tensor's first value follows.
	at := len(net.Magic) + 8 + int(binary.LittleEndian.Uint32(data[len(net.Magic)+4:]))
	binary.LittleEndian.PutUint32(data[at:], math.Float32bits(float32(math.NaN())))
	data = binary.LittleEndian.AppendUint32(data[:len(data)-4], crc32.Checksum(data[:len(data)-4], crc32.MakeTable(crc32.Castagnoli)))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = net.Load(models.ReadFile, path, spec)
	if err == nil || !strings.Contains(err.Error(), "holds NaN at index 0 (the network diverged)") {
		t.Fatalf("the diverged net: %v, want the loader's refusal of the NaN (not of the file)", err)
	}
	return path, err.Error()
}

// olderRules writes dir/older.ckpt, a fresh net of game as a build playing the revision of its
// rules before this one's wrote it (same encoding: it loads), and returns its path.
func olderRules(t *testing.T, dir, game string, c net.Config) string {
	t.Helper()
	g, err := games.Lookup(game)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := g.NetSpec()
	if err != nil {
		t.Fatal(err)
	}
	if spec.Rules < 2 {
		t.Fatalf("%s plays revision %d of its rules: no older one", game, spec.Rules)
	}
	old := *spec
	old.Rules--
	w, err := net.NewWeights(&old, c, rand.New(rand.NewPCG(1, 0)))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "older.ckpt")
	if err := net.Save(path, w, nil, 0, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := net.Load(models.ReadFile, path, spec); err != nil {
		t.Fatalf("the older revision's net does not load, the refusal would test nothing: %v", err)
	}
	return path
}
