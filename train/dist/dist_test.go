package dist

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	crand "crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	gonet "net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/yinsh"
	"github.com/zerogames/zero/models"
	"github.com/zerogames/zero/net"
	"github.com/zerogames/zero/train/replay"
)

// Tests start real servers in-process (nats-server's own habit), on loopback when a socket is
// needed.

// randomGame is a random YINSH blitz game with a target at every other decision.
func randomGame(seed uint64) *replay.Game {
	rng := rand.New(rand.NewPCG(seed, 2))
	s := yinsh.Blitz.New()
	g := &replay.Game{}
	for s.ToMove() != env.Terminal {
		legal := s.Legal(nil)
		if len(legal) > 1 && len(g.Actions)%2 == 0 {
			g.Targets = append(g.Targets, replay.Target{Ply: len(g.Actions), Policy: []replay.PolicyEntry{{Action: legal[0], Prob: 1}}})
		}
		a := legal[rng.IntN(len(legal))]
		g.Actions = append(g.Actions, a)
		s = s.Play(a)
	}
	g.Result = s.Result()
	return g
}

func start(t *testing.T, cfg ServerConfig) (*Server, *Conn) {
	t.Helper()
	s, err := StartServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Connect("test trainer", t.Logf)
	if err != nil {
		s.Shutdown()
		t.Fatal(err)
	}
	if err := c.Setup(context.Background(), DefaultLimits()); err != nil {
		t.Fatal(err)
	}
	return s, c
}

func info() *env.Info { return yinsh.Blitz.Info() }

