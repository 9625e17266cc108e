package dash

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/yinsh"
	"github.com/zerogames/zero/internal/games"
	"github.com/zerogames/zero/internal/games/all"
	"github.com/zerogames/zero/internal/games/gamestest"
	"github.com/zerogames/zero/selfplay"
	"github.com/zerogames/zero/train/metrics"
	"github.com/zerogames/zero/train/replay"
	"github.com/zerogames/zero/train/runfolder"
)

// TestMain fills the registries with the binary's games, as zero does before any command.
func TestMain(m *testing.M) {
	all.Register()
	os.Exit(m.Run())
}

// start is the synthetic runs' first record's time.
var start = time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)

// writeRun makes a small yinsh-blitz run folder in runs/name as zero train leaves it, with
// the train package's own writers where they are exported (metrics, the replay buffer, the
// state's and the ladder's types): steps records of each kind every 10 steps, a checkpoint
// (a real, loadable one) every 100 with its evaluation, the games self-play games. It returns
// the folder.
func writeRun(t *testing.T, runs, name string, steps, nGames int) string {
	t.Helper()
	dir := filepath.Join(runs, name)
	if err := os.MkdirAll(filepath.Join(dir, "checkpoints"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, runfolder.ConfigFile), []byte("game: yinsh-blitz\n"), 0o644)
	l, err := metrics.Create(filepath.Join(dir, runfolder.MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	g, _ := games.Lookup("yinsh-blitz")
	st := runfolder.State{Game: "yinsh-blitz", Sessions: 1, Games: int64(nGames), Samples: int64(nGames) * 40}
	ladder := runfolder.Ladder{Players: []string{"random"}}
	for step := 10; step <= steps; step += 10 {
		at := start.Add(time.Duration(step) * time.Second)
		elapsed := float64(step)
		writeRecord(t, l, "train", step, at, elapsed, map[string]float64{"loss": 4 - float64(step)/100, "policy_loss": 3, "value_loss": 1 - float64(step)/1000})
		writeRecord(t, l, "selfplay", step, at, elapsed, map[string]float64{"games_per_s": 2, "samples_per_s": 80, "simulations_per_s": 4000, "steps_per_s": 1, "samples_total": float64(step) * 50})
		if step%100 != 0 {
			continue
		}
		e := runfolder.CheckpointEntry{File: fmt.Sprintf("checkpoints/step-%08d.zck", step), Step: int64(step), Elapsed: elapsed}
		gamestest.Checkpoint(t, g, filepath.Join(dir, e.File))
		st.Checkpoints = append(st.Checkpoints, e)
		st.Step, st.Checkpoint, st.Elapsed = e.Step, e.File, e.Elapsed
		me := len(ladder.Players)
		ladder.Players = append(ladder.Players, e.Name())
		for k := range 10 {
			// Each checkpoint scores 70% against random and 60% against the one before.
			ladder.Games = append(ladder.Games, selfplay.Outcome{First: me, Second: 0, Score: win(k < 7)})
			if me > 1 {
				ladder.Games = append(ladder.Games, selfplay.Outcome{First: me, Second: me - 1, Score: win(k < 6)})
			}
		}
		ladder.Rated = append(ladder.Rated, e.Name())
		r, err := selfplay.Rate(ladder.Players, ladder.Games, 0, 2)
		if err != nil {
			t.Fatal(err)
		}
		ladder.Ratings = &r
		mine := r.Players[me]
		writeRecord(t, l, "eval", step, at, elapsed, map[string]float64{"checkpoint_step": float64(step), "score_random": 0.7,
			"elo": mine.Elo, "elo_low": mine.Elo - mine.CI95, "elo_high": mine.Elo + mine.CI95})
	}
	l.Close()
	writeJSON := func(file string, v any) {
		data, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, file), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeJSON(runfolder.StateFile, st)
	if len(ladder.Rated) > 0 {
		writeJSON(runfolder.RatingsFile, ladder)
	}
	if nGames > 0 {
		b, err := replay.Open(filepath.Join(dir, runfolder.ReplayDir), "yinsh-blitz", replay.Window{Min: 1000, Max: 1000, Exponent: 0.75, Growth: 0.4}, 0)
		if err != nil {
			t.Fatal(err)
		}
		for i := range nGames {
			if err := b.Add(randomGame(uint64(i), int64(i*10), fmt.Sprintf("w/s1/%d", i+1))); err != nil {
				t.Fatal(err)
			}
		}
		b.Close()
	}
	return dir
}

func win(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func writeRecord(t *testing.T, l *metrics.Log, kind string, step int, at time.Time, elapsed float64, values map[string]float64) {
	t.Helper()
	if err := l.Write(metrics.Record{Kind: kind, Step: int64(step), Time: at, Elapsed: elapsed, Values: values}); err != nil {
		t.Fatal(err)
	}
}

// randomGame is a yinsh-blitz game of random moves, as self-play records one.
func randomGame(seed uint64, step int64, id string) *replay.Game {
	rng := rand.New(rand.NewPCG(seed, 7))
	w := env.NewWalker[yinsh.State](rng, yinsh.NumActions)
	s := yinsh.Blitz.New()
	g := &replay.Game{Step: step, ID: id}
	for s.ToMove() != env.Terminal {
		legal := s.Legal(nil)
		if len(legal) > 1 {
			g.Targets = append(g.Targets, replay.Target{Ply: len(g.Actions), Policy: []replay.PolicyEntry{{Action: legal[0], Prob: 1}}})
		}
		a := w.Step(s)
		g.Actions = append(g.Actions, a)
		s = s.Play(a)
	}
	g.Result = s.Result()
	return g
}

// appendLine appends raw text to a run's metrics file, as a writer mid-append leaves it.
func appendLine(t *testing.T, dir, text string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, runfolder.MetricsFile), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

func recordLine(kind string, step int, elapsed float64, values map[string]float64) string {
	data, _ := json.Marshal(metrics.Record{Kind: kind, Step: int64(step), Time: start.Add(time.Duration(elapsed) * time.Second), Elapsed: elapsed, Values: values})
	return string(data) + "\n"
}

// metricsReply is /api/run/metrics's answer as a test reads it.
type metricsReply struct {
	Gen   int     `json:"gen"`
	From  int     `json:"from"`
	Next  int     `json:"next"`
	Reset bool    `json:"reset"`
	Hours float64 `json:"hours"`
	Kinds map[string]struct {
		Step    []int64               `json:"step"`
		Elapsed []*float64            `json:"elapsed"`
		Values  map[string][]*float64 `json:"values"`
	} `json:"kinds"`
}

func get(t *testing.T, h http.Handler, method, target string) (int, []byte, http.Header) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, target, nil))
	body, _ := io.ReadAll(rec.Result().Body)
	return rec.Code, body, rec.Result().Header
}

