package ui

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/zerogames/zero/env/gyges"
	"github.com/zerogames/zero/internal/games"
)

// Gygès games for the tests. The set-up puts south's 1 3 3 2 2 1 on row 1 (a1…f1) and
// north's 1 3 1 2 3 2 on row 6; north placed last, the triple on e6.
const (
	gygesSetUp = "3@b1;2@f6;3@c1;3@b6;1@a1;1@a6;1@f1;2@d6;2@e1;1@c6;2@d1;3@e6"
	// gygesWon goes on to south's win: the triple on a2 enters the north goal by
	// a2-b4^b4-a5^a5-goal.
	gygesWon = gygesSetUp + ";f1-e3;a6-c5;c1-a2;e6-d3;e1-b4;d6-a6;a1-b2;b6-c4;b1-a5;c6-c2;d1-b5;f6-e5;b2-a3;a6-c6;c2-b2;c6-e6;b2-c2;e6-d5;a2-goal"
	// gygesReplaced is a game of the advanced rule whose last move, north's b6-f6*f3, went
	// b6-b5^b5-c5^c5-d6^d6-f6, replaced the piece on f6 and dropped it on f3.
	gygesReplaced = gygesSetUp + ";f1-e1*d3;a6-c6*b5;c1-a1*d4;e6-d1*c5;d1-e1*d2;c6-d4*f1;a1-d2*b4;b6-f6*f3"
)

func gygesPos(t *testing.T, game, moves string) *games.Position {
	t.Helper()
	g, err := games.Lookup(game)
	if err != nil {
		t.Fatal(err)
	}
	pos := g.NewPosition()
	if moves != "" {
		if err := pos.PlayMoves(moves); err != nil {
			t.Fatal(err)
		}
	}
	return pos
}

// gygesCells reads the squares off the text drawing: what stands between the rules of each
// square, trimmed, by square name.
func gygesCells(t *testing.T, text string) map[string]string {
	t.Helper()
	cells := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		parts := strings.Split(line, "│")
		if len(parts) != 8 {
			continue
		}
		var r int
		if _, err := fmt.Sscan(parts[0], &r); err != nil || r < 1 || r > 6 {
			t.Fatalf("a row of squares starts %q", parts[0])
		}
		if got := strings.Fields(parts[7]); len(got) == 0 || got[0] != fmt.Sprint(r) {
			t.Errorf("row %d ends %q, not with its number", r, parts[7])
		}
		for c, cell := range parts[1:7] {
			if n := len([]rune(cell)); n != gygesCell-1 {
				t.Errorf("square %c%d is %d characters wide, want %d", 'a'+c, r, n, gygesCell-1)
			}
			cells[fmt.Sprintf("%c%d", 'a'+c, r)] = strings.TrimSpace(cell)
		}
	}
	if len(cells) != 36 {
		t.Fatalf("%d squares drawn:\n%s", len(cells), text)
	}
	return cells
}

