package dist

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/zerogames/zero/train/replay"
)

// Headers of a game's message, besides the id (Nats-Msg-Id).
const (
	hProtocol = "Zero-Protocol"
	hGame     = "Zero-Game"  // the game and variant
	hRules    = "Zero-Rules" // the rules revision the worker played
	hWorker   = "Zero-Worker"
	hHost     = "Zero-Host"
	// hLatency is how long the worker's previous publication took (µs), for the trainer's
	// metrics: the trainer sees no publication's end.
	hLatency = "Zero-Publish-Latency"
)

// PublisherConfig is a worker's identity and game.
type PublisherConfig struct {
	Game  string // the game and variant (env.Info.Name)
	Rules int    // its rules revision (env.Info.Rules)
	// Worker names the worker (letters, digits, '.', '_', '-'); Host the machine.
	Worker, Host string
	// Session tells this process's games from those of the worker's earlier processes: with
	// Worker and a game number, it makes each game's id. "": a random one.
	Session string
	// Outbox keeps the games the server could not take (unreachable, not answering); nil: the
	// worker retries until the server takes them (the trainer's own workers, in-process).
	Outbox *Outbox
	// Timeout bounds one attempt to publish (default 10s).
	Timeout time.Duration
	// Logf, if set, hears of games put in the outbox and sent from it.
	Logf func(string, ...any)
	// Sent, if set, is called with each game's id once the server has it, and how long the
	// publication took (from a sender's goroutine).
	Sent func(id string, latency time.Duration)
}

// ValidName tells whether s can name a worker.
func ValidName(s string) bool {
	return s != "" && len(s) <= 64 && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-')
	})
}

// Publisher is a worker.GameSink that publishes each game to the run's stream with a unique
// id, from a bounded queue, so that a worker goes on playing while its game travels. A full
// stream makes it wait and retry, and the queue, once full, holds the workers back
// (back-pressure); a server it cannot reach makes it keep the game in its outbox, which it
// sends when the server is back. After each game a worker waits while the trainer says
// self-play is ahead. It is safe for concurrent use by many workers.
type Publisher struct {
	c       *Conn
	cfg     PublisherConfig
	n       atomic.Int64 // games numbered
	unsent  atomic.Int64 // games queued or being sent
	paused  atomic.Bool  // the trainer's word
	last    atomic.Int64 // the latest publication's latency, µs
	queue   chan pending
	ctx     context.Context // the publisher's life
	stop    context.CancelFunc
	sending sync.WaitGroup // senders
	wg      sync.WaitGroup // the pace reader, the outbox's sender
	closed  sync.Once
	open    sync.RWMutex // held (read) while a game is queued; Close takes it to close the queue
	shut    bool         // Close was called

	// Published counts the games the server took (from the outbox too); Outboxed those put
	// in the outbox; Full the refusals of a full stream; Waits the pauses for the trainer.
	Published, Outboxed, Full, Waits atomic.Int64
}

// pending is a game waiting in the queue.
type pending struct {
	id   string
	data []byte
}

const (
	// queueGames bounds the games waiting to be sent; senders send that many at once.
	queueGames = 64
	senders    = 4
	// pacePeriod is how often a waiting worker looks at the trainer's word.
	pacePeriod = 20 * time.Millisecond
	// closeGrace is how long Close lets the queue drain.
	closeGrace = 5 * time.Second
)

