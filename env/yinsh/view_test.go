package yinsh

import (
	"strconv"
	"testing"

	"github.com/zerogames/zero/env"
)

func TestViewAccessors(t *testing.T) {
	s, _, err := env.Replay[State](Blitz, "place f6;place e5;place a2;place k10;place g11;place e1;place b1;place a5;place k7;place j11;move f6-f9")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Piece{"f6": WhiteMarker, "f9": WhiteRing, "e5": BlackRing, "k10": BlackRing, "f7": Empty}
	for name, piece := range want {
		p, _ := ParsePoint(name)
		if got := s.At(p); got != piece {
			t.Errorf("At(%s) = %d, want %d", name, got, piece)
		}
	}
	n := 0
	for p := range NumPoints {
		if s.At(p) != Empty {
			n++
		}
		if c, r := PointCoords(p); PointName(p) != string(rune('a'+c))+strconv.Itoa(r) {
			t.Fatalf("PointCoords(%d) = %d, %d; its name is %s", p, c, r, PointName(p))
		}
	}
	if n != 11 {
		t.Errorf("%d pieces on the board, want 10 rings and a marker", n)
	}
	if s.Phase() != PhaseMove || s.Mover() != 1 || Normal.New().Phase() != PhasePlace {
		t.Errorf("phase %d, mover %d", s.Phase(), s.Mover())
	}
}
