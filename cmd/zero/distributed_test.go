package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/zerogames/zero/configs"
	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/yinsh"
	znet "github.com/zerogames/zero/net"
	"github.com/zerogames/zero/train"
	"github.com/zerogames/zero/train/dist"
	"github.com/zerogames/zero/train/metrics"
	"github.com/zerogames/zero/train/replay"
)

// The multi-process test, on 127.0.0.1: a trainer with --listen and two zero worker
// processes on the tiny configuration; a worker and the trainer killed with SIGKILL in the
// middle of their work, then both started again; every game a worker was told the server
// had (its --journal) is in the replay buffer exactly once, and no game is there twice. Then
// the refusals: a wrong token, a build of other rules, a forged game; and a worker whose
// server stops keeps its games in its outbox and delivers them once the server is back.

// proc is a zero process of the test binary (newGameEnv makes it zero), its output in a file.
type proc struct {
	cmd    *exec.Cmd
	out    string
	exited chan struct{} // closed when the process has ended
}

func startZero(t *testing.T, dir, name string, args ...string) *proc {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, name+".log")
	f, err := os.OpenFile(out, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), newGameEnv+"=1")
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	p := &proc{cmd: cmd, out: out, exited: make(chan struct{})}
	go func() {
		cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() { p.kill() })
	return p
}

// kill ends the process with SIGKILL (if it still runs) and waits for its end.
func (p *proc) kill() {
	p.cmd.Process.Kill()
	<-p.exited
}

// stop interrupts the process and waits for it to end by itself.
func (p *proc) stop(t *testing.T) {
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not stop within 30s:\n%s", p.out, p.log())
	}
}

func (p *proc) log() string {
	data, _ := os.ReadFile(p.out)
	return string(data)
}

// lines reads a journal's whole lines.
func lines(path string) []string {
	data, _ := os.ReadFile(path)
	var out []string
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	if len(data) > 0 && data[len(data)-1] != '\n' && len(out) > 0 {
		out = out[:len(out)-1] // cut by a kill
	}
	return out
}

