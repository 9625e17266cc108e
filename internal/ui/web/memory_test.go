package web

import (
	"runtime"
	"testing"
)

// TestIdleGamesHoldNoTree: a game waiting on the person keeps no search tree. An agent's tree
// after a search of thousands of simulations is megabytes (hundreds in Gygès' advanced rule at
// uct:5000), and a server keeps up to 256 games: each agent move gives it back.
func TestIdleGamesHoldNoTree(t *testing.T) {
	srv := newServer(t, Options{})
	heap := func() uint64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	const games = 6
	before := heap()
	for range games {
		st := newGame(t, srv, `{"game":"yinsh-blitz","opponent":"uct:3000","side":"black"}`)
		if code := call(t, srv, "POST", "/api/agent", `{"id":"`+st.ID+`"}`, &st); code != 200 || len(st.AgentMoves) == 0 {
			t.Fatalf("agent: status %d", code)
		}
		if code := call(t, srv, "POST", "/api/analyze", `{"id":"`+st.ID+`"}`, nil); code != 200 {
			t.Fatalf("analyze: status %d", code)
		}
	}
	// A tree of 3,000 simulations from the empty board is about 250,000 nodes (12 MB); a
	// game's agent without one is some kilobytes.
	if grown := int64(heap()-before) / games; grown > 1<<20 {
		t.Errorf("each idle game holds %.1f MB: the agent kept its search's memory", float64(grown)/(1<<20))
	}
}
