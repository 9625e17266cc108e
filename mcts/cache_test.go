package mcts

import (
	"context"
	"hash/maphash"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/gyges"
	"github.com/zerogames/zero/env/yinsh"
	"github.com/zerogames/zero/internal/testgames"
)

// hashOracle answers like a network would, deterministically from the position alone: the
// logits and the value are drawn from a hash of the state.
type hashOracle[S env.State[S]] struct {
	seed  maphash.Seed
	calls int
}

func (o *hashOracle[S]) Evaluate(leaves []S, policy, value []float32) error {
	n := len(policy) / len(leaves)
	for i, s := range leaves {
		h := maphash.Comparable(o.seed, s)
		for a := range n {
			policy[i*n+a] = float32((h>>(a%53))&1023)/256 - 2
		}
		value[i] = float32(h%2001)/1000 - 1
		o.calls++
	}
	return nil
}

// TestCacheClear: after Clear no answer comes back, and answers stored after it do.
func TestCacheClear(t *testing.T) {
	g := testgames.TicTacToe
	c := NewCache(g, 1<<16)
	priors := make([]float32, 9)
	a, b := g.New().Play(0), g.New().Play(1)
	c.Store(a, a.Legal(nil), priors, 0.5)
	if _, ok := c.Lookup(a, priors); !ok {
		t.Fatal("a stored answer is not found")
	}
	c.Clear()
	if _, ok := c.Lookup(a, priors); ok {
		t.Fatal("an answer stored before Clear is found after it")
	}
	c.Store(b, b.Legal(nil), priors, -0.5)
	c.Store(a, a.Legal(nil), priors, 0.25)
	if v, ok := c.Lookup(b, priors); !ok || v != -0.5 {
		t.Fatalf("an answer stored after Clear: %v, %v", v, ok)
	}
	if v, ok := c.Lookup(a, priors); !ok || v != 0.25 {
		t.Fatalf("a position stored again after Clear: %v, %v", v, ok)
	}
}

// TestCacheRemembers: a stored answer comes back for the same position only; the newest
// answers overwrite the oldest, never a position's priors with another's.
func TestCacheRemembers(t *testing.T) {
	g := testgames.TicTacToe
	c := NewCache(g, 4096)
	if c.Bytes() > 4096+4*9*8 {
		t.Fatalf("a cache of 4096 bytes holds %d", c.Bytes())
	}
	var states []testgames.Board
	var priors []float32
	for a := range env.Action(9) {
		s := g.New().Play(a)
		states = append(states, s)
		legal := s.Legal(nil)
		priors = priors[:0]
		for _, b := range legal {
			priors = append(priors, float32(a)*10+float32(b))
		}
		c.Store(s, legal, priors, float32(a)/10)
	}
	got := make([]float32, 9)
	for a, s := range states {
		v, ok := c.Lookup(s, got)
		if !ok {
			continue // forgotten: allowed, if the bound required it
		}
		if v != float32(a)/10 {
			t.Fatalf("%v: value %v, stored %v", s, v, float32(a)/10)
		}
		for _, b := range s.Legal(nil) {
			if got[b] != float32(a)*10+float32(b) {
				t.Fatalf("%v: prior of %d is %v, stored %v", s, b, got[b], float32(a)*10+float32(b))
			}
		}
	}
	if _, ok := c.Lookup(g.New(), got); ok {
		t.Fatal("a position never stored was found")
	}
	// A ring of few pairs: the oldest answers go.
	small := &Cache[testgames.Board]{seed: maphash.MakeSeed(), slots: make([]cacheSlot[testgames.Board], 64*cacheWays), mask: 63, ring: make([]cachePair, 20)}
	for a := range env.Action(9) {
		s := g.New().Play(a)
		small.Store(s, s.Legal(nil), make([]float32, 9), 0)
	}
	if _, ok := small.Lookup(states[0], got); ok {
		t.Error("the oldest answer survived a ring that holds two")
	}
	if _, ok := small.Lookup(states[8], got); !ok {
		t.Error("the newest answer was forgotten")
	}
}

