// Package dist is how games and weights travel between the self-play workers and the trainer
// of a run: NATS JetStream, with the server embedded in the trainer's process by default.
//
// A run's JetStream assets (one run per server, or per NATS account on a shared cluster):
//
//	stream ZERO_GAMES     subject zero.games: finished games, one a message (the payload a replay
//	                      record, replay.AppendGame); a work queue (a game leaves it when the
//	                      trainer acknowledges it), bounded in games and bytes, refusing new
//	                      games when full (back-pressure); message ids (worker/session/number)
//	                      deduplicate a worker's retries
//	consumer trainer      durable, explicit acknowledgement: the trainer acknowledges a game once
//	                      it is checked and durably in the replay buffer, or refused
//	KV zero_run           the run: "info" (RunInfo: game, rules, encoding, shapes, net) and
//	                      "config" (the session's configuration, YAML), read by workers
//	KV zero_flow          "pace": "wait" while self-play is ahead of training (memory)
//	objects zero_weights  "latest": the newest network as a checkpoint file (memory)
//
// Invariants: a game is in the replay buffer at most once whatever is redelivered or retried
// (its id is kept with it, replay.Buffer.Has); a game a worker could not hand to the server
// waits in its outbox on disk, bounded; everything the server holds is bounded.
//
// The package links no gorgonia: a worker needs env, mcts, net and replay only.
//
// The server has two users: trainer (the trainer's own process, in-process, a
// random password) and worker (the run's token, only when it listens for remote
// workers), who may publish games and read the run, the pace and the weights,
// nothing else; the trainer's replies come under TrainerInbox, which workers may
// not subscribe to. A publisher gives each game its id, worker/session/number,
// the session 64 random bits, so that no worker takes another's ids first and a
// re-sent game stays a duplicate for the run's life (the buffer keeps the ids it
// retired), past the server's 10-minute deduplication. A full stream is retried
// with back-off, so the queue fills and the workers wait; a server that cannot be
// reached sends the game to the outbox, one file a game, in a folder per game
// and rules revision, sent in order when the server is back. A session remakes
// the durable consumer: in a work queue the stream holds exactly the games not
// acknowledged, which are then delivered at once.
//
// Tests run real servers (in-process or on 127.0.0.1): a restart on the same store
// loses nothing and repeats nothing acknowledged; a full stream holds the workers
// back; a remote worker is refused with a wrong token and cannot touch the run;
// its outbox keeps the games played while the server is down and sends each once.
package dist

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/net"
)

// Names of a run's JetStream assets.
const (
	Stream        = "ZERO_GAMES"
	Subject       = "zero.games"
	Durable       = "trainer"
	RunBucket     = "zero_run"
	FlowBucket    = "zero_flow"
	WeightsBucket = "zero_weights"

	infoKey       = "info"
	configKey     = "config"
	paceKey       = "pace"
	weightsObject = "latest"
)

// Protocol is the version of what crosses the wire (the run's info, the games' headers and
// payload). A worker refuses a run of another.
const Protocol = 1

// WorkerUser is the user name workers connect as to a trainer's embedded server.
const WorkerUser = "worker"

// RunInfo is what a worker must share with the run to play its games: the game, its rules
// revision and encoding, the network's input and output shapes and architecture.
type RunInfo struct {
	Protocol    int        `json:"protocol"`
	Game        string     `json:"game"`
	Rules       int        `json:"rules"`
	Encoding    int        `json:"encoding"`
	Observation env.Shape  `json:"observation"`
	NumActions  int        `json:"num_actions"`
	Net         net.Config `json:"net"`
	// Run is the identity of the run that set the server up (train's run.id), and Trainer
	// where its trainer works (host:folder): one account of a server serves one run.
	Run     string `json:"run,omitempty"`
	Trainer string `json:"trainer,omitempty"`
}