func TestGygesText(t *testing.T) {
	tests := []struct {
		name, game, moves string
		// marked are squares drawn other than by their piece's size alone.
		marked map[string]string
		want   []string // parts of the drawing, in order
	}{
		{"the start", "gyges", "", nil, []string{
			"┃ north goal ┃  south wins by moving a piece in", "a     b     c     d     e     f",
			"1 │     │     │     │     │     │     │ 1  ◀ south places here", "┃ south goal ┃  north wins by moving a piece in",
			"0 of 200 moves made, basic rule", "to place: south 2 triples, 2 doubles, 2 singles; north 2 triples, 2 doubles, 2 singles",
			"south to place a piece on row 1"}},
		{"after the set-up", "gyges", gygesSetUp, map[string]string{"e6": "[3]"}, []string{
			"6 │  1  │  3  │  1  │  2  │ [3] │  2  │ 6\n", "1 │  1  │  3  │  3  │  2  │  2  │  1  │ 1  ◀ south moves a piece here",
			"last move: north 3@e6", "south to move a piece from row 1"}},
		{"a win", "gyges", gygesWon, map[string]string{"a2": "·"}, []string{
			"┃ north goal ┃  south's triple went in: south wins", "19 of 200 moves made",
			"last move: south a2-goal, by a2-b4^b4-a5^a5-goal (^ a bounce)", "game over: south wins, a piece in the north goal"}},
		{"a replacement", "gyges-advanced", gygesReplaced, map[string]string{"b6": "·", "f6": "[3]", "f3": "{2}"}, []string{
			"{2} the piece it displaced", "8 of 200 moves made, advanced rule",
			"last move: north b6-f6*f3, by b6-b5^b5-c5^c5-d6^d6-f6*f3 (^ a bounce)", "south to move a piece from row 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pos := gygesPos(t, tt.game, tt.moves)
			text := BoardFor(tt.game).Text(pos)
			s := pos.State().(gyges.State)
			for name, got := range gygesCells(t, text) {
				sq, _ := gyges.ParseSquare(name)
				want := ""
				if k := s.At(sq); k > 0 {
					want = fmt.Sprint(k)
				}
				if m, ok := tt.marked[name]; ok {
					want = m
				}
				if got != want {
					t.Errorf("%s drawn %q, want %q", name, got, want)
				}
			}
			at := 0
			for _, part := range tt.want {
				i := strings.Index(text[at:], part)
				if i < 0 {
					t.Fatalf("the drawing lacks %q after byte %d:\n%s", part, at, text)
				}
				at += i + len(part)
			}
		})
	}
}

// gygesMoveOf puts a group's label and item together as the move they list.
func gygesMoveOf(g MoveGroup, item string) string { return g.Label + item }

func TestGygesGroup(t *testing.T) {
	tests := []struct {
		name, game, moves string
		labels            []string // the first groups' labels
	}{
		{"the set-up, triples first", "gyges", "", []string{"3@", "2@", "1@"}},
		{"the first move, by piece", "gyges", gygesSetUp, []string{"a1-", "b1-", "c1-", "d1-", "e1-", "f1-"}},
		{"replacements after the piece's moves", "gyges-advanced", gygesReplaced, []string{"b1-", "b1-e1*", "b1-f1*"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pos := gygesPos(t, tt.game, tt.moves)
			groups := BoardFor(tt.game).Group(pos)
			var labels, listed []string
			for _, g := range groups {
				labels = append(labels, g.Label)
				if len(g.Items) == 0 {
					t.Errorf("group %q lists nothing", g.Label)
				}
				for _, it := range g.Items {
					listed = append(listed, gygesMoveOf(g, it))
				}
				if strings.HasSuffix(g.Label, "-") && slices.Contains(g.Items, "goal") && g.Items[len(g.Items)-1] != "goal" {
					t.Errorf("%s: the goal is not listed last: %q", g.Label, g.Items)
				}
			}
			if len(labels) < len(tt.labels) || !slices.Equal(labels[:len(tt.labels)], tt.labels) {
				t.Errorf("groups %q, want them to begin %q", labels, tt.labels)
			}
			if len(slices.Compact(slices.Clone(labels))) != len(labels) {
				t.Errorf("a label comes twice: %q", labels)
			}
			legal := pos.Legal()
			slices.Sort(listed)
			slices.Sort(legal)
			if !slices.Equal(listed, legal) {
				t.Fatalf("the groups list %d moves, not the %d legal ones", len(listed), len(legal))
			}
		})
	}
}

