package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zerogames/zero/internal/games"
	"github.com/zerogames/zero/internal/games/gamestest"
	"github.com/zerogames/zero/internal/ui"
	znet "github.com/zerogames/zero/net"
	"github.com/zerogames/zero/selfplay"
)

func newServer(t *testing.T, opts Options) *httptest.Server {
	t.Helper()
	if opts.Seed == nil {
		opts.Seed = func() uint64 { return 7 }
	}
	srv := httptest.NewServer(New(opts))
	t.Cleanup(srv.Close)
	return srv
}

// call sends a request (a POST with body if body is not "") and decodes the JSON answer into
// out (if not nil); it returns the status.
func call(t *testing.T, srv *httptest.Server, method, path, body string, out any) int {
	t.Helper()
	req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s %s: %v in %q", method, path, err, data)
		}
	}
	return resp.StatusCode
}

type apiError struct {
	Error string `json:"error"`
}

func newGame(t *testing.T, srv *httptest.Server, body string) state {
	t.Helper()
	var st state
	if code := call(t, srv, "POST", "/api/new", body, &st); code != 200 {
		t.Fatalf("new %s: status %d", body, code)
	}
	return st
}

// A whole yinsh-blitz game through the API: the person plays the first legal move, the agent
// replies, until the end; then the record downloads and replays to the same result.
func TestWholeGame(t *testing.T) {
	srv := newServer(t, Options{})
	st := newGame(t, srv, `{"game":"yinsh-blitz","side":"black","opponent":"random"}`)
	if st.Human != "black" || !st.AgentTurn || st.YourTurn || len(st.Legal) != 0 || st.Players["white"] != "random" {
		t.Fatalf("new game %+v", st)
	}
	id := `{"id":"` + st.ID + `"}`
	for turns := 0; !st.Over; turns++ {
		if turns > 400 {
			t.Fatal("the game does not end")
		}
		if st.AgentTurn {
			if code := call(t, srv, "POST", "/api/agent", id, &st); code != 200 || len(st.AgentMoves) == 0 || st.Analysis == nil {
				t.Fatalf("agent: status %d, %+v", code, st)
			}
			continue
		}
		if !st.YourTurn || len(st.Legal) == 0 || len(st.Groups) == 0 {
			t.Fatalf("neither side to move: %+v", st)
		}
		body := `{"id":"` + st.ID + `","move":"` + st.Legal[0] + `"}`
		if code := call(t, srv, "POST", "/api/play", body, &st); code != 200 {
			t.Fatalf("play %s: status %d", body, code)
		}
	}
	if st.Result == "none" || st.YourTurn || st.AgentTurn {
		t.Fatalf("finished game %+v", st)
	}
	resp, err := srv.Client().Get(srv.URL + "/api/record?id=" + st.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if cd := resp.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, `attachment; filename="zero-yinsh-blitz-`) {
		t.Errorf("Content-Disposition %q", cd)
	}
	rec, err := games.ReadRecord(resp.Body)
	if err != nil || rec.Result != st.Result || !slices.Equal(rec.Moves, st.Moves) || rec.PlayerOf("black") != ui.Human {
		t.Fatalf("record %+v, %v", rec, err)
	}
	// The same record as SGF, and a format the server has not.
	sgfResp, err := srv.Client().Get(srv.URL + "/api/record?format=sgf&id=" + st.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer sgfResp.Body.Close()
	if cd := sgfResp.Header.Get("Content-Disposition"); !strings.HasSuffix(cd, `.sgf"`) {
		t.Errorf("SGF Content-Disposition %q", cd)
	}
	if srec, err := games.ReadRecord(sgfResp.Body); err != nil || srec.Result != rec.Result || !slices.Equal(srec.Moves, rec.Moves) || srec.Players != rec.Players {
		t.Fatalf("SGF record %+v, %v; want %+v", srec, err, rec)
	}
	bad, err := srv.Client().Get(srv.URL + "/api/record?format=pgn&id=" + st.ID)
	if err != nil {
		t.Fatal(err)
	}
	bad.Body.Close()
	if bad.StatusCode != http.StatusBadRequest {
		t.Errorf("format=pgn: status %d, want 400", bad.StatusCode)
	}
	// HEAD, which the server advertises for its GET endpoints, answers as GET does (it was
	// sent to the JSON body's decoder: 415).
	for _, path := range []string{"/api/record?id=", "/api/state?id="} {
		head, err := srv.Client().Head(srv.URL + path + st.ID)
		if err != nil {
			t.Fatal(err)
		}
		head.Body.Close()
		if head.StatusCode != 200 {
			t.Errorf("HEAD %s: %d", path, head.StatusCode)
		}
	}
}

// A whole game of Gygès (advanced rule) and of Imbriqua through the API, the person playing the
// first legal move: the board view is the game's, the legal moves come with the way each goes
// (Gygès), chance draws are made by the server and never left to anyone (Imbriqua), the person
// decides the agent's penalties, and the record replays to the same end.
func TestWholeGameOtherKinds(t *testing.T) {
	tests := []struct {
		game, side string
		check      func(t *testing.T, st *state)
	}{
		{"gyges-advanced", "north", func(t *testing.T, st *state) {
			var v struct {
				Kind   string                `json:"kind"`
				Phase  string                `json:"phase"`
				Routes map[string][][]string `json:"routes"`
			}
			remarshal(t, st.View, &v)
			if v.Kind != "gyges" {
				t.Fatalf("view %+v", v)
			}
			if !st.YourTurn || v.Phase != "move" {
				return
			}
			for _, m := range st.Legal {
				key, _, replace := strings.Cut(m, "*")
				if replace {
					key += "*"
				}
				if len(v.Routes[key]) == 0 {
					t.Fatalf("no way shown for %s", m)
				}
			}
		}},
		{"imbriqua", "light", func(t *testing.T, st *state) {
			var v struct {
				Kind    string `json:"kind"`
				Phase   string `json:"phase"`
				Decider string `json:"decider"`
				Mover   string `json:"mover"`
			}
			remarshal(t, st.View, &v)
			if v.Kind != "imbriqua" || v.Phase == "draw" || st.ToMove == "chance" {
				t.Fatalf("view %+v, to move %s", v, st.ToMove)
			}
			if v.Phase == "penalty" && v.Decider != st.ToMove {
				t.Fatalf("penalty decided by %s, %s to move", v.Decider, st.ToMove)
			}
			if v.Phase == "penalty" && st.YourTurn {
				if v.Mover != "dark" || len(st.Legal) == 0 || len(st.Groups) != 1 || st.Groups[0].Label != "remove" {
					t.Fatalf("our penalty on %s: legal %q, groups %+v", v.Mover, st.Legal, st.Groups)
				}
				for _, m := range st.Legal {
					if !strings.HasPrefix(m, "remove ") {
						t.Fatalf("%s legal in a penalty", m)
					}
				}
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.game, func(t *testing.T) {
			srv := newServer(t, Options{})
			st := newGame(t, srv, `{"game":"`+tt.game+`","side":"`+tt.side+`","opponent":"random"}`)
			id := `{"id":"` + st.ID + `"}`
			penalties := 0
			for turns := 0; !st.Over; turns++ {
				if turns > 1000 {
					t.Fatal("the game does not end")
				}
				tt.check(t, &st)
				if st.AgentTurn {
					if code := call(t, srv, "POST", "/api/agent", id, &st); code != 200 || len(st.AgentMoves) == 0 {
						t.Fatalf("agent: status %d, %+v", code, st)
					}
					continue
				}
				if !st.YourTurn || len(st.Legal) == 0 {
					t.Fatalf("neither side to move: %+v", st)
				}
				if strings.HasPrefix(st.Legal[0], "remove ") {
					penalties++
				}
				body := `{"id":"` + st.ID + `","move":"` + st.Legal[0] + `"}`
				if code := call(t, srv, "POST", "/api/play", body, &st); code != 200 {
					t.Fatalf("play %s: status %d", body, code)
				}
			}
			draws := 0
			for _, m := range st.Moves {
				if strings.HasPrefix(m, "card ") {
					draws++
				}
			}
			if tt.game == "imbriqua" && (draws != 10 || penalties == 0) {
				t.Errorf("%d chance draws (want the first pile's 10), %d penalties decided by the person", draws, penalties)
			}
			resp, err := srv.Client().Get(srv.URL + "/api/record?id=" + st.ID)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			rec, err := games.ReadRecord(resp.Body)
			if err != nil || rec.Result != st.Result || !slices.Equal(rec.Moves, st.Moves) || rec.PlayerOf(tt.side) != ui.Human {
				t.Fatalf("record %+v, %v", rec, err)
			}
		})
	}
}

// The search's evaluation, on request, for the new games.
func TestAnalyzeOtherKinds(t *testing.T) {
	for _, game := range []string{"gyges", "imbriqua"} {
		srv := newServer(t, Options{})
		st := newGame(t, srv, `{"game":"`+game+`","side":"random","opponent":"uct:40"}`)
		if st.AgentTurn {
			call(t, srv, "POST", "/api/agent", `{"id":"`+st.ID+`"}`, &st)
		}
		var an analysis
		if code := call(t, srv, "POST", "/api/analyze", `{"id":"`+st.ID+`"}`, &an); code != 200 || an.Agent != "uct:40" ||
			an.For != st.Human || an.Work != 40 || len(an.Moves) < 2 || an.Moves[0].WinProb < 0 {
			t.Errorf("%s: analyze: %d %+v", game, code, an)
		}
	}
}

// remarshal turns a decoded JSON value into another type.
func remarshal(t *testing.T, from, to any) {
	t.Helper()
	data, err := json.Marshal(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, to); err != nil {
		t.Fatal(err)
	}
}

func TestPlayUndoResignAnalyze(t *testing.T) {
	srv := newServer(t, Options{})
	st := newGame(t, srv, `{"game":"yinsh","side":"white","opponent":"random"}`)
	id := st.ID
	var e apiError
	if code := call(t, srv, "POST", "/api/play", `{"id":"`+id+`","move":"place z9"}`, &e); code != 422 || !strings.Contains(e.Error, `"z9" is not a point`) {
		t.Fatalf("a bad move: %d %q", code, e.Error)
	}
	if code := call(t, srv, "POST", "/api/agent", `{"id":"`+id+`"}`, &e); code != 409 {
		t.Fatalf("the agent out of turn: %d %q", code, e.Error)
	}
	call(t, srv, "POST", "/api/play", `{"id":"`+id+`","move":"f6"}`, &st) // shortened
	if !slices.Equal(st.Moves, []string{"place f6"}) || !st.AgentTurn {
		t.Fatalf("after place f6: %+v", st)
	}
	call(t, srv, "POST", "/api/agent", `{"id":"`+id+`"}`, &st)
	var an analysis
	if code := call(t, srv, "POST", "/api/analyze", `{"id":"`+id+`"}`, &an); code != 200 || an.Agent != "random" || an.For != "white" || len(an.Moves) != 1 {
		t.Fatalf("analyze: %d %+v", code, an)
	}
	if code := call(t, srv, "POST", "/api/undo", `{"id":"`+id+`"}`, &st); code != 200 || len(st.Moves) != 0 || !st.YourTurn {
		t.Fatalf("undo: %d %+v", code, st)
	}
	if code := call(t, srv, "POST", "/api/undo", `{"id":"`+id+`"}`, &e); code != 409 {
		t.Fatalf("undo at the start: %d", code)
	}
	if code := call(t, srv, "POST", "/api/resign", `{"id":"`+id+`"}`, &st); code != 200 || !st.Over || st.Result != "black" || st.Resigned != "white" {
		t.Fatalf("resign: %d %+v", code, st)
	}
	if code := call(t, srv, "POST", "/api/analyze", `{"id":"`+id+`"}`, &e); code != 409 {
		t.Fatalf("analyze after the end: %d", code)
	}
}

// Two games never see each other's moves.
func TestSessionsAreIsolated(t *testing.T) {
	srv := newServer(t, Options{})
	a := newGame(t, srv, `{"game":"yinsh","side":"white","opponent":"random"}`)
	b := newGame(t, srv, `{"game":"yinsh","side":"white","opponent":"random"}`)
	if a.ID == b.ID || len(a.ID) != 32 {
		t.Fatalf("ids %q and %q", a.ID, b.ID)
	}
	call(t, srv, "POST", "/api/play", `{"id":"`+a.ID+`","move":"place f6"}`, nil)
	var st state
	call(t, srv, "GET", "/api/state?id="+b.ID, "", &st)
	if len(st.Moves) != 0 {
		t.Fatalf("game b sees %q", st.Moves)
	}
	call(t, srv, "GET", "/api/state?id="+a.ID, "", &st)
	if !slices.Equal(st.Moves, []string{"place f6"}) {
		t.Fatalf("game a has %q", st.Moves)
	}
}

// Past MaxSessions, the least recently used game goes.
func TestSessionLimit(t *testing.T) {
	srv := newServer(t, Options{MaxSessions: 2})
	a := newGame(t, srv, `{"game":"yinsh","opponent":"random"}`)
	b := newGame(t, srv, `{"game":"yinsh","opponent":"random"}`)
	call(t, srv, "GET", "/api/state?id="+a.ID, "", nil) // a is now more recent than b
	newGame(t, srv, `{"game":"yinsh","opponent":"random"}`)
	if code := call(t, srv, "GET", "/api/state?id="+b.ID, "", nil); code != 404 {
		t.Errorf("the least recently used game is still there: %d", code)
	}
	if code := call(t, srv, "GET", "/api/state?id="+a.ID, "", nil); code != 200 {
		t.Errorf("a recently used game was dropped: %d", code)
	}
}

// callAs sends a request to s as the client at address client, and decodes the answer into
// out (if not nil); it returns the status.
func callAs(t *testing.T, s *Server, client, method, path, body string, out any) int {
	t.Helper()
	w := serveAs(s, client, method, path, body)
	if out != nil {
		if err := json.Unmarshal(w.Body.Bytes(), out); err != nil {
			t.Fatalf("%s %s: %v in %q", method, path, err, w.Body.String())
		}
	}
	return w.Code
}

// serveAs sends a request to s as the client at address client (an IP address: IPv6 without
// brackets) and returns the answer.
func serveAs(s *Server, client, method, path, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.RemoteAddr = net.JoinHostPort(client, "40000")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	return w
}

// One client cannot drop every other client's games: past its own limit it loses its own
// least recently used game, and when the server is full a new game takes the place of its
// client's own least recently used one.
func TestSessionsPerClient(t *testing.T) {
	newAs := func(s *Server, client string) string {
		var st state
		if code := callAs(t, s, client, "POST", "/api/new", `{"game":"yinsh","opponent":"random","side":"white"}`, &st); code != 200 {
			t.Fatalf("new game for %s: %d", client, code)
		}
		return st.ID
	}
	alive := func(s *Server, client, id string) bool {
		return callAs(t, s, client, "GET", "/api/state?id="+id, "", nil) == 200
	}
	tests := []struct {
		name                   string
		maxSessions, perClient int
		aGames, bGames         int
		aKept, bKept           int // of each's newest games, how many are left
	}{
		{"a client past its limit drops its own", 100, 3, 2, 10, 2, 3},
		{"a full server: the greedy client drops its own", 4, 3, 2, 10, 2, 2},
		{"a full server: equal shares, the newcomer's own", 4, 4, 2, 6, 2, 2},
	}
	for _, tt := range tests {
		s := New(Options{MaxSessions: tt.maxSessions, MaxPerClient: tt.perClient, Seed: func() uint64 { return 1 }})
		var a, b []string
		for range tt.aGames {
			a = append(a, newAs(s, "192.0.2.1"))
		}
		for range tt.bGames {
			b = append(b, newAs(s, "198.51.100.7"))
		}
		for _, g := range []struct {
			who  string
			ids  []string
			kept int
		}{{"192.0.2.1", a, tt.aKept}, {"198.51.100.7", b, tt.bKept}} {
			for i, id := range g.ids {
				if want := i >= len(g.ids)-g.kept; alive(s, g.who, id) != want {
					t.Errorf("%s: %s's game %d of %d kept: %v, want %v", tt.name, g.who, i+1, len(g.ids), !want, want)
				}
			}
		}
		if n := len(s.sessions); n > tt.maxSessions {
			t.Errorf("%s: %d games kept, at most %d", tt.name, n, tt.maxSessions)
		}
	}
}

// No party pushes out another's game, however many addresses it has (700 games from 700
// loopback addresses dropped every other client's): a client keeps at most its 32 games (every
// loopback address is one client), a network (an IPv4 /24, an IPv6 /48) its 64, and past the
// server's 256 a new game of a client that holds none is refused with 503, the games kept
// staying. Another client's game, started first and so the least recently used, lives on, and
// its client can still start a game (in the place of its own when the server is full).
func TestManyAddressesDropNoOtherGame(t *testing.T) {
	const body = `{"game":"yinsh-blitz","opponent":"random","side":"white"}`
	tests := []struct {
		name    string
		addr    func(i int) string // the address of the i-th of 700 games
		started int                // of the 700, how many start (200)
		kept    int                // and are kept
		refused string             // the error of the others (503)
	}{
		{"loopback addresses", func(i int) string { return fmt.Sprintf("127.0.%d.%d", i/200, 1+i%200) }, 700, 32, ""},
		{"the addresses of three IPv4 /24s", func(i int) string { return fmt.Sprintf("198.18.%d.%d", i%3, 1+i/3) }, 3 * 64, 3 * 64, "holds 64 games, the most one network may keep"},
		{"the /64s of one IPv6 /48", func(i int) string { return fmt.Sprintf("2001:db8:5:%x::1", i) }, 64, 64, "your network (2001:db8:5::/48) holds 64 games"},
		{"700 networks", func(i int) string { return fmt.Sprintf("10.%d.%d.1", i/256, i%256) }, 255, 255, "the server is full: it keeps at most 256 games, and no game in use is dropped (a game goes after 6h0m0s untouched): retry later"},
	}
	for _, tt := range tests {
		s := New(Options{Seed: func() uint64 { return 1 }})
		var victim state
		if code := callAs(t, s, "192.0.2.1", "POST", "/api/new", body, &victim); code != 200 {
			t.Fatalf("%s: the first game: %d", tt.name, code)
		}
		started := 0
		for i := range 700 {
			w := serveAs(s, tt.addr(i), "POST", "/api/new", body)
			if w.Code == 200 {
				started++
				continue
			}
			var e apiError
			json.Unmarshal(w.Body.Bytes(), &e)
			retry, err := strconv.Atoi(w.Header().Get("Retry-After"))
			if w.Code != 503 || !strings.Contains(e.Error, tt.refused) || err != nil || retry < 1 || retry > 6*3600 {
				t.Fatalf("%s: game %d from %s: %d %q, Retry-After %q; want 200, or 503 %q with the seconds until a game may go idle",
					tt.name, i+1, tt.addr(i), w.Code, e.Error, w.Header().Get("Retry-After"), tt.refused)
			}
		}
		s.mu.Lock()
		kept := len(s.sessions) - 1
		s.mu.Unlock()
		if started != tt.started || kept != tt.kept {
			t.Errorf("%s: of 700 games %d started and %d are kept, want %d and %d", tt.name, started, kept, tt.started, tt.kept)
		}
		if code := callAs(t, s, "192.0.2.1", "GET", "/api/state?id="+victim.ID, "", nil); code != 200 {
			t.Errorf("%s: another client's game, after the 700: %d", tt.name, code)
		}
		if code := callAs(t, s, "192.0.2.1", "POST", "/api/new", body, nil); code != 200 || len(s.sessions) > 256 {
			t.Errorf("%s: the other client's next game: %d, %d games kept", tt.name, code, len(s.sessions))
		}
	}
}

// slowAgent is a games.Agent whose every search waits until release is closed (or its request
// goes away) and then plays as the agent it wraps: a search that holds its slot for as long as
// a test wants, without searching. started is told its game, i, as each search starts.
type slowAgent struct {
	games.Agent
	i       int
	started chan<- int
	release <-chan struct{}
}

func (a *slowAgent) Analyze(ctx context.Context, pos *games.Position, lim selfplay.Limits, progress func(done, total int)) (selfplay.Analysis, error) {
	a.started <- a.i
	select {
	case <-a.release:
	case <-ctx.Done():
		return selfplay.Analysis{}, ctx.Err()
	}
	return a.Agent.Analyze(ctx, pos, lim, progress)
}

// slowGames adds n games of yinsh-blitz to s, the agent to move, the i-th of the client at
// address addr(i) and against a slowAgent; it returns their ids. Closing the returned func's
// channel lets the searches go: the func does it once, and the test's end too.
func slowGames(t *testing.T, s *Server, n int, addr func(i int) string, started chan<- int) ([]string, func()) {
	t.Helper()
	release := make(chan struct{})
	var once sync.Once
	let := func() { once.Do(func() { close(release) }) }
	t.Cleanup(let)
	g, _ := games.Lookup("yinsh-blitz")
	var ids []string
	for i := range n {
		random, err := g.NewAgent("random", 1)
		if err != nil {
			t.Fatal(err)
		}
		m, err := ui.NewMatchAgent(g, &slowAgent{random, i, started, release}, "black", 1)
		if err != nil {
			t.Fatal(err)
		}
		client, network := parties(net.JoinHostPort(addr(i), "1"))
		sess := &session{id: newID(), client: client, network: network, m: m}
		if err := s.add(sess); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, sess.id)
	}
	return ids, let
}

// The searches' queue is bounded: with its Searches slots taken, at most as many requests
// wait, one of a client, and the others are refused at once with 503 and Retry-After (8 calls
// of mcts:100000 on 2 cores were answered a pair after another, the last after 40 s); a second
// search of a game while one is under way is refused (409). The agents' searches are held
// until the test lets them go: every refusal comes while no search has ended.
func TestSearchQueueBounded(t *testing.T) {
	tests := []struct {
		name    string
		clients int // the 8 requests' clients, in turn
		refused int // of the 8, refused at once: beyond the 2 running and those waiting
		wantErr string
	}{
		{"eight clients", 8, 4, "every search slot is taken (it runs 2 at once) and as many requests wait for one, the most it lets wait: retry in 1m0s"},
		{"one client", 1, 5, "a search of yours already waits for a slot (it runs 2 at once): retry once it is answered"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const n = 8
			s := New(Options{Searches: 2, MaxTime: time.Minute, Seed: func() uint64 { return 1 }})
			started := make(chan int, n)
			addr := func(i int) string { return fmt.Sprintf("192.0.2.%d", 1+i%tt.clients) }
			ids, let := slowGames(t, s, n, addr, started)
			type answer struct {
				code       int
				retry, err string
			}
			ask := func(i int, path string, to chan<- answer) {
				w := serveAs(s, addr(i), "POST", path, `{"id":"`+ids[i]+`"}`)
				var e apiError
				json.Unmarshal(w.Body.Bytes(), &e)
				to <- answer{w.Code, w.Header().Get("Retry-After"), e.Error}
			}
			answers := make(chan answer, n)
			begin := time.Now()
			for i := range n {
				go ask(i, "/api/agent", answers)
			}
			timeout := time.After(5 * time.Second)
			for k := range tt.refused {
				select {
				case a := <-answers:
					if a.code != 503 || a.retry != "60" || !strings.Contains(a.err, tt.wantErr) {
						t.Errorf("answer %d, every search held: %d, Retry-After %q, %q; want 503, 60, %q", k+1, a.code, a.retry, a.err, tt.wantErr)
					}
				case <-timeout:
					t.Fatalf("every search held, %d of %d requests are answered after 5 s; want the %d beyond the 2 running and those waiting refused at once", k, n, tt.refused)
				}
			}
			t.Logf("%d refused in %v", tt.refused, time.Since(begin))
			var running int
			select {
			case running = <-started:
			case <-timeout:
				t.Fatal("no search started")
			}
			again := make(chan answer, 1)
			go ask(running, "/api/analyze", again)
			select {
			case a := <-again:
				if a.code != 409 || !strings.Contains(a.err, "the agent is already searching in this game") {
					t.Errorf("a second search of a game under way: %d %q, want 409", a.code, a.err)
				}
			case <-timeout:
				t.Fatal("a second search of a game under way waits for the first")
			}
			let()
			for k := range n - tt.refused {
				if a := <-answers; a.code != 200 {
					t.Errorf("answer %d once the searches go on: %d %q, want 200", tt.refused+k+1, a.code, a.err)
				}
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.queued != 0 || len(s.waiting) != 0 || len(started) != n-tt.refused-1 {
				t.Errorf("after the answers: %d waiting (%v), %d searches started, want 0 and %d", s.queued, s.waiting, len(started)+1, n-tt.refused)
			}
		})
	}
}

// A request waits for a search slot at most MaxTime: held longer (a turn of several decisions,
// each up to MaxTime), it is refused with 503, and the search before it goes on.
func TestSearchWaitBounded(t *testing.T) {
	const wait = 100 * time.Millisecond
	s := New(Options{Searches: 1, MaxTime: wait, Seed: func() uint64 { return 1 }})
	started := make(chan int, 2)
	addr := func(i int) string { return fmt.Sprintf("192.0.2.%d", 1+i) }
	ids, let := slowGames(t, s, 2, addr, started)
	first := make(chan int, 1)
	go func() { first <- serveAs(s, addr(0), "POST", "/api/agent", `{"id":"`+ids[0]+`"}`).Code }()
	select {
	case <-started:
	case <-time.After(5 * time.Second):
		t.Fatal("the first search did not start")
	}
	begin := time.Now()
	second := make(chan *httptest.ResponseRecorder, 1)
	go func() { second <- serveAs(s, addr(1), "POST", "/api/agent", `{"id":"`+ids[1]+`"}`) }()
	select {
	case w := <-second:
		waited := time.Since(begin)
		var e apiError
		json.Unmarshal(w.Body.Bytes(), &e)
		if w.Code != 503 || w.Header().Get("Retry-After") != "1" || e.Error != "the server is busy: no search slot freed within 100ms (it runs 1 at once): retry in 100ms" || waited < wait {
			t.Errorf("after %v: %d, Retry-After %q, %q", waited, w.Code, w.Header().Get("Retry-After"), e.Error)
		}
		t.Logf("refused after %v", waited)
	case <-time.After(5 * time.Second):
		t.Fatalf("a request for the one search slot, held, still waits after 5 s (MaxTime %v)", wait)
	}
	let()
	if code := <-first; code != 200 {
		t.Errorf("the search that held the slot: %d", code)
	}
}

// A move at the wrong moment is refused with 409 (not now), an illegal one with 422.
func TestNotNow(t *testing.T) {
	srv := newServer(t, Options{})
	var e apiError
	agentFirst := newGame(t, srv, `{"game":"yinsh-blitz","opponent":"random","side":"black"}`)
	if code := call(t, srv, "POST", "/api/play", `{"id":"`+agentFirst.ID+`","move":"place f6"}`, &e); code != 409 || e.Error != "it is white's turn, not yours" {
		t.Errorf("a move on the agent's turn: %d %q", code, e.Error)
	}
	g := newGame(t, srv, `{"game":"yinsh-blitz","opponent":"random","side":"white"}`)
	if code := call(t, srv, "POST", "/api/play", `{"id":"`+g.ID+`","move":"place z9"}`, &e); code != 422 {
		t.Errorf("an illegal move: %d %q", code, e.Error)
	}
	// A move field is /api/play's only: sent elsewhere, it is refused, and nothing is done.
	for _, path := range []string{"/api/agent", "/api/undo", "/api/resign", "/api/analyze"} {
		if code := call(t, srv, "POST", path, `{"id":"`+g.ID+`","move":"place f7"}`, &e); code != 400 || !strings.Contains(e.Error, `unknown field "move"`) {
			t.Errorf("%s with a move: %d %q", path, code, e.Error)
		}
	}
	if code := call(t, srv, "POST", "/api/play", `{"id":"`+g.ID+`","move":"   "}`, &e); code != 400 || !strings.Contains(e.Error, "give a move") {
		t.Errorf("a move of spaces: %d %q", code, e.Error)
	}
	var st state
	call(t, srv, "POST", "/api/resign", `{"id":"`+g.ID+`"}`, &st)
	if !st.Over || st.ToMove != "none" || st.Resigned != "white" || len(st.Moves) != 0 {
		t.Errorf("after a resignation: over %v, to move %q, resigned %q, moves %q", st.Over, st.ToMove, st.Resigned, st.Moves)
	}
	for _, path := range []string{"/api/play", "/api/resign", "/api/analyze", "/api/agent"} {
		body := `{"id":"` + g.ID + `","move":"place f6"}`
		if path != "/api/play" {
			body = `{"id":"` + g.ID + `"}`
		}
		if code := call(t, srv, "POST", path, body, &e); code != 409 || path != "/api/analyze" && e.Error != "the game is over" {
			t.Errorf("%s on a finished game: %d %q", path, code, e.Error)
		}
	}
	// A wrong method says which is right.
	resp, err := srv.Client().Post(srv.URL+"/api/state", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 405 || resp.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST /api/state: %d, Allow %q", resp.StatusCode, resp.Header.Get("Allow"))
	}
}

func TestInputIsChecked(t *testing.T) {
	models := t.TempDir()
	os.WriteFile(filepath.Join(models, "yinsh.ckpt"), []byte(znet.Magic+"weights"), 0o644) // a checkpoint to the server's eye
	os.WriteFile(filepath.Join(models, "notes.txt"), []byte("not a checkpoint"), 0o644)
	os.WriteFile(filepath.Join(models, "broken.zck"), []byte(znet.Magic+"then nothing a checkpoint holds"), 0o644)
	if f, err := os.Create(filepath.Join(models, "huge.zck")); err == nil { // sparse: no disk
		f.WriteString(znet.Magic)
		f.Truncate(maxModelBytes + 1)
		f.Close()
	}
	os.Mkdir(filepath.Join(models, "sub"), 0o755)
	outside := filepath.Join(t.TempDir(), "yinsh.ckpt")
	os.WriteFile(outside, []byte("weights"), 0o644)
	srv := newServer(t, Options{ModelsDir: models, MaxWork: 5000})
	tests := []struct {
		name, method, path, body string
		status                   int
		wantErr                  string
	}{
		{"unknown game", "POST", "/api/new", `{"game":"chess"}`, 400, `game: unknown game "chess"`},
		{"unknown agent", "POST", "/api/new", `{"game":"yinsh","opponent":"alphabeta"}`, 400, `opponent: player "alphabeta": unknown kind "alphabeta"`},
		{"unknown side", "POST", "/api/new", `{"game":"yinsh","side":"red","opponent":"random"}`, 400, `side: unknown side "red"`},
		{"unknown field", "POST", "/api/new", `{"game":"yinsh","elo":3000}`, 400, `unknown field "elo"`},
		{"two values", "POST", "/api/new", `{"game":"yinsh"}{}`, 400, "more than one JSON value"},
		{"not JSON", "POST", "/api/new", `game=yinsh`, 400, "bad request body"},
		{"too large", "POST", "/api/new", `{"game":"` + strings.Repeat("y", maxBody) + `"}`, 413, "request larger than 4096 bytes"},
		{"budget too large", "POST", "/api/new", `{"game":"yinsh","opponent":"uct:5001"}`, 400, "the budget must be a number from 1 to 5000"},
		{"budget not a number", "POST", "/api/new", `{"game":"yinsh","opponent":"uct:lots"}`, 400, `"lots" is neither a number of simulations ≥ 1 nor a time a move`},
		{"time too long", "POST", "/api/new", `{"game":"yinsh","opponent":"uct:30s"}`, 400, `opponent "uct:30s": the time a move must be at most 10s`},
		{"checkpoint outside models", "POST", "/api/new", `{"game":"yinsh","opponent":"mcts:10:` + outside + `"}`, 400, "a checkpoint must be a shipped model or a file of the models folder"},
		{"checkpoint escaping models", "POST", "/api/new", `{"game":"yinsh","opponent":"mcts:10:../yinsh.ckpt"}`, 400, "a checkpoint must be a shipped model or a file of the models folder"},
		{"checkpoint missing", "POST", "/api/new", `{"game":"yinsh","opponent":"mcts:10:gone.ckpt"}`, 400, "no checkpoint gone.ckpt among the models"},
		{"a shipped model's path elsewhere", "POST", "/api/new", `{"game":"yinsh","opponent":"mcts:10:/tmp/models/yinsh.zck"}`, 400, "a checkpoint must be a shipped model"},
		{"checkpoint a folder", "POST", "/api/new", `{"game":"yinsh","opponent":"mcts:10:sub"}`, 400, "no checkpoint sub"},
		// A file of the folder is read whole only if it starts as a checkpoint and is not huge;
		// an error names it as the request did, never by the server's path.
		{"not a checkpoint", "POST", "/api/new", `{"game":"yinsh","opponent":"mcts:10:notes.txt"}`, 400, `opponent "mcts:10:notes.txt": notes.txt: not a zero network checkpoint (bad magic)`},
		{"a huge file", "POST", "/api/new", `{"game":"yinsh","opponent":"mcts:10:huge.zck"}`, 400, "huge.zck: 268435457 bytes, more than a checkpoint the server reads"},
		{"a damaged checkpoint", "POST", "/api/new", `{"game":"yinsh","opponent":"mcts:10:broken.zck"}`, 400, `opponent: player "mcts:10:broken.zck": checkpoint broken.zck: `},
		{"search settings", "POST", "/api/new", `{"game":"yinsh","opponent":"mcts:10:max_nodes=100000000:yinsh.zck"}`, 400, "the browser takes no search settings (max_nodes=100000000)"},
		{"alpha-beta too deep", "POST", "/api/new", `{"game":"gyges","opponent":"ab:6"}`, 400, `alpha-beta deeper than 4 turns needs a time a move of at most 10s (ab:6:5s)`},
		{"alpha-beta deep, long", "POST", "/api/new", `{"game":"gyges","opponent":"ab:6:1m"}`, 400, `needs a time a move of at most 10s`},
		{"alpha-beta bad depth", "POST", "/api/new", `{"game":"gyges","opponent":"ab:0"}`, 400, `the depth "0" is not a whole number of turns`},
		{"unknown session", "GET", "/api/state?id=nope", "", 404, "no such game"},
		{"no session", "POST", "/api/play", `{"move":"place f6"}`, 404, "no such game"},
		{"wrong method", "GET", "/api/new", "", 405, "GET /api/new: use POST"},
		{"wrong method for a session", "POST", "/api/state", `{"id":"x"}`, 405, "POST /api/state: use GET"},
		{"an unknown method", "DELETE", "/api/play", "", 405, "DELETE /api/play: use POST"},
		{"an unknown endpoint read", "GET", "/api/teleport", "", 404, "no such endpoint: GET /api/teleport"},
		{"unknown endpoint", "POST", "/api/teleport", "", 404, "no such endpoint"},
	}
	for _, tt := range tests {
		var e apiError
		var out any = &e
		if tt.wantErr == "" {
			out = nil
		}
		if code := call(t, srv, tt.method, tt.path, tt.body, out); code != tt.status || !strings.Contains(e.Error, tt.wantErr) {
			t.Errorf("%s: status %d error %q, want %d %q", tt.name, code, e.Error, tt.status, tt.wantErr)
		}
		if strings.Contains(e.Error, models) {
			t.Errorf("%s: the error %q tells the server's path to its models", tt.name, e.Error)
		}
	}
	// A checkpoint inside the models folder passes the server's check and is named by its
	// path for the registry, which loads it.
	s := New(Options{ModelsDir: models})
	for _, spec := range []string{"ab:8:2s", "ab:2:10s", "uct:2s"} {
		if got, _, err := s.checkSpec(spec); err != nil || got != spec {
			t.Errorf("checkSpec(%q) = %q, %v", spec, got, err)
		}
	}
	// Every alpha-beta search of a browser's game is capped in time.
	if got, _, err := s.checkSpec("ab:4"); err != nil || got != "ab:4:10s" {
		t.Errorf(`checkSpec("ab:4") = %q, %v; want "ab:4:10s"`, got, err)
	}
	// The spec shown to the client names the checkpoint as the request did, never by the
	// server's path.
	for _, tt := range []struct{ spec, want, shown string }{
		{"mcts:10:yinsh.ckpt", "mcts:10:" + filepath.Join(models, "yinsh.ckpt"), "mcts:10:yinsh.ckpt"},
		{"mcts:10:models/yinsh.ckpt", "mcts:10:" + filepath.Join(models, "yinsh.ckpt"), "mcts:10:yinsh.ckpt"},
		// A shipped model, by file name: the binary's copy, wherever the server runs.
		{"mcts:10:gyges.zck", "mcts:10:models/gyges.zck", "mcts:10:models/gyges.zck"},
		{"mcts:10:models/gyges.zck", "mcts:10:models/gyges.zck", "mcts:10:models/gyges.zck"},
		{"mcts:1.5s:gyges.zck", "mcts:1.5s:models/gyges.zck", "mcts:1.5s:models/gyges.zck"},
		{"ab:4", "ab:4:10s", "ab:4:10s"},
		// The ends-only search stays that search when capped (it became the classical one).
		{"ab:2:eval=none", "ab:2:eval=none:10s", "ab:2:eval=none:10s"},
		{"ab:3:eval=none:1m", "ab:3:eval=none:10s", "ab:3:eval=none:10s"},
		{"ab:3:eval=none:2s", "ab:3:eval=none:2s", "ab:3:eval=none:2s"},
	} {
		if got, shown, err := s.checkSpec(tt.spec); err != nil || got != tt.want || shown != tt.shown {
			t.Errorf("checkSpec(%q) = %q, %q, %v; want %q, %q", tt.spec, got, shown, err, tt.want, tt.shown)
		}
	}
	// A training run's checkpoint, runs/RUN/FILE, only through RunCheckpoint (the dashboard's).
	if _, _, err := s.checkSpec("mcts:10:runs/blitz/step-00000100.zck"); err == nil {
		t.Errorf("a run's checkpoint accepted without RunCheckpoint")
	}
	s = New(Options{RunCheckpoint: func(name string) string {
		if name == "blitz/step-00000100.zck" {
			return "/runs/blitz/checkpoints/step-00000100.zck"
		}
		return ""
	}})
	if got, shown, err := s.checkSpec("mcts:10:runs/blitz/step-00000100.zck"); err != nil || got != "mcts:10:/runs/blitz/checkpoints/step-00000100.zck" || shown != "mcts:10:runs/blitz/step-00000100.zck" {
		t.Errorf("a run's checkpoint: %q, %q, %v", got, shown, err)
	}
	if _, _, err := s.checkSpec("mcts:10:runs/blitz/../../etc/passwd"); err == nil || !strings.Contains(err.Error(), "no checkpoint blitz/../../etc/passwd among the runs' kept checkpoints") {
		t.Errorf("a path past a run's checkpoints: %v", err)
	}
	// A body without its content type is refused; the media type is compared as a media type
	// (case aside, parameters aside), not as a prefix.
	for _, tc := range []struct {
		ct     string
		status int
	}{{"text/plain", 415}, {"application/jsonp", 415}, {"", 415}, {"APPLICATION/JSON", 200}, {"application/json; charset=utf-8", 200}} {
		resp, err := srv.Client().Post(srv.URL+"/api/new", tc.ct, strings.NewReader(`{"game":"yinsh","opponent":"random"}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("a body of %q: status %d, want %d", tc.ct, resp.StatusCode, tc.status)
		}
	}
}

// Every search of a game stops within Options.MaxTime, whatever its budget: mcts:100000
// would take minutes a move, holding one of the server's few search slots.
func TestSearchTimeCapped(t *testing.T) {
	models := t.TempDir()
	yinsh, _ := games.Lookup("yinsh")
	gamestest.Checkpoint(t, yinsh, filepath.Join(models, "yinsh.zck"))
	srv := newServer(t, Options{ModelsDir: models, MaxTime: 50 * time.Millisecond})
	st := newGame(t, srv, `{"game":"yinsh","side":"black","opponent":"mcts:100000:yinsh.zck"}`)
	id := `{"id":"` + st.ID + `"}`
	if code := call(t, srv, "POST", "/api/agent", id, &st); code != 200 || st.Analysis == nil || st.Analysis.Work >= 100000 || len(st.AgentMoves) != 1 {
		t.Fatalf("the agent's turn: %d, moves %q, analysis %+v", code, st.AgentMoves, st.Analysis)
	}
	var an analysis
	if code := call(t, srv, "POST", "/api/analyze", id, &an); code != 200 || an.Work >= 100000 || len(an.Moves) == 0 {
		t.Errorf("an analysis: %d, %+v", code, an)
	}
}

// A models folder given relatively, whose name reads as a search setting (c_puct=9:x), is
// named by its absolute path in the spec the registry parses again.
func TestModelsFolderPathAbsolute(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.Mkdir("c_puct=9:x", 0o755)
	os.WriteFile(filepath.Join("c_puct=9:x", "yinsh.ckpt"), []byte(znet.Magic+"weights"), 0o644)
	got, shown, err := New(Options{ModelsDir: "c_puct=9:x"}).checkSpec("mcts:10:yinsh.ckpt")
	if err != nil || shown != "mcts:10:yinsh.ckpt" {
		t.Fatalf("checkSpec: %q, %q, %v", got, shown, err)
	}
	want := filepath.Join(dir, "c_puct=9:x", "yinsh.ckpt")
	if sp, err := selfplay.ParseSpec(got); err != nil || sp.Checkpoint != want || sp.Settings != "" {
		t.Errorf("%q reads as checkpoint %q, settings %q (%v); want %q", got, sp.Checkpoint, sp.Settings, err, want)
	}
}

// An IPv4 client is its address and its network the /24; an IPv6 client is its /64 (a host
// may take any address of it) and its network the /48; every loopback address is one client,
// the machine.
func TestParties(t *testing.T) {
	for _, tc := range []struct{ remote, client, network string }{
		{"192.0.2.7:40000", "192.0.2.7", "192.0.2.0/24"},
		{"[::ffff:192.0.2.7]:40000", "192.0.2.7", "192.0.2.0/24"},
		{"[2001:db8:1:2:3:4:5:6]:40000", "2001:db8:1:2::/64", "2001:db8:1::/48"},
		{"[2001:db8:1:2:ffff::9]:1", "2001:db8:1:2::/64", "2001:db8:1::/48"},
		{"[2001:db8:1:7::9]:1", "2001:db8:1:7::/64", "2001:db8:1::/48"},
		{"[fe80::1%eth0]:1", "fe80::/64", "fe80::/48"},
		{"127.0.0.1:8080", "loopback", "loopback"},
		{"127.3.2.1:8080", "loopback", "loopback"},
		{"[::1]:8080", "loopback", "loopback"},
		{"[::ffff:127.0.0.1]:8080", "loopback", "loopback"},
		{"pipe", "pipe", "pipe"},
	} {
		if client, network := parties(tc.remote); client != tc.client || network != tc.network {
			t.Errorf("parties(%q) = %q, %q; want %q, %q", tc.remote, client, network, tc.client, tc.network)
		}
	}
}

func TestGamesAndPage(t *testing.T) {
	models := t.TempDir()
	yinsh, _ := games.Lookup("yinsh")
	gamestest.Checkpoint(t, yinsh, filepath.Join(models, "yinsh.ckpt"))
	for _, name := range []string{"yinsh.bad", "yinsh-blitz.ckpt", "notes.txt"} {
		os.WriteFile(filepath.Join(models, name), nil, 0o644)
	}
	// A link to a checkpoint is offered as the file is.
	os.Symlink(filepath.Join(models, "yinsh.ckpt"), filepath.Join(models, "yinsh.link"))
	srv := newServer(t, Options{ModelsDir: models})
	var out struct {
		Games []gameInfo `json:"games"`
		Runs  bool       `json:"runs"`
	}
	if code := call(t, srv, "GET", "/api/games", "", &out); code != 200 || len(out.Games) < 2 || out.Runs {
		t.Fatalf("games: %d %+v", code, out)
	}
	g := out.Games[0]
	if g.Name != "yinsh" || g.Players != [2]string{"white", "black"} || g.Default == "" {
		t.Fatalf("games[0] = %+v", g)
	}
	var specs []string
	for _, o := range g.Opponents {
		specs = append(specs, o.Spec)
	}
	// yinsh.bad does not load: not offered.
	if !slices.Contains(specs, "random") || !slices.Contains(specs, "mcts:{N}:yinsh.ckpt") || !slices.Contains(specs, "mcts:{N}:models/yinsh.zck") ||
		!slices.Contains(specs, "mcts:{N}:yinsh.link") || slices.Contains(specs, "mcts:{N}:yinsh-blitz.ckpt") || slices.Contains(specs, "mcts:{N}:yinsh.bad") {
		t.Errorf("yinsh's opponents %q", specs)
	}
	// A game against the folder's checkpoint names it as the request did: no answer holds the
	// server's path to it.
	var raw json.RawMessage
	if code := call(t, srv, "POST", "/api/new", `{"game":"yinsh","opponent":"mcts:2:yinsh.ckpt","side":"black"}`, &raw); code != 200 {
		t.Fatalf("new game against yinsh.ckpt: %d %s", code, raw)
	}
	var st state
	json.Unmarshal(raw, &st)
	answers := []string{string(raw)}
	for _, q := range []struct{ method, path, body string }{
		{"POST", "/api/analyze", `{"id":"` + st.ID + `"}`},
		{"POST", "/api/agent", `{"id":"` + st.ID + `"}`},
		{"GET", "/api/record?id=" + st.ID, ""},
	} {
		if code := call(t, srv, q.method, q.path, q.body, &raw); code != 200 {
			t.Fatalf("%s %s: %d %s", q.method, q.path, code, raw)
		}
		answers = append(answers, string(raw))
	}
	for _, a := range answers {
		if strings.Contains(a, models) || !strings.Contains(a, `"mcts:2:yinsh.ckpt"`) {
			t.Errorf("an answer names the opponent by the server's path (%s), or not as asked (mcts:2:yinsh.ckpt): %s", models, a)
		}
	}
	for _, path := range []string{"/", "/app.js", "/gyges.js", "/imbriqua.js", "/style.css"} {
		resp, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || len(body) == 0 || resp.Header.Get("Content-Security-Policy") == "" {
			t.Errorf("GET %s: %d, %d bytes", path, resp.StatusCode, len(body))
		}
	}
}

// The default opponent is the game's model at ui.ModelSimulations, named as a request names
// it (by file name): the server's models folder's GAME.zck, else the shipped one (in the
// binary, whatever the working folder); a new game without an opponent plays it, and a model
// that does not load gives way to ui.DefaultOpponent.
func TestDefaultOpponent(t *testing.T) {
	t.Chdir(t.TempDir())
	models := t.TempDir()
	blitz, _ := games.Lookup("yinsh-blitz")
	gamestest.Checkpoint(t, blitz, filepath.Join(models, "yinsh-blitz.zck"))
	os.WriteFile(filepath.Join(models, "gyges.zck"), []byte("not a checkpoint"), 0o644)
	gyges, _ := games.Lookup("gyges")
	gamestest.Checkpoint(t, gyges, filepath.Join(models, "imbriqua.zck")) // another game's net under Imbriqua's name
	// A models/NAME in the working folder is what loads for the shipped model's path: a damaged
	// one shadows the binary's copy, and is not offered either.
	os.Mkdir("models", 0o755)
	os.WriteFile(filepath.Join("models", "imbriqua.zck"), []byte("not a checkpoint"), 0o644)
	model := func(path string) string { return fmt.Sprintf("mcts:%d:%s", ui.ModelSimulations, path) }
	tests := []struct {
		dir, game, listed, plays string
	}{
		{models, "yinsh-blitz", model("yinsh-blitz.zck"), model("yinsh-blitz.zck")}, // the folder's file, named as listed, not by its path
		// The shipped model is models/NAME, listed as it plays (it was listed NAME, and
		// played as models/NAME: one model named two ways on one page).
		{models, "yinsh", model("models/yinsh.zck"), model("models/yinsh.zck")},
		{models, "gyges", ui.DefaultOpponent, ui.DefaultOpponent}, // the page sends what is listed
		{"", "yinsh-blitz", model("models/yinsh-blitz.zck"), model("models/yinsh-blitz.zck")},
		{"", "gyges", model("models/gyges.zck"), model("models/gyges.zck")},
		{models, "imbriqua", ui.DefaultOpponent, ui.DefaultOpponent},
		{"", "imbriqua", ui.DefaultOpponent, ui.DefaultOpponent},
	}
	for _, tt := range tests {
		srv := newServer(t, Options{ModelsDir: tt.dir})
		var out struct {
			Games []gameInfo `json:"games"`
		}
		if code := call(t, srv, "GET", "/api/games", "", &out); code != 200 {
			t.Fatalf("games: %d", code)
		}
		i := slices.IndexFunc(out.Games, func(g gameInfo) bool { return g.Name == tt.game })
		if i < 0 {
			t.Fatalf("no game %s in /api/games", tt.game)
		}
		if got := out.Games[i].Default; got != tt.listed {
			t.Errorf("%q, %s: default %q, want %q", tt.dir, tt.game, got, tt.listed)
		}
		offered := func(o opponent) bool {
			return strings.HasSuffix(o.Spec, ":"+tt.game+".zck") || strings.HasSuffix(o.Spec, "/"+tt.game+".zck")
		}
		if tt.listed == ui.DefaultOpponent && slices.ContainsFunc(out.Games[i].Opponents, offered) {
			t.Errorf("%q, %s: the model that does not load is offered", tt.dir, tt.game)
		}
		// The default is one of the opponents offered, at its budget: the list names the
		// model as the default does.
		if tt.listed != ui.DefaultOpponent {
			want := strings.Replace(tt.listed, fmt.Sprint(ui.ModelSimulations), "{N}", 1)
			if !slices.ContainsFunc(out.Games[i].Opponents, func(o opponent) bool { return o.Spec == want }) {
				t.Errorf("%q, %s: the default %q is not among the opponents offered %+v", tt.dir, tt.game, tt.listed, out.Games[i].Opponents)
			}
		}
		st := newGame(t, srv, `{"game":"`+tt.game+`","side":"`+out.Games[i].Players[0]+`"}`)
		if got := st.Players[out.Games[i].Players[1]]; got != tt.plays {
			t.Errorf("%q, %s: a new game without an opponent plays %q, want %q", tt.dir, tt.game, got, tt.plays)
		}
	}
}

// A game idle longer than IdleTimeout is gone (404) when next asked for, not only once
// another game starts; and a request on any game drops the others idle too long (their agents
// were kept until they were asked for again).
func TestIdleGameExpires(t *testing.T) {
	s := New(Options{Seed: func() uint64 { return 7 }, IdleTimeout: time.Hour})
	srv := httptest.NewServer(s)
	defer srv.Close()
	st := newGame(t, srv, `{"game":"yinsh-blitz","side":"white","opponent":"random"}`)
	other := newGame(t, srv, `{"game":"yinsh-blitz","side":"white","opponent":"random"}`)
	if code := call(t, srv, "GET", "/api/state?id="+st.ID, "", nil); code != 200 {
		t.Fatalf("a fresh game: %d", code)
	}
	s.mu.Lock()
	s.sessions[st.ID].used = time.Now().Add(-2 * time.Hour)
	s.sessions[other.ID].used = time.Now().Add(-2 * time.Hour)
	s.mu.Unlock()
	if code := call(t, srv, "GET", "/api/state?id="+st.ID, "", nil); code != 404 {
		t.Errorf("a game idle for 2 hours with a 1-hour timeout: %d, want 404", code)
	}
	s.mu.Lock()
	_, kept := s.sessions[other.ID]
	s.mu.Unlock()
	if kept {
		t.Errorf("another game idle for 2 hours is still kept after a request")
	}
}

// The value an analysis shows is the chosen move's, the first listed: for the side to decide,
// 2·win_prob−1, on Evaluate and with the agent's turn. (It was the search's root mean, which
// averages the exploring simulations too: "value +0.00" above moves winning 55% and more in a
// uct search spread over YINSH's placements.) Alpha-beta's value was its move's already.
func TestAnalysisValueIsTheChosenMoves(t *testing.T) {
	for _, tc := range []struct{ game, opponent string }{{"yinsh-blitz", "uct:200"}, {"gyges", "uct:60"}, {"imbriqua", "uct:60"}, {"gyges", "ab:1"}} {
		srv := newServer(t, Options{})
		st := newGame(t, srv, `{"game":"`+tc.game+`","side":"`+map[string]string{"yinsh-blitz": "white", "gyges": "south", "imbriqua": "light"}[tc.game]+`","opponent":"`+tc.opponent+`"}`)
		check := func(what string, an *analysis) {
			t.Helper()
			if an == nil || len(an.Moves) == 0 || an.Moves[0].WinProb < 0 {
				t.Fatalf("%s %s, %s: no move valued: %+v", tc.game, tc.opponent, what, an)
			}
			if want := 2*an.Moves[0].WinProb - 1; math.Abs(an.Value-want) > 1e-9 {
				t.Errorf("%s %s, %s: value %+.3f, but the chosen move %s wins %.0f%% (value %+.3f)", tc.game, tc.opponent, what, an.Value, an.Moves[0].Move, 100*an.Moves[0].WinProb, want)
			}
		}
		var an analysis
		if code := call(t, srv, "POST", "/api/analyze", `{"id":"`+st.ID+`"}`, &an); code != 200 {
			t.Fatalf("analyze: %d", code)
		}
		check("evaluate", &an)
		call(t, srv, "POST", "/api/play", `{"id":"`+st.ID+`","move":"`+an.Moves[0].Move+`"}`, &st)
		if code := call(t, srv, "POST", "/api/agent", `{"id":"`+st.ID+`"}`, &st); code != 200 {
			t.Fatalf("agent: %d", code)
		}
		check("the agent's turn", st.Analysis)
	}
}

// Every game offers the classical alpha-beta players beside the searches, named for what they
// are, with the spec that plays (capped at MaxTime a move, as any ab:D the server takes): a
// game against one names it so, and the agent moves.
func TestAlphaBetaOpponents(t *testing.T) {
	srv := newServer(t, Options{})
	var out struct {
		Games []gameInfo `json:"games"`
	}
	if code := call(t, srv, "GET", "/api/games", "", &out); code != 200 {
		t.Fatalf("games: %d", code)
	}
	for _, g := range out.Games {
		for _, d := range []int{2, 3} {
			spec := fmt.Sprintf("ab:%d:10s", d)
			i := slices.IndexFunc(g.Opponents, func(o opponent) bool { return o.Spec == spec })
			if i < 0 || !strings.Contains(g.Opponents[i].Label, fmt.Sprintf("alpha-beta, %d turns deep", d)) {
				t.Errorf("%s: no opponent %s labelled alpha-beta: %+v", g.Name, spec, g.Opponents)
			}
		}
	}
	for game, second := range map[string]string{"yinsh-blitz": "black", "gyges": "north", "imbriqua": "dark"} {
		st := newGame(t, srv, `{"game":"`+game+`","side":"`+second+`","opponent":"ab:2:10s"}`)
		agent := st.Names[0]
		if agent == st.Human {
			agent = st.Names[1]
		}
		if st.Players[agent] != "ab:2:10s" {
			t.Errorf("%s: the agent plays as %q, want ab:2:10s", game, st.Players[agent])
		}
		if code := call(t, srv, "POST", "/api/agent", `{"id":"`+st.ID+`"}`, &st); code != 200 || len(st.AgentMoves) == 0 || st.Analysis == nil || st.Analysis.Agent != "ab:2:10s" {
			t.Errorf("%s: the alpha-beta agent's turn: %d %+v", game, code, st.Analysis)
		}
	}
}

// getRecord downloads the record of game id in format ("json" or "sgf").
func getRecord(t *testing.T, srv *httptest.Server, id, format string) string {
	t.Helper()
	resp, err := srv.Client().Get(srv.URL + "/api/record?format=" + format + "&id=" + id)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("record %s: %d %s", format, resp.StatusCode, data)
	}
	return string(data)
}

// loadBody is the body of /api/load for a record's text.
func loadBody(record, name, game, side, opponent string) string {
	b, _ := json.Marshal(map[string]string{"record": record, "name": name, "game": game, "side": side, "opponent": opponent})
	return string(b)
}

// A record loads as a new game going on from its last position, for every game and in both
// formats the server writes (zero-game/1 JSON and SGF): its moves replayed, the person on the
// record's human side, the agent the one asked for the record's game (else the record's own);
// a finished record is shown finished. A bad record is refused with the reader's error, the
// file named, and changes nothing: the game being played is as it was and no game is added.
func TestLoadRecord(t *testing.T) {
	s := New(Options{Seed: func() uint64 { return 5 }})
	srv := httptest.NewServer(s)
	defer srv.Close()
	// The game being played, which no refused record may change.
	cur := newGame(t, srv, `{"game":"yinsh-blitz","side":"white","opponent":"random"}`)
	call(t, srv, "POST", "/api/play", `{"id":"`+cur.ID+`","move":"place f6"}`, &cur)
	call(t, srv, "POST", "/api/agent", `{"id":"`+cur.ID+`"}`, &cur)
	sessions := func() int {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.sessions)
	}
	before := sessions()
	for _, tc := range []struct{ what, record, want string }{
		{"an illegal move", `{"format":"zero-game/1","game":"gyges","players":{"south":"human","north":"random"},"moves":["2@b1","2@z9"],"result":"none"}`,
			`bad.json: moves: move 2:`},
		{"a move out of turn in SGF", "(;FF[4]CA[UTF-8]ZG[gyges]PB[human]PW[random];B[2@b1];B[3@c1])", `bad.sgf: node 3`},
		{"a wrong result", `{"format":"zero-game/1","game":"yinsh-blitz","players":{"white":"human","black":"random"},"moves":["place f6"],"result":"white"}`,
			`bad.json: result: "white", but the moves give "none"`},
		{"no game of the server", `{"format":"zero-game/1","game":"chess","players":{"white":"human","black":"random"},"moves":[],"result":"none"}`, `bad.json: `},
		{"not a record", "hello", `bad.txt: `},
		{"nothing", "  ", `bad.txt: empty`},
	} {
		name := "bad.json"
		if strings.HasPrefix(tc.record, "(") {
			name = "bad.sgf"
		} else if !strings.HasPrefix(tc.record, "{") {
			name = "bad.txt"
		}
		var e apiError
		if code := call(t, srv, "POST", "/api/load", loadBody(tc.record, name, "yinsh-blitz", "white", "random"), &e); code != 400 || !strings.HasPrefix(e.Error, tc.want) {
			t.Errorf("%s: %d %q, want 400 %q…", tc.what, code, e.Error, tc.want)
		}
		var now state
		call(t, srv, "GET", "/api/state?id="+cur.ID, "", &now)
		if !slices.Equal(now.Moves, cur.Moves) || now.Game != cur.Game || !now.YourTurn || sessions() != before {
			t.Fatalf("%s refused: the game played has %q (was %q), %d games kept (were %d)", tc.what, now.Moves, cur.Moves, sessions(), before)
		}
	}
	// A body past the bound of a record is refused too.
	if code := call(t, srv, "POST", "/api/load", loadBody(strings.Repeat(" ", maxRecordBody), "big.json", "", "", ""), nil); code != 413 {
		t.Errorf("a record past %d bytes: %d, want 413", maxRecordBody, code)
	}

	// Good records: a game played a few decisions (and one to its end), loaded from its JSON
	// and its SGF.
	for _, tc := range []struct{ game, side string }{{"yinsh-blitz", "black"}, {"gyges-advanced", "north"}, {"imbriqua", "light"}, {"yinsh", "white"}} {
		for _, finish := range []bool{false, true} {
			src := newGame(t, srv, `{"game":"`+tc.game+`","side":"`+tc.side+`","opponent":"random"}`)
			for i := 0; !src.Over && (finish || i < 9); i++ {
				if src.AgentTurn {
					call(t, srv, "POST", "/api/agent", `{"id":"`+src.ID+`"}`, &src)
				} else {
					call(t, srv, "POST", "/api/play", `{"id":"`+src.ID+`","move":"`+src.Legal[(i*5)%len(src.Legal)]+`"}`, &src)
				}
			}
			for _, format := range []string{"json", "sgf"} {
				text := getRecord(t, srv, src.ID, format)
				var st state
				// Asked from the form of another game: the record's agent plays on.
				if code := call(t, srv, "POST", "/api/load", loadBody(text, "game."+format, "gyges", "south", "uct:5"), &st); code != 200 {
					t.Fatalf("%s %s: load: %d", tc.game, format, code)
				}
				agent := src.Names[0]
				if agent == tc.side {
					agent = src.Names[1]
				}
				if st.ID == src.ID || st.Game != tc.game || !slices.Equal(st.Moves, src.Moves) || st.Human != tc.side || st.Players[agent] != "random" ||
					st.Over != src.Over || st.Result != src.Result || st.YourTurn != src.YourTurn || st.AgentTurn != src.AgentTurn {
					t.Fatalf("%s %s (finished %v): loaded %+v\nfrom %+v", tc.game, format, finish, st, src)
				}
				if st.Over {
					continue
				}
				// Asked from the form of its game: the opponent asked; and the game goes on.
				if code := call(t, srv, "POST", "/api/load", loadBody(text, "game."+format, tc.game, "", "uct:5"), &st); code != 200 || st.Players[agent] != "uct:5" {
					t.Fatalf("%s %s: load with uct:5: %d, players %v", tc.game, format, code, st.Players)
				}
				if st.AgentTurn {
					call(t, srv, "POST", "/api/agent", `{"id":"`+st.ID+`"}`, &st)
				}
				n := len(st.Moves)
				if code := call(t, srv, "POST", "/api/play", `{"id":"`+st.ID+`","move":"`+st.Legal[0]+`"}`, &st); code != 200 || len(st.Moves) <= n {
					t.Fatalf("%s %s: a move after loading: %d, %d moves (were %d)", tc.game, format, code, len(st.Moves), n)
				}
			}
		}
	}
}

// An analysis gives each candidate its line (the move first), and /api/line plays a line on a
// copy of the position, answering the board after each move, the game unchanged: the
// principal variation of the best move, and in Imbriqua a line through a chance draw (the deck),
// marked as chance's. A line from a position the game has left (ply), or with a move illegal in
// turn, is refused; only /api/line takes a line.
func TestLine(t *testing.T) {
	srv := newServer(t, Options{})
	st := newGame(t, srv, `{"game":"yinsh-blitz","side":"white","opponent":"uct:300"}`)
	for _, m := range []string{"place f6", "place e5", "place g7", "place d5", "place h8"} {
		if st.YourTurn {
			call(t, srv, "POST", "/api/play", `{"id":"`+st.ID+`","move":"`+m+`"}`, &st)
		}
		if st.AgentTurn {
			call(t, srv, "POST", "/api/agent", `{"id":"`+st.ID+`"}`, &st)
		}
	}
	var an analysis
	if code := call(t, srv, "POST", "/api/analyze", `{"id":"`+st.ID+`"}`, &an); code != 200 || an.Ply != len(st.Moves) || len(an.Moves) < 2 {
		t.Fatalf("analyze: %d, ply %d (the game has %d moves), %d moves", code, an.Ply, len(st.Moves), len(an.Moves))
	}
	for _, m := range an.Moves {
		if len(m.PV) == 0 || m.PV[0] != m.Move {
			t.Errorf("move %s: line %q, want it first", m.Move, m.PV)
		}
	}
	pv := an.Moves[0].PV
	if len(pv) < 3 {
		t.Fatalf("the best move's line %q: want a few moves at 300 simulations", pv)
	}
	body := func(ply int, line []string) string {
		b, _ := json.Marshal(map[string]any{"id": st.ID, "ply": ply, "line": line})
		return string(b)
	}
	var out struct {
		Ply   int        `json:"ply"`
		Steps []lineStep `json:"steps"`
	}
	if code := call(t, srv, "POST", "/api/line", body(an.Ply, pv), &out); code != 200 || len(out.Steps) != len(pv) {
		t.Fatalf("line %q: %d, %d steps", pv, code, len(out.Steps))
	}
	pos := positionAfter(t, "yinsh-blitz", st.Moves)
	for i, step := range out.Steps {
		by := pos.ToMove()
		if err := pos.Play(pv[i]); err != nil {
			t.Fatal(err)
		}
		var view struct {
			Kind string `json:"kind"`
		}
		remarshal(t, step.View, &view)
		if step.Move != pv[i] || step.By != by || step.ToMove != pos.ToMove() || step.Text != pos.Show() || view.Kind != "yinsh" {
			t.Errorf("step %d: %+v, want %s by %s, then %s to move", i+1, step, pv[i], by, pos.ToMove())
		}
	}
	var now state
	call(t, srv, "GET", "/api/state?id="+st.ID, "", &now)
	if !slices.Equal(now.Moves, st.Moves) || !now.YourTurn {
		t.Fatalf("after /api/line the game has %q, was %q", now.Moves, st.Moves)
	}
	var e apiError
	for _, tc := range []struct {
		path, body string
		code       int
		want       string
	}{
		{"/api/line", body(an.Ply-1, pv), 409, "the line starts after 9 decisions, but the game has 10 now"},
		{"/api/line", body(an.Ply, []string{pv[0], pv[0]}), 422, "move 2: "},
		{"/api/line", body(an.Ply, nil), 400, "line: give one move or more"},
		{"/api/line", `{"id":"` + st.ID + `","line":["place a2"]}`, 400, "ply: give"},
		{"/api/play", body(an.Ply, pv), 400, `unknown field "line"`},
	} {
		if code := call(t, srv, "POST", tc.path, tc.body, &e); code != tc.code || !strings.Contains(e.Error, tc.want) {
			t.Errorf("%s %s: %d %q, want %d %q", tc.path, tc.body, code, e.Error, tc.code, tc.want)
		}
	}

	// Imbriqua: a line through the draw of a card.
	st = newGame(t, srv, `{"game":"imbriqua","side":"light","opponent":"random"}`)
	pos = positionAfter(t, "imbriqua", st.Moves)
	var line []string
	chance := -1
	for len(line) < 12 || chance < 0 {
		if len(line) > 40 {
			t.Fatal("no chance decision in 40 of Imbriqua's first decisions")
		}
		m := ""
		if pos.ToMove() == "chance" {
			m, chance = pos.Chances()[0].Move, len(line)
		} else {
			m = pos.Legal()[0]
		}
		pos.Play(m)
		line = append(line, m)
	}
	if code := call(t, srv, "POST", "/api/line", `{"id":"`+st.ID+`","ply":`+strconv.Itoa(len(st.Moves))+`,"line":`+mustJSON(line)+`}`, &out); code != 200 || len(out.Steps) != len(line) ||
		out.Steps[chance].By != "chance" || out.Steps[chance].Move != line[chance] {
		t.Fatalf("an Imbriqua line through a chance draw: %d, %d steps, step %d %+v", code, len(out.Steps), chance+1, out.Steps)
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// positionAfter is game's position after moves.
func positionAfter(t *testing.T, game string, moves []string) *games.Position {
	t.Helper()
	g, err := games.Lookup(game)
	if err != nil {
		t.Fatal(err)
	}
	pos := g.NewPosition()
	for _, m := range moves {
		if err := pos.Play(m); err != nil {
			t.Fatal(err)
		}
	}
	return pos
}
