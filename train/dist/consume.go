package dist

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/zerogames/zero/train/replay"
)

// Consumer is the trainer's end of the games' stream: the durable consumer, which the server
// remembers across restarts of either side. A game is delivered again until it is
// acknowledged (Ack) or refused (Refuse).
type Consumer struct {
	c     jetstream.Consumer
	game  string
	rules int
}

// Consumer opens the durable consumer (Setup made it) for games of game under rules revision
// rules: a message of another game or revision is delivered with an error.
func (c *Conn) Consumer(ctx context.Context, game string, rules int) (*Consumer, error) {
	cons, err := c.js.Consumer(ctx, Stream, Durable)
	if err != nil {
		return nil, fmt.Errorf("consumer %s: %w", Durable, err)
	}
	return &Consumer{c: cons, game: game, rules: rules}, nil
}

// Delivery is one message of the games' stream.
type Delivery struct {
	// Game is the game, nil if Err says why the message is none.
	Game *replay.Game
	// Err says why the message is refused before the rules see it: malformed, another game,
	// another rules revision or protocol, no id.
	Err error
	// Worker and Host are who sent it (as it says); Latency its previous publication's.
	Worker, Host string
	Latency      time.Duration
	// Bytes is the payload's size.
	Bytes int
	msg   jetstream.Msg
}

// Fetch returns the games that arrive within wait, at most max: as soon as max have come,
// else when wait has passed (none: an empty slice).
func (k *Consumer) Fetch(max int, wait time.Duration) ([]Delivery, error) {
	batch, err := k.c.Fetch(max, jetstream.FetchMaxWait(wait))
	if err != nil {
		return nil, err
	}
	var out []Delivery
	for msg := range batch.Messages() {
		out = append(out, k.decode(msg))
	}
	if err := batch.Error(); err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, jetstream.ErrNoMessages) {
		return out, err
	}
	return out, nil
}

// maxHost bounds a worker's host name (a DNS name has at most 253 characters).
const maxHost = 255

func (k *Consumer) decode(msg jetstream.Msg) Delivery {
	h := msg.Headers()
	d := Delivery{msg: msg, Worker: h.Get(hWorker), Host: h.Get(hHost), Bytes: len(msg.Data())}
	if us, err := strconv.ParseInt(h.Get(hLatency), 10, 64); err == nil && us >= 0 {
		d.Latency = time.Duration(us) * time.Microsecond
	}
	id := h.Get("Nats-Msg-Id")
	switch {
	case !ValidName(d.Worker):
		// The names become the trainer's metrics keys and log lines: a sender's word is not
		// taken for them unchecked (the headers may be tens of kilobytes).
		d.Err = fmt.Errorf("worker name of %d bytes: want 1 to 64 letters, digits, '.', '_' or '-'", len(d.Worker))
		d.Worker, d.Host = "invalid", "invalid"
	case len(d.Host) > maxHost:
		d.Err = fmt.Errorf("host name of %d bytes: want at most %d", len(d.Host), maxHost)
		d.Host = "invalid"
	case h.Get(hProtocol) != strconv.Itoa(Protocol):
		d.Err = fmt.Errorf("protocol %q, this trainer speaks %d", h.Get(hProtocol), Protocol)
	case h.Get(hGame) != k.game:
		d.Err = fmt.Errorf("a game of %q, not %s", h.Get(hGame), k.game)
	case h.Get(hRules) != strconv.Itoa(k.rules):
		d.Err = fmt.Errorf("played under revision %q of the rules, the run's is %d", h.Get(hRules), k.rules)
	case id == "":
		d.Err = errors.New("no id")
	}
	if d.Err != nil {
		return d
	}
	g, err := replay.DecodeGame(msg.Data())
	switch {
	case err != nil:
		d.Err = err
	case g.ID != id:
		d.Err = fmt.Errorf("the record's id %q is not the message's %q", g.ID, id)
	default:
		d.Game = g
	}
	return d
}

// AckAll acknowledges deliveries (see Ack) and waits for the server to confirm: once it
// returns, the games have left the stream. (The server takes a consumer's acknowledgements
// in order: its word on the last is its word on all.)
func (k *Consumer) AckAll(ctx context.Context, ds []*Delivery) error {
	if len(ds) == 0 {
		return nil
	}
	for _, d := range ds[:len(ds)-1] {
		if err := d.msg.Ack(); err != nil {
			return err
		}
	}
	return ds[len(ds)-1].msg.DoubleAck(ctx)
}

// Ack tells the server the game is durably the trainer's (or a duplicate): it leaves the
// stream.
func (d *Delivery) Ack() error { return d.msg.Ack() }

// Refuse tells the server the game will never be taken: it leaves the stream, never
// delivered again.
func (d *Delivery) Refuse() error { return d.msg.Term() }

// ID is the message's id (the game's, if the message is one).
func (d *Delivery) ID() string { return d.msg.Headers().Get("Nats-Msg-Id") }

