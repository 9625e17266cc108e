package testgames

import (
	"fmt"
	"strings"

	"github.com/zerogames/zero/env"
)

// Gamble is a tiny game whose whole tree is small enough to value by hand. Player 0 ("first")
// chooses safe or risky.
//
//   - safe: first decides again (a player deciding twice in a row): left or right, then a coin
//     is tossed. After left: heads (1/4) first wins, tails (3/4) second wins, so left is worth
//     1/4 - 3/4 = -1/2 to first. After right: heads (3/5) is a draw, tails (2/5) second wins,
//     worth -2/5. Safe is worth max(-1/2, -2/5) = -2/5.
//
//   - risky: a die is rolled: 1 (1/2), 2 (3/10) or 3 (1/5). Then second chooses a fine, a or b
//     (the opponent deciding in the middle of first's turn), and first ends with x or y. The
//     results, from first's side (+1 first wins, -1 second wins, 0 draw):
//
//     die  fine  x   y     worth to first
//     1    a     +1  -1    second's best is either: +1
//     1    b     -1  +1
//     2    a     -1  -1    second picks a: -1
//     2    b     +1  -1
//     3    a      0  -1    second picks a, first x: 0
//     3    b     +1  +1
//
//     so risky is worth 1/2·1 + 3/10·(-1) + 1/5·0 = 1/5, and first's best opening is risky,
//     worth 1/5.
//
// Actions and their notation: safe 0, risky 1, left 2, right 3, heads 4, tails 5, roll1..roll3
// 6..8, fine-a 9, fine-b 10, end-x 11, end-y 12.
var Gamble = &gambleGame{info: env.Info{
	Name:        "gamble",
	PlayerNames: [2]string{"first", "second"},
	NumActions:  len(gambleNames),
	Observation: env.Shape{Planes: int(numGambleStages) + 3 + 2, Height: 1, Width: 1},
	MaxLength:   4,
	Symmetries:  1,
	HasChance:   true,
	Rules:       1,
	Encoding:    1,
}}

type gambleGame struct{ info env.Info }

// Info returns the game's static facts.
func (g *gambleGame) Info() *env.Info { return &g.info }

// New returns the start: first to choose safe or risky.
func (g *gambleGame) New() Bet { return Bet{} }

// MapAction is the identity: Gamble has no symmetry but the identity.
func (g *gambleGame) MapAction(_ int, a env.Action) env.Action { return a }

// The actions of Gamble.
const (
	Safe env.Action = iota
	Risky
	Left
	Right
	Heads
	Tails
	Roll1
	Roll2
	Roll3
	FineA
	FineB
	EndX
	EndY
)

var gambleNames = [...]string{"safe", "risky", "left", "right", "heads", "tails", "roll1", "roll2",
	"roll3", "fine-a", "fine-b", "end-x", "end-y"}

// The stages of a Bet: what is decided next.
const (
	stageOpen  uint8 = iota // first: safe or risky
	stageSide               // first again: left or right
	stageLeft               // chance: the coin after left
	stageRight              // chance: the coin after right
	stageDie                // chance: the die
	stageFine               // second: fine a or b
	stageEnd                // first: x or y
	stageOver
	numGambleStages
)

// gambleTable[die-1][fine][end] is the result of a risky game (see Gamble).
var gambleTable = [3][2][2]env.Result{
	{{env.Win0, env.Win1}, {env.Win1, env.Win0}},
	{{env.Win1, env.Win1}, {env.Win0, env.Win1}},
	{{env.Draw, env.Win1}, {env.Win0, env.Win0}},
}

// Bet is a position of Gamble.
type Bet struct {
	stage  uint8
	die    uint8 // 1..3 once rolled
	fine   uint8 // 0 (a) or 1 (b)
	result env.Result
}

// ToMove is who decides at the stage.
func (b Bet) ToMove() env.Player {
	switch b.stage {
	case stageOpen, stageSide, stageEnd:
		return 0
	case stageFine:
		return 1
	case stageOver:
		return env.Terminal
	}
	return env.Chance
}

