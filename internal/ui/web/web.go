// Package web is `zero serve`: games against the agent in the browser.
//
// One page (static/, embedded with go:embed: no build step, no network) draws the board in SVG
// from a per-game JSON view (ui.Board.View) and talks to a small JSON API:
//
//	GET  /api/games                  the games, their sides, the opponents and strengths
//	POST /api/new      {game, side, opponent}   start a game; the answer carries its id
//	POST /api/load     {record, name, game, side, opponent}  start a game from a record (JSON or SGF)
//	GET  /api/state?id=ID            the game: board view, legal moves, history, result
//	POST /api/play     {id, move}    the person's move (checked; a refused move changes nothing)
//	POST /api/line     {id, ply, line}  the boards along a line of moves from the position now
//	                                 (an analysis' principal variation), the game unchanged
//	POST /api/agent    {id}          the agent's turn (all its decisions until the person's)
//	POST /api/analyze  {id}          the agent's top moves with visit share and win probability
//	POST /api/undo     {id}          take back the person's last move and the agent's reply
//	POST /api/resign   {id}
//	GET  /api/record?id=ID[&format=F] the game record as a download: zero's JSON, or SGF (F sgf)
//
// Each game is a session of its own, found by an unguessable id and locked while it is used,
// so games never see each other; at most MaxSessions are kept, MaxPerClient per client
// address and MaxPerNetwork per network, and a new game never drops another client's game: it
// is refused when the server or its network is full (add). Input is checked before anything changes: request bodies are
// small and strict JSON, games and agents must exist, an agent's checkpoint must be a model
// shipped in the binary or a file of the models folder, and search budgets are bounded. Searches run at most one per core at once,
// and a search that cannot start soon is refused, not queued without end (search).
// The server binds to loopback unless told otherwise (cmd/zero).
package web

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"math"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/internal/games"
	"github.com/zerogames/zero/internal/ui"
	"github.com/zerogames/zero/models"
	znet "github.com/zerogames/zero/net"
	"github.com/zerogames/zero/selfplay"
)

//go:embed static
var static embed.FS

// Options configure a Server; the zero value of a field takes its default.
type Options struct {
	// ModelsDir is a folder of checkpoints offered besides the models shipped in the binary
	// (package models), a file of it before a shipped model of the same name ("" for none).
	// Agents' checkpoints come from there or are shipped ones: no other path is accepted.
	ModelsDir string
	// MaxSessions bounds the games kept at once (default 256); when it is reached, a new game
	// takes the place of its client's least recently used one, or is refused (503) if the
	// client has none: no game of another client is dropped (see add).
	MaxSessions int
	// MaxPerClient bounds the games of one client, told by its address (default 32; see
	// parties): past it, a new game drops the client's own least recently used one.
	MaxPerClient int
	// MaxPerNetwork bounds the games of one network, an IPv4 /24 or an IPv6 /48 (default 64),
	// as MaxSessions bounds the server's: one party with many addresses holds no more.
	MaxPerNetwork int
	// IdleTimeout drops a game nobody touched for that long (default 6 hours).
	IdleTimeout time.Duration
	// MaxWork bounds an agent's search budget, the N of uct:N (default 100000).
	MaxWork int
	// MaxTime bounds the time of every search of a game, the agent's move or an analysis,
	// whatever its budget (default 10 s): a timed spec may ask no more, an alpha-beta search
	// deeper than maxWebABDepth must ask a time, and mcts:N stops there if N takes longer.
	// It bounds too the wait of a request for a search slot (see search).
	MaxTime time.Duration
	// Searches bounds the searches running at once (default: one per core).
	Searches int
	// Seed gives each new game its seed (default: random).
	Seed func() uint64
	// Log receives one line per failed request (default: none).
	Log *log.Logger
	// RunCheckpoint resolves the checkpoint of an opponent named runs/RUN/FILE (a training
	// run's, which the dashboard's play links name: package dash) to its path, "" if there is
	// none. nil: no such checkpoint is accepted.
	RunCheckpoint func(name string) string
}

// Strengths are the search budgets offered for the search agents, weakest first.
var strengths = []strength{{"casual", 200}, {"standard", 1000}, {"strong", 5000}}

type strength struct {
	Name string `json:"name"`
	Work int    `json:"work"`
}

// maxBody bounds a request body: the longest is a move.
const maxBody = 4 << 10

// Server serves the page and the API.
type Server struct {
	opts     Options
	mu       sync.Mutex
	sessions map[string]*session
	searches chan struct{}  // one token per search running
	waiting  map[string]int // guarded by mu: the requests of each client waiting for a token
	queued   int            // guarded by mu: all the requests waiting for a token
	mux      *http.ServeMux // the page
	api      *http.ServeMux // /api/
}

type session struct {
	mu      sync.Mutex
	id      string
	client  string // the client that started it and its network (parties)
	network string
	m       *ui.Match
	hide    *strings.Replacer // the agent's checkpoint path → its name as the request gave it (hider)
	used    time.Time         // guarded by Server.mu
	// searching is set while a request asks for a search of the game (withSession): a second
	// one is refused, not queued behind it on mu.
	searching atomic.Bool
}

