package train_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zerogames/zero/configs"
	"github.com/zerogames/zero/env/yinsh"
	"github.com/zerogames/zero/models"
	"github.com/zerogames/zero/net"
	"github.com/zerogames/zero/selfplay"
	"github.com/zerogames/zero/train"
	"github.com/zerogames/zero/train/metrics"
	"github.com/zerogames/zero/train/metrics/tfevents"
	"github.com/zerogames/zero/train/replay"
	"github.com/zerogames/zero/train/runfolder"
)

// childRun is set in the subprocess that TestKillAndResume kills: it trains the tiny preset
// in the folder it names until killed.
const childRun = "ZERO_TRAIN_TEST_RUN"

func tiny(t *testing.T) train.Config {
	t.Helper()
	cfg, err := configs.Load("tiny")
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestMain(m *testing.M) {
	if dir := os.Getenv(childRun); dir != "" {
		cfg, err := configs.Load("tiny")
		if err == nil {
			err = train.Run(context.Background(), yinsh.Blitz, cfg, dir, train.Options{})
		}
		if err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func readState(t *testing.T, dir string) runfolder.State {
	t.Helper()
	var st runfolder.State
	data, err := os.ReadFile(filepath.Join(dir, "state.json"))
	if err != nil {
		return st
	}
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatalf("state.json is not whole: %v", err)
	}
	return st
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(data, v)
	}
	if err != nil {
		t.Fatal(err)
	}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err == nil {
		err = os.WriteFile(path, data, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestKillAndResume kills a tiny run with SIGKILL while it works, damages what a crash could
// leave behind (a torn game at the end of the replay, a half-written checkpoint and state),
// and checks that the run resumes from its last checkpoint with every recorded game and
// goes on training.
func TestKillAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("trains for a few seconds")
	}
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), childRun+"="+dir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	// Kill it in the middle of its work, once it has written a few checkpoints and recorded a
	// game since it last saved its state.
	shardBytes := func() int64 {
		var n int64
		shards, _ := filepath.Glob(filepath.Join(dir, "replay", "*.zrp"))
		for _, p := range shards {
			if fi, err := os.Stat(p); err == nil {
				n += fi.Size()
			}
		}
		return n
	}
	deadline := time.Now().Add(60 * time.Second)
	seenStep, seenBytes := int64(-1), int64(0)
	for {
		if st := readState(t, dir); st.Step >= 30 {
			if st.Step != seenStep {
				seenStep, seenBytes = st.Step, shardBytes()
			} else if shardBytes() > seenBytes {
				break
			}
		}
		select {
		case err := <-exited:
			t.Fatalf("the run ended by itself (%v): %s", err, stderr.String())
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no game recorded after a checkpoint at step 30 within a minute: %s", stderr.String())
		}
	}
	// A second trainer in the folder is refused at once, naming the first, and changes nothing.
	err = train.Run(context.Background(), yinsh.Blitz, tiny(t), dir, train.Options{})
	if !errors.Is(err, train.ErrBusy) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d ", cmd.Process.Pid)) {
		t.Errorf("a second trainer in the folder: %v, want it refused naming pid %d", err, cmd.Process.Pid)
	}
	// The lock file deleted: still refused (it used to train beside the first, both writing
	// checkpoints of the same names).
	if err := os.Remove(filepath.Join(dir, "lock")); err != nil {
		t.Fatal(err)
	}
	once := tiny(t)
	once.Stop.Steps = 1 // were it let in, it would stop at once
	if err = train.Run(context.Background(), yinsh.Blitz, once, dir, train.Options{}); !errors.Is(err, train.ErrBusy) {
		t.Errorf("a second trainer in the folder, its lock file deleted: %v, want it refused", err)
	}
	if n := readState(t, dir).Sessions; n != 1 {
		t.Errorf("the refused trainer counted a session: %d sessions", n)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-exited

	before := readState(t, dir)
	cfg := tiny(t)
	buf, err := replay.Open(filepath.Join(dir, "replay"), cfg.Game, cfg.Replay.Window, 0)
	if err != nil {
		t.Fatalf("the replay after the kill: %v", err)
	}
	samples := buf.Total()
	// The games the killed run recorded after it last saved its state: the resumed run counts them.
	since := buf.GamesSince(before.Samples)
	buf.Close()
	if samples == 0 || before.Games == 0 || before.Samples == 0 {
		t.Fatalf("the killed run recorded %d samples of %d games (state: %d samples)", samples, before.Games, before.Samples)
	}
	t.Logf("killed at step %d, %d games, %d of them after the state was saved", before.Step, before.Games+int64(since), since)
	// What a crash in the middle of writes leaves: a record cut short at the end of the newest
	// shard, a checkpoint and a state file half written under their temporary names.
	shards, _ := filepath.Glob(filepath.Join(dir, "replay", "*.zrp"))
	f, err := os.OpenFile(shards[len(shards)-1], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte{0x40, 0, 0, 0, 1, 2, 3})
	f.Close()
	os.WriteFile(filepath.Join(dir, "checkpoints", "step-99999999.zck"), []byte("ZERO half"), 0o644)
	// A state.json and a checkpoint whose writes a kill cut short, named as atomicfile names
	// them: the resume removes them.
	temps := []string{filepath.Join(dir, ".state.json.tmp123"), filepath.Join(dir, "checkpoints", ".step-00000099.zck.tmp456")}
	for _, p := range temps {
		os.WriteFile(p, []byte(`{"game": "yin`), 0o644)
	}

	cfg.Stop.Steps = before.Step + 20
	resumed := time.Now()
	if err := train.Run(context.Background(), yinsh.Blitz, cfg, dir, train.Options{}); err != nil {
		t.Fatalf("resuming: %v", err)
	}
	after := readState(t, dir)
	for _, p := range temps {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s: left", p)
		}
	}
	if after.Step != before.Step+20 || after.Sessions != before.Sessions+1 || after.Games < before.Games {
		t.Fatalf("after resuming: step %d, session %d, %d games; before: step %d, session %d, %d games",
			after.Step, after.Sessions, after.Games, before.Step, before.Sessions, before.Games)
	}
	spec, _ := net.SpecOf(yinsh.Blitz.Info(), yinsh.Blitz)
	ck, err := net.Load(models.ReadFile, filepath.Join(dir, after.Checkpoint), spec)
	if err != nil || ck.Header.Step != after.Step || ck.Optimizer == nil || ck.Optimizer.Step != after.Step {
		t.Fatalf("the last checkpoint %s: %v", after.Checkpoint, err)
	}
	buf, err = replay.Open(filepath.Join(dir, "replay"), cfg.Game, cfg.Replay.Window, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Close()
	if buf.Total() < samples {
		t.Errorf("the buffer holds %d samples ever, %d before resuming", buf.Total(), samples)
	}
	// Every game counted once: those saved in the state before the kill, those recorded after
	// it, those of the resumed session (all have samples: a YINSH blitz game without a full
	// search is a one-in-a-million chance in the tiny config).
	session := buf.GamesSince(samples)
	if want := before.Games + int64(since) + int64(session); after.Games != want || after.Samples != buf.Total() {
		t.Errorf("state after resuming: %d games, %d samples; want %d games (%d before the kill's last save, %d after it, %d resumed), %d samples",
			after.Games, after.Samples, want, before.Games, since, session, buf.Total())
	}
	records, skipped, err := metrics.Read(filepath.Join(dir, "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	last := int64(0)
	for _, r := range records {
		if r.Kind == "train" {
			last = r.Step
		}
	}
	if last != after.Step || skipped > 1 {
		t.Errorf("metrics: last train record at step %d (want %d), %d torn lines skipped", last, after.Step, skipped)
	}
	// TensorBoard's files: one a session (the refused trainer wrote none), the resumed
	// session's whole, its train scalars those of metrics.jsonl.
	files, _ := filepath.Glob(filepath.Join(dir, "events.out.tfevents.*"))
	if len(files) != 2 {
		t.Fatalf("event files %v, want the killed session's and the resumed one's", files)
	}
	ours := slices.IndexFunc(files, func(f string) bool { return strings.HasSuffix(f, fmt.Sprintf(".%d", os.Getpid())) })
	if ours < 0 {
		t.Fatalf("no event file of this process (pid %d) in %v", os.Getpid(), files)
	}
	data, err := os.ReadFile(files[ours])
	if err != nil {
		t.Fatal(err)
	}
	events, err := tfevents.Read(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", files[ours], err)
	}
	var want []metrics.Record
	for _, r := range records {
		if r.Kind == "train" && r.Time.After(resumed) {
			want = append(want, r)
		}
	}
	var got []tfevents.Event
	for _, ev := range events {
		if _, ok := ev.Scalars["train/loss"]; ok {
			got = append(got, ev)
		}
	}
	if len(got) == 0 || len(got) != len(want) {
		t.Fatalf("%d train events in the resumed session's event file, %d train records", len(got), len(want))
	}
	for i, r := range want {
		for name, v := range r.Values {
			if x, ok := got[i].Scalars["train/"+name]; got[i].Step != r.Step || !ok || x != float32(v) && !math.IsNaN(v) {
				t.Errorf("train event %d: step %d, %s = %v; metrics.jsonl: step %d, %v", i, got[i].Step, name, x, r.Step, v)
			}
		}
	}
}

// TestRefusals: a resume that would change the run's game, net or optimizer method is refused
// before anything is written, with the key, both values and the reason.
func TestRefusals(t *testing.T) {
	dir := t.TempDir()
	cfg := tiny(t)
	cfg.Stop.Steps = 1
	if err := train.Run(context.Background(), yinsh.Blitz, cfg, dir, train.Options{}); err != nil {
		t.Fatal(err)
	}
	state, _ := os.ReadFile(filepath.Join(dir, "state.json"))
	other := cfg
	other.Net.Channels++
	otherGame := cfg
	otherGame.Game = "yinsh"
	sgd := cfg
	sgd.Optimizer.Method = "sgd"
	for _, tc := range []struct {
		name string
		cfg  train.Config
		says string
	}{
		{"another net", other, "net.channels: 8 → 9: a run keeps its net"},
		{"another game", otherGame, "game: yinsh-blitz → yinsh: a run keeps its game"},
		{"another optimizer", sgd, "optimizer.method: adam → sgd: the checkpoints hold this method's state"},
	} {
		g := yinsh.Blitz
		if tc.cfg.Game == "yinsh" {
			g = yinsh.Normal
		}
		err := train.Run(context.Background(), g, tc.cfg, dir, train.Options{})
		if err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.says)
		}
		if now, _ := os.ReadFile(filepath.Join(dir, "state.json")); string(now) != string(state) {
			t.Errorf("%s: the refused run changed state.json", tc.name)
		}
		if _, err := os.Stat(filepath.Join(dir, "config-history", "session-0002.yaml")); err == nil {
			t.Errorf("%s: the refused run recorded a session", tc.name)
		}
	}
	// state.json lost: the folder's checkpoints and games are not trained over from scratch.
	os.Remove(filepath.Join(dir, "state.json"))
	err := train.Run(context.Background(), yinsh.Blitz, cfg, dir, train.Options{})
	if err == nil || !strings.Contains(err.Error(), "no state.json, but the folder holds a run's files: ") ||
		!strings.Contains(err.Error(), filepath.Join(dir, "checkpoints", "*.zck")+" (1 file)") {
		t.Errorf("no state.json: err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "config-history", "session-0002.yaml")); err == nil {
		t.Errorf("no state.json: the refused run recorded a session")
	}
	if err := train.Run(context.Background(), yinsh.Normal, cfg, t.TempDir(), train.Options{}); err == nil ||
		!strings.Contains(err.Error(), "for yinsh-blitz, not yinsh") {
		t.Errorf("a yinsh-blitz configuration given to yinsh: %v", err)
	}
}

// TestInit: a run whose configuration names an init checkpoint starts from its weights, even
// those of another variant of the board (YINSH blitz weights for YINSH), or of a net with fewer
// blocks, which grows into the run's; one of another net, or a missing file, is refused before
// the run folder is made.
func TestInit(t *testing.T) {
	cfg := tiny(t)
	cfg.Stop.Steps = 10
	from := t.TempDir()
	if err := train.Run(context.Background(), yinsh.Blitz, cfg, from, train.Options{}); err != nil {
		t.Fatal(err)
	}
	initFile := filepath.Join(from, readState(t, from).Checkpoint)
	blitzSpec, _ := net.SpecOf(yinsh.Blitz.Info(), yinsh.Blitz)
	start, err := net.Load(models.ReadFile, initFile, blitzSpec)
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := net.SpecOf(yinsh.Normal.Info(), yinsh.Normal)
	// distance is the relative distance of the first checkpoint of a one-step YINSH run from
	// the init weights: one Adam step at the warm-up's rate moves them by a hair; random weights
	// are as far from them as they are large.
	distance := func(cfg train.Config) float64 {
		dir := t.TempDir()
		var out strings.Builder
		if err := train.Run(context.Background(), yinsh.Normal, cfg, dir, train.Options{Out: &out}); err != nil {
			t.Fatal(err)
		}
		if cfg.Init != "" && !strings.Contains(out.String(), "starting from the weights of "+initFile+" (yinsh-blitz, step 10)") {
			t.Errorf("the run does not say where it started:\n%s", out.String())
		}
		ck, err := net.Load(models.ReadFile, filepath.Join(dir, readState(t, dir).Checkpoint), spec)
		if err != nil {
			t.Fatal(err)
		}
		var d, n float64
		for i, p := range ck.Weights.Params {
			for j, x := range p.Data {
				y := float64(start.Weights.Params[i].Data[j])
				d += (float64(x) - y) * (float64(x) - y)
				n += y * y
			}
		}
		return math.Sqrt(d / n)
	}
	normal := cfg
	normal.Game = "yinsh"
	normal.Stop.Steps = 1
	fromInit := normal
	fromInit.Init = initFile
	if d := distance(fromInit); d > 0.05 {
		t.Errorf("started from %s: one step away at a relative distance of %.3f", initFile, d)
	} else {
		t.Logf("one step from the init weights: relative distance %.4f", d)
	}
	normal.Seed++ // the blitz run's seed would draw the same random weights it started from
	if d := distance(normal); d < 0.5 {
		t.Errorf("random weights at a relative distance of only %.3f: the check cannot tell", d)
	}

	// A net with more blocks grows from the checkpoint's: the blocks both have start where the
	// checkpoint left them (one step away), the new ones are there.
	deeper := fromInit
	deeper.Net.Blocks++
	dir := t.TempDir()
	var out strings.Builder
	if err := train.Run(context.Background(), yinsh.Normal, deeper, dir, train.Options{Out: &out}); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("deepened from %d residual blocks to %d", cfg.Net.Blocks, deeper.Net.Blocks); !strings.Contains(out.String(), want) {
		t.Errorf("the deeper run does not say %q:\n%s", want, out.String())
	}
	ck, err := net.Load(models.ReadFile, filepath.Join(dir, readState(t, dir).Checkpoint), spec)
	if err != nil {
		t.Fatal(err)
	}
	if ck.Header.Net != deeper.Net {
		t.Errorf("the deeper run's checkpoint holds %+v, want %+v", ck.Header.Net, deeper.Net)
	}
	var d, n float64
	for _, p := range start.Weights.Params {
		for j, y := range p.Data {
			x := ck.Weights.Param(p.Name).Data[j]
			d += float64(x-y) * float64(x-y)
			n += float64(y) * float64(y)
		}
	}
	if math.Sqrt(d/n) > 0.05 {
		t.Errorf("the deeper run's shared weights are at a relative distance of %.3f from the init's", math.Sqrt(d/n))
	}

	otherNet := fromInit
	otherNet.Net.Channels++
	shallower := fromInit
	shallower.Net.Blocks--
	missing := fromInit
	missing.Init = filepath.Join(from, "none.zck")
	for _, tc := range []struct {
		name string
		cfg  train.Config
		says string
	}{
		{"another net", otherNet, "holds another net"},
		{"fewer blocks", shallower, "cannot grow into it"},
		{"a missing file", missing, "none.zck"},
	} {
		dir := filepath.Join(t.TempDir(), "run")
		err := train.Run(context.Background(), yinsh.Normal, tc.cfg, dir, train.Options{})
		if err == nil || !strings.Contains(err.Error(), "init: ") || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: err = %v, want init: … %q", tc.name, err, tc.says)
		}
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("%s: the refused run made its folder", tc.name)
		}
	}
}