func publisher(t *testing.T, c *Conn, outbox *Outbox) *Publisher {
	t.Helper()
	p, err := c.NewPublisher(PublisherConfig{Game: info().Name, Rules: info().Rules, Worker: "w1", Host: "test", Outbox: outbox, Timeout: 2 * time.Second, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// sent waits until the publisher has handed every game to the server or its outbox.
func sent(t *testing.T, p *Publisher) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); p.Unsent() > 0; {
		if time.Now().After(end) {
			t.Fatalf("%d games still unsent", p.Unsent())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// take fetches games until n have come (acknowledging each, counting each id) or a few
// seconds pass.
func take(t *testing.T, c *Conn, n int, seen map[string]int, ack bool) {
	t.Helper()
	k, err := c.Consumer(context.Background(), info().Name, info().Rules)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	got := 0
	for got < n && time.Now().Before(deadline) {
		ds, err := k.Fetch(n-got, 200*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		var acks []*Delivery
		for _, d := range ds {
			if d.Err != nil {
				t.Fatalf("delivery %s: %v", d.ID(), d.Err)
			}
			if err := replay.Check(yinsh.Blitz, d.Game); err != nil {
				t.Fatalf("game %s: %v", d.Game.ID, err)
			}
			seen[d.Game.ID]++
			got++
			if ack {
				acks = append(acks, &d)
			}
		}
		if err := k.AckAll(context.Background(), acks); err != nil {
			t.Fatal(err)
		}
	}
	if got != n {
		t.Fatalf("%d games delivered, want %d", got, n)
	}
}

// TestRestartLosesNothing: games published to the embedded server (in-process, no socket)
// survive its restart on the same store, those acknowledged are never delivered again, those
// delivered but not acknowledged are.
func TestRestartLosesNothing(t *testing.T) {
	dir := t.TempDir()
	s, c := start(t, ServerConfig{Dir: dir})
	p := publisher(t, c, nil)
	for i := range 30 {
		if err := p.AddGame(context.Background(), randomGame(uint64(i))); err != nil {
			t.Fatal(err)
		}
	}
	sent(t, p)
	seen := map[string]int{}
	take(t, c, 10, seen, true)
	take(t, c, 5, map[string]int{}, false) // delivered, never acknowledged
	c.Close()
	s.Shutdown()

	s, c = start(t, ServerConfig{Dir: dir})
	defer s.Shutdown()
	defer c.Close()
	take(t, c, 20, seen, true)
	if len(seen) != 30 {
		t.Errorf("%d distinct games delivered, want 30", len(seen))
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("game %s acknowledged %d times", id, n)
		}
	}
	msgs, _, err := c.Stats(context.Background())
	for end := time.Now().Add(5 * time.Second); err == nil && msgs > 0 && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
		msgs, _, err = c.Stats(context.Background())
	}
	if err != nil || msgs != 0 {
		t.Errorf("the stream holds %d games after all were acknowledged (%v)", msgs, err)
	}
}

// TestFullStreamWaits: a full stream refuses games; they wait in the publisher's queue and
// are retried, and once the queue is full the workers wait too, until the trainer takes games.
// A retried id is stored once.
func TestFullStreamWaits(t *testing.T) {
	s, c := start(t, ServerConfig{Dir: t.TempDir()})
	defer s.Shutdown()
	defer c.Close()
	lim := DefaultLimits()
	lim.MaxGames = 3
	if err := c.Setup(context.Background(), lim); err != nil {
		t.Fatal(err)
	}
	p := publisher(t, c, nil)
	games := make([]*replay.Game, 8)
	for i := range games {
		games[i] = randomGame(uint64(i))
	}
	// The stream takes 3; the senders hold one each, the queue the rest; one more waits.
	n := 3 + senders + queueGames + 1
	done := make(chan error)
	go func() {
		for i := range n {
			if err := p.AddGame(context.Background(), games[i%len(games)]); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		t.Fatalf("%d games were taken by a stream of 3 and a queue of %d (%v)", n, queueGames, err)
	case <-time.After(500 * time.Millisecond):
	}
	if p.Full.Load() == 0 {
		t.Error("no refusal counted")
	}
	seen := map[string]int{}
	take(t, c, n, seen, true)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the worker still waits after the stream was emptied")
	}
	if len(seen) != n {
		t.Errorf("%d distinct games, want %d", len(seen), n)
	}
	// The same id again: the server keeps one.
	g := randomGame(9)
	g.ID = "w1/" + p.Session() + "/1"
	data, _ := replay.AppendGame(nil, g)
	if err := p.publish(context.Background(), g.ID, data); err != nil {
		t.Fatal(err)
	}
	if msgs, _, _ := c.Stats(context.Background()); msgs != 0 {
		t.Errorf("a game published again was stored twice")
	}
}

// TestPace: after a game, a worker waits while the trainer says self-play is ahead.
func TestPace(t *testing.T) {
	s, c := start(t, ServerConfig{Dir: t.TempDir()})
	defer s.Shutdown()
	defer c.Close()
	p := publisher(t, c, nil)
	ctx := context.Background()
	if err := c.SetPaused(ctx, true); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(5 * time.Second); !p.Paused() && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
	}
	done := make(chan error)
	go func() { done <- p.AddGame(ctx, randomGame(1)) }()
	select {
	case <-done:
		t.Fatal("the worker does not wait")
	case <-time.After(200 * time.Millisecond):
	}
	c.SetPaused(ctx, false)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the worker still waits after the trainer said play")
	}
	if p.Waits.Load() != 1 || p.Published.Load() != 1 {
		t.Errorf("%d waits, %d published; want 1, 1", p.Waits.Load(), p.Published.Load())
	}
}

func freePort(t *testing.T) string {
	l, err := gonet.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// TestRemoteWorker: over loopback, a worker with the token reads the run and the weights and
// publishes; a wrong token is refused; the worker may not touch the run's stream, buckets or
// weights; games played while the server is down wait in the outbox and arrive once it is
// back, each once.
func TestRemoteWorker(t *testing.T) {
	dir, addr := t.TempDir(), freePort(t)
	token, _ := NewToken()
	cfg := ServerConfig{Dir: filepath.Join(dir, "nats"), Listen: addr, WorkerToken: token}
	s, c := start(t, cfg)
	ctx := context.Background()
	if err := c.PutRun(ctx, InfoOf(info(), net.DefaultConfig()), []byte("game: yinsh-blitz\n")); err != nil {
		t.Fatal(err)
	}
	// A network, as the trainer publishes it.
	spec, _ := net.SpecOf(info(), yinsh.Blitz)
	w, _ := net.NewWeights(spec, net.Config{Blocks: 1, Channels: 4, PolicyChannels: 2, ValueChannels: 1, ValueHidden: 8}, rand.New(rand.NewPCG(1, 1)))
	ck := filepath.Join(dir, "w.zck")
	if err := net.Save(ck, w, nil, 42, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := c.PutWeights(ctx, ck, 42); err != nil {
		t.Fatal(err)
	}

	creds := filepath.Join(dir, "worker.token")
	os.WriteFile(creds, []byte(token+"\n"), 0o600)
	bad := filepath.Join(dir, "bad.token")
	os.WriteFile(bad, []byte("0123456789abcdef\n"), 0o600)
	if _, err := Connect("nats://"+addr, Auth{Creds: bad}, "bad worker", nil); err == nil || !strings.Contains(err.Error(), "Authorization") {
		t.Errorf("a wrong token: %v, want an authorization error", err)
	}
	if _, err := Connect("nats://"+addr, Auth{}, "anonymous", nil); err == nil {
		t.Errorf("an anonymous client was let in")
	}
	wc, err := Connect("nats://"+addr, Auth{Creds: creds}, "worker", t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	defer wc.Close()
	ri, config, err := wc.Run(ctx)
	if err != nil || ri.Mismatch(info()) != "" || string(config) != "game: yinsh-blitz\n" {
		t.Fatalf("the run as a worker reads it: %+v %q %v", ri, config, err)
	}
	other := *info()
	other.Rules++
	if m := ri.Mismatch(&other); !strings.Contains(m, "revision") {
		t.Errorf("another rules revision: %q", m)
	}
	got := filepath.Join(dir, "got.zck")
	if step, err := wc.GetWeights(ctx, got); err != nil || step != 42 {
		t.Fatalf("weights: step %d, %v", step, err)
	}
	if _, err := net.Load(models.ReadFile, got, spec); err != nil {
		t.Fatalf("the weights fetched: %v", err)
	}
	// What a worker may not do (the server does not answer a request it does not allow: each
	// waits for its timeout).
	for name, f := range map[string]func(ctx context.Context) error{
		"delete the stream": func(ctx context.Context) error { return wc.js.DeleteStream(ctx, Stream) },
		"purge the stream": func(ctx context.Context) error {
			st, err := wc.js.Stream(ctx, Stream)
			if err != nil {
				return err
			}
			return st.Purge(ctx)
		},
		"write the run": func(ctx context.Context) error {
			kv, err := wc.js.KeyValue(ctx, RunBucket)
			if err != nil {
				return err
			}
			_, err = kv.Put(ctx, infoKey, []byte("{}"))
			return err
		},
		"publish weights": func(ctx context.Context) error { return wc.PutWeights(ctx, ck, 43) },
		"read the games": func(ctx context.Context) error {
			cons, err := wc.js.Consumer(ctx, Stream, Durable)
			if err != nil {
				return err
			}
			_, err = cons.Fetch(1, jetstream.FetchMaxWait(200*time.Millisecond))
			return err
		},
	} {
		ctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		if err := f(ctx); err == nil {
			t.Errorf("a worker could %s", name)
		}
		cancel()
	}

	outbox, err := OpenOutbox(filepath.Join(dir, "outbox"), info().Name, info().Rules, 100)
	if err != nil {
		t.Fatal(err)
	}
	p := publisher(t, wc, outbox)
	for i := range 3 {
		if err := p.AddGame(ctx, randomGame(uint64(i))); err != nil {
			t.Fatal(err)
		}
	}
	sent(t, p)
	c.Close()
	s.Shutdown()
	for i := 3; i < 8; i++ {
		if err := p.AddGame(ctx, randomGame(uint64(i))); err != nil {
			t.Fatal(err)
		}
	}
	sent(t, p)
	if outbox.Len() != 5 || p.Outboxed.Load() != 5 {
		t.Fatalf("with the server down: %d games in the outbox, want 5", outbox.Len())
	}
	s, c = start(t, cfg)
	defer s.Shutdown()
	defer c.Close()
	seen := map[string]int{}
	take(t, c, 8, seen, true)
	for end := time.Now().Add(5 * time.Second); outbox.Len() > 0 && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
	}
	if len(seen) != 8 || outbox.Len() != 0 {
		t.Errorf("%d distinct games, %d left in the outbox", len(seen), outbox.Len())
	}
}

// logLines keeps what a connection logs, for a test to count.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) logf(format string, a ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, a...))
}

// count is the number of lines that hold s.
func (l *logLines) count(s string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, line := range l.lines {
		if strings.Contains(line, s) {
			n++
		}
	}
	return n
}

func (l *logLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// TestTokenChanged: a worker's server is started again on its store and address, as a
// trainer's restart does. With the same token the worker reconnects and publishes on, and
// nothing is lost. With a new token (the old one revoked) the connection is refused
// MaxAuthRefusals times in a row, then given up for good (Lost; Err names the credentials file
// and what to do); the games given to it after wait in its outbox and none reaches the server.
// nats.go's own rule closed the connection at the second refusal without a word, and the
// worker played on into its outbox for ever.
func TestTokenChanged(t *testing.T) {
	defer func(d time.Duration) { reconnectWait = d }(reconnectWait)
	reconnectWait = 20 * time.Millisecond
	for _, tc := range []struct {
		name     string
		newToken bool
	}{{"the same token", false}, {"a new token", true}} {
		t.Run(tc.name, func(t *testing.T) {
			dir, addr := t.TempDir(), freePort(t)
			token, _ := NewToken()
			cfg := ServerConfig{Dir: filepath.Join(dir, "nats"), Listen: addr, WorkerToken: token}
			s, c := start(t, cfg)
			creds := filepath.Join(dir, "worker.token")
			os.WriteFile(creds, []byte(token+"\n"), 0o600)
			var log logLines
			wc, err := Connect("nats://"+addr, Auth{Creds: creds}, "worker", log.logf)
			if err != nil {
				t.Fatal(err)
			}
			defer wc.Close()
			outbox, err := OpenOutbox(filepath.Join(dir, "outbox"), info().Name, info().Rules, 100)
			if err != nil {
				t.Fatal(err)
			}
			p := publisher(t, wc, outbox)
			ctx := context.Background()
			for i := range 2 {
				if err := p.AddGame(ctx, randomGame(uint64(i))); err != nil {
					t.Fatal(err)
				}
			}
			sent(t, p)
			c.Close()
			s.Shutdown()
			if tc.newToken {
				cfg.WorkerToken, _ = NewToken()
			}
			s, c = start(t, cfg)
			defer s.Shutdown()
			defer c.Close()

			if !tc.newToken {
				for end := time.Now().Add(5 * time.Second); !wc.Connected(); time.Sleep(5 * time.Millisecond) {
					if time.Now().After(end) {
						t.Fatalf("not reconnected 5 s after the restart; its log:\n%s", &log)
					}
				}
				for i := 2; i < 5; i++ {
					if err := p.AddGame(ctx, randomGame(uint64(i))); err != nil {
						t.Fatal(err)
					}
				}
				sent(t, p)
				seen := map[string]int{}
				take(t, c, 5, seen, true)
				if len(seen) != 5 {
					t.Errorf("%d distinct games, want 5", len(seen))
				}
				select {
				case <-wc.Lost():
					t.Errorf("the connection was given up: %v", wc.Err())
				default:
				}
				if n := log.count("refused"); n != 0 || wc.Err() != nil {
					t.Errorf("%d refusals logged, Err %v; want none; the log:\n%s", n, wc.Err(), &log)
				}
				return
			}

			select {
			case <-wc.Lost():
			case <-time.After(5 * time.Second):
				t.Fatalf("the connection not given up 5 s after the server changed its token; its log:\n%s", &log)
			}
			err = wc.Err()
			t.Logf("given up: %v", err)
			if !errors.Is(err, ErrRefused) || !errors.Is(err, nats.ErrAuthorization) || !strings.Contains(err.Error(), creds) ||
				!strings.Contains(err.Error(), "copy worker.token from the trainer's run folder") {
				t.Errorf("Err: %v; want ErrRefused, the authorization violation, the file %s and what to do", err, creds)
			}
			// Given up for good: no attempt after the last refusal.
			time.Sleep(200 * time.Millisecond)
			if n := log.count("refused the credentials"); n != MaxAuthRefusals || wc.Connected() {
				t.Errorf("%d refusals logged, connected %v; want %d, false; the log:\n%s", n, wc.Connected(), MaxAuthRefusals, &log)
			}
			for i := 2; i < 5; i++ {
				if err := p.AddGame(ctx, randomGame(uint64(i))); err != nil {
					t.Fatal(err)
				}
			}
			sent(t, p)
			if outbox.Len() != 3 {
				t.Errorf("%d games in the outbox, want the 3 given after the refusals", outbox.Len())
			}
			seen := map[string]int{}
			take(t, c, 2, seen, true) // those from before the restart
			k, err := c.Consumer(ctx, info().Name, info().Rules)
			if err != nil {
				t.Fatal(err)
			}
			if ds, err := k.Fetch(10, 300*time.Millisecond); len(ds) != 0 || err != nil {
				t.Errorf("the server was sent %d games after the refusals (%v)", len(ds), err)
			}
		})
	}
}

// TestRefusedDeliveries: messages that are no game of the run are delivered with the reason.
func TestRefusedDeliveries(t *testing.T) {
	s, c := start(t, ServerConfig{Dir: t.TempDir()})
	defer s.Shutdown()
	defer c.Close()
	ctx := context.Background()
	good, _ := replay.AppendGame(nil, &replay.Game{ID: "x/1/1", Result: env.Draw})
	rules := fmt.Sprint(info().Rules)
	long := strings.Repeat("x", 60_000)
	cases := []struct {
		id, game, rules, worker, host, want string
		data                                []byte
	}{
		{"x/1/1", "gyges", "1", "x", "h", "a game of", good},
		{"x/1/2", info().Name, "99", "x", "h", "revision", good},
		{"x/1/3", info().Name, rules, "x", "h", "checksum", append(good[:len(good)-1:len(good)-1], 0)},
		{"x/1/4", info().Name, rules, "x", "h", "not the message's", good},
		// The names become metrics keys: a sender's headers (up to the message's size) are not
		// taken as they are.
		{"x/1/5", info().Name, rules, long, "h", "worker name of 60000 bytes", good},
		{"x/1/6", info().Name, rules, "x y", "h", "worker name of 3 bytes", good},
		{"x/1/7", info().Name, rules, "x", long, "host name of 60000 bytes", good},
	}
	for _, tc := range cases {
		msg := &jetstreamMsg{tc.id, tc.game, tc.rules, tc.worker, tc.host, tc.data}
		if err := msg.publish(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	k, _ := c.Consumer(ctx, info().Name, info().Rules)
	ds, err := k.Fetch(10, 500*time.Millisecond)
	if err != nil || len(ds) != len(cases) {
		t.Fatalf("%d deliveries, %v", len(ds), err)
	}
	for i, d := range ds {
		if d.Err == nil || !strings.Contains(d.Err.Error(), cases[i].want) {
			t.Errorf("case %d (%s): %v, want %q", i, cases[i].id, d.Err, cases[i].want)
		}
		if len(d.Worker) > 64 || len(d.Host) > maxHost {
			t.Errorf("case %d: delivered with a worker name of %d bytes, a host name of %d", i, len(d.Worker), len(d.Host))
		}
		d.Refuse()
	}
	if ds, _ := k.Fetch(10, 300*time.Millisecond); len(ds) != 0 {
		t.Errorf("refused messages delivered again")
	}
}

// jetstreamMsg is a message as a forger would publish it.
type jetstreamMsg struct {
	id, game, rules, worker, host string
	data                          []byte
}

func (m *jetstreamMsg) publish(ctx context.Context, c *Conn) error {
	p := &Publisher{c: c, cfg: PublisherConfig{Game: m.game, Worker: m.worker, Host: m.host, Timeout: time.Second}}
	fmt.Sscan(m.rules, &p.cfg.Rules)
	return p.publish(ctx, m.id, m.data)
}

// TestTLS: with a certificate, remote clients speak TLS and check the server against their
// authority; the trainer's own connection stays in-process.
func TestTLS(t *testing.T) {
	dir := t.TempDir()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), crand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "zero test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []gonet.IP{gonet.IPv4(127, 0, 0, 1)}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(crand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, _ := x509.MarshalECPrivateKey(key)
	cert, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600)
	token, _ := NewToken()
	creds := filepath.Join(dir, "worker.token")
	os.WriteFile(creds, []byte(token), 0o600)
	s, c := start(t, ServerConfig{Dir: filepath.Join(dir, "nats"), Listen: "127.0.0.1:0", WorkerToken: token, TLSCert: cert, TLSKey: keyFile})
	defer s.Shutdown()
	defer c.Close()
	if err := c.PutRun(context.Background(), InfoOf(info(), net.DefaultConfig()), []byte("game: yinsh-blitz\n")); err != nil {
		t.Fatal(err)
	}
	wc, err := Connect("tls://"+s.Addr(), Auth{Creds: creds, CA: cert}, "worker", nil)
	if err != nil {
		t.Fatalf("with the authority: %v", err)
	}
	if _, _, err := wc.Run(context.Background()); err != nil {
		t.Error(err)
	}
	wc.Close()
	if _, err := Connect("tls://"+s.Addr(), Auth{Creds: creds}, "worker", nil); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("without the authority: %v, want a certificate error", err)
	}
}

// TestOutboxKeepsItsGame: a worker's outbox holds the YINSH blitz games it played for a run
// whose trainer stopped; started again with the same folder for a YINSH run (normal rules), it
// must not send them as that run's: a blitz game reads as a normal game resigned after its
// first row, so the trainer's checks would take it.
func TestOutboxKeepsItsGame(t *testing.T) {
	dir := t.TempDir()
	blitzInfo, normal := yinsh.Blitz.Info(), yinsh.Normal.Info()
	blitz, err := OpenOutbox(dir, blitzInfo.Name, blitzInfo.Rules, 100)
	if err != nil {
		t.Fatal(err)
	}
	var g *replay.Game
	for seed := uint64(0); g == nil; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		s := yinsh.Blitz.New()
		h := &replay.Game{ID: "w1/old/1"}
		for s.ToMove() != env.Terminal {
			legal := s.Legal(nil)
			a := legal[rng.IntN(len(legal))]
			h.Actions = append(h.Actions, a)
			s = s.Play(a)
		}
		h.Result = s.Result()
		if replay.Check(yinsh.Normal, h) == nil {
			g = h
		}
	}
	data, _ := replay.AppendGame(nil, g)
	if err := blitz.Put(context.Background(), g.ID, data); err != nil {
		t.Fatal(err)
	}

	s, c := start(t, ServerConfig{Dir: t.TempDir()})
	defer s.Shutdown()
	defer c.Close()
	cfg := PublisherConfig{Game: normal.Name, Rules: normal.Rules, Worker: "w1", Host: "test", Outbox: blitz, Timeout: 2 * time.Second, Logf: t.Logf}
	if p, err := c.NewPublisher(cfg); err == nil || !strings.Contains(err.Error(), "holds games of yinsh-blitz") {
		if p != nil {
			p.Close()
		}
		t.Fatalf("a publisher for %s with the outbox of %s: %v", normal.Name, blitzInfo.Name, err)
	}
	ob, err := OpenOutbox(dir, normal.Name, normal.Rules, 100)
	if err != nil {
		t.Fatal(err)
	}
	if ob.Len() != 0 || ob.Dir() == blitz.Dir() {
		t.Fatalf("the %s outbox (%s) holds %d games of the %s one (%s)", normal.Name, ob.Dir(), ob.Len(), blitzInfo.Name, blitz.Dir())
	}
	cfg.Outbox = ob
	p, err := c.NewPublisher(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	k, err := c.Consumer(context.Background(), normal.Name, normal.Rules)
	if err != nil {
		t.Fatal(err)
	}
	if ds, err := k.Fetch(1, time.Second); err != nil || len(ds) != 0 {
		t.Errorf("the %s run was sent %d games (%v)", normal.Name, len(ds), err)
	}
	if blitz.Len() != 1 {
		t.Errorf("the %s outbox holds %d games, want its 1", blitzInfo.Name, blitz.Len())
	}
}

// TestStopWithFullOutbox: a worker whose server is gone and whose outbox is full waits before
// it adds a game; once its context ends (Ctrl-C), AddGame returns (the game is dropped, as a
// game in progress would be), and Close returns too.
func TestStopWithFullOutbox(t *testing.T) {
	s, c := start(t, ServerConfig{Dir: t.TempDir()})
	defer c.Close()
	ob, err := OpenOutbox(t.TempDir(), info().Name, info().Rules, 1)
	if err != nil {
		t.Fatal(err)
	}
	g := randomGame(1)
	g.ID = "w1/old/1"
	data, _ := replay.AppendGame(nil, g)
	if err := ob.Put(context.Background(), g.ID, data); err != nil { // full
		t.Fatal(err)
	}
	s.Shutdown()
	for end := time.Now().Add(5 * time.Second); c.Connected() && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
	}
	p, err := c.NewPublisher(PublisherConfig{Game: info().Name, Rules: info().Rules, Worker: "w1", Host: "test", Outbox: ob, Timeout: time.Second, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		for ctx.Err() == nil {
			p.AddGame(ctx, randomGame(2))
		}
		close(done)
	}()
	time.Sleep(300 * time.Millisecond) // the queue (64) fills behind the senders, who wait for room
	cancel()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		t.Fatal("AddGame still waits 3 s after its context ended (the outbox full, the server gone)")
	}
	closed := make(chan struct{})
	go func() { p.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(closeGrace + 3*time.Second):
		t.Fatal("Close still waits for room in the outbox")
	}
	if ob.Len() != 1 {
		t.Errorf("the outbox holds %d games, want 1", ob.Len())
	}
}

// TestWorkerReadsNoTrainerReplies: a worker may subscribe to _INBOX.> (its own replies come
// there), but nothing of the trainer's: not the games delivered to it, not its publications'
// acknowledgements, not the heartbeats that would name its inbox. Under the default prefix a
// worker read every game the trainer took, ids included. A worker's subscription to the
// trainer's prefix is refused.
func TestWorkerReadsNoTrainerReplies(t *testing.T) {
	dir, addr := t.TempDir(), freePort(t)
	token, _ := NewToken()
	s, c := start(t, ServerConfig{Dir: filepath.Join(dir, "nats"), Listen: addr, WorkerToken: token})
	defer s.Shutdown()
	defer c.Close()
	creds := filepath.Join(dir, "worker.token")
	os.WriteFile(creds, []byte(token+"\n"), 0o600)
	wc, err := Connect("nats://"+addr, Auth{Creds: creds}, "worker", t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	defer wc.Close()
	inboxes, err := wc.nc.SubscribeSync("_INBOX.>")
	if err != nil {
		t.Fatal(err)
	}
	refused := make(chan error, 1)
	wc.nc.SetErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
		select {
		case refused <- err:
		default:
		}
	})
	if _, err := wc.nc.SubscribeSync(TrainerInbox + ".>"); err != nil {
		t.Fatal(err)
	}
	if err := wc.nc.Flush(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-refused:
		if !strings.Contains(err.Error(), "Permissions Violation") {
			t.Errorf("subscribing to the trainer's inbox: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Errorf("a worker's subscription to %s.> was not refused", TrainerInbox)
	}
	p := publisher(t, c, nil)
	for i := range 3 {
		if err := p.AddGame(context.Background(), randomGame(uint64(i))); err != nil {
			t.Fatal(err)
		}
	}
	sent(t, p)
	take(t, c, 3, map[string]int{}, true)
	if m, err := inboxes.NextMsg(300 * time.Millisecond); err == nil {
		t.Errorf("a worker read the trainer's %s: %.120q", m.Subject, m.Data)
	}
}

// TestOversizedGame: a game whose record the stream would never take (over MaxGameBytes) is
// dropped at AddGame, logged, and blocks nothing: the games after it reach the server, from a
// publisher with an outbox (which sends in order) and from one without (the trainer's own).
func TestOversizedGame(t *testing.T) {
	s, c := start(t, ServerConfig{Dir: t.TempDir()})
	defer s.Shutdown()
	defer c.Close()
	big := bigGame(t, 1, MaxGameBytes+100<<10) // over what the server takes at all
	seen := map[string]int{}
	for i, withOutbox := range []bool{true, false} {
		var ob *Outbox
		if withOutbox {
			var err error
			if ob, err = OpenOutbox(t.TempDir(), info().Name, info().Rules, 10); err != nil {
				t.Fatal(err)
			}
		}
		var logged strings.Builder
		var mu sync.Mutex
		p, err := c.NewPublisher(PublisherConfig{Game: info().Name, Rules: info().Rules, Worker: fmt.Sprintf("w%d", i), Host: "test", Outbox: ob, Timeout: 2 * time.Second,
			Logf: func(format string, a ...any) {
				mu.Lock()
				fmt.Fprintf(&logged, format+"\n", a...)
				mu.Unlock()
			}})
		if err != nil {
			t.Fatal(err)
		}
		if err := p.AddGame(context.Background(), big); err != nil {
			t.Errorf("outbox %v: AddGame of the oversized game: %v", withOutbox, err)
		}
		if err := p.AddGame(context.Background(), randomGame(2)); err != nil {
			t.Fatal(err)
		}
		sent(t, p)
		take(t, c, 1, seen, true)
		p.Close()
		mu.Lock()
		if !strings.Contains(logged.String(), "is lost: its record is") {
			t.Errorf("outbox %v: the oversized game's loss is not logged: %q", withOutbox, logged.String())
		}
		mu.Unlock()
		if ob != nil && ob.Len() != 0 {
			t.Errorf("the outbox holds %d games", ob.Len())
		}
	}
	if len(seen) != 2 {
		t.Errorf("games taken %v, want the second game of each publisher", seen)
	}
	// An outbox holding one (written by a build before AddGame refused them) sets it aside
	// and sends the games after it.
	ob, err := OpenOutbox(t.TempDir(), info().Name, info().Rules, 10)
	if err != nil {
		t.Fatal(err)
	}
	big.ID = "w9/old/1"
	data, _ := replay.AppendGame(nil, big)
	small := randomGame(3)
	small.ID = "w9/old/2"
	data2, _ := replay.AppendGame(nil, small)
	// Just over the stream's limit, under the server's (which the client checks).
	over := bigGame(t, 4, MaxGameBytes+1<<10)
	over.ID = "w9/old/0"
	data0, _ := replay.AppendGame(nil, over)
	if len(data0) >= MaxGameBytes+64<<10-1<<10 {
		t.Fatalf("the record just over the stream's limit is %d bytes", len(data0))
	}
	if err := ob.Put(context.Background(), over.ID, data0); err != nil {
		t.Fatal(err)
	}
	if err := ob.Put(context.Background(), big.ID, data); err != nil {
		t.Fatal(err)
	}
	if err := ob.Put(context.Background(), small.ID, data2); err != nil {
		t.Fatal(err)
	}
	p := publisher(t, c, ob)
	take(t, c, 1, seen, true)
	if seen[small.ID] != 1 || ob.Len() != 0 {
		t.Errorf("from the outbox: games taken %v, %d left in it", seen, ob.Len())
	}
	if damaged, _ := filepath.Glob(filepath.Join(ob.Dir(), "*.damaged")); len(damaged) != 2 {
		t.Errorf("the oversized records set aside: %q", damaged)
	}
	p.Close()
}

// bigGame is a random game whose record is over n bytes (by at most a few): its targets'
// policies padded.
func bigGame(t *testing.T, seed uint64, n int) *replay.Game {
	t.Helper()
	g := randomGame(seed)
	size := func() int {
		data, err := replay.AppendGame(nil, g)
		if err != nil {
			t.Fatal(err)
		}
		return len(data)
	}
	for i := 0; size() <= n; i++ {
		tg := &g.Targets[i]
		room := min(65_000-len(tg.Policy), (n-size())/4+1) // 4 bytes an entry
		for range room {
			tg.Policy = append(tg.Policy, tg.Policy[0])
		}
	}
	return g
}

// TestDownloadStalls: a download whose object's chunks never come (replaced meanwhile: the
// replacement purged them) gives up after weightsIdle without a part, and at once when its
// context ends; a whole one is checked against the object's size and digest.
func TestDownloadStalls(t *testing.T) {
	s, c := start(t, ServerConfig{Dir: t.TempDir()})
	defer s.Shutdown()
	defer c.Close()
	ctx := context.Background()
	ck := filepath.Join(t.TempDir(), "ck")
	data := make([]byte, 300_000) // three chunks of jetstream's 128 KiB
	for i := range data {
		data[i] = byte(i * 7)
	}
	os.WriteFile(ck, data, 0o644)
	if err := c.PutWeights(ctx, ck, 9); err != nil {
		t.Fatal(err)
	}
	got := filepath.Join(t.TempDir(), "got")
	if step, err := c.GetWeights(ctx, got); err != nil || step != 9 {
		t.Fatalf("GetWeights: step %d, %v", step, err)
	}
	if back, _ := os.ReadFile(got); !bytes.Equal(back, data) {
		t.Fatal("the network downloaded is not the one published")
	}
	obs, err := c.js.ObjectStore(ctx, WeightsBucket)
	if err != nil {
		t.Fatal(err)
	}
	info, err := obs.GetInfo(ctx, weightsObject)
	if err != nil {
		t.Fatal(err)
	}
	gone := *info
	gone.NUID = "purged" // chunks that are not there
	old := weightsIdle
	weightsIdle = 300 * time.Millisecond
	defer func() { weightsIdle = old }()
	begin := time.Now()
	if err := c.download(ctx, &gone, got); err == nil || !strings.Contains(err.Error(), "after 0 of 300000 bytes (no part for 300ms") {
		t.Errorf("a download of chunks that never come: %v", err)
	}
	if d := time.Since(begin); d > 5*time.Second {
		t.Errorf("it gave up after %v", d)
	}
	weightsIdle = time.Minute
	stop, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	begin = time.Now()
	if err := c.download(stop, &gone, got); !errors.Is(err, context.DeadlineExceeded) || time.Since(begin) > 5*time.Second {
		t.Errorf("a download stopped after 200ms: %v after %v", err, time.Since(begin))
	}
	// A connection closed under it (the server gone): the context still stops it at once (an
	// ordered consumer's Next re-creates its consumer, with its own timeouts, for ever).
	gone2, err := s.Connect("closed", t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	gone2.Close()
	stop2, cancel2 := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel2()
	begin = time.Now()
	if err := gone2.download(stop2, info, got); err == nil || time.Since(begin) > 5*time.Second {
		t.Errorf("a download on a closed connection stopped after 200ms: %v after %v", err, time.Since(begin))
	}
	bad := *info
	bad.Digest = "SHA-256=" + strings.Repeat("A", 43) + "="
	if err := c.download(ctx, &bad, got); err == nil || !strings.Contains(err.Error(), "digest") {
		t.Errorf("a download whose digest differs: %v", err)
	}
}