// New makes a server.
func New(opts Options) *Server {
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = 256
	}
	if opts.MaxPerClient <= 0 {
		opts.MaxPerClient = 32
	}
	if opts.MaxPerNetwork <= 0 {
		opts.MaxPerNetwork = 64
	}
	if opts.Searches <= 0 {
		opts.Searches = runtime.NumCPU()
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = 6 * time.Hour
	}
	if opts.MaxWork <= 0 {
		opts.MaxWork = 100000
	}
	if opts.MaxTime <= 0 {
		opts.MaxTime = 10 * time.Second
	}
	if opts.Seed == nil {
		opts.Seed = func() uint64 {
			var b [8]byte
			rand.Read(b[:])
			return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
				uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		}
	}
	s := &Server{opts: opts, sessions: map[string]*session{}, searches: make(chan struct{}, opts.Searches), waiting: map[string]int{}}
	mux := http.NewServeMux()
	assets, _ := fs.Sub(static, "static")
	mux.Handle("GET /", http.FileServerFS(assets))
	// The API's endpoints, each with its one method; another method gets 405 and the one. A
	// mux of their own: a catch-all for /api/ in any method conflicts with GET / in one mux.
	api := http.NewServeMux()
	methods := map[string]string{}
	handle := func(method, path string, h http.HandlerFunc) {
		api.HandleFunc(method+" "+path, h)
		methods[path] = method
	}
	handle("GET", "/api/games", s.handleGames)
	handle("POST", "/api/new", s.handleNew)
	handle("POST", "/api/load", s.handleLoad)
	handle("GET", "/api/state", s.withSession(s.handleState, onGame))
	handle("POST", "/api/play", s.withSession(s.handlePlay, takesMove))
	handle("POST", "/api/line", s.withSession(s.handleLine, takesLine))
	handle("POST", "/api/agent", s.withSession(s.handleAgent, searches))
	handle("POST", "/api/analyze", s.withSession(s.handleAnalyze, searches))
	handle("POST", "/api/undo", s.withSession(s.handleUndo, onGame))
	handle("POST", "/api/resign", s.withSession(s.handleResign, onGame))
	handle("GET", "/api/record", s.withSession(s.handleRecord, onGame))
	api.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		if m, ok := methods[r.URL.Path]; ok {
			allow := m
			if m == http.MethodGet {
				allow += ", HEAD"
			}
			w.Header().Set("Allow", allow)
			s.fail(w, r, &httpError{http.StatusMethodNotAllowed, fmt.Errorf("%s %s: use %s", r.Method, r.URL.Path, m)})
			return
		}
		s.fail(w, r, &httpError{http.StatusNotFound, fmt.Errorf("no such endpoint: %s %s", r.Method, r.URL.Path)})
	})
	s.mux, s.api = mux, api
	return s
}

// ServeHTTP serves the page and the API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'")
	if strings.HasPrefix(r.URL.Path, "/api/") {
		s.api.ServeHTTP(w, r)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// httpError is an error with the status it answers.
type httpError struct {
	status int
	err    error
}

func (e *httpError) Error() string { return e.err.Error() }

func badRequest(format string, a ...any) error {
	return &httpError{http.StatusBadRequest, fmt.Errorf(format, a...)}
}

// retryLater is the error of a request the server has no room for now (a game, a search): it
// answers 503 with Retry-After, after seconds.
type retryLater struct {
	err   error
	after time.Duration
}

func (e *retryLater) Error() string { return e.err.Error() }

func unavailable(after time.Duration, format string, a ...any) error {
	return &retryLater{fmt.Errorf(format, a...), after}
}

func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	s.failHiding(w, r, err, nil)
}

// failHiding answers err as fail does, its text passed through hide (if not nil) for the
// client: the server's paths to checkpoints named as the request named them (hider). The log
// keeps the whole error.
func (s *Server) failHiding(w http.ResponseWriter, r *http.Request, err error, hide *strings.Replacer) {
	status := http.StatusBadRequest
	var he *httpError
	var rl *retryLater
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &he):
		status = he.status
	case errors.As(err, &rl):
		status = http.StatusServiceUnavailable
		w.Header().Set("Retry-After", strconv.FormatInt(max(1, int64(math.Ceil(rl.after.Seconds()))), 10))
	case errors.As(err, &mbe):
		status = http.StatusRequestEntityTooLarge
		err = fmt.Errorf("request larger than %d bytes", mbe.Limit)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		status = http.StatusServiceUnavailable
	}
	if s.opts.Log != nil {
		s.opts.Log.Printf("%s %s: %d %v", r.Method, r.URL.Path, status, err)
	}
	msg := err.Error()
	if hide != nil {
		msg = hide.Replace(msg)
	}
	writeJSON(w, status, map[string]string{"error": msg})
}

// hider replaces, in an error's text for the client, the checkpoint of the agent spec with the
// one of shown, the spec as the request named it (checkSpec): nil when they are the same.
func hider(spec, shown string) *strings.Replacer {
	sp, err1 := selfplay.ParseSpec(spec)
	sh, err2 := selfplay.ParseSpec(shown)
	if err1 != nil || err2 != nil || sp.Checkpoint == "" || sp.Checkpoint == sh.Checkpoint {
		return nil
	}
	return strings.NewReplacer(sp.Checkpoint, sh.Checkpoint)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// decode reads a small, strict JSON body into v.
func decode(w http.ResponseWriter, r *http.Request, v any) error {
	return decodeLimit(w, r, v, maxBody)
}

// decodeLimit reads a strict JSON body of at most limit bytes into v.
func decodeLimit(w http.ResponseWriter, r *http.Request, v any, limit int64) error {
	if ct, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || ct != "application/json" {
		return &httpError{http.StatusUnsupportedMediaType, errors.New("want a JSON body (Content-Type: application/json)")}
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, limit))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return err
		}
		return badRequest("bad request body: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return badRequest("bad request body: more than one JSON value")
	}
	return nil
}

// opponent is one choice of agent offered for a game.
type opponent struct {
	Label string `json:"label"`
	// Spec is the agent's spec, with "{N}" where the strength's budget goes.
	Spec string `json:"spec"`
}

type gameInfo struct {
	Name      string     `json:"name"`
	Players   [2]string  `json:"players"`
	Opponents []opponent `json:"opponents"`
	Default   string     `json:"default"` // the default opponent's spec
}

