package dist

import (
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	gonet "net"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// ServerConfig is an embedded server's.
type ServerConfig struct {
	// Dir is the folder of its store (inside the run folder: the run's lock guards it).
	Dir string
	// Listen is the HOST:PORT remote workers connect to ("": none, the server has no socket;
	// port 0: any free port).
	Listen string
	// WorkerToken is the password of the user workers connect as (WorkerUser); required with
	// Listen. Workers may publish games and read the run, its pace and its weights, nothing
	// else.
	WorkerToken string
	// TLSCert and TLSKey, if set, are the PEM files of the server's certificate: remote
	// clients must then speak TLS.
	TLSCert, TLSKey string
	// SyncEvery, if set, syncs the store that often instead of at every write (what a
	// crash of the machine may then lose: zero bench ingest measures the cost of syncing).
	SyncEvery time.Duration
}

// Server is a NATS server with JetStream, embedded in this process. Unless told otherwise
// (SyncEvery) its store syncs every write to disk before acknowledging it (JetStream's default
// is every 2 minutes, which a crash turns into lost games that workers were told were stored);
// a run without remote workers syncs every second (train.localSyncEvery says why).
type Server struct {
	s        *server.Server
	password string // the trainer's
}

// StartServer starts an embedded server and waits until it takes connections.
func StartServer(cfg ServerConfig) (*Server, error) {
	password, err := NewToken()
	if err != nil {
		return nil, err
	}
	opts := &server.Options{
		ServerName: "zero", DontListen: cfg.Listen == "", NoSigs: true, NoLog: true,
		JetStream: true, StoreDir: cfg.Dir, SyncAlways: cfg.SyncEvery == 0, SyncInterval: cfg.SyncEvery,
		JetStreamMaxMemory: 512 << 20, JetStreamMaxStore: 8 << 30,
		MaxPayload: MaxGameBytes + 64<<10,
		Users:      []*server.User{{Username: "trainer", Password: password}},
	}
	if cfg.Listen != "" {
		host, port, err := gonet.SplitHostPort(cfg.Listen)
		if err != nil {
			return nil, fmt.Errorf("--listen %s: %w", cfg.Listen, err)
		}
		p, err := strconv.Atoi(port)
		if err != nil || p < 0 || p > 65535 {
			return nil, fmt.Errorf("--listen %s: %q is not a port", cfg.Listen, port)
		}
		if p == 0 {
			p = server.RANDOM_PORT
		}
		if cfg.WorkerToken == "" {
			return nil, errors.New("a server that listens needs the workers' token: it never takes anonymous clients")
		}
		opts.Host, opts.Port = host, p
		opts.Users = append(opts.Users, &server.User{Username: WorkerUser, Password: cfg.WorkerToken, Permissions: workerPermissions()})
	}
	if cfg.TLSCert != "" || cfg.TLSKey != "" {
		if cfg.TLSCert == "" || cfg.TLSKey == "" {
			return nil, errors.New("TLS needs both a certificate and its key")
		}
		cert, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey)
		if err != nil {
			return nil, fmt.Errorf("TLS: %w", err)
		}
		opts.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		opts.TLS, opts.TLSTimeout = true, 5
	}
	s, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("nats server: %w", err)
	}
	s.Start()
	if !s.ReadyForConnections(30 * time.Second) {
		s.Shutdown()
		return nil, errors.New("nats server: not ready after 30s")
	}
	return &Server{s: s, password: password}, nil
}

// workerPermissions let a worker publish games and read the run (its info and configuration,
// the pace, the weights) through JetStream's API, and nothing else: it cannot delete, purge or
// write anything of the run's, nor see other workers' games (the trainer's replies, the games
// delivered to it among them, come under TrainerInbox, which a worker may not subscribe to).
func workerPermissions() *server.Permissions {
	api := "$JS.API."
	var pub []string
	for _, stream := range []string{"KV_" + RunBucket, "KV_" + FlowBucket, "OBJ_" + WeightsBucket} {
		pub = append(pub, api+"STREAM.INFO."+stream, api+"CONSUMER.CREATE."+stream, api+"CONSUMER.CREATE."+stream+".>",
			api+"CONSUMER.DELETE."+stream+".>",
			api+"CONSUMER.MSG.NEXT."+stream+".>", api+"DIRECT.GET."+stream+".>", api+"STREAM.MSG.GET."+stream)
	}
	pub = append(pub, api+"INFO", api+"STREAM.INFO."+Stream, "$JS.FC.>", Subject)
	return &server.Permissions{
		Publish:   &server.SubjectPermission{Allow: pub},
		Subscribe: &server.SubjectPermission{Allow: []string{"_INBOX.>"}},
	}
}

// NewToken is a new random secret (128 bits, hex).
func NewToken() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// Connect connects to the server in-process (no socket), as the trainer.
func (s *Server) Connect(name string, logf func(string, ...any)) (*Conn, error) {
	return connect("", name, Auth{User: "trainer"}.remedy(), logf, nats.InProcessServer(s.s), nats.UserInfo("trainer", s.password), nats.CustomInboxPrefix(TrainerInbox))
}

// Addr is the address the server listens on ("" if none).
func (s *Server) Addr() string {
	if a := s.s.Addr(); a != nil {
		return a.String()
	}
	return ""
}

// Shutdown stops the server; its pending writes are flushed to its files.
func (s *Server) Shutdown() {
	s.s.Shutdown()
	s.s.WaitForShutdown()
}
