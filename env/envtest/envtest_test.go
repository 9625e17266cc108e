package envtest_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/envtest"
)

// race is a toy game with everything the contract covers: two players take 1 or 2 from a pile,
// and after each take chance adds 0 or 1 (probabilities 1/4, 3/4); whoever empties the pile
// wins. A bug number makes it break one rule of the contract, to show the suite catches it.
type race struct {
	pile   int8
	toMove env.Player
	chance bool
	last   env.Player
	bug    int8
}

const (
	take1 env.Action = iota
	take2
	add0
	add1
	numActions
)

type raceGame struct{ bug int8 }

func (g raceGame) Info() *env.Info {
	return &env.Info{Name: "race", PlayerNames: [2]string{"first", "second"}, NumActions: int(numActions),
		Observation: env.Shape{Planes: 3, Height: 1, Width: 1}, MaxLength: g.maxLength(), Symmetries: 1, HasChance: true, Rules: 1, Encoding: 1}
}
func (g raceGame) maxLength() int {
	if g.bug == 7 { // too small a bound
		return 3
	}
	return 200
}
func (g raceGame) New() race                                { return race{pile: 7, bug: g.bug} }
func (g raceGame) MapAction(k int, a env.Action) env.Action { return a }

// RandomLegal makes race an env.RandomPicker.
func (g raceGame) RandomLegal(s race, rng *rand.Rand) env.Action {
	var buf [2]env.Action
	legal := s.Legal(buf[:0])
	i := rng.IntN(len(legal))
	switch g.bug {
	case 11: // draws the other action
		i = len(legal) - 1 - i
	case 12: // draws twice
		rng.Uint64()
	}
	return legal[i]
}

func (s race) ToMove() env.Player {
	switch {
	case s.pile == 0:
		return env.Terminal
	case s.chance:
		return env.Chance
	}
	return s.toMove
}

func (s race) Legal(dst []env.Action) []env.Action {
	switch s.ToMove() {
	case env.Terminal:
		return dst
	case env.Chance:
		return append(dst, add0, add1)
	}
	if s.bug == 1 && s.pile >= 2 { // unsorted
		return append(dst, take2, take1)
	}
	if s.bug == 6 { // allocates
		dst = append(make([]env.Action, 0, 1), dst...)
	}
	if s.pile >= 2 {
		return append(dst, take1, take2)
	}
	return append(dst, take1)
}

func (s race) Chances(dst []env.Outcome) []env.Outcome {
	if s.bug == 9 && s.ToMove() != env.Chance { // outcomes at a player's decision
		return append(dst, env.Outcome{Action: take1, Prob: 1})
	}
	if s.ToMove() != env.Chance {
		return dst
	}
	p := 0.75
	if s.bug == 2 { // probabilities do not sum to 1
		p = 0.7
	}
	return append(dst, env.Outcome{Action: add0, Prob: 0.25}, env.Outcome{Action: add1, Prob: p})
}

func (s race) Play(a env.Action) race {
	switch a {
	case take1, take2:
		s.pile -= int8(a) + 1
		s.last = s.toMove
		s.toMove = s.toMove.Other()
		s.chance = s.pile > 0
	default:
		s.pile += int8(a - add0)
		s.chance = false
	}
	return s
}

func (s race) Result() env.Result {
	if s.bug == 8 && s.pile == 1 { // a result before the end
		return env.Draw
	}
	if s.pile > 0 {
		return env.Ongoing
	}
	return env.WinFor(s.last)
}

func (s race) Observe(dst []float32) {
	dst[0] = float32(s.pile)
	if s.bug != 3 { // leaves an element unwritten
		dst[1] = float32(s.toMove)
	}
	dst[2] = 0
	if s.chance {
		dst[2] = 1
	}
}

func (s race) Symmetry(k int) race { return s }

func (s race) AppendAction(dst []byte, a env.Action) []byte {
	switch a {
	case take1, take2:
		return strconv.AppendInt(append(dst, "take "...), int64(a)+1, 10)
	case add0, add1:
		return strconv.AppendInt(append(dst, "add "...), int64(a-add0), 10)
	}
	return strconv.AppendInt(append(dst, '#'), int64(a), 10)
}

func (s race) ParseAction(text string) (env.Action, error) {
	if s.bug == 10 { // lenient: blanks and case ignored
		text = strings.ToLower(strings.TrimSpace(text))
	}
	switch text {
	case "take 1":
		return take1, nil
	case "take 2":
		if s.bug == 4 { // does not round-trip
			return take1, nil
		}
		return take2, nil
	case "add 0":
		return add0, nil
	case "add 1":
		return add1, nil
	}
	if s.bug == 5 && text == "" { // accepts garbage as an illegal action's index 99
		return 99, nil
	}
	return 0, errors.New("want take 1, take 2, add 0 or add 1")
}

func (s race) String() string { return fmt.Sprintf("pile %d", s.pile) }

func TestSuitePassesACorrectGame(t *testing.T) {
	envtest.Run(t, raceGame{})
}

// TestSuiteCatchesBrokenGames runs the suite on each broken variant in a child process and
// checks that it fails, saying why.
func TestSuiteCatchesBrokenGames(t *testing.T) {
	if bug := os.Getenv("ENVTEST_BUG"); bug != "" {
		n, _ := strconv.Atoi(bug)
		envtest.Run(t, raceGame{bug: int8(n)})
		return
	}
	if testing.Short() {
		t.Skip("runs child processes")
	}
	for bug, want := range map[int]string{
		1:  "not strictly ascending",
		2:  "chance probabilities sum to",
		3:  "Observe left element 1 unwritten",
		4:  "which parses as",
		5:  "out of range",
		6:  "Legal allocates",
		7:  "game longer than Info.MaxLength",
		8:  "Result() = 3 but ToMove()",
		9:  "Chances at a non-chance node",
		10: "the notation must be canonical",
		11: "RandomLegal drew",
		12: "RandomLegal does not draw from its generator",
	} {
		t.Run(strconv.Itoa(bug), func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestSuiteCatchesBrokenGames$")
			cmd.Env = append(os.Environ(), "ENVTEST_BUG="+strconv.Itoa(bug))
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("the suite passed a game with bug %d", bug)
			}
			if !strings.Contains(string(out), want) {
				t.Fatalf("bug %d: the suite failed without saying %q:\n%s", bug, want, out)
			}
		})
	}
}

// leaky is race with a pointer inside: copies share what it points to, so it is no plain value.
type leaky struct {
	race
	log *[4]int
}

type leakyGame struct{}

func (leakyGame) Info() *env.Info                          { return raceGame{}.Info() }
func (leakyGame) New() leaky                               { return leaky{race: raceGame{}.New(), log: new([4]int)} }
func (leakyGame) MapAction(k int, a env.Action) env.Action { return a }
func (s leaky) Play(a env.Action) leaky                    { s.race = s.race.Play(a); s.log[0]++; return s }
func (s leaky) Symmetry(k int) leaky                       { return s }

func TestSuiteRefusesStatesThatAreNotPlainValues(t *testing.T) {
	if os.Getenv("ENVTEST_LEAKY") != "" {
		envtest.Run(t, leakyGame{})
		return
	}
	if testing.Short() {
		t.Skip("runs a child process")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSuiteRefusesStatesThatAreNotPlainValues$")
	cmd.Env = append(os.Environ(), "ENVTEST_LEAKY=1")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "S.log is a ptr: a state must be a plain value") {
		t.Fatalf("the suite did not refuse a state holding a pointer (err %v):\n%s", err, out)
	}
}
