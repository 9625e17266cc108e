package main

import (
	"net/http"
	"net/http/httptest"
	"testing"
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