// InfoOf is the RunInfo of a game and net.
func InfoOf(info *env.Info, cfg net.Config) RunInfo {
	return RunInfo{Protocol: Protocol, Game: info.Name, Rules: info.Rules, Encoding: info.Encoding,
		Observation: info.Observation, NumActions: info.NumActions, Net: cfg}
}

// Mismatch says how a run differs from what this build plays (its game's info), "" if not:
// each difference that would make its games or its network wrong, with both values.
func (ri RunInfo) Mismatch(info *env.Info) string {
	var diffs []string
	if ri.Protocol != Protocol {
		diffs = append(diffs, fmt.Sprintf("the run speaks protocol %d, this build %d", ri.Protocol, Protocol))
	}
	if ri.Game != info.Name {
		diffs = append(diffs, fmt.Sprintf("the run plays %s, not %s", ri.Game, info.Name))
	}
	if ri.Rules != info.Rules {
		diffs = append(diffs, fmt.Sprintf("the run plays revision %d of %s's rules, this build revision %d", ri.Rules, ri.Game, info.Rules))
	}
	if ri.Encoding != info.Encoding {
		diffs = append(diffs, fmt.Sprintf("the run's network reads version %d of the encoding, this build writes version %d", ri.Encoding, info.Encoding))
	}
	if ri.Observation != info.Observation || ri.NumActions != info.NumActions {
		diffs = append(diffs, fmt.Sprintf("the run's network reads %v and writes %d actions, this build's game %v and %d",
			ri.Observation, ri.NumActions, info.Observation, info.NumActions))
	}
	return strings.Join(diffs, "; ")
}

// Auth is how a client proves who it is.
type Auth struct {
	// Creds is a file: NATS credentials (a user JWT and its seed, for an external cluster), or
	// the token `zero train --listen` writes into its run folder (worker.token). "": none.
	Creds string
	// User and Password, if set, are used as they are (the trainer's own connection).
	User, Password string
	// CA is a PEM file of the authority that signed the server's certificate ("": the
	// system's).
	CA string
}

// remedy says what to do about credentials the server refuses.
func (a Auth) remedy() string {
	switch {
	case a.Creds == "" && a.User == "":
		return "it takes no client without credentials: give them (--creds)"
	case a.Creds == "":
		return "it does not take that user and password"
	}
	if data, err := os.ReadFile(a.Creds); err == nil && strings.Contains(string(data), "BEGIN NATS USER JWT") {
		return fmt.Sprintf("it does not (or no longer) take the NATS credentials in %s: get new ones from its operator into %s, then start again", a.Creds, a.Creds)
	}
	return fmt.Sprintf("it does not take the token in %s (a trainer started again with a new worker.token no longer takes the old one): copy worker.token from the trainer's run folder to %s, then start again", a.Creds, a.Creds)
}

func (a Auth) options() ([]nats.Option, error) {
	var opts []nats.Option
	if a.User != "" {
		opts = append(opts, nats.UserInfo(a.User, a.Password))
	}
	if a.Creds != "" {
		data, err := os.ReadFile(a.Creds)
		if err != nil {
			return nil, fmt.Errorf("credentials: %w", err)
		}
		if strings.Contains(string(data), "BEGIN NATS USER JWT") {
			opts = append(opts, nats.UserCredentials(a.Creds))
		} else {
			token := strings.TrimSpace(string(data))
			if token == "" || strings.ContainsAny(token, " \t\n") {
				return nil, fmt.Errorf("credentials: %s holds neither NATS credentials nor a token", a.Creds)
			}
			opts = append(opts, nats.UserInfo(WorkerUser, token))
		}
	}
	if a.CA != "" {
		opts = append(opts, nats.RootCAs(a.CA))
	}
	return opts, nil
}

// ErrUnreachable is the error of a connection to a server that does not answer (not
// started yet, or gone).
var ErrUnreachable = errors.New("no server answers there")

// ErrRefused is the error of a server that refuses a client's credentials.
var ErrRefused = errors.New("the server refused the credentials")

