package mcts

import (
	"hash/maphash"
	"unsafe"

	"github.com/zerogames/zero/env"
)

// Cache remembers the oracle's answers by position, so that a position reached again — a
// transposition, a position of another game of the same worker, a subtree the tree did not
// keep, YINSH's placements in another order — is evaluated once. A search given one
// (Search.SetCache) looks every leaf up before asking the oracle; the searches of one self-play
// worker share one. It serves one goroutine at a time.
//
// Memory is bounded, given in bytes when made: a quarter holds the keys, in sets of four slots
// indexed by a hash of the position (states are comparable values, so a hit compares the whole
// position, never a hash alone); the rest is a ring of the legal actions' priors (the softmax of
// the oracle's logits over them, kept rather than the logits so that a hit costs no
// exponentials), which the newest answers overwrite, oldest first. An answer whose priors were
// overwritten, or whose slot was taken by another position of its set (the oldest of the four
// goes), is forgotten.
type Cache[S env.State[S]] struct {
	seed  maphash.Seed
	slots []cacheSlot[S]
	mask  uint64 // sets − 1
	ring  []cachePair
	head  uint64 // pairs ever written: the ring's next write is at head mod len(ring)
	floor uint64 // answers stored before this position among the pairs were cleared

	// Lookups and Hits count the lookups and those answered, for the hit rate.
	Lookups, Hits int64
}

type cacheSlot[S env.State[S]] struct {
	state S
	off   uint64 // the first pair's position among the pairs ever written
	n     int32  // pairs
	used  bool
	value float32
}

type cachePair struct {
	action env.Action
	prior  float32
}

const cacheWays = 4

// NewCache returns a cache of about bytes bytes (at least a few kilobytes) for states of g.
func NewCache[S env.State[S]](g env.Game[S], bytes int) *Cache[S] {
	slotSize := int(unsafe.Sizeof(cacheSlot[S]{}))
	sets := 1
	for sets*2*cacheWays*slotSize <= bytes/4 {
		sets *= 2
	}
	pairs := max((bytes-sets*cacheWays*slotSize)/int(unsafe.Sizeof(cachePair{})), 4*g.Info().NumActions)
	return &Cache[S]{
		seed:  maphash.MakeSeed(),
		slots: make([]cacheSlot[S], sets*cacheWays),
		mask:  uint64(sets - 1),
		ring:  make([]cachePair, pairs),
	}
}

// Bytes is the memory the cache holds.
func (c *Cache[S]) Bytes() int {
	return len(c.slots)*int(unsafe.Sizeof(cacheSlot[S]{})) + len(c.ring)*int(unsafe.Sizeof(cachePair{}))
}

// HitRate is the share of lookups answered.
func (c *Cache[S]) HitRate() float64 {
	if c.Lookups == 0 {
		return 0
	}
	return float64(c.Hits) / float64(c.Lookups)
}

func (c *Cache[S]) set(s S) []cacheSlot[S] {
	i := maphash.Comparable(c.seed, s) & c.mask
	return c.slots[i*cacheWays : (i+1)*cacheWays]
}

// live tells whether a slot's logits are still in the ring, and were stored since the last
// Clear.
func (c *Cache[S]) live(sl *cacheSlot[S]) bool {
	return sl.used && sl.off >= c.floor && c.head-sl.off <= uint64(len(c.ring))
}

// Clear forgets every answer (at once: nothing is written): the answers are a network's, and
// new weights answer otherwise.
func (c *Cache[S]) Clear() { c.floor = c.head }

// Lookup writes the remembered priors of s's legal actions into priors (indexed by action; other
// entries are left alone) and returns the remembered value, or reports false.
func (c *Cache[S]) Lookup(s S, priors []float32) (float32, bool) {
	pairs, v, ok := c.answer(s)
	for _, p := range pairs {
		priors[p.action] = p.prior
	}
	return v, ok
}

// answer is the remembered answer for s: its legal actions in ascending order with their
// priors (the ring's, valid until the next Store), and its value; or false.
func (c *Cache[S]) answer(s S) ([]cachePair, float32, bool) {
	c.Lookups++
	set := c.set(s)
	for k := range set {
		sl := &set[k]
		if !c.live(sl) || sl.state != s {
			continue
		}
		start := sl.off % uint64(len(c.ring))
		c.Hits++
		return c.ring[start : start+uint64(sl.n)], sl.value, true
	}
	return nil, 0, false
}

// Store remembers the oracle's answer for s: its legal actions legal (in ascending order, as
// env.State.Legal lists them) with their priors (priors[k] is legal[k]'s), and value.
func (c *Cache[S]) Store(s S, legal []env.Action, priors []float32, value float32) {
	n := uint64(len(legal))
	if n > uint64(len(c.ring)) {
		return
	}
	// An answer's pairs are contiguous: one that would wrap starts the ring over.
	if start := c.head % uint64(len(c.ring)); start+n > uint64(len(c.ring)) {
		c.head += uint64(len(c.ring)) - start
	}
	off := c.head
	start := off % uint64(len(c.ring))
	for k, a := range legal {
		c.ring[start+uint64(k)] = cachePair{a, priors[k]}
	}
	c.head += n
	set := c.set(s)
	victim := 0
	for k := range set {
		sl := &set[k]
		if sl.used && sl.state == s || !c.live(sl) {
			victim = k
			break
		}
		if sl.off < set[victim].off {
			victim = k
		}
	}
	set[victim] = cacheSlot[S]{state: s, off: off, n: int32(n), used: true, value: value}
}