// Result is env.Ongoing until the end.
func (b Bet) Result() env.Result { return b.result }

// Legal appends the actions of the stage.
func (b Bet) Legal(dst []env.Action) []env.Action {
	switch b.stage {
	case stageOpen:
		return append(dst, Safe, Risky)
	case stageSide:
		return append(dst, Left, Right)
	case stageLeft, stageRight:
		return append(dst, Heads, Tails)
	case stageDie:
		return append(dst, Roll1, Roll2, Roll3)
	case stageFine:
		return append(dst, FineA, FineB)
	case stageEnd:
		return append(dst, EndX, EndY)
	}
	return dst
}

// Chances appends the coin's or the die's outcomes at a chance stage.
func (b Bet) Chances(dst []env.Outcome) []env.Outcome {
	switch b.stage {
	case stageLeft:
		return append(dst, env.Outcome{Action: Heads, Prob: 0.25}, env.Outcome{Action: Tails, Prob: 0.75})
	case stageRight:
		return append(dst, env.Outcome{Action: Heads, Prob: 0.6}, env.Outcome{Action: Tails, Prob: 0.4})
	case stageDie:
		return append(dst, env.Outcome{Action: Roll1, Prob: 0.5}, env.Outcome{Action: Roll2, Prob: 0.3},
			env.Outcome{Action: Roll3, Prob: 0.2})
	}
	return dst
}

// Play applies a legal action.
func (b Bet) Play(a env.Action) Bet {
	switch a {
	case Safe:
		b.stage = stageSide
	case Risky:
		b.stage = stageDie
	case Left:
		b.stage = stageLeft
	case Right:
		b.stage = stageRight
	case Heads, Tails:
		switch {
		case b.stage == stageLeft && a == Heads:
			b.result = env.Win0
		case b.stage == stageRight && a == Heads:
			b.result = env.Draw
		default:
			b.result = env.Win1
		}
		b.stage = stageOver
	case Roll1, Roll2, Roll3:
		b.die, b.stage = uint8(a-Roll1+1), stageFine
	case FineA, FineB:
		b.fine, b.stage = uint8(a-FineA), stageEnd
	case EndX, EndY:
		b.result, b.stage = gambleTable[b.die-1][b.fine][a-EndX], stageOver
	}
	return b
}

// Observe writes one-hot planes of the stage, the die and the fine.
func (b Bet) Observe(dst []float32) {
	dst = dst[:numGambleStages+5]
	clear(dst)
	dst[b.stage] = 1
	if b.die > 0 {
		dst[int(numGambleStages)+int(b.die)-1] = 1
	}
	if b.stage >= stageEnd && b.die > 0 {
		dst[int(numGambleStages)+3+int(b.fine)] = 1
	}
}

// Symmetry returns b: the only symmetry is the identity.
func (b Bet) Symmetry(int) Bet { return b }

// AppendAction appends the action's name.
func (b Bet) AppendAction(dst []byte, a env.Action) []byte {
	if a < 0 || int(a) >= len(gambleNames) {
		return fmt.Appendf(dst, "#%d", a)
	}
	return append(dst, gambleNames[a]...)
}

// ParseAction reads an action's name.
func (b Bet) ParseAction(text string) (env.Action, error) {
	for a, name := range gambleNames {
		if text == name {
			return env.Action(a), nil
		}
	}
	return 0, fmt.Errorf("%q is not an action of gamble (want one of %s)", text, strings.Join(gambleNames[:], ", "))
}

// String describes the position.
func (b Bet) String() string {
	stages := [...]string{"first: safe or risky", "first: left or right", "coin after left",
		"coin after right", "die", "second: fine-a or fine-b", "first: end-x or end-y", "over"}
	s := stages[b.stage]
	if b.die > 0 {
		s += fmt.Sprintf("; die %d", b.die)
	}
	if b.stage == stageOver {
		s += fmt.Sprintf("; result %d", b.result)
	}
	return s
}