// MaxAuthRefusals is how many refusals of its credentials in a row (since it was last
// connected) a connection takes before it is given up (Conn.Lost): with a reconnection a
// second, about 3 seconds. A server away (not answering) is not a refusal, and a dropped
// connection is reconnected for ever; a server that answers but refuses the credentials has
// a new token (a trainer started again with a new worker.token) or revoked them, and a worker
// that played on would fill its outbox with games no one will take.
const MaxAuthRefusals = 3

// reconnectWait is the wait between two attempts to reconnect (a variable for the tests).
var reconnectWait = time.Second

// isAuthError tells whether err is a server's refusal of the credentials.
func isAuthError(err error) bool {
	return errors.Is(err, nats.ErrAuthorization) || errors.Is(err, nats.ErrAuthExpired) ||
		errors.Is(err, nats.ErrAuthRevoked) || errors.Is(err, nats.ErrAccountAuthExpired)
}

// Conn is a client of the run's server.
type Conn struct {
	nc     *nats.Conn
	js     jetstream.JetStream
	remedy string // what to do about refused credentials (Auth.remedy)

	mu       sync.Mutex
	up       chan struct{} // closed (and replaced) at each reconnection
	down     chan struct{} // closed (and replaced) at each disconnection
	refusals int           // refusals of the credentials in a row, since the last connection
	lost     chan struct{} // closed once the connection is gone for good
	err      error         // why
}

// Lost returns a channel closed once the connection is gone for good, not by Close: the server
// refused its credentials MaxAuthRefusals times in a row (Err is then ErrRefused), or the
// client library closed it. It never comes back: a worker stops (its outbox as it is).
func (c *Conn) Lost() <-chan struct{} { return c.lost }

// Err says why the connection was lost (Lost), nil while it is not.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// lose marks the connection lost for err (the first reason stays).
func (c *Conn) lose(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
		close(c.lost)
	}
}

// refused counts a refusal of the credentials, and gives the connection up at the
// MaxAuthRefusals-th in a row.
func (c *Conn) refused(nc *nats.Conn, err error, logf func(string, ...any)) {
	c.mu.Lock()
	c.refusals++
	n := c.refusals
	c.mu.Unlock()
	if n > MaxAuthRefusals {
		return // given up already, its Close under way
	}
	logf("nats: the server refused the credentials (%v): %d of %d refusals in a row before the connection is given up", err, n, MaxAuthRefusals)
	if n < MaxAuthRefusals {
		return
	}
	c.lose(fmt.Errorf("%w %d times in a row (%w): %s", ErrRefused, n, err, c.remedy))
	// Not on the library's callback goroutine, which Close would have to wait for.
	go nc.Close()
}

// disconnected returns a channel closed at the next disconnection.
func (c *Conn) disconnected() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.down
}

// reconnected returns a channel closed at the next reconnection.
func (c *Conn) reconnected() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.up
}

// Connect connects to the server at url (nats://host:port, tls://host:port; several, comma
// separated, for a cluster). A dropped connection is reconnected for ever, unless the server
// refuses the credentials MaxAuthRefusals times in a row (Lost); what is published meanwhile
// fails at once (no buffering: a worker keeps the game in its outbox). A first connection
// refused fails at once, with ErrRefused. name names the client in the server's monitoring;
// logf, if not nil, hears of disconnections and refusals.
func Connect(url string, auth Auth, name string, logf func(string, ...any)) (*Conn, error) {
	opts, err := auth.options()
	if err != nil {
		return nil, err
	}
	return connect(url, name, auth.remedy(), logf, opts...)
}

// TrainerInbox is the prefix of the trainer's reply subjects (its requests to JetStream, and
// the games its consumer is delivered), which workers may not subscribe to: under the default
// _INBOX, which they may, a worker read every game delivered to the trainer and the
// heartbeats that name its inbox.
const TrainerInbox = "_ZERO_TRAINER_INBOX"