// TestAPI holds the dashboard's endpoints to what docs/PLAY.md says: the list, one run, the
// metrics by increments, the games, and the errors (an unknown run, a name that is a path, a
// wrong method), on synthetic run folders.
func TestAPI(t *testing.T) {
	runs := t.TempDir()
	big := writeRun(t, runs, "blitz", 300, 25)
	writeRun(t, runs, "young", 30, 0) // no checkpoint, no game yet
	writeRun(t, runs, "fresh", 30, 0) // its replay folder made, no shard in it yet (zero train's start)
	if err := os.MkdirAll(filepath.Join(runs, "fresh", runfolder.ReplayDir), 0o755); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(runs, "not-a-run"), 0o755)
	os.MkdirAll(filepath.Join(runs, ".hidden"), 0o755)
	os.WriteFile(filepath.Join(runs, ".hidden", runfolder.StateFile), []byte("{}"), 0o644)
	os.WriteFile(filepath.Join(runs, "secret.txt"), []byte("no"), 0o644)
	d := New(Options{RunsDir: runs, Games: 8})
	h := d.Wrap(http.NotFoundHandler())

	tests := []struct {
		name, method, target string
		status               int
		want                 []string // in the body
	}{
		{"the list", "GET", "/api/runs", 200, []string{`"name":"blitz"`, `"name":"young"`, `"game":"yinsh-blitz"`, `"step":300`,
			`"checkpoint":"step-00000300"`, `"samples":15000`, `"worked":"5m"`, `"worked":"30s"`, `"training":false`, `"play":"/?game=yinsh-blitz\u0026opponent=mcts%3A400%3Aruns%2Fblitz%2Fstep-00000300.zck\u0026side=white"`}},
		{"one run", "GET", "/api/run?run=blitz", 200, []string{`"name":"blitz"`, `"checkpoints":[{"name":"step-00000100","step":100`,
			`"ladder":[{"name":"step-`, `"anchor":"random"`, `"charts":[{"id":"loss"`, `"band":true`, `"remote":true`, `"local_worker":"train"`, `"players":["white","black"]`}},
		{"a run without checkpoints", "GET", "/api/run?run=young", 200, []string{`"checkpoint":""`, `"ladder":[]`, `"step":30`}},
		{"metrics", "GET", "/api/run/metrics?run=blitz", 200, []string{`"reset":true`, `"next":63`, `"loss":[3.9,`, `"elo_low":[`}},
		{"games", "GET", "/api/run/games?run=blitz", 200, []string{`"game":"yinsh-blitz"`, `"id":"w/s1/25"`, `"moves":["place `}},
		{"no games yet", "GET", "/api/run/games?run=young", 200, []string{`"games":[]`}},
		{"no games yet, the replay folder made", "GET", "/api/run/games?run=fresh", 200, []string{`"games":[]`}},
		{"one game", "GET", "/api/run/game?run=blitz&id=w/s1/24", 200, []string{`"id":"w/s1/24"`, `"boards":["`, `"to_move":["white"`}},
		{"a game not among the newest", "GET", "/api/run/game?run=blitz&id=w/s1/1", 404, []string{`"error":"no game \"w/s1/1\" among the run's 8 newest"`}},
		{"a game without id", "GET", "/api/run/game?run=blitz", 400, []string{`"error":"id: `}},
		{"an unknown run", "GET", "/api/run?run=nothing", 404, []string{`"error":"no run \"nothing\" in the runs folder"`}},
		{"a folder that is not a run", "GET", "/api/run/metrics?run=not-a-run", 404, []string{`no run \"not-a-run\"`}},
		{"a file of the runs folder", "GET", "/api/run?run=secret.txt", 404, []string{`no run \"secret.txt\"`}},
		{"no run named", "GET", "/api/run/games", 400, []string{`a run is named by its folder's name`}},
		{"traversal", "GET", "/api/run?run=..", 400, []string{`a run is named by its folder's name`}},
		{"traversal, deeper", "GET", "/api/run/metrics?run=../../etc", 400, []string{`run \"../../etc\"`}},
		{"traversal, encoded", "GET", "/api/run/games?run=blitz%2F..%2F..", 400, []string{`run \"blitz/../..\"`}},
		{"an absolute path", "GET", "/api/run?run=%2Fetc", 400, nil},
		{"a hidden folder", "GET", "/api/run?run=.hidden", 400, nil},
		{"a backslash", "GET", "/api/run?run=a%5Cb", 400, nil},
		{"a wrong method", "POST", "/api/runs", 405, []string{`"error":"POST /api/runs: use GET"`}},
		{"a wrong method on a run", "DELETE", "/api/run/metrics?run=blitz", 405, nil},
		{"a bad from", "GET", "/api/run/metrics?run=blitz&from=-1", 400, []string{`from=\"-1\"`}},
		{"no such endpoint", "GET", "/api/run/nothing", 404, []string{`no such endpoint`}},
		{"the page", "GET", "/runs/", 200, []string{`<title>zero · runs</title>`, `dash.js`}},
		{"the script", "GET", "/runs/dash.js", 200, []string{`"use strict"`}},
		{"the page, without its slash", "GET", "/runs", 301, nil},
		{"the page, posted to", "POST", "/runs/", 405, nil},
		{"the play page is not the dashboard's", "GET", "/", 404, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body, header := get(t, h, tt.method, tt.target)
			if status != tt.status {
				t.Fatalf("%s %s: status %d, want %d: %s", tt.method, tt.target, status, tt.status, body)
			}
			for _, w := range tt.want {
				if !strings.Contains(string(body), w) {
					t.Errorf("%s %s: the answer lacks %s:\n%.2000s", tt.method, tt.target, w, body)
				}
			}
			if status == 405 && header.Get("Allow") != "GET, HEAD" {
				t.Errorf("405 with Allow %q", header.Get("Allow"))
			}
			if strings.HasPrefix(tt.target, "/api/") && header.Get("Content-Type") != "application/json; charset=utf-8" {
				t.Errorf("Content-Type %q", header.Get("Content-Type"))
			}
		})
	}
	// The games are the newest first, Options.Games of them, each in the game's notation.
	_, body, _ := get(t, h, "GET", "/api/run/games?run=blitz")
	var gs struct{ Games []gameInfo }
	json.Unmarshal(body, &gs)
	if len(gs.Games) != 8 || gs.Games[0].ID != "w/s1/25" || gs.Games[7].ID != "w/s1/18" || gs.Games[0].Newest != false {
		t.Errorf("games: %d, first %+v", len(gs.Games), gs.Games[0])
	}
	// Game 25 was played at step 240, before the newest checkpoint (300): not the newest net's.
	_, body, _ = get(t, h, "GET", "/api/run/game?run=blitz&id=w/s1/25")
	var one struct {
		Moves  []string
		Boards []string
	}
	json.Unmarshal(body, &one)
	if len(one.Boards) != len(one.Moves)+1 || len(one.Moves) < 20 {
		t.Errorf("a game of %d moves with %d boards", len(one.Moves), len(one.Boards))
	}
	_ = big
}

