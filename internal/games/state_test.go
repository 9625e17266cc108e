package games

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/yinsh"
)

// coin is a tiny game with chance: a coin is tossed (heads 3/4), then player 0 calls it.
type coin struct{ toss, call int8 }

type coinGame struct{}

var coinInfo = env.Info{Name: "coin", PlayerNames: [2]string{"caller", "idle"}, NumActions: 2,
	Observation: env.Shape{Planes: 1, Height: 1, Width: 1}, MaxLength: 2, Symmetries: 1, HasChance: true}

func (coinGame) Info() *env.Info                          { return &coinInfo }
func (coinGame) New() coin                                { return coin{-1, -1} }
func (coinGame) MapAction(_ int, a env.Action) env.Action { return a }

func (s coin) ToMove() env.Player {
	switch {
	case s.toss < 0:
		return env.Chance
	case s.call < 0:
		return 0
	}
	return env.Terminal
}
func (s coin) Legal(dst []env.Action) []env.Action {
	if s.ToMove() == env.Terminal {
		return dst
	}
	return append(dst, 0, 1)
}
func (s coin) Chances(dst []env.Outcome) []env.Outcome {
	if s.toss >= 0 {
		return dst
	}
	return append(dst, env.Outcome{Action: 0, Prob: 0.75}, env.Outcome{Action: 1, Prob: 0.25})
}
func (s coin) Play(a env.Action) coin {
	if s.toss < 0 {
		s.toss = int8(a)
	} else {
		s.call = int8(a)
	}
	return s
}
func (s coin) Result() env.Result {
	switch {
	case s.call < 0:
		return env.Ongoing
	case s.call == s.toss:
		return env.Win0
	}
	return env.Win1
}
func (s coin) Observe(dst []float32) { dst[0] = float32(s.toss) }
func (s coin) Symmetry(int) coin     { return s }
func (s coin) AppendAction(dst []byte, a env.Action) []byte {
	return append(dst, [2]string{"heads", "tails"}[a&1]...)
}
func (s coin) ParseAction(text string) (env.Action, error) {
	switch text {
	case "heads":
		return 0, nil
	case "tails":
		return 1, nil
	}
	return 0, fmt.Errorf("%q: want heads or tails", text)
}
func (s coin) String() string { return fmt.Sprintf("toss %d call %d", s.toss, s.call) }

func TestChances(t *testing.T) {
	p := Of[coin](coinGame{}).NewPosition()
	got := p.Chances()
	if len(got) != 2 || got[0] != (Outcome{"heads", 0.75}) || got[1] != (Outcome{"tails", 0.25}) {
		t.Fatalf("Chances() = %v", got)
	}
	if p.ToMove() != "chance" {
		t.Fatalf("ToMove() = %q", p.ToMove())
	}
	if err := p.Play("tails"); err != nil {
		t.Fatal(err)
	}
	if got := p.Chances(); len(got) != 0 {
		t.Fatalf("Chances() at a player's decision = %v", got)
	}
}

func TestStateAndClone(t *testing.T) {
	g, _ := Lookup("yinsh-blitz")
	p := g.NewPosition()
	const moves = "place f6;place e5;place a2"
	if err := p.PlayMoves(moves); err != nil {
		t.Fatal(err)
	}
	want, _, _ := env.Replay[yinsh.State](yinsh.Blitz, moves)
	if s, ok := p.State().(yinsh.State); !ok || s != want {
		t.Fatalf("State() = %v (%T), want the replayed state", p.State(), p.State())
	}
	c := p.Clone()
	if err := c.Play("place k10"); err != nil {
		t.Fatal(err)
	}
	if err := p.Undo(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.Moves(), ";") != moves+";place k10" || len(p.Moves()) != 2 {
		t.Fatalf("clone and original are not independent: %q, %q", c.Moves(), p.Moves())
	}
}
