package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestLoopbackHosts(t *testing.T) {
	served := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	h := loopbackHosts(served)
	tests := []struct {
		host string
		want int
	}{
		{"127.0.0.1:8080", http.StatusNoContent},
		{"127.0.0.1", http.StatusNoContent},
		{"127.5.6.7:80", http.StatusNoContent},
		{"localhost:8080", http.StatusNoContent},
		{"LOCALHOST.:8080", http.StatusNoContent},
		{"zero.localhost:8080", http.StatusNoContent},
		{"[::1]:8080", http.StatusNoContent},
		{"[::1]", http.StatusNoContent},
		{"[::ffff:127.0.0.1]:8080", http.StatusNoContent},
		{"", http.StatusNoContent},
		{"evil.example:8080", http.StatusMisdirectedRequest},
		{"evil.example", http.StatusMisdirectedRequest},
		{"localhost.evil.example:8080", http.StatusMisdirectedRequest},
		{"notlocalhost:8080", http.StatusMisdirectedRequest},
		{"10.0.0.1:8080", http.StatusMisdirectedRequest},
		{"0.0.0.0:8080", http.StatusMisdirectedRequest},
		{"[::]:8080", http.StatusMisdirectedRequest},
		{"[fe80::1]:8080", http.StatusMisdirectedRequest},
	}
	for _, tc := range tests {
		t.Run(tc.host, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/api/models", nil)
			r.Host = tc.host
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tc.want {
				t.Errorf("Host %q: status %d, want %d (%s)", tc.host, w.Code, tc.want, w.Body)
			}
		})
	}
}

// Ctrl-C during an agent's search stops the server at once and cleanly: the search is
// cancelled (its client answered 503), not waited on past Shutdown's grace, which ended the
// command with "context deadline exceeded".
func TestServeStopsDuringASearch(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, stdout := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(ctx, []string{"serve", "--addr", "127.0.0.1:0"}, strings.NewReader(""), stdout, io.Discard)
		stdout.CloseWithError(err)
		done <- err
	}()
	first := bufio.NewReader(out)
	line, err := first.ReadString('\n') // zero serve: open http://ADDR/ in a browser …
	_, rest, ok := strings.Cut(line, "open http://")
	if !ok {
		t.Fatalf("the server did not start: %q, %v", line, err)
	}
	go io.Copy(io.Discard, first)
	host, _, _ := strings.Cut(rest, "/")
	base := "http://" + host
	post := func(path, body string) (*http.Response, error) {
		return http.Post(base+path, "application/json", strings.NewReader(body))
	}
	resp, err := post("/api/new", `{"game":"yinsh","side":"black","opponent":"uct:10s"}`)
	if err != nil {
		t.Fatal(err)
	}
	var st struct{ ID string }
	json.NewDecoder(resp.Body).Decode(&st)
	resp.Body.Close()
	if resp.StatusCode != 200 || st.ID == "" {
		t.Fatalf("new game: %d", resp.StatusCode)
	}
	answered := make(chan int, 1)
	go func() {
		resp, err := post("/api/agent", `{"id":"`+st.ID+`"}`)
		if err != nil {
			answered <- 0
			return
		}
		resp.Body.Close()
		answered <- resp.StatusCode
	}()
	time.Sleep(300 * time.Millisecond) // the 10 s search under way
	start := time.Now()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve stopped with %v after %v", err, time.Since(start))
		}
	case <-time.After(8 * time.Second):
		t.Fatal("serve did not stop")
	}
	if code := <-answered; code != http.StatusServiceUnavailable && code != 0 {
		t.Errorf("the search's client got %d", code)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("serve took %v to stop", took)
	}
}
