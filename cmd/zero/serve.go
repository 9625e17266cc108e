package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/zerogames/zero/internal/ui/dash"
	"github.com/zerogames/zero/internal/ui/web"
)

func serveCmd(fs *flag.FlagSet) func(context.Context, []string, io.Reader, io.Writer, io.Writer) error {
	addr := fs.String("addr", "127.0.0.1:8080", "the address to listen on (loopback by default: the server has no accounts; expose it only behind something that has)")
	models := fs.String("models", "", "a `DIR` of checkpoints offered besides the shipped models (which are in the binary); a file there wins over a shipped model of the same name, and no other path is accepted")
	runs := fs.String("runs", "", "a `DIR` of training runs (zero train's run folders, as runs/) to watch at /runs/: charts, Elo ladder, newest games, updated while they train; their kept checkpoints can be played")
	return func(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
		if err := noArgs(args); err != nil {
			return err
		}
		if err := checkModels(*models); err != nil {
			return err
		}
		if err := checkFolder("--runs", *runs); err != nil {
			return err
		}
		ln, err := net.Listen("tcp", *addr)
		if err != nil {
			return fmt.Errorf("--addr: %w", err)
		}
		logger := log.New(stderr, "zero serve: ", log.LstdFlags)
		opts := web.Options{ModelsDir: *models, Log: logger}
		var handler http.Handler
		var board *dash.Dashboard
		if *runs != "" {
			board = dash.New(dash.Options{RunsDir: *runs, Log: logger})
			opts.RunCheckpoint = board.Checkpoint
		}
		handler = web.New(opts)
		if board != nil {
			handler = board.Wrap(handler)
		}
		if tcp, ok := ln.Addr().(*net.TCPAddr); ok && tcp.IP.IsLoopback() {
			handler = loopbackHosts(handler)
		}
		// Requests run under a context that ends with the server's: Shutdown waits for the
		// requests in progress, and a search (up to web.Options.MaxTime a decision) would
		// outlive its grace; cancelled, it ends at once (the client gets 503).
		base, stop := context.WithCancel(context.Background())
		defer stop()
		srv := &http.Server{
			BaseContext:       func(net.Listener) context.Context { return base },
			Handler:           handler,
			ReadHeaderTimeout: 10 * time.Second,
			ReadTimeout:       30 * time.Second,
			IdleTimeout:       2 * time.Minute,
			MaxHeaderBytes:    16 << 10,
		}
		fmt.Fprintf(stdout, "zero serve: open http://%s/ in a browser (Ctrl-C stops)\n", ln.Addr())
		if board != nil {
			fmt.Fprintf(stdout, "zero serve: the runs in %s at http://%s/runs/\n", *runs, ln.Addr())
		}
		done := make(chan error, 1)
		go func() { done <- srv.Serve(ln) }()
		select {
		case err := <-done:
			return err
		case <-ctx.Done():
			shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			srv.RegisterOnShutdown(stop) // run as Shutdown starts: the searches end
			err := srv.Shutdown(shut)
			if e := <-done; !errors.Is(e, http.ErrServerClosed) && err == nil {
				err = e
			}
			return err
		}
	}
}

// loopbackHosts refuses a request whose Host header is not a loopback name (localhost, a name
// under .localhost, or a loopback address) with 421 Misdirected Request. A server listening on
// loopback is reached under such a name; any other name means a browser was sent here by a
// page's DNS record pointing at 127.0.0.1 (DNS rebinding), and the page, being then of the same
// origin as the server, could read its answers and drive its games. A request with no Host (HTTP/1.0)
// comes from no browser and is served.
func loopbackHosts(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !loopbackHost(r.Host) {
			http.Error(w, fmt.Sprintf("host %q: this server, listening on loopback, answers only to localhost, 127.0.0.1 or [::1]", r.Host), http.StatusMisdirectedRequest)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// loopbackHost says whether host (a Host header: name or address, with or without a port) names
// this machine's loopback.
func loopbackHost(host string) bool {
	if host == "" {
		return true
	}
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	} else if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		name = host[1 : len(host)-1]
	}
	name = strings.TrimSuffix(strings.ToLower(name), ".")
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(name)
	return err == nil && ip.Unmap().IsLoopback()
}