// NewPublisher starts a publisher (its senders, the reader of the trainer's pace, its
// outbox's sender) until Close.
func (c *Conn) NewPublisher(cfg PublisherConfig) (*Publisher, error) {
	if !ValidName(cfg.Worker) {
		return nil, fmt.Errorf("worker name %q: want 1 to 64 letters, digits, '.', '_' or '-'", cfg.Worker)
	}
	if len(cfg.Host) > maxHost {
		return nil, fmt.Errorf("host name of %d bytes: want at most %d", len(cfg.Host), maxHost)
	}
	if o := cfg.Outbox; o != nil && (o.game != cfg.Game || o.rules != cfg.Rules) {
		return nil, fmt.Errorf("the outbox %s holds games of %s (rules revision %d), not of %s (revision %d)", o.dir, o.game, o.rules, cfg.Game, cfg.Rules)
	}
	if cfg.Session == "" {
		t, err := NewToken()
		if err != nil {
			return nil, err
		}
		// 64 bits: the run refuses a game whose id it has had as long as it lasts (replay's
		// retired ids), so two sessions of a worker must not draw the same.
		cfg.Session = t[:16]
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	ctx, stop := context.WithCancel(context.Background())
	p := &Publisher{c: c, cfg: cfg, queue: make(chan pending, queueGames), ctx: ctx, stop: stop}
	p.sending.Add(senders)
	p.wg.Add(1)
	for range senders {
		go p.sender()
	}
	go p.readPace()
	if cfg.Outbox != nil {
		p.wg.Add(1)
		go p.drain(ctx)
	}
	return p, nil
}

// Close sends what the queue holds (for a few seconds at most: then to the outbox, or lost)
// and stops the publisher; games in the outbox stay there. Call it once the workers stopped.
func (p *Publisher) Close() {
	p.closed.Do(func() {
		t := time.AfterFunc(closeGrace, p.stop)
		defer t.Stop()
		p.open.Lock()
		p.shut = true
		close(p.queue)
		p.open.Unlock()
		p.sending.Wait()
		p.stop()
		p.wg.Wait()
	})
}

// Session is the publisher's session (part of its games' ids).
func (p *Publisher) Session() string { return p.cfg.Session }

// AddGame queues a finished game for publication (its ID is set here), waiting while the
// queue is full, then waits while self-play is ahead of training, until ctx ends (a game not
// yet queued then goes to the outbox, or is dropped as a game in progress would be).
func (p *Publisher) AddGame(ctx context.Context, g *replay.Game) error {
	g.ID = fmt.Sprintf("%s/%s/%d", p.cfg.Worker, p.cfg.Session, p.n.Add(1))
	data, err := replay.AppendGame(nil, g)
	if err != nil {
		return err
	}
	if len(data) > maxRecordBytes {
		// The server would never take it: sent, it would be retried for ever (or block the
		// outbox, which sends in order). Lost as a game in progress is, and said.
		p.cfg.Logf("game %s is lost: its record is %d bytes, over the %d a game's message may carry", g.ID, len(data), maxRecordBytes)
		return nil
	}
	if err := p.enqueue(ctx, pending{g.ID, data}); err != nil {
		return err
	}
	p.pace(ctx)
	return nil
}

// maxRecordBytes bounds a game's record: its message, headers (protocol, game, rules, worker,
// host, latency: a few hundred bytes) with it, must fit the stream's MaxGameBytes.
const maxRecordBytes = MaxGameBytes - 8<<10

// ErrClosed is the error of a game given to a closed publisher.
var ErrClosed = errors.New("the publisher is closed")

func (p *Publisher) enqueue(ctx context.Context, g pending) error {
	p.open.RLock()
	defer p.open.RUnlock()
	if p.shut {
		return ErrClosed
	}
	p.unsent.Add(1)
	select {
	case p.queue <- g:
		return nil
	case <-p.ctx.Done():
	case <-ctx.Done():
	}
	p.unsent.Add(-1)
	if p.cfg.Outbox != nil {
		// Kept if the outbox has room; if it is full, dropped as a game in progress would be
		// (waiting for room would keep a stopped worker from stopping while the server is away).
		return p.cfg.Outbox.Put(ctx, g.id, g.data)
	}
	return nil
}

// sender publishes the queue's games until it is closed and empty, or the publisher stops.
func (p *Publisher) sender() {
	defer p.sending.Done()
	for g := range p.queue {
		if err := p.send(p.ctx, g.id, g.data); err != nil {
			p.cfg.Logf("game %s is lost: %v", g.id, err)
		}
		p.unsent.Add(-1)
	}
}

// send publishes one game, waiting while the stream is full; what cannot reach the server
// goes to the outbox.
func (p *Publisher) send(ctx context.Context, id string, data []byte) error {
	wait := 20 * time.Millisecond
	for {
		err := p.publish(ctx, id, data)
		switch {
		case err == nil:
			return nil
		case isFull(err):
			p.Full.Add(1)
		case p.cfg.Outbox != nil:
			p.Outboxed.Add(1)
			// Waits for room until the publisher stops (Close stops it after closeGrace).
			if err := p.cfg.Outbox.Put(ctx, id, data); err != nil {
				return err
			}
			p.cfg.Logf("the server did not take game %s (%v): it waits in the outbox (%d games)", id, err, p.cfg.Outbox.Len())
			return nil
		}
		select {
		case <-ctx.Done():
			if p.cfg.Outbox != nil {
				// A whole game is worth keeping: the next process sends it (if the outbox has
				// room: the publisher has stopped, so nothing waits for it).
				return p.cfg.Outbox.Put(ctx, id, data)
			}
			return fmt.Errorf("the publisher stopped before the server took it: %w", err)
		case <-time.After(wait):
		}
		wait = min(2*wait, 500*time.Millisecond)
	}
}

// publish makes one attempt to publish a game.
func (p *Publisher) publish(ctx context.Context, id string, data []byte) error {
	msg := nats.NewMsg(Subject)
	msg.Data = data
	msg.Header.Set(hProtocol, strconv.Itoa(Protocol))
	msg.Header.Set(hGame, p.cfg.Game)
	msg.Header.Set(hRules, strconv.Itoa(p.cfg.Rules))
	msg.Header.Set(hWorker, p.cfg.Worker)
	msg.Header.Set(hHost, p.cfg.Host)
	msg.Header.Set(hLatency, strconv.FormatInt(p.last.Load(), 10))
	ctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()
	// A connection lost while waiting for the server's word loses the word: the game goes to
	// the outbox at once (if the server had stored it, the id makes the second copy nothing).
	down := p.c.disconnected()
	if !p.c.nc.IsConnected() {
		return nats.ErrConnectionClosed // at once: no waiting for a timeout
	}
	go func() {
		select {
		case <-down:
			cancel()
		case <-ctx.Done():
		}
	}()
	start := time.Now()
	_, err := p.c.js.PublishMsg(ctx, msg, jetstream.WithMsgID(id), jetstream.WithExpectStream(Stream))
	if err != nil {
		return err
	}
	d := time.Since(start)
	p.last.Store(d.Microseconds())
	p.Published.Add(1)
	if p.cfg.Sent != nil {
		p.cfg.Sent(id, d)
	}
	return nil
}

// errStoreFailed is JetStream's code for a message the stream would not store: with
// DiscardNew, a full stream ("maximum messages exceeded", "maximum bytes exceeded").
const errStoreFailed jetstream.ErrorCode = 10077

// isFull tells whether err is a full stream's refusal.
func isFull(err error) bool {
	var api *jetstream.APIError
	return errors.As(err, &api) && api.ErrorCode == errStoreFailed && strings.Contains(api.Description, "maximum")
}

// pace waits while the trainer says self-play is ahead, until ctx ends.
func (p *Publisher) pace(ctx context.Context) {
	if !p.paused.Load() {
		return
	}
	p.Waits.Add(1)
	for p.paused.Load() {
		select {
		case <-ctx.Done():
			return
		case <-time.After(pacePeriod):
		}
	}
}

// readPace follows the trainer's word (a watch of the pace key: nothing to do until it
// changes) until the publisher stops. A trainer that cannot be asked is taken to want games
// (the stream's bound still holds them back); the watch starts again after a reconnection
// (a restarted trainer may have a new server).
func (p *Publisher) readPace() {
	defer p.wg.Done()
	defer p.paused.Store(false)
	for p.ctx.Err() == nil {
		again := p.c.reconnected()
		if err := p.watchPace(again); err != nil {
			p.paused.Store(false)
			select {
			case <-p.ctx.Done():
			case <-again:
			case <-time.After(time.Second):
			}
		}
	}
}

// watchPace follows the pace key until the connection is made again (again) or fails.
func (p *Publisher) watchPace(again <-chan struct{}) error {
	ctx, cancel := context.WithCancel(p.ctx)
	defer cancel()
	kv, err := p.c.js.KeyValue(ctx, FlowBucket)
	if err != nil {
		return err
	}
	w, err := kv.Watch(ctx, paceKey)
	if err != nil {
		return err
	}
	defer w.Stop()
	down := p.c.disconnected()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-again:
			return nil
		case <-down:
			// No trainer to ask: play on, the games into the outbox (bounded).
			p.paused.Store(false)
			return nil
		case e, ok := <-w.Updates():
			if !ok {
				return errors.New("the watch of the pace ended")
			}
			if e != nil {
				p.paused.Store(e.Operation() == jetstream.KeyValuePut && string(e.Value()) == "wait")
			}
		}
	}
}