func (s *Server) handleGames(w http.ResponseWriter, r *http.Request) {
	var out struct {
		Games     []gameInfo `json:"games"`
		Strengths []strength `json:"strengths"`
		// Runs tells that the server shows training runs too (zero serve --runs: /runs/).
		Runs bool `json:"runs"`
	}
	out.Strengths, out.Runs = strengths, s.opts.RunCheckpoint != nil
	for _, g := range games.All() {
		in := g.Info()
		gi := gameInfo{Name: in.Name, Players: in.PlayerNames, Default: s.defaultSpec(in.Name)}
		if _, err := g.NewAgent("uct:1", 0); err == nil {
			gi.Opponents = append(gi.Opponents, opponent{"UCT search (random playouts)", "uct:{N}"})
		}
		for _, m := range s.models(in.Name) {
			name := s.modelName(m)
			gi.Opponents = append(gi.Opponents, opponent{"network " + name, "mcts:{N}:" + name})
		}
		// The classical players: alpha-beta to a fixed depth, the positions past it valued by
		// the game's heuristic, capped at MaxTime a move as checkSpec caps every ab:D (so the
		// spec offered is the one that plays, and the game names it so).
		if _, err := g.NewAgent("ab:1", 0); err == nil {
			for _, d := range []int{2, 3} {
				gi.Opponents = append(gi.Opponents, opponent{fmt.Sprintf("alpha-beta, %d turns deep (classical search)", d), fmt.Sprintf("ab:%d:%v", d, s.opts.MaxTime)})
			}
		}
		gi.Opponents = append(gi.Opponents, opponent{"random mover", "random"})
		out.Games = append(out.Games, gi)
	}
	writeJSON(w, http.StatusOK, out)
}

// defaultSpec is the default opponent for game as a request names it: the game's model
// (GAME.zck, by file name: the models folder's, else the shipped one) at ui.ModelSimulations,
// else ui.DefaultOpponent.
func (s *Server) defaultSpec(game string) string {
	name := game + models.Ext
	if s.offered(name, game) {
		return ui.ModelSpec(s.modelName(name))
	}
	return ui.DefaultOpponent
}

// modelName is how the game's players, the opponents offered and the default name the model a
// request names by file name: models/NAME for the shipped model (the name that plays it
// anywhere: ui.ModelPath), NAME for a file of the models folder. One name a model, so that
// the page's list, its default and the game it plays agree.
func (s *Server) modelName(name string) string {
	if s.modelPath(name) == models.Path(name) {
		return models.Dir + "/" + name
	}
	return name
}

// offered tells whether the model a request names by file name is one to offer for game: the
// file it loads from (the models folder's, or a models/NAME in the working folder, which
// shadows the shipped copy) if it is whole and of game (net.Inspect: header, checksum,
// layout), so that a damaged one is neither listed nor the default (it gives way to
// ui.DefaultOpponent); else the shipped model, the binary's own.
func (s *Server) offered(name, game string) bool {
	path := s.modelPath(name)
	if path == "" {
		return false
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) && path == models.Path(name) && models.Shipped(name) {
		return true // the binary's own copy
	}
	if sniff(path) != nil {
		return false
	}
	h, _, err := znet.Inspect(models.ReadFile, path)
	return err == nil && h.Game == game
}

// maxModelBytes bounds the models folder's files the server reads (a checkpoint is read whole):
// the shipped models are about a megabyte, a net of 20 M parameters with its optimizer's state
// some 250 MB.
const maxModelBytes = 256 << 20

// sniff refuses, reading only its first bytes, a models-folder file that cannot be a checkpoint
// (not starting as one: znet.Magic) or that is larger than maxModelBytes, so that no request
// makes the server read a large file of another kind whole. A path not on the disk (a shipped
// model's, the binary's copy) passes.
func sniff(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err // not the server's path
	}
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if errors.As(err, &pe) {
		return pe.Err
	}
	if err != nil {
		return err
	}
	if st.Size() > maxModelBytes {
		return fmt.Errorf("%d bytes, more than a checkpoint the server reads (%d)", st.Size(), maxModelBytes)
	}
	head := make([]byte, len(znet.Magic))
	if _, err := io.ReadFull(f, head); err != nil || string(head) != znet.Magic {
		return errors.New("not a zero network checkpoint (bad magic)")
	}
	return nil
}

