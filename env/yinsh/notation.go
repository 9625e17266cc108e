package yinsh

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/zerogames/zero/env"
)

// appendPoint appends the name of a point: column letter and row number, "f6".
func appendPoint(dst []byte, p int) []byte {
	x, y := pointXY(p)
	dst = append(dst, byte('a'+x))
	return strconv.AppendInt(dst, int64(y+1), 10)
}

// PointName is the name of point index p (0..84).
func PointName(p int) string { return string(appendPoint(nil, p)) }

// AppendAction appends the notation of a: "place f6", "move f6-f9", "row c4-c8", "ring e5",
// "pass". Holes of the action space print as "#N", which does not parse.
func (s State) AppendAction(dst []byte, a env.Action) []byte {
	i := int(a)
	switch {
	case i < 0 || i >= NumActions:
		return strconv.AppendInt(append(dst, '#'), int64(i), 10)
	case i < moveBase:
		return appendPoint(append(dst, "place "...), i-placeBase)
	case i < rowBase:
		i -= moveBase
		p, d, dist := i/54, i%54/9, i%9+1
		if dist > int(rayLen[p][d]) {
			return strconv.AppendInt(append(dst, '#'), int64(a), 10)
		}
		dst = appendPoint(append(dst, "move "...), p)
		return appendPoint(append(dst, '-'), int(cellPoint[rays[p][d][dist-1]]))
	case i < ringBase:
		i -= rowBase
		p, d := i/3, i%3
		if !rowOK[p][d] {
			return strconv.AppendInt(append(dst, '#'), int64(a), 10)
		}
		dst = appendPoint(append(dst, "row "...), p)
		return appendPoint(append(dst, '-'), int(cellPoint[rays[p][d][3]]))
	case i < passAction:
		return appendPoint(append(dst, "ring "...), i-ringBase)
	}
	return append(dst, "pass"...)
}

// ActionString is the notation of a in any state (YINSH's notation does not depend on the
// state).
func ActionString(a env.Action) string { return string(State{}.AppendAction(nil, a)) }

// ParsePoint reads a point name such as "f6" and returns its index.
func ParsePoint(text string) (int, error) {
	if len(text) < 2 || len(text) > 3 || text[0] < 'a' || text[0] > 'k' {
		return 0, fmt.Errorf("%q is not a point (a column a-k and a row number, as f6)", text)
	}
	y, err := strconv.Atoi(text[1:])
	if err != nil || text[1] == '0' || text[1] == '+' || text[1] == '-' {
		return 0, fmt.Errorf("%q is not a point (a column a-k and a row number, as f6)", text)
	}
	x := int(text[0] - 'a')
	if !onBoard(x, y-1) {
		return 0, fmt.Errorf("there is no point %s on the board (column %c has rows %d-%d)",
			text, text[0], columns[x][0], columns[x][1])
	}
	return int(gridPoint[x*gridSize+y-1]), nil
}

var errSyntax = errors.New("want place P, move P-Q, row P-Q, ring P or pass (lower-case, as in place f6)")

// ParseAction reads one action in YINSH notation.
func (s State) ParseAction(text string) (env.Action, error) {
	a, err := parseAction(text)
	if err != nil {
		return 0, fmt.Errorf("%q: %w", text, err)
	}
	return a, nil
}

func parseAction(text string) (env.Action, error) {
	if text == "pass" {
		return passAction, nil
	}
	verb, arg, ok := strings.Cut(text, " ")
	if !ok {
		return 0, errSyntax
	}
	switch verb {
	case "place", "ring":
		p, err := ParsePoint(arg)
		if err != nil {
			return 0, err
		}
		if verb == "place" {
			return env.Action(placeBase + p), nil
		}
		return env.Action(ringBase + p), nil
	case "move", "row":
		from, to, ok := strings.Cut(arg, "-")
		if !ok {
			return 0, fmt.Errorf("%s wants two points joined by '-', as %s f6-f9", verb, verb)
		}
		p, err := ParsePoint(from)
		if err != nil {
			return 0, err
		}
		q, err := ParsePoint(to)
		if err != nil {
			return 0, err
		}
		d, dist := lineBetween(p, q)
		if d < 0 {
			return 0, fmt.Errorf("%s and %s are not on one line", from, to)
		}
		if verb == "move" {
			return env.Action(moveAction(p, d, dist)), nil
		}
		if dist != 4 {
			return 0, fmt.Errorf("a row is 5 markers: %s-%s spans %d", from, to, dist+1)
		}
		if d >= 3 {
			return 0, fmt.Errorf("give the lower end of a row first: row %s-%s", to, from)
		}
		return env.Action(rowBase + p*3 + d), nil
	}
	return 0, errSyntax
}

// lineBetween returns the direction and distance from p to q, or -1 if they are not on one
// line (or are the same point).
func lineBetween(p, q int) (dir, dist int) {
	x0, y0 := pointXY(p)
	x1, y1 := pointXY(q)
	dx, dy := x1-x0, y1-y0
	n := max(abs(dx), abs(dy))
	if n == 0 || (dx != 0 && dy != 0 && dx != dy) {
		return -1, 0
	}
	for d := 0; d < 6; d++ {
		if dirDX[d]*n == dx && dirDY[d]*n == dy {
			return d, n
		}
	}
	return -1, 0
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Explain says why a is not legal in s, or returns nil if it is.
func (s State) Explain(a env.Action) error {
	name := ActionString(a)
	who := Names[0]
	if s.toMove == 1 {
		who = Names[1]
	}
	i := int(a)
	kind := "pass"
	switch {
	case i < 0 || i >= NumActions:
		return fmt.Errorf("%s: no such action", name)
	case i < moveBase:
		kind = "place"
	case i < rowBase:
		kind = "move"
	case i < ringBase:
		kind = "row"
	case i < passAction:
		kind = "ring"
	}
	if env.IsLegal(s, a) {
		return nil
	}
	switch s.phase {
	case phaseOver:
		return fmt.Errorf("%s: the game is over", name)
	case phasePlace:
		if kind != "place" {
			return fmt.Errorf("%s: %s must place a ring (the opening)", name, who)
		}
		return fmt.Errorf("%s: the point is taken", name)
	case phaseRow:
		if kind != "row" {
			return fmt.Errorf("%s: %s must remove a row of his markers first", name, who)
		}
		return fmt.Errorf("%s: not 5 %s markers in a row", name, who)
	case phaseRing:
		if kind != "ring" {
			return fmt.Errorf("%s: %s must remove one of his rings first", name, who)
		}
		return fmt.Errorf("%s: no %s ring there", name, who)
	}
	legal := s.Legal(nil)
	switch {
	case kind == "pass":
		return fmt.Errorf("pass: %s has a ring that can move", who)
	case len(legal) == 1 && legal[0] == passAction:
		return fmt.Errorf("%s: no ring of %s can move: pass", name, who)
	case kind != "move":
		return fmt.Errorf("%s: %s must move a ring", name, who)
	}
	p := (i - moveBase) / 54
	if !s.rings[s.toMove].has(int(pointCell[p])) {
		return fmt.Errorf("%s: no %s ring on %s", name, who, PointName(p))
	}
	return fmt.Errorf("%s: the ring cannot go there (a ring moves in a line over empty points, then over one group of markers to the first empty point after them, never over a ring)", name)
}