// TestLastPeriodRecorded: a session's last period is recorded when it stops, so that its
// metrics end where its state does: the last selfplay and ingest records at the state's step,
// the ingest's games_total the state's games, and the periods' counts summing to them (zero
// report's summary said "about 395 games" of a run whose log and dashboard said 494: the
// games after the last log period were in no record).
func TestLastPeriodRecorded(t *testing.T) {
	cfg := tiny(t)
	cfg.Stop.Steps, cfg.Eval.Games = 12, 0
	dir := t.TempDir()
	if err := train.Run(context.Background(), yinsh.Blitz, cfg, dir, train.Options{}); err != nil {
		t.Fatal(err)
	}
	var st runfolder.State
	data, err := os.ReadFile(filepath.Join(dir, "state.json"))
	if err == nil {
		err = json.Unmarshal(data, &st)
	}
	if err != nil {
		t.Fatal(err)
	}
	records, _, err := metrics.Read(filepath.Join(dir, "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	last := map[string]metrics.Record{}
	sum := 0.0
	for _, r := range records {
		last[r.Kind] = r
		if r.Kind == "ingest" {
			sum += r.Values["games"]
		}
	}
	for _, kind := range []string{"selfplay", "ingest"} {
		if r, ok := last[kind]; !ok || r.Step != st.Step {
			t.Errorf("the last %s record: %+v, want one at step %d", kind, r, st.Step)
		}
	}
	if got := last["ingest"].Values["games_total"]; got != float64(st.Games) || sum != float64(st.Games) || st.Games == 0 {
		t.Errorf("ingest: games_total %v, the periods' games %v; the state counts %d games", got, sum, st.Games)
	}
}

// TestLoggedLearningRate: a train record's lr is the rate of the last step it averages (the
// optimizer's LearningRateAt(step-1)), not the next step's: across a warm-up and a schedule's
// drop placed where records fall, the two differ at two of the three records.
func TestLoggedLearningRate(t *testing.T) {
	cfg := tiny(t)
	cfg.Optimizer.Warmup = 10
	cfg.Optimizer.Schedule = []net.LRStep{{Step: 10, Factor: 0.5}}
	cfg.Trainer.PublishEvery = 5
	cfg.Stop.Steps, cfg.Eval.Games = 15, 0
	dir := t.TempDir()
	if err := train.Run(context.Background(), yinsh.Blitz, cfg, dir, train.Options{}); err != nil {
		t.Fatal(err)
	}
	records, _, err := metrics.Read(filepath.Join(dir, "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lr := cfg.Optimizer.LearningRate
	want := map[int64]float64{5: lr * 5 / 10, 10: lr, 15: lr / 2}
	for _, r := range records {
		if r.Kind != "train" {
			continue
		}
		if w, ok := want[r.Step]; !ok {
			t.Errorf("a train record at step %d", r.Step)
		} else if got := r.Values["lr"]; math.Abs(got-w) > 1e-12 {
			t.Errorf("step %d: lr %v, want %v (the rate of step %d)", r.Step, got, w, r.Step)
		}
		delete(want, r.Step)
	}
	if len(want) > 0 {
		t.Errorf("no train record at steps %v", want)
	}
}

// TestConfigHistory: every session records its configuration in config-history/, a resume
// prints what changed since the last record and the record shows it; an edit of config.yaml
// (a learning-rate drop) is the next session's configuration and keeps the edit's comments; a
// run folder from before the history starts it from its config.yaml.
func TestConfigHistory(t *testing.T) {
	dir := t.TempDir()
	// session runs one session of cfg and checks that it printed what it should (a change, or
	// nothing changed) and that its record loads and says what it should.
	session := func(n int, cfg train.Config, opt train.Options, prints string, record ...string) {
		t.Helper()
		var out strings.Builder
		opt.Out = &out
		if err := train.Run(context.Background(), yinsh.Blitz, cfg, dir, opt); err != nil {
			t.Fatal(err)
		}
		if prints == "" && strings.Contains(out.String(), "changed") || !strings.Contains(out.String(), prints) {
			t.Errorf("session %d printed\n%s\nwant %q", n, out.String(), prints)
		}
		path := filepath.Join(dir, "config-history", fmt.Sprintf("session-%04d.yaml", n))
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if c, err := train.LoadConfig(path); err != nil {
			t.Errorf("session %d's record does not load: %v", n, err)
		} else if c.Optimizer.LearningRateAt(10) != cfg.Optimizer.LearningRateAt(10) || c.SelfPlay.Simulations != cfg.SelfPlay.Simulations {
			t.Errorf("session %d's record is not its configuration:\n%s", n, data)
		}
		for _, w := range record {
			if !strings.Contains(string(data), w) {
				t.Errorf("session %d's record lacks %q:\n%s", n, w, data)
			}
		}
	}
	cfg := tiny(t)
	cfg.Stop.Steps, cfg.Eval.Games = 1, 0
	session(1, cfg, train.Options{Command: "zero train --config tiny.yaml"}, "",
		"# Session 1 of this run: zero train --config tiny.yaml\n# started ", " at step 0\n# the run's first session\ngame: yinsh-blitz\n")

	// A learning-rate drop, by hand, in config.yaml; and a stop for this session only.
	path := filepath.Join(dir, "config.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), "    schedule: []\n",
		"    schedule: [{step: 1, factor: 0.5}] # the ladder is level: drop\n", 1)
	if edited == string(data) {
		t.Fatalf("no empty schedule in config.yaml:\n%s", data)
	}
	os.WriteFile(path, []byte(edited), 0o644)
	resumed, err := train.ReadConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	drop := "optimizer.schedule: [] → [{step: 1, factor: 0.5}]"
	session(2, resumed, train.Options{Stop: &train.StopConfig{Steps: 2}},
		"the configuration changed since config-history/session-0001.yaml:\n  "+drop+"\n",
		"# Session 2 of this run\n# started ", " at step 1 (checkpoints/step-00000001.zck)\n",
		"# stop for this session only (command line): steps 2, time 0s\n# changed since config-history/session-0001.yaml:\n#   "+drop+"\n")
	if now, _ := os.ReadFile(path); string(now) != edited {
		t.Errorf("config.yaml edited by hand was rewritten:\n%s", now)
	}
	session(3, resumed, train.Options{Stop: &train.StopConfig{Steps: 3}}, "",
		"# no setting changed since config-history/session-0002.yaml\n")

	// A run folder from before the history: its config.yaml is the last configuration.
	os.RemoveAll(filepath.Join(dir, "config-history"))
	more := resumed
	more.SelfPlay.Simulations = 12
	session(4, more, train.Options{Stop: &train.StopConfig{Steps: 4}},
		"changed since config.yaml:\n  selfplay.simulations: 8 → 12\n",
		"# sessions 1 to 3 ran before the configuration history, last with config.yaml\n# changed since then:\n#   selfplay.simulations: 8 → 12\n")
}

// TestDamagedCheckpoint: a run whose newest checkpoint is damaged resumes from the newest whole
// one before it, says so, and trains the steps since again; with none whole, it is refused.
func TestDamagedCheckpoint(t *testing.T) {
	if testing.Short() {
		t.Skip("trains for a few seconds")
	}
	dir := t.TempDir()
	cfg := tiny(t)
	cfg.Eval.Games = 0 // keep_last checkpoints, none kept for its rating
	cfg.Stop.Steps = 30
	if err := train.Run(context.Background(), yinsh.Blitz, cfg, dir, train.Options{}); err != nil {
		t.Fatal(err)
	}
	before := readState(t, dir)
	if before.Step != 30 || len(before.Checkpoints) != 2 {
		t.Fatalf("state: step %d, checkpoints %+v; want step 30 and two kept", before.Step, before.Checkpoints)
	}
	prev := before.Checkpoints[0]
	damage := func(file string) {
		path := filepath.Join(dir, file)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		data[len(data)/2] ^= 0x40
		os.WriteFile(path, data, 0o644)
	}
	// The damaged checkpoint had been rated (here by hand: evaluation is off): its player is
	// renamed with its file, so that the checkpoint trained again at its step is rated afresh.
	damagedName := runfolder.CheckpointEntry{File: before.Checkpoint}.Name()
	ladder := runfolder.Ladder{Players: []string{"random", damagedName}, Rated: []string{damagedName},
		Games: []selfplay.Outcome{{First: 1, Second: 0, Score: 1}}}
	writeJSON(t, filepath.Join(dir, "ratings.json"), &ladder)
	damage(before.Checkpoint)
	cfg.Stop.Steps = 25 // stops at once: resumed from step 20, it goes to 25
	var out strings.Builder
	if err := train.Run(context.Background(), yinsh.Blitz, cfg, dir, train.Options{Out: &out}); err != nil {
		t.Fatalf("resuming past a damaged checkpoint: %v\n%s", err, out.String())
	}
	for _, want := range []string{"resuming: " + filepath.Join(dir, before.Checkpoint) + " is damaged",
		"resuming from " + filepath.Join(dir, prev.File) + " (step 20) instead", "stopped at step 25"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the output lacks %q:\n%s", want, out.String())
		}
	}
	if _, err := os.Stat(filepath.Join(dir, before.Checkpoint+".damaged")); err != nil {
		t.Errorf("the damaged checkpoint is not kept aside: %v", err)
	}
	var got runfolder.Ladder
	readJSON(t, filepath.Join(dir, "ratings.json"), &got)
	if want := []string{"random", damagedName + ".damaged"}; !slices.Equal(got.Players, want) || !slices.Equal(got.Rated, want[1:]) || len(got.Games) != 1 {
		t.Errorf("ladder after the fallback: players %q, rated %q, %d games; want players %q, the game kept", got.Players, got.Rated, len(got.Games), want)
	}
	after := readState(t, dir)
	if after.Step != 25 || slices.ContainsFunc(after.Checkpoints, func(c runfolder.CheckpointEntry) bool { return c.Step == 30 }) {
		t.Errorf("state after the fallback: step %d, checkpoints %+v", after.Step, after.Checkpoints)
	}

	// Trained to step 30 again and damaged again: set aside beside the first, which is kept.
	cfg.Stop.Steps = 30
	if err := train.Run(context.Background(), yinsh.Blitz, cfg, dir, train.Options{}); err != nil {
		t.Fatal(err)
	}
	writeJSON(t, filepath.Join(dir, "ratings.json"), &runfolder.Ladder{Players: []string{"random", damagedName + ".damaged", damagedName}})
	damage(before.Checkpoint)
	cfg.Stop.Steps = 25
	if err := train.Run(context.Background(), yinsh.Blitz, cfg, dir, train.Options{}); err != nil {
		t.Fatalf("resuming past a second damaged checkpoint at one step: %v", err)
	}
	for _, suffix := range []string{".damaged", ".damaged-2"} {
		if _, err := os.Stat(filepath.Join(dir, before.Checkpoint+suffix)); err != nil {
			t.Errorf("%s: %v", suffix, err)
		}
	}
	readJSON(t, filepath.Join(dir, "ratings.json"), &got)
	if want := []string{"random", damagedName + ".damaged", damagedName + ".damaged-2"}; !slices.Equal(got.Players, want) {
		t.Errorf("ladder after the second fallback: players %q, want %q", got.Players, want)
	}
	after = readState(t, dir)

	// Every checkpoint damaged: refused, naming the newest, with the folder as it was (the
	// session was recorded and counted before the weights were read).
	for _, c := range after.Checkpoints {
		damage(c.File)
	}
	was := snapshot(dir)
	cfg.Stop.Steps = 100
	err := train.Run(context.Background(), yinsh.Blitz, cfg, dir, train.Options{})
	if err == nil || !strings.Contains(err.Error(), "resuming from "+filepath.Join(dir, after.Checkpoint)) ||
		!strings.Contains(err.Error(), "no checkpoint before it is whole") {
		t.Errorf("every checkpoint damaged: %v", err)
	}
	unchanged(t, "every checkpoint damaged", was, snapshot(dir))
}

// snapshot is the content of every file in dir but the lock file (it names the process that
// holds the folder: any trainer rewrites it).
func snapshot(dir string) map[string]string {
	files := map[string]string{}
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() != "lock" {
			data, _ := os.ReadFile(path)
			files[path] = string(data)
		}
		return nil
	})
	return files
}

// unchanged checks that a refused run left the files of was as they were.
func unchanged(t *testing.T, what string, was, now map[string]string) {
	t.Helper()
	for path, data := range now {
		if was[path] != data {
			t.Errorf("%s: the refused run changed or wrote %s", what, path)
		}
	}
	for path := range was {
		if _, ok := now[path]; !ok {
			t.Errorf("%s: the refused run removed %s", what, path)
		}
	}
}

// TestTrimWhileRating: the checkpoints past keep_last are deleted as new ones are written while
// an evaluation is under way (here step 10's, which outlasts the test): only the one rated stays
// beside the last keep_last. They used to stay until an evaluation ended.
func TestTrimWhileRating(t *testing.T) {
	if testing.Short() {
		t.Skip("trains for a few seconds")
	}
	dir := t.TempDir()
	cfg := tiny(t)
	cfg.Eval.Games, cfg.Eval.Simulations = 100_000, 400
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- train.Run(ctx, yinsh.Blitz, cfg, dir, train.Options{}) }()
	deadline := time.After(2 * time.Minute)
	for readState(t, dir).Step < 50 {
		select {
		case err := <-done:
			t.Fatalf("the run ended by itself: %v", err)
		case <-deadline:
			t.Fatal("no checkpoint at step 50 within two minutes")
		case <-time.After(10 * time.Millisecond):
		}
	}
	cancel() // the evaluation is stopped, and a last checkpoint written
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("the run, cancelled: %v", err)
	}
	st := readState(t, dir)
	var listed []string
	for _, c := range st.Checkpoints {
		listed = append(listed, filepath.Base(c.File))
	}
	onDisk, _ := filepath.Glob(filepath.Join(dir, "checkpoints", "*.zck"))
	for i, p := range onDisk {
		onDisk[i] = filepath.Base(p)
	}
	if !slices.Equal(onDisk, listed) || len(listed) != cfg.Trainer.KeepLast+1 || listed[0] != "step-00000010.zck" {
		t.Errorf("at step %d, with step 10 rated: checkpoints on disk %q, listed %q; want step 10's and the last %d", st.Step, onDisk, listed, cfg.Trainer.KeepLast)
	}
}