// modelPath is the checkpoint path of the model a request names by file name: the models
// folder's file, else the shipped model's path (models/NAME); "" if there is neither.
func (s *Server) modelPath(name string) string {
	if !filepath.IsLocal(name) || strings.ContainsAny(name, `/\`) {
		return ""
	}
	if s.opts.ModelsDir != "" {
		path := filepath.Join(s.opts.ModelsDir, name)
		if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() { // a link to a file too
			return path
		}
	}
	if models.Shipped(name) {
		return models.Path(name)
	}
	return ""
}

// models lists the checkpoints for game, by file name: the models folder's files named GAME.*
// (GAME exactly: yinsh.ckpt is not yinsh-blitz's) that load, and the shipped GAME.zck.
func (s *Server) models(game string) []string {
	var out []string
	if name := game + models.Ext; models.Shipped(name) && s.offered(name, game) { // a file of the name may shadow it
		out = append(out, name)
	}
	if s.opts.ModelsDir != "" {
		entries, _ := os.ReadDir(s.opts.ModelsDir) // checked when the server started
		for _, e := range entries {
			name := e.Name()
			if strings.TrimSuffix(name, filepath.Ext(name)) != game || slices.Contains(out, name) {
				continue
			}
			if s.offered(name, game) {
				out = append(out, name)
			}
		}
	}
	sort.Strings(out)
	return out
}

// Every search of a browser's game, the agent's move or an analysis, stops within
// Options.MaxTime (ui.Match.Cap), whatever its budget: mcts:100000 takes minutes a move. An
// ab:D opponent searches at most maxWebABDepth turns, or deeper with a time cap of at most
// MaxTime a move (ab:4 alone takes over 10 s a move in Imbriqua's opening); a timed search
// asks at most MaxTime.
const maxWebABDepth = 4

// checkSpec checks an agent spec from a request (selfplay.ParseSpec) and returns it as the
// registry takes it: its simulations at most MaxWork, an alpha-beta search deeper than
// maxWebABDepth only with a time cap, and a checkpoint only a shipped model or a file inside
// the models folder, named by its file name, or with RunCheckpoint a kept checkpoint of a
// training run, named runs/RUN/FILE. The spec shown (the game's players, analyses, the record)
// names a checkpoint as the request did, not by the server's path to it.
func (s *Server) checkSpec(spec string) (string, string, error) {
	spec, shown, err := s.checkedSpec(spec)
	if shown == "" {
		shown = spec
	}
	return spec, shown, err
}

func (s *Server) checkedSpec(spec string) (string, string, error) {
	if len(spec) > 200 {
		return "", "", badRequest("opponent: spec too long")
	}
	sp, err := selfplay.ParseSpec(spec)
	if err != nil {
		return "", "", badRequest("opponent: %v", err)
	}
	k := sp.KindInfo()
	switch {
	case k.Depth:
		// Alpha-beta is bounded by its depth, which grows its time exponentially: deep
		// searches only with a cap on their time.
		if sp.Depth > maxWebABDepth && (sp.Time == 0 || sp.Time > s.opts.MaxTime) {
			return "", "", badRequest("opponent %q: alpha-beta deeper than %d turns needs a time a move of at most %v (ab:%d:5s)", spec, maxWebABDepth, s.opts.MaxTime, sp.Depth)
		}
		if sp.Time == 0 || sp.Time > s.opts.MaxTime {
			// Capped, with its setting kept: ab:2:eval=none became the classical ab:2.
			eval := ""
			if sp.EndsOnly {
				eval = "eval=none:"
			}
			return fmt.Sprintf("ab:%d:%s%v", sp.Depth, eval, s.opts.MaxTime), "", nil
		}
	case k.Simulations:
		if sp.Time > s.opts.MaxTime {
			return "", "", badRequest("opponent %q: the time a move must be at most %v", spec, s.opts.MaxTime)
		}
		if sp.Simulations > s.opts.MaxWork {
			return "", "", badRequest("opponent %q: the budget must be a number from 1 to %d", spec, s.opts.MaxWork)
		}
	}
	if !k.Network {
		return spec, "", nil
	}
	if sp.Settings != "" {
		// A search parameter could hold a game's server for long (max_nodes, root_proof_nodes).
		return "", "", badRequest("opponent %q: the browser takes no search settings (%s): the game's own are used", spec, sp.Settings)
	}
	if run, ok := strings.CutPrefix(sp.Checkpoint, "runs/"); ok && s.opts.RunCheckpoint != nil {
		path := s.opts.RunCheckpoint(run)
		if path == "" {
			return "", "", badRequest("opponent %q: no checkpoint %s among the runs' kept checkpoints", spec, run)
		}
		return fmt.Sprintf("mcts:%s:%s", sp.Budget(), path), fmt.Sprintf("mcts:%s:runs/%s", sp.Budget(), run), nil
	}
	name := strings.TrimPrefix(filepath.ToSlash(sp.Checkpoint), models.Dir+"/")
	if !filepath.IsLocal(name) || strings.ContainsAny(name, `/\`) {
		return "", "", badRequest("opponent %q: a checkpoint must be a shipped model or a file of the models folder, named by its file name", spec)
	}
	path := s.modelPath(name)
	if path == "" {
		return "", "", badRequest("opponent %q: no checkpoint %s among the models", spec, name)
	}
	if err := sniff(path); err != nil {
		return "", "", badRequest("opponent %q: %s: %v", spec, name, err)
	}
	shown := s.modelName(name)
	if path != models.Path(name) {
		if abs, err := filepath.Abs(path); err == nil {
			path = abs // a relative --models folder named c_puct=9:x would read as a search setting
		}
	}
	return fmt.Sprintf("mcts:%s:%s", sp.Budget(), path), fmt.Sprintf("mcts:%s:%s", sp.Budget(), shown), nil
}

func (s *Server) handleNew(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Game     string `json:"game"`
		Side     string `json:"side"`
		Opponent string `json:"opponent"`
	}
	if err := decode(w, r, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	g, err := games.Lookup(req.Game)
	if err != nil {
		s.fail(w, r, badRequest("game: %v", err))
		return
	}
	s.start(w, r, g, req.Opponent, req.Side, nil)
}

// start starts a game of g against opponent ("" for the game's default) with the person on
// side ("" for random), from the record rec if not nil (checked already: games.ReadRecord),
// keeps it and answers its state; or answers the error, keeping nothing.
func (s *Server) start(w http.ResponseWriter, r *http.Request, g games.Game, opponent, side string, rec *selfplay.Record) {
	byDefault := opponent == ""
	if byDefault {
		opponent = s.defaultSpec(g.Info().Name)
	}
	spec, shown, err := s.checkSpec(opponent)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	client, network := parties(r.RemoteAddr)
	if err := s.room(client, network); err != nil {
		s.fail(w, r, err) // before the agent is made (its checkpoint read)
		return
	}
	seed := s.opts.Seed()
	agent, err := ui.NewAgent(g, spec, seed)
	if err != nil && byDefault {
		// A shipped model that does not load: the game is still played, against the opponent
		// of the games without a model.
		if s.opts.Log != nil {
			s.opts.Log.Printf("the default opponent %s: %v; playing %s", spec, err, ui.DefaultOpponent)
		}
		agent, err = ui.NewAgent(g, ui.DefaultOpponent, seed)
	}
	hide := hider(spec, shown)
	if err != nil {
		s.failHiding(w, r, badRequest("opponent: %v", err), hide)
		return
	}
	if side == "" {
		side = "random"
	}
	m, err := ui.NewMatchAgent(g, agent, side, seed)
	if err != nil {
		s.fail(w, r, badRequest("side: %v", err))
		return
	}
	m.Cap = s.opts.MaxTime
	if agent.Spec() == spec {
		m.Players[1-m.HumanSide()] = shown // not the server's path to the checkpoint
	}
	if rec != nil {
		if err := m.Load(*rec); err != nil {
			s.fail(w, r, badRequest("record: %v", err))
			return
		}
	}
	sess := &session{id: newID(), client: client, network: network, m: m}
	if agent.Spec() == spec {
		sess.hide = hide
	}
	if err := s.add(sess); err != nil {
		s.fail(w, r, err)
		return
	}
	sess.mu.Lock()
	defer sess.mu.Unlock()
	writeJSON(w, http.StatusOK, stateOf(sess))
}

// maxRecordBody bounds the body of /api/load: a record of a long game, its moves commented
// by zero analyse, is some tens of kilobytes.
const maxRecordBody = 1 << 20

// handleLoad starts a game from a record (zero-game/1 JSON or SGF, read and replayed through
// the rules by games.ReadRecord): the person plays the side the record's human played, else
// the side asked; against the opponent asked when the record is of the game it was asked for
// (the page's form), else the record's agent where the server plays it, else the game's
// default. A record that does not read is refused with the reader's error (the node, line or
// move), the file named as the request named it; nothing else changes, the game the page
// played included.
func (s *Server) handleLoad(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Record   string `json:"record"`
		Name     string `json:"name"` // the file's name, for the errors
		Game     string `json:"game"` // the game opponent was chosen for
		Side     string `json:"side"`
		Opponent string `json:"opponent"`
	}
	if err := decodeLimit(w, r, &req, maxRecordBody); err != nil {
		s.fail(w, r, err)
		return
	}
	name := strings.TrimSpace(req.Name)
	if len(name) > 200 || strings.ContainsAny(name, "\n\r") {
		name = ""
	}
	if name == "" {
		name = "the record"
	}
	if strings.TrimSpace(req.Record) == "" {
		s.fail(w, r, badRequest("%s: empty: want a game record (zero's JSON or SGF)", name))
		return
	}
	rec, err := games.ReadRecord(strings.NewReader(req.Record))
	if err != nil {
		s.fail(w, r, badRequest("%s: %v", name, err))
		return
	}
	g, err := games.Lookup(rec.Game)
	if err != nil {
		s.fail(w, r, badRequest("%s: game: %v", name, err))
		return
	}
	names := g.Info().PlayerNames
	side := req.Side
	if side != "random" && !slices.Contains(names[:], side) {
		side = names[0] // a side of the form's game, not this one
	}
	for i, who := range rec.Players {
		if who == ui.Human {
			side = names[i]
		}
	}
	opponent := ""
	if rec.Game == req.Game {
		opponent = req.Opponent
	} else {
		for _, who := range rec.Players {
			if who == ui.Human {
				continue
			}
			if spec, _, err := s.checkSpec(who); err == nil {
				if _, err := ui.NewAgent(g, spec, 0); err == nil {
					opponent = who
				}
			}
		}
	}
	s.start(w, r, g, opponent, side, &rec)
}

func newID() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// parties tells the client of a request, by its remote address, and the client's network.
// A client is its address (the host of the connection's: behind a proxy, all its clients are
// one); an IPv6 client is its /64, since a host is given a /64 and may take any address in it,
// a new one for every game; any loopback address is the one client "loopback", the machine
// itself (127.0.0.0/8 is one host, ::1 the same). A network is an IPv4 client's /24 and an
// IPv6 client's /48 (a site's usual share), so that a party holding many addresses of one
// network counts as one (MaxPerNetwork); loopback is its own network. An address that is not
// an IP is both.
func parties(remote string) (client, network string) {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		return remote, remote
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return host, host
	}
	addr = addr.Unmap().WithZone("")
	if addr.IsLoopback() {
		return "loopback", "loopback"
	}
	bits := 24
	client = addr.String()
	if addr.Is6() {
		bits = 48
		p, _ := addr.Prefix(64)
		client = p.String()
	}
	p, _ := addr.Prefix(bits)
	return client, p.String()
}

// add keeps a new session of its client and network (parties), dropping the idle ones first,
// or refuses it (room). A client past MaxPerClient loses its own least recently used game; a
// network at MaxPerNetwork, and the server at MaxSessions, take a new game in the place of its
// client's least recently used one, and refuse it (503) when the client has none there. So a
// new game never drops another client's game: only games idle past IdleTimeout go, and however
// many addresses one party has, it fills at most its networks' share (and, with many networks,
// the rest of the server, whose games are then kept).
func (s *Server) add(sess *session) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess.used = time.Now()
	drop, err := s.roomLocked(sess.client, sess.network, sess.used)
	if err != nil {
		return err
	}
	for _, o := range drop {
		delete(s.sessions, o.id)
	}
	s.sessions[sess.id] = sess
	return nil
}

// room tells whether a new game of client and network would be kept (add), without changing
// anything but dropping the idle games.
func (s *Server) room(client, network string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err := s.roomLocked(client, network, time.Now())
	return err
}

// roomLocked (s.mu held) drops the games idle past IdleTimeout and returns the client's games
// a new game of its at now replaces (add), or the error that refuses it.
func (s *Server) roomLocked(client, network string, now time.Time) ([]*session, error) {
	s.expireLocked(now)
	var own []*session // the client's games
	inNetwork := 0
	// When the least recently used game of the network, of the server, goes idle past the
	// timeout: a place frees then at the latest.
	var networkFree, serverFree time.Time
	for _, o := range s.sessions {
		free := o.used.Add(s.opts.IdleTimeout)
		if serverFree.IsZero() || free.Before(serverFree) {
			serverFree = free
		}
		if o.network != network {
			continue
		}
		inNetwork++
		if networkFree.IsZero() || free.Before(networkFree) {
			networkFree = free
		}
		if o.client == client {
			own = append(own, o)
		}
	}
	slices.SortFunc(own, func(a, b *session) int { return a.used.Compare(b.used) })
	drop := 0 // the client's least recently used games to drop
	for len(own)-drop >= s.opts.MaxPerClient {
		drop++
	}
	for inNetwork-drop >= s.opts.MaxPerNetwork && drop < len(own) {
		drop++
	}
	if inNetwork-drop >= s.opts.MaxPerNetwork {
		return nil, unavailable(networkFree.Sub(now), "your network (%s) holds %d games, the most one network may keep, and no game in use is dropped (a game goes after %v untouched): retry later",
			network, inNetwork, s.opts.IdleTimeout)
	}
	for len(s.sessions)-drop >= s.opts.MaxSessions && drop < len(own) {
		drop++
	}
	if len(s.sessions)-drop >= s.opts.MaxSessions {
		return nil, unavailable(serverFree.Sub(now), "the server is full: it keeps at most %d games, and no game in use is dropped (a game goes after %v untouched): retry later",
			s.opts.MaxSessions, s.opts.IdleTimeout)
	}
	return own[:drop], nil
}

// expireLocked drops the games idle longer than IdleTimeout (s.mu held): at every request on a
// game and every new game, so that an idle game's agent (its network and engine; its tree is
// given back after each search) is let go at the next request, not kept until it is asked for
// again.
func (s *Server) expireLocked(now time.Time) {
	for id, o := range s.sessions {
		if now.Sub(o.used) > s.opts.IdleTimeout {
			delete(s.sessions, id)
		}
	}
}

// sessionHandler handles a request on one session, which it holds locked.
type sessionHandler func(w http.ResponseWriter, r *http.Request, sess *session) error

// What a session handler does with its game, besides reading it and changing it at once.
type handlerKind int

const (
	onGame    handlerKind = iota
	takesMove             // the body holds a move (/api/play)
	takesLine             // the body holds a line and the ply it starts from (/api/line)
	searches              // it searches (/api/agent, /api/analyze): one such request a game at once
)

// withSession finds the session named by the request (id in the query for GET, in the body
// for POST) and runs h with it locked. A body's move field is refused, as any unknown field,
// unless h takes a move (/api/play): {"id":…,"move":…} sent to /api/agent is a mistake. A
// request for a search while another of the game is under way is refused (409), not queued
// behind it on the game's lock: each such request would wait for all the searches before it.
func (s *Server) withSession(h sessionHandler, kind handlerKind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var req request
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			req.ID = r.URL.Query().Get("id")
		} else if err := decode(w, r, &req); err != nil {
			s.fail(w, r, err)
			return
		} else if req.Move != nil && kind != takesMove {
			s.fail(w, r, badRequest(`bad request body: json: unknown field "move" (only /api/play takes one)`))
			return
		} else if (req.Line != nil || req.Ply != nil) && kind != takesLine {
			s.fail(w, r, badRequest(`bad request body: json: unknown field "line" or "ply" (only /api/line takes them)`))
			return
		}
		s.mu.Lock()
		now := time.Now()
		s.expireLocked(now) // this game too, if idle too long
		sess := s.sessions[req.ID]
		if sess != nil {
			sess.used = now
		}
		s.mu.Unlock()
		if sess == nil {
			s.fail(w, r, &httpError{http.StatusNotFound, errors.New("no such game (it may have expired): start a new one")})
			return
		}
		if kind == searches {
			if !sess.searching.CompareAndSwap(false, true) {
				s.fail(w, r, &httpError{http.StatusConflict, errors.New("the agent is already searching in this game: wait for its answer")})
				return
			}
			defer sess.searching.Store(false)
		}
		sess.mu.Lock()
		defer sess.mu.Unlock()
		r = r.WithContext(context.WithValue(r.Context(), requestKey{}, req))
		if err := h(w, r, sess); err != nil {
			s.failHiding(w, r, err, sess.hide)
		}
	}
}

// request is the body of the POST requests on a session.
type request struct {
	ID   string  `json:"id"`
	Move *string `json:"move,omitempty"` // nil if absent
	// Line and Ply are /api/line's: the moves to play from the position after Ply decisions.
	Line []string `json:"line,omitempty"`
	Ply  *int     `json:"ply,omitempty"`
}

type requestKey struct{}

func requestOf(r *http.Request) request { return r.Context().Value(requestKey{}).(request) }

func (s *Server) handleState(w http.ResponseWriter, _ *http.Request, sess *session) error {
	writeJSON(w, http.StatusOK, stateOf(sess))
	return nil
}

func (s *Server) handlePlay(w http.ResponseWriter, r *http.Request, sess *session) error {
	var move string
	if m := requestOf(r).Move; m != nil {
		move = strings.TrimSpace(*m)
	}
	if move == "" {
		return badRequest("move: give a move in the game's notation")
	}
	// Not now (409): the move may be good, the moment is not.
	switch {
	case sess.m.Over():
		return &httpError{http.StatusConflict, ui.ErrGameOver}
	case !sess.m.HumanToMove():
		return &httpError{http.StatusConflict, fmt.Errorf("it is %s's turn, not yours", sess.m.Pos.ToMove())}
	}
	if err := sess.m.Play(move); err != nil {
		return &httpError{http.StatusUnprocessableEntity, err}
	}
	writeJSON(w, http.StatusOK, stateOf(sess))
	return nil
}

// maxLine bounds the moves of a line (/api/line): a principal variation is at most 32.
const maxLine = 64

// lineStep is one position of a line: the move that led there and the board after it.
type lineStep struct {
	Move   string `json:"move"`
	By     string `json:"by"`      // who decided it: a player, or "chance"
	ToMove string `json:"to_move"` // after it: a player, "chance" or "none"
	Over   bool   `json:"over"`
	Result string `json:"result"`
	View   any    `json:"view"`
	Text   string `json:"text"`
}

// handleLine plays a line of moves (a candidate move and the continuation an analysis
// expects: its principal variation, chance's draws included where the line gives them) on a
// copy of the game's position, and answers the board after each, for the page to step
// through. The game is not changed. The line must start from the position now: ply, the
// decisions played when the analysis was made, is checked (409 if the game has moved since),
// and every move must be legal in turn (422, the move named).
func (s *Server) handleLine(w http.ResponseWriter, r *http.Request, sess *session) error {
	req := requestOf(r)
	m := sess.m
	moves := m.Pos.Moves()
	switch {
	case req.Ply == nil:
		return badRequest("ply: give the number of decisions the line starts after")
	case *req.Ply != len(moves):
		return &httpError{http.StatusConflict, fmt.Errorf("the line starts after %d decisions, but the game has %d now: ask for a new analysis", *req.Ply, len(moves))}
	case len(req.Line) == 0:
		return badRequest("line: give one move or more")
	case len(req.Line) > maxLine:
		return badRequest("line: %d moves, more than %d", len(req.Line), maxLine)
	}
	board := ui.BoardFor(m.Game.Info().Name)
	pos := m.Pos.Clone()
	out := struct {
		Ply   int        `json:"ply"`
		Steps []lineStep `json:"steps"`
	}{Ply: len(moves), Steps: []lineStep{}}
	for i, mv := range req.Line {
		if pos.Over() {
			return &httpError{http.StatusUnprocessableEntity, fmt.Errorf("move %d, %s: the game is over", i+1, mv)}
		}
		by := pos.ToMove()
		if err := pos.Play(mv); err != nil {
			return &httpError{http.StatusUnprocessableEntity, fmt.Errorf("move %d: %w", i+1, err)}
		}
		step := lineStep{Move: mv, By: by, Over: pos.Over(), Result: pos.Result(), View: board.View(pos), Text: pos.Show()}
		step.ToMove = pos.ToMove()
		if step.Over {
			step.ToMove = m.Game.Info().PlayerName(env.Terminal)
		}
		out.Steps = append(out.Steps, step)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// maxWaitingPerClient bounds the requests of one client waiting for a search token (search).
const maxWaitingPerClient = 1

// search runs f, the search of request r, holding one of the Searches tokens. When none is
// free the request waits, but not without bound: at most Searches requests wait (as many as
// run), at most maxWaitingPerClient of one client, each at most MaxTime (a search stops within
// it: a token frees by then unless all those before it waited too); past any of them it is
// refused at once (503, Retry-After), and when it is given up first it fails. Waiters get the
// tokens in turn.
func (s *Server) search(r *http.Request, f func() error) error {
	ctx := r.Context()
	select {
	case s.searches <- struct{}{}:
	default:
		client, _ := parties(r.RemoteAddr)
		if err := s.wait(ctx, client); err != nil {
			return err
		}
	}
	defer func() { <-s.searches }()
	err := f()
	var he *httpError
	if err != nil && ctx.Err() == nil && !errors.As(err, &he) {
		// The request was checked before the search: a search that fails is the server's
		// fault (a model that stopped loading, an agent's illegal move), not bad input.
		return &httpError{http.StatusInternalServerError, err}
	}
	return err
}

// wait waits for a search token for client (search).
func (s *Server) wait(ctx context.Context, client string) error {
	s.mu.Lock()
	switch {
	case s.waiting[client] >= maxWaitingPerClient:
		s.mu.Unlock()
		return unavailable(s.opts.MaxTime, "the server is busy: a search of yours already waits for a slot (it runs %d at once): retry once it is answered", cap(s.searches))
	case s.queued >= cap(s.searches):
		s.mu.Unlock()
		return unavailable(s.opts.MaxTime, "the server is busy: every search slot is taken (it runs %d at once) and as many requests wait for one, the most it lets wait: retry in %v", cap(s.searches), s.opts.MaxTime)
	}
	s.waiting[client]++
	s.queued++
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if s.waiting[client]--; s.waiting[client] == 0 {
			delete(s.waiting, client)
		}
		s.queued--
		s.mu.Unlock()
	}()
	timer := time.NewTimer(s.opts.MaxTime)
	defer timer.Stop()
	select {
	case s.searches <- struct{}{}:
		return nil
	case <-timer.C:
		return unavailable(s.opts.MaxTime, "the server is busy: no search slot freed within %v (it runs %d at once): retry in %v", s.opts.MaxTime, cap(s.searches), s.opts.MaxTime)
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *Server) handleAgent(w http.ResponseWriter, r *http.Request, sess *session) error {
	if sess.m.Over() {
		return &httpError{http.StatusConflict, ui.ErrGameOver}
	}
	if !sess.m.AgentToMove() {
		return &httpError{http.StatusConflict, errors.New("it is not the agent's turn")}
	}
	var played []string
	var an selfplay.Analysis
	side, ply := sess.m.Pos.ToMove(), len(sess.m.Pos.Moves())
	err := s.search(r, func() error {
		// The game may wait long on the person: the agent keeps no tree or cache meanwhile
		// (hundreds of megabytes after a strong search, times the games kept).
		defer sess.m.Agent().Release()
		var err error
		played, an, err = sess.m.AgentTurn(r.Context(), nil)
		return err
	})
	if err != nil {
		return err
	}
	st := stateOf(sess)
	st.AgentMoves = played
	st.Analysis = analysisOf(sess.m, side, ply, an)
	writeJSON(w, http.StatusOK, st)
	return nil
}

func (s *Server) handleAnalyze(w http.ResponseWriter, r *http.Request, sess *session) error {
	if sess.m.Over() {
		return &httpError{http.StatusConflict, ui.ErrGameOver}
	}
	var an selfplay.Analysis
	err := s.search(r, func() error {
		defer sess.m.Agent().Release()
		var err error
		an, err = sess.m.Hint(r.Context(), nil)
		return err
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, analysisOf(sess.m, sess.m.Pos.ToMove(), len(sess.m.Pos.Moves()), an))
	return nil
}

func (s *Server) handleUndo(w http.ResponseWriter, _ *http.Request, sess *session) error {
	if err := sess.m.Undo(); err != nil {
		return &httpError{http.StatusConflict, err}
	}
	writeJSON(w, http.StatusOK, stateOf(sess))
	return nil
}

func (s *Server) handleResign(w http.ResponseWriter, _ *http.Request, sess *session) error {
	if err := sess.m.Resign(); err != nil {
		return &httpError{http.StatusConflict, err}
	}
	writeJSON(w, http.StatusOK, stateOf(sess))
	return nil
}

func (s *Server) handleRecord(w http.ResponseWriter, r *http.Request, sess *session) error {
	rec := sess.m.Record()
	name := fmt.Sprintf("zero-%s-%s", rec.Game, time.Now().Format("20060102-150405"))
	switch f := r.URL.Query().Get("format"); f {
	case "", "json":
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Content-Disposition", `attachment; filename="`+name+`.json"`)
		w.Write(rec.MarshalFile())
	case "sgf":
		text, err := games.MarshalSGF(rec)
		if err != nil {
			return err
		}
		w.Header().Set("Content-Type", "application/x-go-sgf; charset=utf-8")
		w.Header().Set("Content-Disposition", `attachment; filename="`+name+`.sgf"`)
		w.Write(text)
	default:
		return &httpError{http.StatusBadRequest, fmt.Errorf("format %q: want json or sgf", f)}
	}
	return nil
}

// state is what the page knows of a game.
type state struct {
	ID      string            `json:"id"`
	Game    string            `json:"game"`
	Names   [2]string         `json:"names"`   // the players' names, player 0 first
	Players map[string]string `json:"players"` // who plays each: "human" or the agent's spec
	Human   string            `json:"human"`   // the person's side
	ToMove  string            `json:"to_move"` // a player name, "chance" or "none"
	// YourTurn and AgentTurn tell who decides next; both are false once the game is over.
	YourTurn  bool   `json:"your_turn"`
	AgentTurn bool   `json:"agent_turn"`
	Over      bool   `json:"over"`
	Result    string `json:"result"`   // "none", the winner or "draw"
	Resigned  string `json:"resigned"` // who resigned, or ""
	// Moves are the decisions from the start; Legal the person's legal moves (empty unless it
	// is the person's turn), sorted byte-wise, and Groups the same as the board lists them.
	Moves  []string       `json:"moves"`
	Legal  []string       `json:"legal"`
	Groups []ui.MoveGroup `json:"groups"`
	View   any            `json:"view"` // the board, as the game's ui.Board draws it
	Text   string         `json:"text"` // the game's own text drawing
	// AgentMoves and Analysis come with the agent's turn: what it played and why.
	AgentMoves []string  `json:"agent_moves,omitempty"`
	Analysis   *analysis `json:"analysis,omitempty"`
}

// toMove is state.ToMove: "none" once the game is over, a resignation included.
func toMove(m *ui.Match) string {
	if m.Over() {
		return m.Game.Info().PlayerName(env.Terminal)
	}
	return m.Pos.ToMove()
}

func stateOf(sess *session) *state {
	m := sess.m
	names := m.Game.Info().PlayerNames
	board := ui.BoardFor(m.Game.Info().Name)
	st := &state{ID: sess.id, Game: m.Game.Info().Name, Names: names, Human: names[m.HumanSide()],
		ToMove: toMove(m), YourTurn: m.HumanToMove(), AgentTurn: m.AgentToMove(), Over: m.Over(),
		Result: m.Result(), Moves: m.Pos.Moves(), Legal: []string{}, Groups: []ui.MoveGroup{},
		View: board.View(m.Pos), Text: m.Pos.Show()}
	rec := m.Record()
	st.Players = map[string]string{names[0]: rec.Players[0], names[1]: rec.Players[1]}
	st.Resigned = rec.Resigned
	if st.YourTurn {
		st.Legal = m.Pos.Legal()
		st.Groups = board.Group(m.Pos)
	}
	return st
}

// analysis is an agent's view of a position, for the page.
type analysis struct {
	Agent string `json:"agent"`
	For   string `json:"for"` // the side to decide, whose view Value and WinProb are
	// Value is the expected result, in [-1, 1]: the chosen move's (selfplay.Analysis.ChoiceValue),
	// so that it is the value of the moves listed.
	Value float64    `json:"value"`
	Work  int        `json:"work"`  // simulations spent
	Moves []moveStat `json:"moves"` // ranked, the agent's choice first
	// Ply is the number of decisions played before the position analysed: /api/line's start.
	Ply int `json:"ply"`
}

type moveStat struct {
	Move  string  `json:"move"`
	Share float64 `json:"share"` // the share of the search spent on it, in [0, 1]
	// WinProb is the chance of winning after it for the side to decide, or -1 when unknown.
	WinProb float64 `json:"win_prob"`
	// PV is the line the search expects: the move, then the replies and moves after it, to a
	// chance decision it does not foresee (for a tree search's moves with visits; [move]
	// where there is no line).
	PV []string `json:"pv"`
}

func analysisOf(m *ui.Match, side string, ply int, an selfplay.Analysis) *analysis {
	out := &analysis{Agent: m.Players[1-m.HumanSide()], For: side, Value: an.ChoiceValue(), Work: an.Work, Moves: []moveStat{}, Ply: ply}
	for _, ms := range an.Moves {
		pv := ms.PV
		if len(pv) == 0 {
			pv = []string{ms.Move}
		}
		out.Moves = append(out.Moves, moveStat{ms.Move, ms.Share, ms.WinProb, pv})
	}
	return out
}