// TestCacheChangesNothing: with one leaf at a time and an oracle that answers by the position
// alone, a search with a cache grows the same tree as one without, asking the oracle less: a
// game searched again (as self-play's next game, or a tree not kept) is answered by the cache.
// A search with a cache allocates nothing.
func TestCacheChangesNothing(t *testing.T) {
	g := yinsh.Normal
	seed := maphash.MakeSeed()
	for _, p := range []Params{DefaultParams(), func() Params { p := DefaultParams(); p.Gumbel, p.GumbelScale = true, 0; return p }()} {
		plain, cached := &hashOracle[yinsh.State]{seed: seed}, &hashOracle[yinsh.State]{seed: seed}
		a, b := mustSearch(t, g, plain, p, 3), mustSearch(t, g, cached, p, 3)
		cache := NewCache(g, 16<<20) // room for every answer of both games: a FIFO smaller than a repeated sequence hits nothing
		b.SetCache(cache)
		st := g.New()
		for move := 0; move < 28; move++ {
			if move == 14 {
				// The same game again from the start.
				st = g.New()
				a.Reset(st)
				b.Reset(st)
			}
			for _, s := range []*Search[yinsh.State]{a, b} {
				if err := s.Run(context.Background(), Budget{Simulations: 150}); err != nil {
					t.Fatal(err)
				}
			}
			if !slices.Equal(a.Children(nil), b.Children(nil)) {
				t.Fatalf("gumbel %v, move %d: the cache changed the search", p.Gumbel, move)
			}
			if err := b.checkTree(); err != nil {
				t.Fatal(err)
			}
			m, _ := a.Choose(move)
			st = st.Play(m)
			a.Advance(m)
			b.Advance(m)
		}
		if cached.calls > plain.calls*2/3 || cached.calls+int(cache.Hits) != plain.calls {
			t.Errorf("gumbel %v: %d oracle calls with the cache and %d hits, %d without", p.Gumbel, cached.calls, cache.Hits, plain.calls)
		}
		t.Logf("gumbel %v: hit rate %.1f%% (%d of %d lookups)", p.Gumbel, 100*cache.HitRate(), cache.Hits, cache.Lookups)
		b.Reset(st)
		b.Run(context.Background(), Budget{Simulations: 150})
		if n := testing.AllocsPerRun(3, func() {
			b.Reset(st)
			b.Run(context.Background(), Budget{Simulations: 150})
		}); n != 0 {
			t.Errorf("a search with a cache allocates %v times", n)
		}
	}
}

// TestCachedPriors: a leaf the cache answers is expanded from the cache's pairs (its legal
// actions with their priors, neither worked out again) into exactly the actions and priors the
// oracle's logits gave it, bit for bit, so a search reads the same tree either way.
func TestCachedPriors(t *testing.T) {
	g := gyges.Advanced
	c := NewCache(g, 1<<20)
	rng := rand.New(rand.NewPCG(3, 4))
	logits := make([]float32, g.Info().NumActions)
	st := g.New()
	checked := 0
	for move := 0; move < 60 && st.ToMove() >= 0; move++ {
		for a := range logits {
			logits[a] = float32(rng.NormFloat64() * 3)
		}
		acts, priors, err := legalPriors(st, logits, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		c.Store(st, acts, priors, 0.5)
		pairs, _, ok := c.answer(st)
		if !ok {
			t.Fatalf("move %d: the answer just stored is not found", move)
		}
		gotActs, gotPriors := cachedPriors(pairs, nil, nil)
		if !slices.Equal(gotActs, acts) || !slices.Equal(gotPriors, priors) {
			t.Fatalf("move %d: the cache expands to %v %v, the oracle's logits to %v %v", move, gotActs, gotPriors, acts, priors)
		}
		checked++
		st = st.Play(acts[rng.IntN(len(acts))])
	}
	if checked < 20 {
		t.Fatalf("%d positions checked", checked)
	}
}