// TestReplacedCheckpoint: a resume whose state.json lists a checkpoint that is whole but not the
// file the run wrote (another run's of the same name, as a second trainer in the folder wrote)
// is refused before anything is written, naming the file; the run's own file back, it
// resumes. A damaged one is still fallen back past (TestDamagedCheckpoint), and a state.json
// from before the files' digests were recorded resumes unchecked.
func TestReplacedCheckpoint(t *testing.T) {
	if testing.Short() {
		t.Skip("trains for a few seconds")
	}
	dir, otherDir := t.TempDir(), t.TempDir()
	cfg := tiny(t)
	cfg.Eval.Games = 0
	cfg.Stop.Steps = 20
	other := cfg
	other.Seed++
	if err := train.Run(context.Background(), yinsh.Blitz, cfg, dir, train.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := train.Run(context.Background(), yinsh.Blitz, other, otherDir, train.Options{}); err != nil {
		t.Fatal(err)
	}
	st := readState(t, dir)
	if len(st.Checkpoints) != 2 {
		t.Fatalf("checkpoints %+v, want steps 10 and 20", st.Checkpoints)
	}
	for _, c := range st.Checkpoints {
		data, err := os.ReadFile(filepath.Join(dir, c.File))
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(data); c.Session != 1 || c.Size != int64(len(data)) || c.SHA256 != hex.EncodeToString(sum[:]) {
			t.Errorf("%s recorded as session %d, %d bytes, SHA-256 %s; want session 1, %d bytes, %x", c.File, c.Session, c.Size, c.SHA256, len(data), sum)
		}
	}
	replace := func(file string) (restore func()) {
		path := filepath.Join(dir, file)
		own, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		theirs, err := os.ReadFile(filepath.Join(otherDir, file))
		if err == nil {
			err = os.WriteFile(path, theirs, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
		return func() {
			if err := os.WriteFile(path, own, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	cfg.Stop.Steps = 25
	for _, c := range st.Checkpoints { // the older, an opponent and fallback; the newest, resumed from
		restore := replace(c.File)
		was := snapshot(dir)
		err := train.Run(context.Background(), yinsh.Blitz, cfg, dir, train.Options{})
		want := fmt.Sprintf("resuming: %s is not the checkpoint state.json lists (written by session 1: %d bytes, SHA-256 %.12s…) but another, of step %d saved ",
			filepath.Join(dir, c.File), c.Size, c.SHA256, c.Step)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("step %d replaced by another run's: %v, want %q", c.Step, err, want)
		}
		unchanged(t, fmt.Sprintf("step %d replaced", c.Step), was, snapshot(dir))
		restore()
	}
	// A state.json from before the digests: the files are not checked.
	st = readState(t, dir)
	for i := range st.Checkpoints {
		st.Checkpoints[i].Session, st.Checkpoints[i].Size, st.Checkpoints[i].SHA256 = 0, 0, ""
	}
	writeJSON(t, filepath.Join(dir, "state.json"), &st)
	replace(st.Checkpoint)
	if err := train.Run(context.Background(), yinsh.Blitz, cfg, dir, train.Options{}); err != nil {
		t.Errorf("a state.json without digests: %v", err)
	}
	if st := readState(t, dir); st.Step != 25 || st.Sessions != 2 {
		t.Errorf("a state.json without digests: resumed to step %d in session %d, want step 25 in session 2", st.Step, st.Sessions)
	}
}

// TestDivergedStepIsNotSaved: a step whose loss is not finite (a learning rate of 1e30 sends
// the weights past float32's range) ends the session with an error that says so, and writes no
// checkpoint of the weights it left (it used to save them, batchnorm statistics of NaN and
// all, as the run's newest: every resume then failed on them at once); state.json still names
// the last good checkpoint, whose weights are finite.
func TestDivergedStepIsNotSaved(t *testing.T) {
	cfg := tiny(t)
	cfg.Stop.Steps = 10
	dir := t.TempDir()
	if err := train.Run(context.Background(), yinsh.Blitz, cfg, dir, train.Options{}); err != nil {
		t.Fatal(err)
	}
	good := readState(t, dir).Checkpoint
	cfg.Stop.Steps = 1000
	cfg.Optimizer.LearningRate = 1e30
	err := train.Run(context.Background(), yinsh.Blitz, cfg, dir, train.Options{})
	if err == nil || !strings.Contains(err.Error(), "loss is") || !strings.Contains(err.Error(), "resumes from its last checkpoint, step 10") {
		t.Fatalf("a diverged run ended with %v", err)
	}
	st := readState(t, dir)
	if st.Checkpoint != good {
		t.Errorf("state.json names %s after the failed step, not the last good checkpoint %s", st.Checkpoint, good)
	}
	spec, _ := net.SpecOf(yinsh.Blitz.Info(), yinsh.Blitz)
	ck, err := net.Load(models.ReadFile, filepath.Join(dir, st.Checkpoint), spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ck.Weights.Params {
		for _, x := range p.Data {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				t.Fatalf("the checkpoint state.json names holds %v in %s", x, p.Name)
			}
		}
	}
}