// Paused tells whether the trainer says self-play is ahead.
func (p *Publisher) Paused() bool { return p.paused.Load() }

// Unsent is the number of games queued or being sent (not yet the server's or the outbox's).
func (p *Publisher) Unsent() int { return int(p.unsent.Load()) }

// drain sends the outbox's games, oldest first, whenever the server takes them, until ctx
// ends.
func (p *Publisher) drain(ctx context.Context) {
	defer p.wg.Done()
	o := p.cfg.Outbox
	wait := 100 * time.Millisecond
	for {
		sent, err := p.drainOnce(ctx)
		if sent > 0 {
			p.cfg.Logf("sent %d games from the outbox (%d left)", sent, o.Len())
		}
		if err == nil && o.Len() == 0 {
			wait = 100 * time.Millisecond
		} else {
			wait = min(2*wait, 5*time.Second)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		case <-o.added:
		case <-p.c.reconnected():
		}
	}
}

// drainOnce sends what the outbox holds until it is empty or the server refuses one.
func (p *Publisher) drainOnce(ctx context.Context) (int, error) {
	o := p.cfg.Outbox
	sent := 0
	for _, name := range o.names() {
		if ctx.Err() != nil {
			return sent, ctx.Err()
		}
		id, data, err := o.read(name)
		if err != nil {
			p.cfg.Logf("outbox: %v: set aside", err)
			o.setAside(name)
			continue
		}
		if err := p.publish(ctx, id, data); err != nil {
			if errors.Is(err, nats.ErrMaxPayload) || errors.Is(err, jetstream.ErrStreamMessageExceedsMaximum) {
				// Never taken (a record of a build before AddGame refused such): it would block
				// the games after it.
				p.cfg.Logf("outbox: game %s: %v: set aside", id, err)
				o.setAside(name)
				continue
			}
			if isFull(err) {
				p.Full.Add(1)
			}
			return sent, err
		}
		o.remove(name)
		sent++
	}
	return sent, nil
}