// ConnectTrainer connects to the server at url as Connect does, as the run's trainer: its
// replies come under TrainerInbox.
func ConnectTrainer(url string, auth Auth, name string, logf func(string, ...any)) (*Conn, error) {
	opts, err := auth.options()
	if err != nil {
		return nil, err
	}
	return connect(url, name, auth.remedy(), logf, append(opts, nats.CustomInboxPrefix(TrainerInbox))...)
}

func connect(url, name, remedy string, logf func(string, ...any), opts ...nats.Option) (*Conn, error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	c := &Conn{remedy: remedy, up: make(chan struct{}), down: make(chan struct{}), lost: make(chan struct{})}
	// The refusals are counted here (IgnoreAuthErrorAbort): nats.go's own rule, to close after
	// the same refusal twice from one server, closed the connection without a word to the
	// worker, which played on into its outbox for ever.
	opts = append(opts, nats.Name(name), nats.MaxReconnects(-1), nats.ReconnectWait(reconnectWait),
		nats.ReconnectBufSize(-1), nats.NoCallbacksAfterClientClose(), nats.IgnoreAuthErrorAbort(),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				logf("nats: disconnected: %v", err)
			}
			c.mu.Lock()
			close(c.down)
			c.down = make(chan struct{})
			c.mu.Unlock()
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) {
			logf("nats: reconnected to %s", nc.ConnectedUrlRedacted())
			c.mu.Lock()
			close(c.up)
			c.up = make(chan struct{})
			c.refusals = 0
			c.mu.Unlock()
		}),
		nats.ClosedHandler(func(nc *nats.Conn) {
			// Not by Close (NoCallbacksAfterClientClose): the library gave up.
			c.lose(fmt.Errorf("the connection to the server was closed (%v): start again", nc.LastError()))
		}),
		nats.ErrorHandler(func(nc *nats.Conn, _ *nats.Subscription, err error) {
			switch {
			case isAuthError(err):
				c.refused(nc, err, logf)
			case errors.Is(err, nats.ErrConsumerNotActive) || strings.Contains(err.Error(), "consumer not active"):
				// A watch's consumer is gone while the server is: it is made again on
				// reconnection.
			default:
				logf("nats: %v", err)
			}
		}))
	nc, err := nats.Connect(url, opts...)
	if errors.Is(err, nats.ErrNoServers) {
		err = ErrUnreachable
	}
	if isAuthError(err) {
		return nil, fmt.Errorf("connecting to %s: %w (%w): %s", redact(url), ErrRefused, err, remedy)
	}
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", redact(url), err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, err
	}
	c.nc, c.js = nc, js
	return c, nil
}

// redact hides a password or token in a URL.
func redact(url string) string {
	if i, j := strings.Index(url, "://"), strings.LastIndex(url, "@"); i >= 0 && j > i {
		return url[:i+3] + "…" + url[j:]
	}
	return url
}

// Close closes the connection.
func (c *Conn) Close() { c.nc.Close() }

// Connected tells whether the connection is up now.
func (c *Conn) Connected() bool { return c.nc.IsConnected() }

// Limits bound what the server holds for a run.
type Limits struct {
	// Replicas is the number of copies of each stream in a cluster (1: a single server).
	Replicas int
	// MaxGames and MaxBytes bound the games waiting for the trainer: beyond them a new game
	// is refused, and its worker waits and retries.
	MaxGames int64
	MaxBytes int64
	// Dedup is how long the server remembers a game's id, to drop a retried publication.
	Dedup time.Duration
}

// DefaultLimits suit a run of up to a hundred workers.
func DefaultLimits() Limits {
	return Limits{Replicas: 1, MaxGames: 4096, MaxBytes: 256 << 20, Dedup: 10 * time.Minute}
}

// MaxGameBytes bounds a game's message.
const MaxGameBytes = 1 << 20

