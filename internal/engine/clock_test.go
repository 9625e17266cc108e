package engine

import (
	"strings"
	"testing"
	"time"
)

// TestClockBudget: the time a move is given, from the settings and the time left: main time
// spread over mainMoves moves (plus a byo-yomi move's share when byo-yomi follows), a byo-yomi
// period's time over its stones, less 5% and clockMargin; no limit, or no settings, leave the
// spec's budget; out of time, the least search.
func TestClockBudget(t *testing.T) {
	s := time.Second
	for _, tc := range []struct {
		name     string
		settings string
		left     [2]string // time_left's TIME STONES for player 0, "" for none
		want     time.Duration
		on       bool
	}{
		{"no settings", "", [2]string{}, 0, false},
		{"no limit (GTP's byo-yomi time with 0 stones)", "0 1 0", [2]string{}, 0, false},
		{"absolute 10 min", "600 0 0", [2]string{}, 30*s - 30*s/20 - clockMargin, true},
		{"absolute, 40 s left", "600 0 0", [2]string{"40", "0"}, 2*s - 2*s/20 - clockMargin, true},
		{"main time then 30 s for 5 moves", "300 30 5", [2]string{}, 21*s - 21*s/20 - clockMargin, true},
		{"in byo-yomi: 12 s for 3 moves", "300 30 5", [2]string{"12", "3"}, 4*s - 4*s/20 - clockMargin, true},
		{"byo-yomi only", "0 10 2", [2]string{}, 5*s - 5*s/20 - clockMargin, true},
		{"no time at all", "0 0 0", [2]string{}, time.Nanosecond, true},
		{"out of time", "60 0 0", [2]string{"0.5", "0"}, time.Nanosecond, true},
		{"fractions of seconds", "60 0 0", [2]string{"20.5", "0"}, 1025*time.Millisecond - 1025*time.Millisecond/20 - clockMargin, true},
	} {
		var c clock
		if tc.settings != "" {
			if err := c.settings(tc.settings); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
		}
		if tc.left[0] != "" {
			if err := c.timeLeft(0, tc.left[0], tc.left[1]); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
		}
		got, on := c.budget(0)
		if got != tc.want || on != tc.on {
			t.Errorf("%s: budget %v (on %v), want %v (on %v)", tc.name, got, on, tc.want, tc.on)
		}
	}
}

// TestClockUsed: between the controller's time_left commands the engine counts its own
// moves' time off its clock: main time, then byo-yomi periods whose stones count down.
func TestClockUsed(t *testing.T) {
	s := time.Second
	var c clock
	if err := c.settings("10 6 2"); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		used   time.Duration
		left   time.Duration
		stones int
	}{
		{4 * s, 6 * s, 0}, // main time
		{7 * s, 5 * s, 1}, // main time out, 1 s of the first period, one stone played
		{2 * s, 6 * s, 2}, // the period's second stone: a new period
		{1 * s, 5 * s, 1}, // in the new period
		{9 * s, 6 * s, 2}, // over the period's time: the controller says the game is lost; the clock goes on
	}
	for i, st := range steps {
		c.used(1, st.used)
		if c.left[1] != st.left || c.leftStones[1] != st.stones {
			t.Fatalf("step %d: %v left, %d stones; want %v, %d", i, c.left[1], c.leftStones[1], st.left, st.stones)
		}
	}
	if c.left[0] != 10*s || c.leftStones[0] != 0 {
		t.Errorf("the other side's clock moved: %v, %d", c.left[0], c.leftStones[0])
	}
	c.restart()
	if c.left[1] != 10*s || c.leftStones[1] != 0 {
		t.Errorf("a new game: %v, %d stones; want the main time", c.left[1], c.leftStones[1])
	}
}

// TestClockProtocol: time_settings and time_left are GTP's (refused clearly when malformed,
// changing nothing), and a genmove on the clock searches for its share of the time, not the
// spec's budget: uct:1000000000 would search for hours, and with 2 s of main time it answers
// in about a twentieth of them.
func TestClockProtocol(t *testing.T) {
	in := "player uct:1000000000\ntime_settings 2 0 0\ntime_left white 2 0\ngenmove\ntime_settings 1 2\ntime_settings -1 0 0\n" +
		"time_settings 1 x 0\ntime_left purple 1 0\ntime_left black -1 0\ntime_left black 1 1.5\ntime_left b 1\nknown_command time_left\n"
	start := time.Now()
	got := serveLines(t, "yinsh", in)
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("a genmove with 2 s of main time took %v", el)
	}
	want := []string{"=", "=", "=", "~= place ", `? time_settings "1 2": want MAIN_TIME BYO_YOMI_TIME BYO_YOMI_STONES`,
		`? time_settings: the main time "-1" is not a whole number`, `? time_settings: the byo-yomi time "x" is not a whole number`,
		`? "purple" is not a colour of yinsh`, `? time_left: the time "-1" is not a number of seconds`,
		`? time_left: the stones "1.5" are not a whole number`, `? time_left "b 1": want COLOR TIME STONES`, "= true"}
	if len(got) != len(want) {
		t.Fatalf("%d replies, want %d:\n%s", len(got), len(want), strings.Join(got, "\n--\n"))
	}
	for i, w := range want {
		if p, ok := strings.CutPrefix(w, "~"); ok && strings.HasPrefix(got[i], p) || strings.HasPrefix(got[i], w) {
			continue
		}
		t.Errorf("reply %d: %q, want %q", i, got[i], w)
	}
}

// TestSetOption: setoption changes one setting of the player's spec, replacing the spec's own
// value of it, checked as the spec would be; refused with the reason, it changes nothing.
func TestSetOption(t *testing.T) {
	in := "player mcts:400:c_puct=1:models/yinsh.zck\nsetoption threads 2\nplayer\nsetoption c_puct 2.5\nplayer\nsetoption c_puct x\nplayer\n" +
		"setoption nokey 1\nplayer uct:1s\nsetoption threads 3\nplayer\nsetoption c_puct 1\nplayer ab:2\nsetoption threads 2\nsetoption threads\nsetoption threads 0\n"
	want := []string{"=", "=", "= mcts:400:c_puct=1:threads=2:models/yinsh.zck", "=", "= mcts:400:threads=2:c_puct=2.5:models/yinsh.zck",
		`? player "mcts:400:threads=2:c_puct=x:models/yinsh.zck": the setting "c_puct=x": "x" is not a value of c_puct`,
		"= mcts:400:threads=2:c_puct=2.5:models/yinsh.zck", `? player "mcts:400:threads=2:c_puct=2.5:nokey=1:models/yinsh.zck": the setting "nokey=1": "nokey" is not a search parameter`,
		"=", "=", "= uct:1s:threads=3", `? player "uct:1s:threads=3": uct's only setting is threads=K`, "=",
		`? player "ab:2": ab players have no settings`, `? setoption "threads": want KEY VALUE`, `? player "ab:2": ab players have no settings`}
	got := serveLines(t, "yinsh", in)
	if len(got) != len(want) {
		t.Fatalf("%d replies, want %d:\n%s", len(got), len(want), strings.Join(got, "\n--\n"))
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w) {
			t.Errorf("reply %d: %q, want %q", i, got[i], w)
		}
	}
}
