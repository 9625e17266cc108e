// Package dash is zero serve's training dashboard (`zero serve --runs DIR`): every training run
// folder under DIR in the browser, updating while the runs train.
//
// A page (static/, embedded: no build step, no network) lists the runs at /runs/ and shows one
// at /runs/?run=NAME: its charts (report.Charts: losses, Elo with its 95% interval, self-play
// rates, the trainer's intake), against steps or time, drawn in SVG by the page itself; the Elo
// ladder of ratings.json; the newest self-play games, each viewable move by move; and links
// that start a game in the play page (package web) against a checkpoint of the run. It reads a
// small JSON API:
//
//	GET /api/runs                         the runs: game, step, samples, time, newest checkpoint, Elo, trained now or not
//	GET /api/run?run=NAME                 one run: the same, its checkpoints and its Elo ladder
//	GET /api/run/metrics?run=NAME&from=K&gen=G   the run's metrics records from the K-th (columns by kind)
//	GET /api/run/games?run=NAME           the newest self-play games, in the game's notation
//	GET /api/run/game?run=NAME&id=ID      one of them: its moves and the board after each
//
// It only reads run folders: a run trains undisturbed while it is watched (the lock probe of
// runfolder.Holder is the one thing it takes, for an instant). metrics.jsonl is followed with a
// metrics.Tail, so each request reads only the lines appended since the last one, and a line
// still being written waits for its end; a page asks for the records past the ones it has.
// Run names in requests are single folder names of DIR, checked before any file is opened.
//
// /api/run/metrics answers in columns by kind, with only the values the charts
// draw; gen changes when the records kept are not the old ones plus new (a resumed
// session dropped a lost end, the file was made anew), and the page then gets
// everything. The page changes the polled lists in place (sync in static/dash.js),
// so a click is never lost to a refresh. The play buttons link to the play page
// with opponent=mcts:400:runs/RUN/FILE, which web.Options.RunCheckpoint
// (Dashboard.Checkpoint) resolves to a checkpoint the run's state.json keeps, and
// nothing else. Tests: the API with httptest on run folders written by the train
// packages' writers, and headless Chromium (internal/testbrowser).
package dash

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zerogames/zero/internal/duration"
	"github.com/zerogames/zero/internal/games"
	"github.com/zerogames/zero/internal/report"
	"github.com/zerogames/zero/internal/ui"
	"github.com/zerogames/zero/selfplay"
	"github.com/zerogames/zero/train/metrics"
	"github.com/zerogames/zero/train/replay"
	"github.com/zerogames/zero/train/runfolder"
)

//go:embed static
var static embed.FS

// Options configure a Dashboard; the zero value of a field takes its default.
type Options struct {
	// RunsDir is the folder whose subfolders are training runs (zero serve --runs).
	RunsDir string
	// Poll is how often an open page asks for news (default 2s).
	Poll time.Duration
	// Games is the number of newest self-play games shown (default 20).
	Games int
	// Log receives one line per failed request (default: none).
	Log *log.Logger
}

// Dashboard serves the dashboard's page and API.
type Dashboard struct {
	opts   Options
	mu     sync.Mutex
	runs   map[string]*runCache // by run name
	api    *http.ServeMux
	assets http.Handler
}

// New makes a dashboard of the runs in opts.RunsDir (which the caller has checked exists).
func New(opts Options) *Dashboard {
	if opts.Poll <= 0 {
		opts.Poll = 2 * time.Second
	}
	if opts.Games <= 0 {
		opts.Games = 20
	}
	d := &Dashboard{opts: opts, runs: map[string]*runCache{}}
	sub, _ := fs.Sub(static, "static")
	d.assets = http.StripPrefix("/runs", http.FileServerFS(sub))
	api := http.NewServeMux()
	methods := map[string]bool{}
	handle := func(path string, h http.HandlerFunc) {
		api.HandleFunc("GET "+path, h)
		methods[path] = true
	}
	handle("/api/runs", d.handleRuns)
	handle("/api/run", d.withRun(d.handleRun))
	handle("/api/run/metrics", d.withRun(d.handleMetrics))
	handle("/api/run/games", d.withRun(d.handleGames))
	handle("/api/run/game", d.withRun(d.handleGame))
	api.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if methods[r.URL.Path] {
			w.Header().Set("Allow", "GET, HEAD")
			d.fail(w, r, http.StatusMethodNotAllowed, fmt.Errorf("%s %s: use GET", r.Method, r.URL.Path))
			return
		}
		d.fail(w, r, http.StatusNotFound, fmt.Errorf("no such endpoint: %s %s", r.Method, r.URL.Path))
	})
	d.api = api
	return d
}