// Setup creates (or updates to lim) the run's stream, its durable consumer, buckets and object
// store: the trainer's first act on a server.
func (c *Conn) Setup(ctx context.Context, lim Limits) error {
	r := max(lim.Replicas, 1)
	if _, err := c.js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name: Stream, Description: "zero: finished self-play games for the trainer", Subjects: []string{Subject},
		Retention: jetstream.WorkQueuePolicy, Discard: jetstream.DiscardNew,
		MaxMsgs: lim.MaxGames, MaxBytes: lim.MaxBytes, MaxMsgSize: MaxGameBytes,
		Storage: jetstream.FileStorage, Replicas: r, Duplicates: lim.Dedup,
	}); err != nil && r > 1 {
		return fmt.Errorf("stream %s in %d replicas (the server must be a cluster of at least %d JetStream nodes): %w", Stream, r, r, err)
	} else if err != nil {
		return fmt.Errorf("stream %s: %w", Stream, err)
	}
	// The consumer is made afresh: the games a trainer before took but did not acknowledge
	// (it stopped) are delivered at once, not after the acknowledgement's timeout. In a work
	// queue the stream holds exactly the games not acknowledged, so none is lost or repeated.
	if err := c.js.DeleteConsumer(ctx, Stream, Durable); err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) {
		return fmt.Errorf("consumer %s: %w", Durable, err)
	}
	if _, err := c.js.CreateOrUpdateConsumer(ctx, Stream, jetstream.ConsumerConfig{
		Durable: Durable, AckPolicy: jetstream.AckExplicitPolicy, AckWait: 30 * time.Second,
		MaxAckPending: 1024, MaxDeliver: -1, Replicas: r,
	}); err != nil {
		return fmt.Errorf("consumer %s: %w", Durable, err)
	}
	if _, err := c.js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket: RunBucket, Description: "zero: the run's game, network and configuration", History: 1,
		MaxBytes: 16 << 20, Storage: jetstream.FileStorage, Replicas: r,
	}); err != nil {
		return fmt.Errorf("bucket %s: %w", RunBucket, err)
	}
	if _, err := c.js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket: FlowBucket, Description: "zero: whether self-play waits for training", History: 1,
		MaxBytes: 1 << 20, Storage: jetstream.MemoryStorage, Replicas: r,
	}); err != nil {
		return fmt.Errorf("bucket %s: %w", FlowBucket, err)
	}
	if _, err := c.js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{
		Bucket: WeightsBucket, Description: "zero: the newest network", MaxBytes: 256 << 20,
		Storage: jetstream.MemoryStorage, Replicas: r,
	}); err != nil {
		return fmt.Errorf("object store %s: %w", WeightsBucket, err)
	}
	return nil
}

// PutRun publishes the run's info and configuration for workers.
func (c *Conn) PutRun(ctx context.Context, info RunInfo, config []byte) error {
	kv, err := c.js.KeyValue(ctx, RunBucket)
	if err != nil {
		return err
	}
	data, err := json.Marshal(info)
	if err != nil {
		return err
	}
	if _, err := kv.Put(ctx, configKey, config); err != nil {
		return fmt.Errorf("publishing the run's configuration: %w", err)
	}
	if _, err := kv.Put(ctx, infoKey, data); err != nil {
		return fmt.Errorf("publishing the run's info: %w", err)
	}
	return nil
}

// ErrOtherRun is the error of a trainer that finds another run set up on the server.
var ErrOtherRun = errors.New("the server holds another run")

// CheckRun fails with ErrOtherRun, naming the other run, if the server holds a run that is not
// run (RunInfo.Run). A trainer calls it before Setup, which would take the other run's games:
// the names of a run's streams are fixed, so one NATS account serves one run.
func (c *Conn) CheckRun(ctx context.Context, run string) error {
	ri, _, err := c.Run(ctx)
	switch {
	case errors.Is(err, ErrNoRun):
		return nil
	case err != nil:
		return err
	case ri.Run != "" && ri.Run != run:
		return fmt.Errorf("%w: run %s of %s, trained at %s; one NATS account serves one run: give this run its own account or server, or delete the other's streams (%s, KV_%s, KV_%s, OBJ_%s) once it is over",
			ErrOtherRun, ri.Run, ri.Game, ri.Trainer, Stream, RunBucket, FlowBucket, WeightsBucket)
	}
	return nil
}

