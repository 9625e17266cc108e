// Package natstest starts a NATS cluster with JetStream on loopback for tests: what `zero train
// --nats URL --replicas 3` meets in production, as nats-server's own tests start theirs.
package natstest

import (
	"context"
	"fmt"
	gonet "net"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// Cluster is a cluster of servers in this process, each listening on 127.0.0.1.
type Cluster struct {
	Servers []*server.Server
}

// Start starts n servers named n0, n1, … with JetStream, routed to each other, each with its
// store in a folder of its own under t.TempDir(), and waits until the cluster has elected a
// JetStream meta leader. They stop at the end of the test.
func Start(t testing.TB, n int) *Cluster {
	t.Helper()
	ports := make([]int, n)
	for i := range ports {
		ports[i] = freePort(t)
	}
	var routes []string
	for _, p := range ports {
		routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", p))
	}
	c := &Cluster{}
	for i := range n {
		opts := &server.Options{
			ServerName: fmt.Sprintf("n%d", i), Host: "127.0.0.1", Port: server.RANDOM_PORT,
			NoSigs: true, NoLog: true, JetStream: true, StoreDir: t.TempDir(),
			Cluster: server.ClusterOpts{Name: "zero-test", Host: "127.0.0.1", Port: ports[i]},
			Routes:  server.RoutesFromStr(strings.Join(routes, ",")),
		}
		s, err := server.NewServer(opts)
		if err != nil {
			t.Fatal(err)
		}
		s.Start()
		t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
		if !s.ReadyForConnections(10 * time.Second) {
			t.Fatalf("server n%d is not ready after 10s", i)
		}
		c.Servers = append(c.Servers, s)
	}
	c.waitForLeader(t)
	return c
}

// URL is the client URL of the servers still running, comma-separated.
func (c *Cluster) URL() string {
	var urls []string
	for _, s := range c.Servers {
		if s.Running() {
			urls = append(urls, s.ClientURL())
		}
	}
	return strings.Join(urls, ",")
}

// ClientURL is the client URL of the server named name.
func (c *Cluster) ClientURL(t testing.TB, name string) string {
	t.Helper()
	for _, s := range c.Servers {
		if s.Name() == name {
			return s.ClientURL()
		}
	}
	t.Fatalf("no server %s in the cluster", name)
	return ""
}

// Stop stops the server named name (as a crash would, but for its files, which are
// flushed).
func (c *Cluster) Stop(t testing.TB, name string) {
	t.Helper()
	for _, s := range c.Servers {
		if s.Name() == name {
			s.Shutdown()
			s.WaitForShutdown()
			return
		}
	}
	t.Fatalf("no server %s in the cluster", name)
}

// StreamLeader is the name of the server that leads stream's replicas now.
func (c *Cluster) StreamLeader(t testing.TB, stream string) string {
	t.Helper()
	js := c.jetStream(t)
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		si, err := js.StreamInfo(stream)
		if err == nil && si.Cluster != nil && si.Cluster.Leader != "" {
			return si.Cluster.Leader
		}
	}
	t.Fatalf("stream %s has no leader after 10s", stream)
	return ""
}

// waitForLeader waits until JetStream answers in the cluster (its meta leader is elected).
func (c *Cluster) waitForLeader(t testing.TB) {
	t.Helper()
	js := c.jetStream(t)
	var last error
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, last = js.AccountInfo(nats.Context(ctx))
		cancel()
		if last == nil {
			return
		}
	}
	t.Fatalf("the cluster's JetStream does not answer after 20s: %v", last)
}

// jetStream is a JetStream context on a connection to the running servers, closed at the end
// of the test.
func (c *Cluster) jetStream(t testing.TB) nats.JetStreamContext {
	t.Helper()
	nc, err := nats.Connect(c.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := nc.JetStream()
	if err != nil {
		t.Fatal(err)
	}
	return js
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := gonet.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*gonet.TCPAddr).Port
}
