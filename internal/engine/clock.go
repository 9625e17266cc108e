package engine

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// clock is GTP's time control: the time settings (time_settings) and what time_left last told,
// or the engine counted since, of each side's time. A genmove or reg_genmove on the clock
// searches for the time budget gives the side to move, whatever its spec's budget.
type clock struct {
	set    bool // time_settings gave a limit
	main   time.Duration
	byo    time.Duration // a byo-yomi period's time, for stones moves (0: absolute time)
	stones int
	// Per player: the time left, and the stones left in the byo-yomi period (0: main time).
	left       [2]time.Duration
	leftStones [2]int
}

// mainMoves is how many of its own moves a side's main time is spread over: each move is given
// the main time left over mainMoves (the games here last 20 to 100 moves a side; a side that
// keeps playing gets a smaller share of less, and byo-yomi, if any, takes over).
const mainMoves = 20

// clockMargin is kept back from each move's time for the exchange with the controller.
const clockMargin = 50 * time.Millisecond

// maxClock bounds the times of time_settings and time_left.
const maxClock = 100 * 24 * time.Hour

// settings reads time_settings MAIN BYO STONES (whole seconds, seconds, stones). GTP's byo-yomi
// time above 0 with 0 stones means no time limit: the clock is off and the spec's budget is
// searched again; MAIN 0 BYO 0 is no time at all (each move the least search).
func (c *clock) settings(arg string) error {
	f := strings.Fields(arg)
	if len(f) != 3 {
		return fmt.Errorf("time_settings %q: want MAIN_TIME BYO_YOMI_TIME BYO_YOMI_STONES (whole seconds, seconds, stones)", arg)
	}
	var n [3]int
	for i, name := range []string{"main time", "byo-yomi time", "byo-yomi stones"} {
		v, ok := wholeNumber(f[i])
		if !ok || (i < 2 && time.Duration(v)*time.Second > maxClock) || v > 1_000_000 {
			return fmt.Errorf("time_settings: the %s %q is not a whole number from 0 to %d", name, f[i], int(maxClock/time.Second))
		}
		n[i] = v
	}
	*c = clock{}
	if n[1] > 0 && n[2] == 0 {
		return nil // no time limit
	}
	c.set = true
	c.main, c.byo, c.stones = time.Duration(n[0])*time.Second, time.Duration(n[1])*time.Second, n[2]
	if c.byo == 0 {
		c.stones = 0
	}
	c.restart()
	return nil
}

// restart gives each side its whole time again (a new game).
func (c *clock) restart() {
	for p := range c.left {
		c.left[p], c.leftStones[p] = c.main, 0
		if c.main == 0 && c.stones > 0 {
			c.left[p], c.leftStones[p] = c.byo, c.stones
		}
	}
}

// timeLeft records time_left for player p: TIME seconds (a number ≥ 0) and STONES (0 in main
// time, else the stones left in the byo-yomi period).
func (c *clock) timeLeft(p int, secs, stones string) error {
	t, err := strconv.ParseFloat(secs, 64)
	if err != nil || math.IsNaN(t) || t < 0 || t*float64(time.Second) > float64(maxClock) {
		return fmt.Errorf("time_left: the time %q is not a number of seconds from 0 to %d", secs, int(maxClock/time.Second))
	}
	n, ok := wholeNumber(stones)
	if !ok || n > 1_000_000 {
		return fmt.Errorf("time_left: the stones %q are not a whole number from 0 to 1000000", stones)
	}
	c.left[p], c.leftStones[p] = time.Duration(t*float64(time.Second)), n
	return nil
}

// budget is the time player p's move is given, and whether the clock is on: in byo-yomi the
// period's time left over its stones left; in main time the main time left over mainMoves, plus
// a byo-yomi move's share once byo-yomi follows; less 5% and clockMargin. Out of time, the
// least search (a nanosecond).
func (c *clock) budget(p int) (time.Duration, bool) {
	if !c.set {
		return 0, false
	}
	var t time.Duration
	switch left := c.left[p]; {
	case c.leftStones[p] > 0:
		t = left / time.Duration(c.leftStones[p])
	case c.stones > 0:
		t = left/mainMoves + c.byo/time.Duration(c.stones)
	default:
		t = left / mainMoves
	}
	return max(t-t/20-clockMargin, time.Nanosecond), true
}

// used counts el, the time player p's move took, off its clock until the controller's next
// time_left: the main time first, then byo-yomi periods (a period's stones counted down, its
// time starting again once they are played).
func (c *clock) used(p int, el time.Duration) {
	if !c.set {
		return
	}
	if c.leftStones[p] == 0 {
		if el <= c.left[p] || c.stones == 0 {
			c.left[p] = max(c.left[p]-el, 0)
			return
		}
		el -= c.left[p]
		c.left[p], c.leftStones[p] = c.byo, c.stones // main time over: the first period
	}
	c.left[p] = max(c.left[p]-el, 0)
	if c.leftStones[p]--; c.leftStones[p] == 0 {
		c.left[p], c.leftStones[p] = c.byo, c.stones // the period's stones played: a new period
	}
}

func cmdTimeSettings(s *Session, arg string) (reply, error) {
	return ok(), s.clock.settings(arg)
}

func cmdTimeLeft(s *Session, arg string) (reply, error) {
	f := strings.Fields(arg)
	if len(f) != 3 {
		return fail("time_left %q: want COLOR TIME STONES", arg)
	}
	p, isColour := s.colour(f[0])
	if !isColour {
		names := s.pos.Info().PlayerNames
		return fail("%q is not a colour of %s: %s, %s (or GTP's black and white)", f[0], s.pos.Info().Name, names[0], names[1])
	}
	return ok(), s.clock.timeLeft(p, f[1], f[2])
}