// ErrNoRun is the error of a server that holds no run (no trainer set it up yet).
var ErrNoRun = errors.New("the server holds no run: start the trainer first (zero train --listen)")

// Run reads the run's info and configuration.
func (c *Conn) Run(ctx context.Context) (RunInfo, []byte, error) {
	var info RunInfo
	kv, err := c.js.KeyValue(ctx, RunBucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return info, nil, ErrNoRun
	}
	if err != nil {
		return info, nil, fmt.Errorf("reading the run: %w", err)
	}
	e, err := kv.Get(ctx, infoKey)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return info, nil, ErrNoRun
	}
	if err != nil {
		return info, nil, fmt.Errorf("reading the run: %w", err)
	}
	if err := json.Unmarshal(e.Value(), &info); err != nil {
		return info, nil, fmt.Errorf("the run's info: %w", err)
	}
	cfg, err := kv.Get(ctx, configKey)
	if err != nil {
		return info, nil, fmt.Errorf("reading the run's configuration: %w", err)
	}
	return info, cfg.Value(), nil
}

// PutWeights publishes the checkpoint file at path, of training step step, as the newest
// network. The object store checksums it (SHA-256), and a worker loads it with net.Load.
func (c *Conn) PutWeights(ctx context.Context, path string, step int64) error {
	obs, err := c.js.ObjectStore(ctx, WeightsBucket)
	if err != nil {
		return err
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = obs.Put(ctx, jetstream.ObjectMeta{Name: weightsObject, Metadata: map[string]string{"step": fmt.Sprint(step)}}, f)
	return err
}

// ErrNoWeights is the error of a server that has no network yet.
var ErrNoWeights = errors.New("no network published yet")

// GetWeights writes the newest network to the file at path (a checkpoint: load it with
// net.Load) and returns its step; the object store's checksum is checked. ErrNoWeights if
// there is none.
//
// The download is read part by part (the object's chunks, from an ordered consumer), each
// waited for at most weightsIdle, and stops at once when ctx ends. jetstream's own GetFile
// bounds a whole download by one deadline, and a download whose object the trainer replaces
// meanwhile (a network a second at most) never gets its last chunks, which the replacement
// purged: it waited out the deadline, a worker ignoring its stop (Ctrl-C) and its next network
// for as long (a minute at least, so that a large network fits a slow link).
func (c *Conn) GetWeights(ctx context.Context, path string) (int64, error) {
	obs, err := c.js.ObjectStore(ctx, WeightsBucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return 0, ErrNoWeights
	}
	if err != nil {
		return 0, err
	}
	info, err := obs.GetInfo(ctx, weightsObject)
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return 0, ErrNoWeights
	}
	if err != nil {
		return 0, err
	}
	tmp := path + ".download"
	if err := c.download(ctx, info, tmp); err != nil {
		os.Remove(tmp)
		return 0, fmt.Errorf("fetching the network: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return 0, err
	}
	var step int64
	fmt.Sscan(info.Metadata["step"], &step)
	return step, nil
}

// weightsIdle bounds the wait for each part of a network being downloaded (a variable for
// the tests).
var weightsIdle = 10 * time.Second

// download writes the object of info to the file at path, checking its size and digest. It
// returns as soon as ctx ends; the reading goroutine then stops by itself (its iterator
// stopped, its consumer's re-creations bounded), writing only to its own file, which the
// caller removes.
func (c *Conn) download(ctx context.Context, info *jetstream.ObjectInfo, path string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.readChunks(ctx, info, path) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// readChunks is download's reading: the chunks from an ordered consumer, one iterator for the
// whole object (an ordered consumer's Fetch or Next makes a consumer each call), each waited
// for at most weightsIdle.
func (c *Conn) readChunks(ctx context.Context, info *jetstream.ObjectInfo, path string) error {
	stream, err := c.js.Stream(ctx, "OBJ_"+WeightsBucket)
	if err != nil {
		return err
	}
	cons, err := stream.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{
		FilterSubjects:    []string{fmt.Sprintf("$O.%s.C.%s", WeightsBucket, info.NUID)},
		InactiveThreshold: 2 * weightsIdle, // the server's to delete if this process dies
		MaxResetAttempts:  3,               // not for ever (its default) while the server is away
	})
	if err != nil {
		return err
	}
	it, err := cons.Messages(jetstream.PullMaxMessages(16)) // 2 MiB of 128 KiB chunks ahead
	if err != nil {
		return err
	}
	defer it.Stop()
	defer context.AfterFunc(ctx, it.Stop)() // stops a wait, and the consumer's re-creations
	defer func() {
		// Best effort: InactiveThreshold deletes it otherwise.
		if ci := cons.CachedInfo(); ci != nil {
			dctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			stream.DeleteConsumer(dctx, ci.Name)
			cancel()
		}
	}()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	got := uint64(0)
	for got < info.Size {
		msg, err := it.Next(jetstream.NextMaxWait(weightsIdle))
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("waiting for its next part after %d of %d bytes (no part for %v: replaced meanwhile?): %w", got, info.Size, weightsIdle, err)
		}
		data := msg.Data()
		if _, err := f.Write(data); err != nil {
			return err
		}
		h.Write(data)
		got += uint64(len(data))
	}
	if got != info.Size {
		return fmt.Errorf("%d bytes, the object's info says %d", got, info.Size)
	}
	if d := jetstream.GetObjectDigestValue(h); d != info.Digest {
		return fmt.Errorf("its digest is %s, the object's info says %s", d, info.Digest)
	}
	return f.Close()
}

