package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrainCommand drives `zero train` and `zero bench selfplay` through run: a short tiny run,
// its resumption from the run folder alone, and the refusals, which change nothing.
func TestTrainCommand(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	tiny, err := os.ReadFile("../../configs/tiny.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := write("tiny.yaml", string(tiny))
	unknown := write("unknown.yaml", "game: yinsh\nselfplay:\n  simulatons: 3\n")
	invalid := write("invalid.yaml", "game: yinsh\nreplay:\n  train_ratio: 0\n")
	chess := write("chess.yaml", "game: chess\n")
	normal := write("normal.yaml", strings.Replace(string(tiny), "game: yinsh-blitz", "game: yinsh", 1))
	changed := write("changed.yaml", strings.Replace(string(tiny), "simulations: 8", "simulations: 10", 1))
	otherNet := write("other-net.yaml", strings.Replace(string(tiny), "channels: 8", "channels: 9", 1))
	runDir := filepath.Join(dir, "run")
	blitzStep20 := filepath.Join(runDir, "checkpoints", "step-00000020.zck")
	tests := []struct {
		name    string
		args    []string
		wantOut []string
		wantErr string
	}{
		{"start", []string{"train", "--config", cfg, "--run", runDir, "--steps", "10", "--log", "1h"}, []string{"session 1 of yinsh-blitz, step 0", "stopped at step 10"}, ""},
		{"resume from the folder", []string{"train", "--run", runDir, "--steps", "20", "--log", "1h"}, []string{"session 2 of yinsh-blitz, step 10", "stopped at step 20"}, ""},
		{"resume with a changed configuration", []string{"train", "--config", changed, "--run", runDir, "--steps", "30", "--log", "1h"}, []string{"changed since config-history/session-0002.yaml:\n  selfplay.simulations: 8 → 10\n", "session 3 of yinsh-blitz, step 20"}, ""},
		{"resume with another net", []string{"train", "--config", otherNet, "--run", runDir}, nil, "net.channels: 8 → 9: a run keeps its net"},
		{"init from another variant", []string{"train", "--config", normal, "--run", filepath.Join(dir, "normal"), "--init", blitzStep20, "--steps", "1", "--log", "1h"}, []string{"session 1 of yinsh, step 0", "starting from the weights of " + blitzStep20 + " (yinsh-blitz, step 20)", "stopped at step 1"}, ""},
		{"init into a run folder holding a run", []string{"train", "--run", runDir, "--init", blitzStep20}, nil, "--init starts a new run, and the run folder " + runDir + " holds one"},
		{"another game in the folder", []string{"train", "--game", "gyges", "--run", runDir}, nil, "holds a yinsh-blitz run"},
		{"unknown key", []string{"train", "--config", unknown, "--run", filepath.Join(dir, "x")}, nil, "unknown.yaml: line 3: selfplay.simulatons: no such setting (did you mean selfplay.simulations?)"},
		{"bad value", []string{"train", "--config", invalid, "--run", filepath.Join(dir, "x")}, nil, "invalid.yaml: replay.train_ratio: must be in [0.01, 1000], is 0"},
		{"unknown game", []string{"train", "--game", "chess"}, nil, `--game: unknown game "chess"`},
		{"unknown game in a file", []string{"train", "--config", chess, "--run", filepath.Join(dir, "x")}, nil, `chess.yaml: game: unknown game "chess"`},
		{"a preset of a game not in the binary", []string{"train", "--game", "tictactoe", "--run", filepath.Join(dir, "t")}, nil, `configs/tictactoe.yaml is the preset of a game this binary does not register`},
		{"nothing to train", []string{"train"}, nil, "give --game GAME, --config FILE, or --run DIR"},
		{"bench selfplay", []string{"bench", "selfplay", "--config", cfg, "--warmup", "10ms", "--time", "300ms"}, []string{"yinsh-blitz: net 1 block × 8 channels", "simulations/s", "overhead"}, ""},
		{"bench selfplay profiled", []string{"bench", "selfplay", "--config", cfg, "--warmup", "10ms", "--time", "300ms", "--transport", "direct", "--cpuprofile", filepath.Join(dir, "cpu.prof"), "--trace", filepath.Join(dir, "run.trace")}, []string{"\ndirect, "}, ""},
		{"bench selfplay profiles one transport", []string{"bench", "selfplay", "--config", cfg, "--transport", "both", "--cpuprofile", filepath.Join(dir, "x.prof")}, nil, "--cpuprofile and --trace measure one transport"},
		{"bench selfplay profile not writable", []string{"bench", "selfplay", "--config", cfg, "--transport", "direct", "--cpuprofile", filepath.Join(dir, "none", "x.prof")}, nil, "--cpuprofile: open"},
		{"bench selfplay both ways", []string{"bench", "selfplay", "--config", cfg, "--warmup", "10ms", "--time", "300ms", "--transport", "both"}, []string{"\ndirect, ", "\nnats, ", "nats against direct over 1 rounds"}, ""},
		{"bench selfplay, rounds of one transport", []string{"bench", "selfplay", "--rounds", "3"}, nil, "--rounds 3: only with --transport both"},
		{"bench selfplay, no rounds", []string{"bench", "selfplay", "--transport", "both", "--rounds", "0"}, nil, "--rounds 0: want a number of rounds ≥ 1"},
		{"bench ingest", []string{"bench", "ingest", "--game", "yinsh-blitz", "--workers", "3", "--games", "30", "--time", "20s"}, []string{"yinsh-blitz, 3 workers on loopback, store synced at every write", "0 refused", "publication latency: median"}, ""},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), tt.args, strings.NewReader(""), &stdout, &stderr)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: err = %v, want %q", tt.name, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v\n%s", tt.name, err, stderr.String())
			continue
		}
		for _, want := range tt.wantOut {
			if !strings.Contains(stdout.String(), want) {
				t.Errorf("%s: output lacks %q:\n%s", tt.name, want, stdout.String())
			}
		}
		if tt.name == "bench selfplay profiled" {
			// The profile and the trace of the measured time, each a file of its tool's format.
			for _, f := range []struct{ name, magic string }{{"cpu.prof", "\x1f\x8b"}, {"run.trace", "go 1."}} {
				data, err := os.ReadFile(filepath.Join(dir, f.name))
				if err != nil || !bytes.HasPrefix(data, []byte(f.magic)) {
					t.Errorf("%s: %s: %d bytes starting %q, %v", tt.name, f.name, len(data), data[:min(len(data), 8)], err)
				}
			}
		}
	}
	// --steps held for the sessions only: the run's configuration still never stops.
	if saved, err := os.ReadFile(filepath.Join(runDir, "config.yaml")); err != nil || !strings.Contains(string(saved), "stop:\n    steps: 0\n") {
		t.Errorf("config.yaml after sessions with --steps (%v):\n%s", err, saved)
	}
	// Each session's record names its command.
	record, err := os.ReadFile(filepath.Join(runDir, "config-history", "session-0003.yaml"))
	if want := "# Session 3 of this run: zero train --config " + changed + " --log 1h0m0s --run " + runDir + " --steps 30\n"; err != nil || !strings.HasPrefix(string(record), want) {
		t.Errorf("session 3's record (%v) does not begin with %q:\n%s", err, want, record)
	}
	if _, err := os.Stat(filepath.Join(runDir, "config-history", "session-0004.yaml")); err == nil {
		t.Error("a refused resume recorded a session")
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); err == nil {
		t.Error("a refused configuration made its run folder")
	}
}

