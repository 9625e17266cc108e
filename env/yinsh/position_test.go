package yinsh

import (
	"strconv"
	"strings"
	"testing"

	"github.com/zerogames/zero/env"
)

// position builds a hand-made position after the opening, for the ruling tests. The spec is
// space-separated fields:
//
//	W=e1,f6   white rings     B=…  black rings
//	w=e2      white markers   b=…  black markers
//	white|black               who is to move (a ring move)
//	blitz                     the blitz variant
//	removed=1,0               rings removed by white, black
//	pool=12                   markers in the pool (default: 51 minus those on the board)
//
// It fails the test if the position has a row already (no move may start with one).
func position(t *testing.T, spec string) State {
	t.Helper()
	s := newState(false)
	s.placed = 2 * ringsEach
	s.phase = phaseMove
	pool := -1
	for _, f := range strings.Fields(spec) {
		key, val, _ := strings.Cut(f, "=")
		points := func(b *bitboard) {
			for _, name := range strings.Split(val, ",") {
				p, err := ParsePoint(name)
				if err != nil {
					t.Fatalf("position %q: %v", spec, err)
				}
				c := int(pointCell[p])
				if s.rings[0].or(s.rings[1]).or(s.markers[0]).or(s.markers[1]).has(c) {
					t.Fatalf("position %q: %s given twice", spec, name)
				}
				b.set(c)
			}
		}
		switch key {
		case "W":
			points(&s.rings[0])
		case "B":
			points(&s.rings[1])
		case "w":
			points(&s.markers[0])
		case "b":
			points(&s.markers[1])
		case "white", "black":
			s.toMove = map[string]env.Player{"white": 0, "black": 1}[key]
			s.mover = s.toMove
		case "blitz":
			s.blitz = true
		case "removed":
			a, b, _ := strings.Cut(val, ",")
			x, _ := strconv.Atoi(a)
			y, _ := strconv.Atoi(b)
			s.removed = [2]uint8{uint8(x), uint8(y)}
		case "pool":
			pool, _ = strconv.Atoi(val)
		default:
			t.Fatalf("position %q: unknown field %q", spec, f)
		}
	}
	if pool < 0 {
		pool = poolSize - s.markers[0].count() - s.markers[1].count()
	}
	s.used = uint8(poolSize - pool)
	if hasRow(s.markers[0]) || hasRow(s.markers[1]) {
		t.Fatalf("position %q already has a row", spec)
	}
	return s
}

// legalText lists the legal actions' notation, in the order Legal gives.
func legalText(s State) string {
	var parts []string
	for _, a := range s.Legal(nil) {
		parts = append(parts, ActionString(a))
	}
	return strings.Join(parts, ";")
}