// Owns tells whether the dashboard serves path: the page under /runs/, the API under /api/run.
func Owns(path string) bool {
	return path == "/runs" || strings.HasPrefix(path, "/runs/") || path == "/api/runs" || path == "/api/run" || strings.HasPrefix(path, "/api/run/")
}

// Wrap serves the dashboard's paths (Owns) and hands every other request to next (the play
// page, package web).
func (d *Dashboard) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if Owns(r.URL.Path) {
			d.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// ServeHTTP serves the dashboard's page and API.
func (d *Dashboard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'")
	if strings.HasPrefix(r.URL.Path, "/api/") {
		d.api.ServeHTTP(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "use GET", http.StatusMethodNotAllowed)
		return
	}
	if r.URL.Path == "/runs" {
		http.Redirect(w, r, "/runs/", http.StatusMovedPermanently)
		return
	}
	d.assets.ServeHTTP(w, r)
}

func (d *Dashboard) fail(w http.ResponseWriter, r *http.Request, status int, err error) {
	if d.opts.Log != nil {
		d.opts.Log.Printf("%s %s: %d %v", r.Method, r.URL.Path, status, err)
	}
	writeJSON(w, status, map[string]string{"error": err.Error()})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// validName tells whether name can name a run: one folder name, not hidden (so never "." or
// ".."), with no separator. Nothing else reaches the file system.
func validName(name string) bool {
	return name != "" && len(name) <= 255 && !strings.HasPrefix(name, ".") && !strings.ContainsAny(name, `/\`+"\x00") && filepath.IsLocal(name)
}

// isRun tells whether dir is a training run's folder: it has a configuration, a state or
// metrics (a run killed before its first checkpoint has the first and the last).
func isRun(dir string) bool {
	for _, f := range []string{runfolder.ConfigFile, runfolder.StateFile, runfolder.MetricsFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			return true
		}
	}
	return false
}

// runDir is the folder of the run a request names, or an error with its status: 400 for a
// name that is not one folder name (a path, "..": refused before anything is opened), 404 for
// no such run.
func (d *Dashboard) runDir(name string) (string, int, error) {
	if !validName(name) {
		return "", http.StatusBadRequest, fmt.Errorf("run %q: a run is named by its folder's name in the runs folder", name)
	}
	dir := filepath.Join(d.opts.RunsDir, name)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() || !isRun(dir) {
		return "", http.StatusNotFound, fmt.Errorf("no run %q in the runs folder", name)
	}
	return dir, 0, nil
}

// withRun finds the run named by ?run= and passes it on.
func (d *Dashboard) withRun(h func(w http.ResponseWriter, r *http.Request, name, dir string)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		name := r.URL.Query().Get("run")
		dir, status, err := d.runDir(name)
		if err != nil {
			d.fail(w, r, status, err)
			return
		}
		h(w, r, name, dir)
	}
}

// Checkpoint resolves a checkpoint named "RUN/FILE", as the dashboard's play links name it
// (the play page's opponent mcts:N:runs/RUN/FILE): FILE must be one of the checkpoints the
// run's state.json keeps. It returns the checkpoint's path, or "" if there is no such one.
// web.Options.RunCheckpoint takes it.
func (d *Dashboard) Checkpoint(name string) string {
	run, file, ok := strings.Cut(name, "/")
	if !ok || !validName(file) {
		return ""
	}
	dir, _, err := d.runDir(run)
	if err != nil {
		return ""
	}
	var st runfolder.State
	if readJSON(filepath.Join(dir, runfolder.StateFile), &st) != nil {
		return ""
	}
	for _, c := range st.Checkpoints {
		if filepath.Base(c.File) == file && filepath.IsLocal(c.File) {
			path, err := filepath.Abs(filepath.Join(dir, c.File))
			if err != nil {
				return ""
			}
			if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() {
				return path // absolute: a relative one naming a folder c_puct=9:x would read as a search setting in a spec
			}
		}
	}
	return ""
}

// playLink is the play page's address for a game against checkpoint c of run.
func playLink(run, game string, c runfolder.CheckpointEntry) string {
	g, err := games.Lookup(game)
	if err != nil {
		return ""
	}
	q := url.Values{}
	q.Set("game", game)
	q.Set("side", g.Info().PlayerNames[0])
	q.Set("opponent", fmt.Sprintf("mcts:%d:runs/%s/%s", ui.ModelSimulations, run, filepath.Base(c.File)))
	return "/?" + q.Encode()
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// runCache is what the dashboard keeps of a run between requests: its metrics so far, read
// incrementally, and its ladder, read again only when ratings.json changes.
type runCache struct {
	mu   sync.Mutex
	tail *metrics.Tail
	seq  metrics.Sequence
	// gen counts the times the records kept were not a prefix of the ones before (a resumed
	// session dropped a lost end, the file was made anew): a page holding another gen starts over.
	gen     int
	newest  newest
	ladder  *runfolder.Ladder
	ladderV fileVersion
}

// newest is what the newest records tell of a run.
type newest struct {
	step    int64
	elapsed float64 // seconds
	samples int64   // the buffer's samples ever added, as the newest selfplay record says
}

type fileVersion struct {
	size int64
	mod  time.Time
}

func (d *Dashboard) cache(name, dir string) *runCache {
	d.mu.Lock()
	defer d.mu.Unlock()
	c := d.runs[name]
	if c == nil {
		c = &runCache{tail: metrics.NewTail(filepath.Join(dir, runfolder.MetricsFile))}
		d.runs[name] = c
	}
	return c
}

// update reads the metrics appended since the last update. c.mu is held.
func (c *runCache) update() error {
	recs, reset, err := c.tail.Next()
	if reset {
		// Even with an error: the tail follows the new file now.
		c.seq = metrics.Sequence{}
		c.newest = newest{}
		c.gen++
	}
	if err != nil {
		return err
	}
	if len(recs) == 0 && !reset {
		return nil
	}
	for i := range recs {
		recs[i].Values = chartedValues(recs[i])
	}
	if c.seq.Add(recs...) > 0 {
		c.gen++
	}
	c.newest = newest{}
	for _, r := range c.seq.Records() {
		c.newest.step = max(c.newest.step, r.Step)
		c.newest.elapsed = max(c.newest.elapsed, r.Elapsed)
		if v, ok := r.Values["samples_total"]; ok && r.Kind == "selfplay" {
			c.newest.samples = int64(v)
		}
	}
	return nil
}

// readLadder reads ratings.json if it changed since the last read. c.mu is held.
func (c *runCache) readLadder(dir string) (*runfolder.Ladder, error) {
	path := filepath.Join(dir, runfolder.RatingsFile)
	st, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		c.ladder, c.ladderV = nil, fileVersion{}
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	v := fileVersion{st.Size(), st.ModTime()}
	if c.ladder != nil && v == c.ladderV {
		return c.ladder, nil
	}
	var l runfolder.Ladder
	if err := readJSON(path, &l); err != nil {
		return nil, err
	}
	c.ladder, c.ladderV = &l, v
	return c.ladder, nil
}

// rating is a player's Elo with its interval.
type rating struct {
	Name string  `json:"name"`
	Elo  float64 `json:"elo"`
	CI95 float64 `json:"ci95"`
}

// runSummary is a run as the list shows it.
type runSummary struct {
	Name     string `json:"name"`
	Game     string `json:"game"`
	Training bool   `json:"training"`         // a process holds the run's lock now
	Holder   string `json:"holder,omitempty"` // who: "zero (pid N on HOST, since …)"
	// Step, Samples and Hours are the newest the run wrote (its metrics, else its state).
	Step    int64   `json:"step"`
	Samples int64   `json:"samples"`
	Games   int64   `json:"games"` // self-play games, at the newest checkpoint
	Hours   float64 `json:"hours"` // the run's working time over its sessions
	// Worked is Hours as every tool writes a duration (duration.Format: "39s", "2h5m").
	Worked string `json:"worked"`
	// Checkpoint is the newest checkpoint's name, CheckpointStep its step.
	Checkpoint     string  `json:"checkpoint"`
	CheckpointStep int64   `json:"checkpoint_step"`
	Elo            *rating `json:"elo,omitempty"` // the newest rated checkpoint's
	// Updated is when metrics.jsonl last changed.
	Updated *time.Time `json:"updated,omitempty"`
	// Play is the play page's address for a game against the newest checkpoint.
	Play string `json:"play,omitempty"`
	// Problem says what could not be read, if anything (the rest is what could).
	Problem string `json:"problem,omitempty"`
}

// summary reads the run's state, newest metrics and ladder. c.mu is held.
func (d *Dashboard) summary(name, dir string, c *runCache) (runSummary, runfolder.State, *runfolder.Ladder) {
	s := runSummary{Name: name}
	var problems []string
	var st runfolder.State
	if err := readJSON(filepath.Join(dir, runfolder.StateFile), &st); err != nil && !errors.Is(err, os.ErrNotExist) {
		problems = append(problems, err.Error())
	}
	s.Game, s.Step, s.Samples, s.Games, s.Hours = st.Game, st.Step, st.Samples, st.Games, st.Elapsed/3600
	if s.Game == "" {
		s.Game = runfolder.ConfigGame(dir)
	}
	if err := c.update(); err != nil {
		problems = append(problems, err.Error())
	}
	s.Step = max(s.Step, c.newest.step)
	s.Samples = max(s.Samples, c.newest.samples)
	s.Hours = max(s.Hours, c.newest.elapsed/3600)
	s.Worked = duration.Seconds(s.Hours * 3600)
	if fi, err := os.Stat(filepath.Join(dir, runfolder.MetricsFile)); err == nil {
		t := fi.ModTime().UTC()
		s.Updated = &t
	}
	holder, training, err := runfolder.Holder(dir)
	if err != nil {
		problems = append(problems, err.Error())
	}
	s.Training, s.Holder = training, holder
	if n := len(st.Checkpoints); n > 0 {
		newest := st.Checkpoints[n-1]
		s.Checkpoint, s.CheckpointStep = newest.Name(), newest.Step
		s.Play = playLink(name, s.Game, newest)
	}
	ladder, err := c.readLadder(dir)
	if err != nil {
		problems = append(problems, err.Error())
	}
	if ladder != nil && ladder.Ratings != nil && len(ladder.Rated) > 0 {
		last := ladder.Rated[len(ladder.Rated)-1]
		for _, p := range ladder.Ratings.Players {
			if p.Name == last {
				s.Elo = &rating{p.Name, p.Elo, p.CI95}
			}
		}
	}
	s.Problem = strings.Join(problems, "; ")
	return s, st, ladder
}

func (d *Dashboard) handleRuns(w http.ResponseWriter, r *http.Request) {
	entries, err := os.ReadDir(d.opts.RunsDir)
	if err != nil {
		d.fail(w, r, http.StatusInternalServerError, fmt.Errorf("the runs folder: %w", err))
		return
	}
	out := struct {
		Dir    string       `json:"dir"`
		PollMS int64        `json:"poll_ms"`
		Runs   []runSummary `json:"runs"`
		// Note says why there are no runs when the folder is itself a run.
		Note string `json:"note,omitempty"`
	}{Dir: d.opts.RunsDir, PollMS: d.opts.Poll.Milliseconds(), Runs: []runSummary{}}
	for _, e := range entries {
		name := e.Name()
		dir := filepath.Join(d.opts.RunsDir, name)
		if !validName(name) || !isDir(dir) || !isRun(dir) {
			continue
		}
		c := d.cache(name, dir)
		c.mu.Lock()
		s, _, _ := d.summary(name, dir, c)
		c.mu.Unlock()
		out.Runs = append(out.Runs, s)
	}
	if len(out.Runs) == 0 && isRun(d.opts.RunsDir) {
		out.Note = fmt.Sprintf("%s is itself a run folder: give zero serve --runs the folder that holds it (%s)", d.opts.RunsDir, filepath.Dir(filepath.Clean(d.opts.RunsDir)))
	}
	writeJSON(w, http.StatusOK, out)
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// checkpointInfo is a kept checkpoint.
type checkpointInfo struct {
	Name  string  `json:"name"`
	Step  int64   `json:"step"`
	Hours float64 `json:"hours"`
	Play  string  `json:"play"`
}

// ladderRow is a player of the run's ladder: a checkpoint or a baseline.
type ladderRow struct {
	selfplay.Rating
	Checkpoint bool   `json:"checkpoint"`     // one of the run's checkpoints (else a baseline)
	Play       string `json:"play,omitempty"` // for a checkpoint still kept
}

func (d *Dashboard) handleRun(w http.ResponseWriter, r *http.Request, name, dir string) {
	c := d.cache(name, dir)
	c.mu.Lock()
	s, st, ladder := d.summary(name, dir, c)
	c.mu.Unlock()
	out := struct {
		runSummary
		PollMS      int64            `json:"poll_ms"`
		Players     [2]string        `json:"players,omitempty"`
		Checkpoints []checkpointInfo `json:"checkpoints"`
		Ladder      []ladderRow      `json:"ladder"`
		Anchor      string           `json:"anchor,omitempty"`
		Advantage   *rating          `json:"first_side_advantage,omitempty"`
		LadderGames int              `json:"ladder_games"`
		Charts      []report.Chart   `json:"charts"`
		// LocalWorker is the trainer's own self-play among the ingest records' workers: the
		// charts with remote set are drawn for a run with another (report.HasRemote).
		LocalWorker string `json:"local_worker"`
	}{runSummary: s, PollMS: d.opts.Poll.Milliseconds(), Checkpoints: []checkpointInfo{}, Ladder: []ladderRow{}, Charts: report.Charts,
		LocalWorker: metrics.TrainerWorker}
	if g, err := games.Lookup(s.Game); err == nil {
		out.Players = g.Info().PlayerNames
	}
	kept := map[string]runfolder.CheckpointEntry{}
	for _, e := range st.Checkpoints {
		kept[e.Name()] = e
		out.Checkpoints = append(out.Checkpoints, checkpointInfo{e.Name(), e.Step, e.Elapsed / 3600, playLink(name, s.Game, e)})
	}
	if ladder != nil && ladder.Ratings != nil {
		out.Anchor = ladder.Ratings.Anchor
		out.Advantage = &rating{"first side", ladder.Ratings.Advantage, ladder.Ratings.AdvantageCI95}
		out.LadderGames = ladder.Ratings.Games
		for _, p := range ladder.Ratings.Players {
			row := ladderRow{Rating: p, Checkpoint: slices.Contains(ladder.Rated, p.Name)}
			if e, ok := kept[p.Name]; ok {
				row.Play = playLink(name, s.Game, e)
			}
			out.Ladder = append(out.Ladder, row)
		}
		slices.SortStableFunc(out.Ladder, func(a, b ladderRow) int { return -cmpFloat(a.Elo, b.Elo) })
	}
	writeJSON(w, http.StatusOK, out)
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// num is a value that JSON writes as null when it is not a number (NaN, ±Inf, or missing).
type num float64

func (n num) MarshalJSON() ([]byte, error) {
	f := float64(n)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, f, 'g', 6, 64), nil
}

// columns are the records of one kind, a column a field: row i is the i-th record.
type columns struct {
	Step    []int64          `json:"step"`
	Elapsed []num            `json:"elapsed"` // seconds
	Values  map[string][]num `json:"values"`  // null where a record lacks the value
}

// charted lists, for each kind of record a chart draws, the value names the charts want.
func charted() map[string][]string {
	out := map[string][]string{}
	for _, c := range report.Charts {
		for _, n := range c.Names {
			out[c.Kind] = append(out[c.Kind], n)
			if c.Band {
				out[c.Kind] = append(out[c.Kind], n+"_low", n+"_high")
			}
		}
	}
	return out
}

// chartOf is charted(), the value names each kind's charts draw.
var chartOf = charted()

// chartedValues is the values of rec that the dashboard uses (the ones its kind's charts draw,
// and a selfplay record's samples_total): a run's records are kept for as long as the server
// runs, and a record may hold thousands of values no chart draws (an ingest record's per-worker
// rates). nil if none.
func chartedValues(rec metrics.Record) map[string]float64 {
	var out map[string]float64
	for n, v := range rec.Values {
		if wanted(chartOf[rec.Kind], n) || rec.Kind == "selfplay" && n == "samples_total" {
			if out == nil {
				out = map[string]float64{}
			}
			out[n] = v
		}
	}
	return out
}

// wanted tells whether a value name is one of the names a kind's charts draw (a name ending
// in "/" is a prefix).
func wanted(names []string, name string) bool {
	for _, n := range names {
		if name == n || strings.HasSuffix(n, "/") && strings.HasPrefix(name, n) {
			return true
		}
	}
	return false
}

// handleMetrics answers the records past the first from that the page has (?from=K, with the
// ?gen=G it was given): all of them, and reset, when the page's gen is not the run's.
func (d *Dashboard) handleMetrics(w http.ResponseWriter, r *http.Request, name, dir string) {
	q := r.URL.Query()
	from, gen := 0, -1
	if v := q.Get("from"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			d.fail(w, r, http.StatusBadRequest, fmt.Errorf("from=%q: want a number of records ≥ 0", v))
			return
		}
		from = n
	}
	if v := q.Get("gen"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			d.fail(w, r, http.StatusBadRequest, fmt.Errorf("gen=%q: want the gen of the last answer", v))
			return
		}
		gen = n
	}
	c := d.cache(name, dir)
	c.mu.Lock()
	if err := c.update(); err != nil {
		c.mu.Unlock()
		d.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	recs := c.seq.Records()
	out := struct {
		Gen   int                 `json:"gen"`
		From  int                 `json:"from"`
		Next  int                 `json:"next"`
		Reset bool                `json:"reset"` // the records replace all the page had
		Hours num                 `json:"hours"` // the run's working time at its newest record
		Kinds map[string]*columns `json:"kinds"`
	}{Gen: c.gen, Next: len(recs), Hours: num(c.newest.elapsed / 3600), Kinds: map[string]*columns{}}
	if gen != c.gen || from > len(recs) {
		out.Reset, from = true, 0
	}
	out.From = from
	for _, rec := range recs[from:] {
		names, ok := chartOf[rec.Kind]
		if !ok {
			continue
		}
		col := out.Kinds[rec.Kind]
		if col == nil {
			col = &columns{Values: map[string][]num{}}
			out.Kinds[rec.Kind] = col
		}
		row := len(col.Step)
		col.Step = append(col.Step, rec.Step)
		col.Elapsed = append(col.Elapsed, num(rec.Elapsed))
		for n, v := range rec.Values {
			if !wanted(names, n) {
				continue
			}
			vs, ok := col.Values[n]
			if !ok {
				vs = make([]num, row, row+1)
				for i := range vs {
					vs[i] = num(math.NaN())
				}
			}
			col.Values[n] = append(vs, num(v))
		}
		for n, vs := range col.Values {
			if len(vs) == row {
				col.Values[n] = append(vs, num(math.NaN()))
			}
		}
	}
	// out holds copies: the answer is written unlocked, so a client slow to read it (or that
	// never does) holds up no one else's request on this run, nor the list of runs.
	c.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

// gameInfo is a self-play game as the list shows it.
type gameInfo struct {
	ID       string   `json:"id"`
	Step     int64    `json:"step"` // the training step of the network that played it
	Moves    []string `json:"moves"`
	Result   string   `json:"result"`
	Resigned string   `json:"resigned,omitempty"`
	// Newest: played by the newest checkpoint's network or a later one.
	Newest bool   `json:"newest"`
	Error  string `json:"error,omitempty"` // why the game cannot be shown (today's rules refuse it)
}

// newestGames reads the run's newest self-play games, newest first, as records.
func (d *Dashboard) newestGames(dir string) (string, []gameInfo, []*replay.Game, error) {
	name, recorded, err := replay.ReadNewest(filepath.Join(dir, runfolder.ReplayDir), d.opts.Games)
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, replay.ErrNoShards) {
		return "", nil, nil, nil // no game yet: a run before its first, or killed before it
	}
	if err != nil {
		return "", nil, nil, err
	}
	g, err := games.Lookup(name)
	if err != nil {
		return "", nil, nil, err
	}
	var st runfolder.State
	readJSON(filepath.Join(dir, runfolder.StateFile), &st)
	slices.Reverse(recorded)
	out := make([]gameInfo, len(recorded))
	for i, rg := range recorded {
		gi := gameInfo{ID: rg.ID, Step: rg.Step, Newest: len(st.Checkpoints) > 0 && rg.Step >= st.Step, Moves: []string{}}
		rec, err := games.ActionRecord(g, rg.Actions, rg.Result, [2]string{games.SelfPlay, games.SelfPlay})
		if err != nil {
			gi.Error = err.Error()
		} else {
			gi.Moves, gi.Result, gi.Resigned = rec.Moves, rec.Result, rec.Resigned
		}
		out[i] = gi
	}
	return name, out, recorded, nil
}

func (d *Dashboard) handleGames(w http.ResponseWriter, r *http.Request, name, dir string) {
	game, list, _, err := d.newestGames(dir)
	if err != nil {
		d.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	if list == nil {
		list = []gameInfo{}
	}
	writeJSON(w, http.StatusOK, struct {
		Game  string     `json:"game"`
		Games []gameInfo `json:"games"`
	}{game, list})
}

// handleGame answers one of the newest games with the board (the game's text drawing) before
// its first move and after each.
func (d *Dashboard) handleGame(w http.ResponseWriter, r *http.Request, name, dir string) {
	id := r.URL.Query().Get("id")
	if id == "" {
		d.fail(w, r, http.StatusBadRequest, errors.New("id: give a game's id, as /api/run/games lists it"))
		return
	}
	game, list, _, err := d.newestGames(dir)
	if err != nil {
		d.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	i := slices.IndexFunc(list, func(g gameInfo) bool { return g.ID == id })
	if i < 0 {
		d.fail(w, r, http.StatusNotFound, fmt.Errorf("no game %q among the run's %d newest", id, d.opts.Games))
		return
	}
	gi := list[i]
	if gi.Error != "" {
		d.fail(w, r, http.StatusUnprocessableEntity, errors.New(gi.Error))
		return
	}
	g, _ := games.Lookup(game)
	pos := g.NewPosition()
	boards := []string{pos.Show()}
	toMove := []string{pos.ToMove()}
	for _, m := range gi.Moves {
		if err := pos.Play(m); err != nil {
			d.fail(w, r, http.StatusInternalServerError, err)
			return
		}
		boards = append(boards, pos.Show())
		toMove = append(toMove, pos.ToMove())
	}
	writeJSON(w, http.StatusOK, struct {
		gameInfo
		Game   string   `json:"game"`
		Boards []string `json:"boards"`  // the board before the first move and after each
		ToMove []string `json:"to_move"` // who decides at each board
	}{gi, game, boards, toMove})
}