// TestTail: the page's later asks get only the records appended since, a line being written
// waits for its end, a damaged line is skipped, and a resumed session that drops a lost end
// (metrics.Timeline) sends the page a new gen and everything again.
func TestTail(t *testing.T) {
	runs := t.TempDir()
	dir := writeRun(t, runs, "blitz", 100, 0)
	h := New(Options{RunsDir: runs})
	ask := func(from, gen int) metricsReply {
		t.Helper()
		status, body, _ := get(t, h, "GET", fmt.Sprintf("/api/run/metrics?run=blitz&from=%d&gen=%d", from, gen))
		if status != 200 {
			t.Fatalf("status %d: %s", status, body)
		}
		var m metricsReply
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	first := ask(0, -1)
	if !first.Reset || first.Next != 21 || len(first.Kinds["train"].Step) != 10 || len(first.Kinds["eval"].Step) != 1 {
		t.Fatalf("first ask: %+v", first)
	}
	tests := []struct {
		name   string
		append string
		reset  bool
		steps  []int64 // the train records' steps in the answer
		next   int
	}{
		{"nothing new", "", false, nil, 21},
		{"a line", recordLine("train", 110, 110, map[string]float64{"loss": 2.5}), false, []int64{110}, 22},
		{"a line being written", `{"kind":"train","step":120,"time":"2026-11-24T10:02:00Z","elapsed":120,"val`, false, nil, 22},
		{"its end", `ues":{"loss":2.4}}` + "\n", false, []int64{120}, 23},
		{"a damaged line and one after", `{"kind":"tr` + "\n" + recordLine("train", 130, 130, map[string]float64{"loss": 2.3}), false, []int64{130}, 24},
		{"a kind no chart draws", recordLine("session", 130, 130, nil), false, nil, 25},
		// Killed after step 100's checkpoint, resumed: its train records from step 110 on are
		// dropped (the session record stays: Timeline drops only train and selfplay records).
		{"a resume", recordLine("train", 110, 105, map[string]float64{"loss": 2.45}), true, append(stepsTo(100), 110), 23},
	}
	m := first
	for _, tt := range tests {
		appendLine(t, dir, tt.append)
		got := ask(m.Next, m.Gen)
		if got.Reset != tt.reset || got.Next != tt.next || fmt.Sprint(got.Kinds["train"].Step) != fmt.Sprint(tt.steps) {
			t.Fatalf("%s: reset %v, next %d, train steps %v; want %v, %d, %v", tt.name, got.Reset, got.Next, got.Kinds["train"].Step, tt.reset, tt.next, tt.steps)
		}
		if !got.Reset && got.From != m.Next {
			t.Fatalf("%s: from %d, want %d", tt.name, got.From, m.Next)
		}
		m = got
	}
	// A page that asks from a gen it should not hold (a server restarted) is sent everything.
	if again := ask(3, m.Gen+5); !again.Reset || again.From != 0 || again.Next != m.Next {
		t.Errorf("a stale gen: %+v", again)
	}
	// A value that is not a number (JSON has none: a record lacking it) is written as null.
	if data, err := json.Marshal([]num{1.5, num(math.NaN()), num(math.Inf(-1))}); err != nil || string(data) != "[1.5,null,null]" {
		t.Errorf("num: %s, %v", data, err)
	}
}

func stepsTo(n int) []int64 {
	var out []int64
	for s := 10; s <= n; s += 10 {
		out = append(out, int64(s))
	}
	return out
}

// TestRunsFolderIsARun: --runs given a run folder itself lists nothing, and says why.
func TestRunsFolderIsARun(t *testing.T) {
	dir := writeRun(t, t.TempDir(), "blitz", 20, 0)
	_, body, _ := get(t, New(Options{RunsDir: dir}), "GET", "/api/runs")
	if !strings.Contains(string(body), `"runs":[]`) || !strings.Contains(string(body), "is itself a run folder: give zero serve --runs the folder that holds it") {
		t.Errorf("%s", body)
	}
}

// TestCheckpoint resolves the play links' checkpoints: kept ones of a run, nothing else.
func TestCheckpoint(t *testing.T) {
	runs := t.TempDir()
	dir := writeRun(t, runs, "blitz", 200, 0)
	os.WriteFile(filepath.Join(dir, "checkpoints", "step-00000050.zck"), []byte("not kept"), 0o644)
	d := New(Options{RunsDir: runs})
	for name, want := range map[string]string{
		"blitz/step-00000200.zck":             filepath.Join(dir, "checkpoints", "step-00000200.zck"),
		"blitz/step-00000050.zck":             "", // on the disk, not in state.json
		"blitz/checkpoints/step-00000200.zck": "",
		"blitz/../blitz/step-00000200.zck":    "",
		"../x/step-00000200.zck":              "",
		"nothing/step-00000200.zck":           "",
		"blitz":                               "",
		"blitz/":                              "",
	} {
		if got := d.Checkpoint(name); got != want {
			t.Errorf("Checkpoint(%q) = %q, want %q", name, got, want)
		}
	}
	// The path is absolute: with --runs . a run folder named c_puct=9:x gave
	// c_puct=9:x/checkpoints/…, which the play page's spec mcts:N:PATH read as a search
	// setting and a checkpoint of another folder.
	odd := writeRun(t, runs, "c_puct=9:x", 200, 0)
	t.Chdir(runs)
	got := New(Options{RunsDir: "."}).Checkpoint("c_puct=9:x/step-00000200.zck")
	if want := filepath.Join(odd, "checkpoints", "step-00000200.zck"); got != want {
		t.Fatalf("Checkpoint in a run named c_puct=9:x = %q, want %q", got, want)
	}
	if sp, err := selfplay.ParseSpec("mcts:10:" + got); err != nil || sp.Checkpoint != got || sp.Settings != "" {
		t.Errorf("mcts:10:%s reads as checkpoint %q, settings %q (%v)", got, sp.Checkpoint, sp.Settings, err)
	}
}

// blockingWriter is a client that stopped reading: its Write returns only when released.
type blockingWriter struct {
	h                 http.Header
	started, released chan struct{}
}

func (b *blockingWriter) Header() http.Header { return b.h }
func (b *blockingWriter) WriteHeader(int)     {}
func (b *blockingWriter) Write(p []byte) (int, error) {
	close(b.started)
	<-b.released
	return len(p), nil
}

// A client that stops reading a run's metrics holds up no one: the answer is written with the
// run's lock released, so the list of runs (which takes every run's) answers meanwhile.
func TestSlowClientBlocksNoOne(t *testing.T) {
	runs := t.TempDir()
	writeRun(t, runs, "blitz", 100, 0)
	d := New(Options{RunsDir: runs})
	bw := &blockingWriter{h: http.Header{}, started: make(chan struct{}), released: make(chan struct{})}
	go d.ServeHTTP(bw, httptest.NewRequest("GET", "/api/run/metrics?run=blitz&from=0&gen=-1", nil))
	<-bw.started
	defer close(bw.released)
	done := make(chan int, 1)
	go func() {
		rec := httptest.NewRecorder()
		d.ServeHTTP(rec, httptest.NewRequest("GET", "/api/runs", nil))
		done <- rec.Code
	}()
	select {
	case code := <-done:
		if code != http.StatusOK {
			t.Errorf("/api/runs: %d", code)
		}
	case <-time.After(5 * time.Second):
		t.Errorf("/api/runs waits on a client that does not read its metrics")
	}
}

// A run's records are kept with the values the dashboard uses only (the charts' and a selfplay
// record's samples_total): the rest (a train record's lr, a selfplay record's net_cores, an
// eval record's per-opponent scores) would be held for as long as the server runs.
func TestKeepsChartedValues(t *testing.T) {
	runs := t.TempDir()
	dir := writeRun(t, runs, "blitz", 20, 0)
	l, err := metrics.Create(filepath.Join(dir, runfolder.MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	at := start.Add(time.Minute)
	writeRecord(t, l, "train", 30, at, 60, map[string]float64{"loss": 2, "lr": 0.001, "target_entropy": 1})
	writeRecord(t, l, "selfplay", 30, at, 60, map[string]float64{"games_per_s": 2, "net_cores": 0.5, "samples_total": 1500})
	writeRecord(t, l, "ingest", 30, at, 60, map[string]float64{"games_per_s": 2, "worker/a/games_per_s": 1, "bytes_per_s": 100})
	writeRecord(t, l, "other", 30, at, 60, map[string]float64{"x": 1})
	l.Close()
	d := New(Options{RunsDir: runs})
	if code, body, _ := get(t, d, "GET", "/api/run/metrics?run=blitz"); code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	want := map[string][]string{ // of the four records written above
		"train":    {"loss"},
		"selfplay": {"games_per_s", "samples_total"},
		"ingest":   {"games_per_s", "worker/a/games_per_s"},
		"other":    nil,
	}
	c := d.runs["blitz"]
	recs := c.seq.Records()
	if len(recs) != 8 {
		t.Fatalf("%d records, want 8", len(recs))
	}
	for _, r := range recs[4:] {
		var names []string
		for n := range r.Values {
			names = append(names, n)
		}
		slices.Sort(names)
		if !slices.Equal(names, want[r.Kind]) {
			t.Errorf("a %s record keeps %v", r.Kind, names)
		}
	}
	if c.newest.samples != 1500 {
		t.Errorf("newest samples %d, want 1500", c.newest.samples)
	}
}