// TestTrainFolderNotARun: --run alone, of a folder without config.yaml, says what the folder is
// and what to give (it used to ask for --game, --config or --run as if none had been given).
func TestTrainFolderNotARun(t *testing.T) {
	dir := t.TempDir()
	mk := func(files ...string) string {
		folder, err := os.MkdirTemp(dir, "run")
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			path := filepath.Join(folder, f)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err == nil {
				err = os.WriteFile(path, nil, 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		return folder
	}
	empty := mk()
	stateOnly := mk("state.json")
	history := mk("state.json", "config-history/session-0002.yaml", "config-history/session-0010.yaml", "config-history/session-0009.yaml")
	file := filepath.Join(mk("x"), "x")
	for _, tc := range []struct{ name, dir, want string }{
		{"no such folder", filepath.Join(dir, "none"), "--run " + filepath.Join(dir, "none") + ": no such folder; give --game GAME or --config FILE to start a new run in it"},
		{"a file", file, "--run " + file + ": not a folder"},
		{"an empty folder", empty, "--run " + empty + " holds no run (no config.yaml): give --game GAME or --config FILE to start one there"},
		{"a run without config.yaml", stateOnly, "--run " + stateOnly + ": the run folder has lost its config.yaml; restore it, or give the run's configuration with --config FILE"},
		{"a run with its history", history, "resume with --config " + filepath.Join(history, "config-history", "session-0010.yaml") + " (its last session's configuration)"},
	} {
		_, _, err := trainConfig("", "", tc.dir)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestSelf(t *testing.T) {
	saved := os.Args
	defer func() { os.Args = saved }()
	for _, tc := range []struct{ argv0, want string }{
		{"bin/zero", "bin/zero"},
		{"./zero", "./zero"},
		{"zero", "zero"},                           // from the PATH
		{"/tmp/go-build123/b001/exe/zero", "zero"}, // go run
		{"/tmp/go-build1/b001/zero.test", "zero"},  // a test
	} {
		os.Args = []string{tc.argv0}
		if got := self(); got != tc.want {
			t.Errorf("invoked as %s: resume with %s, want %s", tc.argv0, got, tc.want)
		}
	}
}

// TestTransportFlags: the transport's flags are refused where they mean nothing together.
func TestTransportFlags(t *testing.T) {
	for _, tc := range []struct {
		listen, cert, key, nats, creds, ca string
		replicas                           int
		want                               string
	}{
		{listen: "0.0.0.0:4222", replicas: 1},
		{listen: "127.0.0.1:0", cert: "c.pem", key: "k.pem", replicas: 1},
		{nats: "nats://a:4222,nats://b:4222", creds: "u.creds", replicas: 3},
		{listen: "4222", replicas: 1, want: "want HOST:PORT"},
		{listen: ":4222", nats: "nats://a:4222", replicas: 1, want: "--listen and --nats"},
		{cert: "c.pem", key: "k.pem", replicas: 1, want: "are for --listen"},
		{listen: ":4222", cert: "c.pem", replicas: 1, want: "go together"},
		{creds: "u.creds", replicas: 1, want: "are for --nats"},
		{nats: "nats://a:4222", replicas: 7, want: "want 1 to 5"},
	} {
		_, err := transportFlags(tc.listen, tc.cert, tc.key, tc.nats, tc.creds, tc.ca, tc.replicas)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: %v, want %q", tc, err, tc.want)
		}
	}
}