// waitFor polls cond every 50ms for up to d.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool, procs ...*proc) {
	t.Helper()
	for end := time.Now().Add(d); !cond(); {
		if time.Now().After(end) {
			var logs strings.Builder
			for _, p := range procs {
				fmt.Fprintf(&logs, "--- %s\n%s\n", p.out, p.log())
			}
			t.Fatalf("%s: not within %s\n%s", what, d, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func freeAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// distConfig is the tiny preset for these tests: one local worker, no evaluation, a window
// that keeps every game (to count them).
func distConfig(t *testing.T, dir string) string {
	cfg, err := configs.Load("tiny")
	if err != nil {
		t.Fatal(err)
	}
	cfg.SelfPlay.Workers, cfg.Eval.Games = 1, 0
	cfg.Replay.Window.Min, cfg.Replay.Window.Max = 1_000_000, 1_000_000
	data, err := cfg.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "dist.yaml")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestDistributed(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a trainer and workers for a while")
	}
	dir := t.TempDir()
	config, addr := distConfig(t, dir), freeAddr(t)
	runDir := filepath.Join(dir, "run")
	token := filepath.Join(runDir, "worker.token")
	trainArgs := []string{"train", "--config", config, "--run", runDir, "--listen", addr, "--log", "1s"}
	trainer := startZero(t, dir, "trainer", trainArgs...)
	waitFor(t, 30*time.Second, "the trainer's token", func() bool { _, err := os.Stat(token); return err == nil }, trainer)

	url := "nats://" + addr
	workerArgs := func(name string) []string {
		return []string{"worker", "--connect", url, "--creds", token, "--workers", "1", "--name", name,
			"--dir", filepath.Join(dir, name), "--journal", filepath.Join(dir, name+".journal"), "--log", "1s"}
	}
	a := startZero(t, dir, "a", workerArgs("a")...)
	b := startZero(t, dir, "b", workerArgs("b")...)
	all := []*proc{trainer, a, b}
	journalA, journalB := filepath.Join(dir, "a.journal"), filepath.Join(dir, "b.journal")
	waitFor(t, 60*time.Second, "games from both workers", func() bool { return len(lines(journalA)) >= 5 && len(lines(journalB)) >= 5 }, all...)

	// Killed mid-game: a worker, then the trainer; b plays on, its games into its outbox.
	a.kill()
	nA := len(lines(journalA))
	trainer.kill()
	nB := len(lines(journalB))
	outbox := filepath.Join(dir, "b", "outbox")
	waitFor(t, 30*time.Second, "a game in b's outbox while the server is down", func() bool {
		files, _ := filepath.Glob(filepath.Join(outbox, "*", "*.game")) // one folder a game and rules revision
		return len(files) > 0
	}, b)
	trainer = startZero(t, dir, "trainer", trainArgs...)
	a = startZero(t, dir, "a", workerArgs("a")...)
	all = []*proc{trainer, a, b}
	waitFor(t, 60*time.Second, "games from both workers after the restarts", func() bool {
		return len(lines(journalA)) >= nA+5 && len(lines(journalB)) >= nB+5
	}, all...)

	// The workers stop (their queues go to the server), the trainer takes everything waiting.
	a.stop(t)
	b.stop(t)
	// (A game may be left in the outbox by the stop itself: the next run of b sends it.)
	if !strings.Contains(b.log(), "games from the outbox (0 left)") {
		t.Errorf("b did not send its outbox's games; its log:\n%s", b.log())
	}
	c, err := dist.Connect(url, dist.Auth{Creds: token}, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	// A forger with the workers' token: a game with an illegal move, a game of other rules,
	// bytes that are no game. The trainer refuses each, says so, and counts them.
	forge(t, url, token)
	waitFor(t, 30*time.Second, "the forged games refused and counted", func() bool {
		return strings.Count(trainer.log(), `refused game "forger/`) == 3 && refusedTotal(filepath.Join(runDir, "metrics.jsonl")) >= 3
	}, trainer)
	waitFor(t, 30*time.Second, "the stream emptied by the trainer", func() bool {
		n, _, err := c.Stats(context.Background())
		return err == nil && n == 0
	}, trainer)
	c.Close()
	trainer.stop(t)

	cfg, _ := train.LoadConfig(config)
	buf, err := replay.Open(filepath.Join(runDir, "replay"), cfg.Game, cfg.Replay.Window, 0)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	buf.Each(func(g *replay.Game) {
		seen[g.ID]++
		if err := replay.Check(yinsh.Blitz, g); err != nil {
			t.Errorf("game %s in the buffer: %v", g.ID, err)
		}
	})
	buf.Close()
	byWorker := map[string]int{}
	for id, n := range seen {
		byWorker[strings.Split(id, "/")[0]]++
		if strings.HasPrefix(id, "forger/") {
			t.Errorf("the forged game %s is in the buffer", id)
		}
		if n != 1 {
			t.Errorf("game %s is %d times in the buffer", id, n)
		}
	}
	for _, j := range []string{journalA, journalB} {
		ids := lines(j)
		missing := 0
		for _, id := range ids {
			if seen[id] == 0 {
				missing++
				t.Errorf("game %s, which the server took, is not in the buffer", id)
			}
		}
		t.Logf("%s: %d games published, %d missing", filepath.Base(j), len(ids), missing)
	}
	t.Logf("the buffer holds %d games: %v", len(seen), byWorker)
	if byWorker["train"] == 0 {
		t.Errorf("no game of the trainer's own worker")
	}
}

// forge publishes three bad games as a worker could: an illegal move, another rules
// revision, and bytes that are no record.
func forge(t *testing.T, url, token string) {
	t.Helper()
	data, _ := os.ReadFile(token)
	nc, err := nats.Connect(url, nats.UserInfo(dist.WorkerUser, strings.TrimSpace(string(data))))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	info := yinsh.Blitz.Info()
	illegal, _ := replay.AppendGame(nil, &replay.Game{ID: "forger/1/1", Actions: []env.Action{5015}, Result: env.Win0})
	legal := yinsh.Blitz.New().Legal(nil)
	other, _ := replay.AppendGame(nil, &replay.Game{ID: "forger/1/2", Actions: legal[:1], Result: env.Win0})
	for i, m := range []struct {
		rules int
		data  []byte
	}{{info.Rules, illegal}, {info.Rules + 1, other}, {info.Rules, []byte("no game at all")}} {
		msg := nats.NewMsg(dist.Subject)
		msg.Data = m.data
		msg.Header.Set("Zero-Protocol", fmt.Sprint(dist.Protocol))
		msg.Header.Set("Zero-Game", info.Name)
		msg.Header.Set("Zero-Rules", fmt.Sprint(m.rules))
		msg.Header.Set("Zero-Worker", "forger")
		if _, err := js.PublishMsg(context.Background(), msg, jetstream.WithMsgID(fmt.Sprintf("forger/1/%d", i+1))); err != nil {
			t.Fatal(err)
		}
	}
}

// refusedTotal is the newest ingest record's count of refused games in a metrics file.
func refusedTotal(path string) float64 {
	records, _, err := metrics.Read(path)
	if err != nil {
		return 0
	}
	n := 0.0
	for _, r := range records {
		if r.Kind == "ingest" {
			n = r.Values["refused_total"]
		}
	}
	return n
}

// TestWorkerRefusals: zero worker refuses a wrong token, and a run of another rules revision
// or net than its build's, before playing, saying why.
func TestWorkerRefusals(t *testing.T) {
	dir := t.TempDir()
	token, _ := dist.NewToken()
	srv, err := dist.StartServer(dist.ServerConfig{Dir: filepath.Join(dir, "nats"), Listen: "127.0.0.1:0", WorkerToken: token})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	c, err := srv.Connect("test trainer", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	if err := c.Setup(ctx, dist.DefaultLimits()); err != nil {
		t.Fatal(err)
	}
	cfg, _ := configs.Load("tiny")
	config, _ := cfg.Marshal()
	good, bad := filepath.Join(dir, "worker.token"), filepath.Join(dir, "wrong.token")
	os.WriteFile(good, []byte(token+"\n"), 0o600)
	os.WriteFile(bad, []byte("0123456789abcdef0123456789abcdef\n"), 0o600)
	url := "nats://" + srv.Addr()
	worker := func(creds string) error {
		var out strings.Builder
		ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		return run(ctx, []string{"worker", "--connect", url, "--creds", creds, "--dir", filepath.Join(dir, "w")}, nil, &out, &out)
	}
	if err := worker(bad); !errors.Is(err, dist.ErrRefused) || !strings.Contains(err.Error(), "Authorization Violation") || !strings.Contains(err.Error(), bad) {
		t.Errorf("a wrong token: %v; want dist.ErrRefused, naming %s", err, bad)
	}
	info := *yinsh.Blitz.Info()
	for _, tc := range []struct {
		change func(*dist.RunInfo)
		want   string
	}{
		{func(ri *dist.RunInfo) { ri.Rules++ }, fmt.Sprintf("the run plays revision %d of yinsh-blitz's rules, this build revision %d", info.Rules+1, info.Rules)},
		{func(ri *dist.RunInfo) { ri.Encoding++ }, "version"},
		{func(ri *dist.RunInfo) { ri.NumActions++ }, "actions"},
		{func(ri *dist.RunInfo) { ri.Protocol++ }, "protocol"},
		{func(ri *dist.RunInfo) { ri.Net.Blocks++ }, "is not its info's"},
	} {
		ri := dist.InfoOf(&info, cfg.Net)
		tc.change(&ri)
		if err := c.PutRun(ctx, ri, config); err != nil {
			t.Fatal(err)
		}
		if err := worker(good); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("a run of %+v: %v, want %q", ri, err, tc.want)
		}
	}
}

// lockedBuffer is a worker's output, written by its goroutines while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestWorkerTokenChanged: a zero worker playing for a run whose server is started again on its
// store and address, as a trainer's restart does. With the same token it reconnects and
// publishes on. With a new token it stops within dist.MaxAuthRefusals reconnections, with an
// error naming its credentials file and what to do, and leaves its outbox as it is: the games
// it finished are there, and no new one comes. It played on into its outbox for ever.
func TestWorkerTokenChanged(t *testing.T) {
	dir, addr := t.TempDir(), freeAddr(t)
	token, _ := dist.NewToken()
	scfg := dist.ServerConfig{Dir: filepath.Join(dir, "nats"), Listen: addr, WorkerToken: token}
	cfg, _ := configs.Load("tiny")
	config, _ := cfg.Marshal()
	g := yinsh.Blitz
	spec, err := znet.SpecOf(g.Info(), g)
	if err != nil {
		t.Fatal(err)
	}
	weights, err := znet.NewWeights(spec, cfg.Net, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	ckpt := filepath.Join(dir, "net.zck")
	if err := znet.Save(ckpt, weights, nil, 1, time.Now()); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// trainer starts the server and sets the run up on it, as zero train --listen does.
	var srv *dist.Server
	trainer := func() {
		t.Helper()
		if srv, err = dist.StartServer(scfg); err != nil {
			t.Fatal(err)
		}
		c, err := srv.Connect("test trainer", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if err := c.Setup(ctx, dist.DefaultLimits()); err != nil {
			t.Fatal(err)
		}
		if err := c.PutRun(ctx, dist.InfoOf(g.Info(), cfg.Net), config); err != nil {
			t.Fatal(err)
		}
		if err := c.PutWeights(ctx, ckpt, 1); err != nil {
			t.Fatal(err)
		}
	}
	trainer()
	defer func() { srv.Shutdown() }()

	creds, journal, wdir := filepath.Join(dir, "worker.token"), filepath.Join(dir, "w.journal"), filepath.Join(dir, "w")
	os.WriteFile(creds, []byte(token+"\n"), 0o600)
	var out lockedBuffer
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- run(wctx, []string{"worker", "--connect", "nats://" + addr, "--creds", creds, "--workers", "1",
			"--dir", wdir, "--journal", journal, "--log", "1s"}, nil, &out, &out)
	}()
	published := func(n int, what string) {
		t.Helper()
		for end := time.Now().Add(30 * time.Second); len(lines(journal)) < n; time.Sleep(20 * time.Millisecond) {
			select {
			case err := <-done:
				t.Fatalf("%s: the worker stopped: %v; its output:\n%s", what, err, &out)
			default:
			}
			if time.Now().After(end) {
				t.Fatalf("%s: %d games published after 30s, want %d; the worker's output:\n%s", what, len(lines(journal)), n, &out)
			}
		}
	}
	published(2, "before the restarts")

	srv.Shutdown()
	trainer()
	published(len(lines(journal))+2, "after a restart with the same token")

	srv.Shutdown()
	scfg.WorkerToken, _ = dist.NewToken()
	trainer()
	restarted := time.Now()
	// A reconnection a second (and up to 0.1 s of jitter), and a few seconds to stop.
	bound := time.Duration(dist.MaxAuthRefusals)*1100*time.Millisecond + 5*time.Second
	select {
	case err = <-done:
	case <-time.After(bound):
		t.Fatalf("the worker plays on %v after its token was replaced; its output:\n%s", bound, &out)
	}
	t.Logf("stopped %v after the restart with a new token: %v", time.Since(restarted).Round(time.Millisecond), err)
	if !errors.Is(err, dist.ErrRefused) || !strings.Contains(err.Error(), creds) || !strings.Contains(err.Error(), "copy worker.token from the trainer's run folder") {
		t.Errorf("the worker's error: %v; want dist.ErrRefused, naming %s and what to do", err, creds)
	}
	// Its last line says how many games it left in its outbox: they are there, and stay.
	m := regexp.MustCompile(`stopped after \d+ games? \((\d+) published, (\d+) in the outbox\)`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no line of the worker's stop in its output:\n%s", &out)
	}
	outbox := func() int {
		files, _ := filepath.Glob(filepath.Join(wdir, "outbox", "*", "*.game"))
		return len(files)
	}
	n := outbox()
	time.Sleep(500 * time.Millisecond)
	if fmt.Sprint(n) != m[2] || outbox() != n {
		t.Errorf("the outbox holds %d games, then %d; the worker said %s", n, outbox(), m[2])
	}
}