// Ingest is what the trainer does with the games it takes (Consumer.Ingest).
type Ingest struct {
	// Check checks a game against the rules (replay.Check); a game it refuses is refused for
	// good, never delivered again.
	Check func(*replay.Game) error
	// Add adds a checked game to the replay buffer unless it has it (dup); an error stops
	// the ingestion, nothing acknowledged.
	Add func(*Delivery) (dup bool, err error)
	// Sync makes the games added durable; they are acknowledged after it.
	Sync func() error
	// Refused hears of each refused message and why; Failed of the server's errors (the
	// ingestion goes on, retrying).
	Refused func(*Delivery, error)
	Failed  func(error)
	// Acked, if set, hears how long each acknowledgement of a batch took (from another
	// goroutine).
	Acked func(time.Duration)
	// SyncEvery is the most time between a game's arrival and its sync and acknowledgement
	// (default 1s); MaxUnacked the most games waiting for them (default 512). A sync per
	// game would cost self-play on the same machine: each stalls a core a moment.
	SyncEvery  time.Duration
	MaxUnacked int
}

// Ingest takes games until ctx ends: each message is decoded and checked, refused or added,
// and the games added are acknowledged once synced. Whatever stops it, a game is
// acknowledged only once durably added (or a duplicate), so none is lost: a game taken but not
// acknowledged is delivered again, and known then by its id.
func (k *Consumer) Ingest(ctx context.Context, c *Conn, in Ingest) error {
	if in.SyncEvery <= 0 {
		in.SyncEvery = time.Second
	}
	if in.MaxUnacked <= 0 {
		in.MaxUnacked = 512
	}
	var unacked []*Delivery
	oldest := time.Time{} // the arrival of the oldest unacknowledged game
	// The acknowledgements go out from a goroutine of their own: the server's word on them
	// waits for its store (synced), and the games go on coming meanwhile (at most the
	// consumer's MaxAckPending unacknowledged).
	acks := make(chan []*Delivery, 4)
	acked := make(chan struct{})
	actx, stopAcks := context.WithCancel(context.WithoutCancel(ctx))
	defer stopAcks()
	go func() {
		defer close(acked)
		for batch := range acks {
			start := time.Now()
			if err := k.AckAll(actx, batch); err != nil && actx.Err() == nil && in.Failed != nil {
				in.Failed(fmt.Errorf("acknowledging games: %w", err))
			}
			if in.Acked != nil {
				in.Acked(time.Since(start))
			}
		}
	}()
	flush := func() error {
		if len(unacked) == 0 {
			return nil
		}
		if err := in.Sync(); err != nil {
			return err
		}
		acks <- unacked
		unacked = nil
		return nil
	}
	defer func() {
		// What was added is acknowledged (a few seconds at most: else delivered again).
		flush()
		close(acks)
		t := time.AfterFunc(5*time.Second, stopAcks)
		<-acked
		t.Stop()
	}()
	it, err := k.c.Messages(jetstream.PullMaxMessages(min(256, in.MaxUnacked)))
	if err != nil {
		return fmt.Errorf("taking games: %w", err)
	}
	defer func() { it.Stop() }()
	failures := 0
	for ctx.Err() == nil {
		// Games are pushed as they come (the iterator pulls ahead); a timeout is only for the
		// sync that is due.
		wait := time.Second
		if len(unacked) > 0 {
			wait = max(time.Millisecond, in.SyncEvery-time.Since(oldest))
		}
		next, cancel := context.WithTimeout(ctx, wait)
		msg, err := it.Next(jetstream.NextContext(next))
		cancel()
		switch {
		case err == nil:
			failures = 0
			d := k.decode(msg)
			if err := k.take(&d, in, &unacked, &oldest); err != nil {
				return err
			}
		case ctx.Err() != nil:
		case errors.Is(err, context.DeadlineExceeded):
		default:
			if failures++; (failures == 1 || failures%60 == 0) && in.Failed != nil {
				in.Failed(fmt.Errorf("taking games: %w", err))
			}
			if err := flush(); err != nil {
				return err
			}
			if errors.Is(err, jetstream.ErrMsgIteratorClosed) {
				it.Stop()
				if it, err = k.c.Messages(jetstream.PullMaxMessages(min(256, in.MaxUnacked))); err != nil {
					return fmt.Errorf("taking games: %w", err)
				}
			}
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
		if len(unacked) >= in.MaxUnacked || len(unacked) > 0 && time.Since(oldest) >= in.SyncEvery {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

// take checks a delivery and refuses or adds it; a game added joins unacked.
func (k *Consumer) take(d *Delivery, in Ingest, unacked *[]*Delivery, oldest *time.Time) error {
	err := d.Err
	if err == nil {
		err = in.Check(d.Game)
	}
	if err != nil {
		if rerr := d.Refuse(); rerr != nil && in.Failed != nil {
			in.Failed(fmt.Errorf("refusing a game: %w", rerr))
		}
		if in.Refused != nil {
			in.Refused(d, err)
		}
		return nil
	}
	if _, err := in.Add(d); err != nil {
		return err // the disk: nothing more is acknowledged
	}
	if len(*unacked) == 0 {
		*oldest = time.Now()
	}
	*unacked = append(*unacked, d)
	return nil
}