func TestGygesView(t *testing.T) {
	read := func(t *testing.T, game, moves string) (*games.Position, gygesView) {
		t.Helper()
		pos := gygesPos(t, game, moves)
		data, err := json.Marshal(BoardFor(game).View(pos))
		if err != nil {
			t.Fatal(err)
		}
		var v gygesView
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
		s := pos.State().(gyges.State)
		for sq, k := range v.Squares {
			if k != s.At(sq) {
				t.Errorf("%s: size %d in the view, %d on the board", gyges.SquareName(sq), k, s.At(sq))
			}
		}
		return pos, v
	}

	_, v := read(t, "gyges", "")
	if v.Kind != "gyges" || v.Phase != "setup" || v.Side != "south" || v.Row != 1 || v.Last != nil ||
		v.ToPlace["south"] != [3]int{2, 2, 2} || v.ToPlace["north"] != [3]int{2, 2, 2} || v.MoveCap != 200 || len(v.Routes) != 0 {
		t.Errorf("the start: %+v", v)
	}
	_, v = read(t, "gyges", gygesSetUp+";f1-e3")
	if v.Phase != "move" || v.Side != "north" || v.Row != 6 || v.Nearest != 6 || v.Moves != 1 || len(v.Routes) == 0 {
		t.Errorf("after a move: %+v", v)
	}
	if l := v.Last; !reflect.DeepEqual(*l, gygesLast{Move: "f1-e3", By: "south", Size: 1, Path: "f1-e1^e1-e3", Route: [][]string{{"f1", "e1"}, {"e1", "e2", "e3"}}, Start: "f1", End: "e3"}) {
		t.Errorf("after a move, the last: %+v", l)
	}
	_, v = read(t, "gyges", gygesWon)
	if v.Phase != "over" || v.Row != 0 || len(v.Routes) != 0 || v.Last.End != "goal" || v.Last.Size != 3 ||
		!slices.Equal(v.Last.Route[len(v.Last.Route)-1], []string{"a5", "a6", "b6", "goal"}) || !strings.HasPrefix(v.Status, "game over: south wins") {
		t.Errorf("the end: %+v, last %+v", v, v.Last)
	}

	// Every legal move has its way, one step at a time, each movement going on from where the
	// last ended; a replacement's, keyed without its drop, is the same for every drop.
	pos, v := read(t, "gyges-advanced", gygesReplaced)
	l := v.Last
	if l.Move != "b6-f6*f3" || l.By != "north" || l.Start != "b6" || l.End != "f6" || l.Drop != "f3" || l.Size != 3 || len(l.Route) != 4 {
		t.Errorf("the replacement: %+v", l)
	}
	keys := map[string]bool{}
	for _, m := range pos.Legal() {
		key, _, replace := strings.Cut(m, "*")
		if replace {
			key += "*"
		}
		keys[key] = true
	}
	if len(keys) != len(v.Routes) {
		t.Errorf("%d routes for %d ways", len(v.Routes), len(keys))
	}
	bounces := 0
	for key := range keys {
		route := v.Routes[key]
		if len(route) == 0 {
			t.Fatalf("no route for %s", key)
		}
		from, rest, _ := strings.Cut(strings.TrimSuffix(key, "*"), "-")
		if route[0][0] != from || route[len(route)-1][len(route[len(route)-1])-1] != rest {
			t.Errorf("%s: route %v", key, route)
		}
		bounces += len(route) - 1
		for j, mv := range route {
			if j > 0 && mv[0] != route[j-1][len(route[j-1])-1] {
				t.Errorf("%s: movement %d starts on %s, not where the last ended", key, j, mv[0])
			}
			for i := 1; i < len(mv); i++ {
				if !gygesAdjacent(mv[i-1], mv[i]) {
					t.Errorf("%s: %s to %s is not one step", key, mv[i-1], mv[i])
				}
			}
		}
	}
	if bounces == 0 {
		t.Error("no way with a bounce in this position: the test shows nothing")
	}
}

// gygesAdjacent tells whether b is one step from a (the goal from its far row).
func gygesAdjacent(a, b string) bool {
	if b == "goal" {
		return a[1] == '1' || a[1] == '6'
	}
	dc, dr := int(a[0])-int(b[0]), int(a[1])-int(b[1])
	return dc*dc+dr*dr == 1
}