// WatchWeights calls changed (on its own goroutine) each time a new network is published,
// until ctx ends; and after each reconnection, when the network may have changed unseen (a
// restarted trainer's server is a new one: the watch starts again).
func (c *Conn) WatchWeights(ctx context.Context, changed func()) {
	go func() {
		first := true
		for ctx.Err() == nil {
			again := c.reconnected()
			if err := c.watchWeights(ctx, again, changed, !first); err != nil {
				select {
				case <-ctx.Done():
				case <-again:
				case <-time.After(time.Second):
				}
			}
			first = false
		}
	}()
}

func (c *Conn) watchWeights(ctx context.Context, again <-chan struct{}, changed func(), now bool) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	obs, err := c.js.ObjectStore(ctx, WeightsBucket)
	if err != nil {
		return err
	}
	w, err := obs.Watch(ctx, jetstream.UpdatesOnly())
	if err != nil {
		return err
	}
	defer w.Stop()
	if now {
		changed()
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-again:
			return nil
		case info, ok := <-w.Updates():
			if !ok {
				return errors.New("the watch of the network ended")
			}
			if info != nil && info.Name == weightsObject && !info.Deleted {
				changed()
			}
		}
	}
}

// SetPaused tells the workers to wait (paused) or to play.
func (c *Conn) SetPaused(ctx context.Context, paused bool) error {
	kv, err := c.js.KeyValue(ctx, FlowBucket)
	if err != nil {
		return err
	}
	v := "play"
	if paused {
		v = "wait"
	}
	_, err = kv.PutString(ctx, paceKey, v)
	return err
}

// Stats are the server's figures for the games waiting: their number and bytes.
func (c *Conn) Stats(ctx context.Context) (msgs, bytes uint64, err error) {
	s, err := c.js.Stream(ctx, Stream)
	if err != nil {
		return 0, 0, err
	}
	info, err := s.Info(ctx)
	if err != nil {
		return 0, 0, err
	}
	return info.State.Msgs, info.State.Bytes, nil
}
