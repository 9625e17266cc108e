package ui

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/zerogames/zero/env/yinsh"
	"github.com/zerogames/zero/internal/games"
)

// yinshBoard draws YINSH, normal and blitz.
type yinshBoard struct{}

// The text drawing: columns upright as the board lies between the players, point (column x,
// row r) at character yinshX(x) of line yinshLine(x, r). Up a column is two lines up; a step
// along a row is one column right and one line down, along the diagonal one right and one
// up, so the three lines of the board run at their true angles. Letters stand above and
// below the columns; each row's number stands at both of its ends, where the missing point
// beyond it would be.
func yinshLine(x, r int) int { return 2*(11-r) + x - 3 }
func yinshX(x int) int       { return 4*x + 7 }

const (
	yinshLines = 24
	yinshWidth = 56
)

var yinshPieces = [...]string{yinsh.Empty: "·", yinsh.WhiteRing: "(W)", yinsh.BlackRing: "(B)",
	yinsh.WhiteMarker: "w", yinsh.BlackMarker: "b"}

func yinshState(pos *games.Position) yinsh.State { return pos.State().(yinsh.State) }

func (yinshBoard) Text(pos *games.Position) string { return yinshText(pos, false) }

// TextCoords is Text with each empty point drawn as its name (e5, f10): YINSH's points lie on
// three slanting lines, which a player new to the board reads more easily so.
func (yinshBoard) TextCoords(pos *games.Position) string { return yinshText(pos, true) }

func yinshText(pos *games.Position, names bool) string {
	s := yinshState(pos)
	lines := make([][]rune, yinshLines)
	for i := range lines {
		lines[i] = []rune(strings.Repeat(" ", yinshWidth))
	}
	put := func(x, r int, tok string) {
		t := []rune(tok)
		copy(lines[yinshLine(x, r)][yinshX(x)-(len(t)-1)/2:], t)
	}
	moved := -1 // the point the last ring moved to, drawn [W] or [B] while the ring is there
	if from, to, ok := lastRingMove(pos.Moves()); ok && from >= 0 {
		moved = to
	}
	first, last := [12]int{}, [12]int{}
	for p := range yinsh.NumPoints {
		x, r := yinsh.PointCoords(p)
		piece := s.At(p)
		tok := yinshPieces[piece]
		if names && piece == yinsh.Empty {
			tok = yinsh.PointName(p)
		}
		if p == moved && (piece == yinsh.WhiteRing || piece == yinsh.BlackRing) {
			tok = "[" + tok[1:2] + "]"
		}
		put(x, r, tok)
		if first[r] == 0 {
			first[r] = x + 1
		}
		last[r] = x + 1
	}
	for r := 1; r <= 11; r++ {
		n := fmt.Sprint(r)
		put(first[r]-2, r, n)
		put(last[r], r, n)
	}
	for x := range 11 {
		lines[0][yinshX(x)] = rune('a' + x)
		lines[yinshLines-1][yinshX(x)] = rune('a' + x)
	}
	var sb strings.Builder
	for _, l := range lines {
		sb.WriteString(strings.TrimRight(string(l), " "))
		sb.WriteByte('\n')
	}
	target := 3
	if s.Blitz() {
		target = 1
	}
	fmt.Fprintf(&sb, "\n(W) (B) rings   w b markers   [W] the ring just moved\n")
	fmt.Fprintf(&sb, "rings removed: white %d, black %d (%d to win)   markers in the pool: %d\n",
		s.RingsRemoved(0), s.RingsRemoved(1), target, s.Pool())
	sb.WriteString(yinshStatus(s))
	return sb.String()
}

// yinshStatus says what the next decision is.
func yinshStatus(s yinsh.State) string {
	who := ""
	if p := s.ToMove(); p >= 0 {
		who = yinsh.Names[p]
	}
	switch s.Phase() {
	case yinsh.PhasePlace:
		return who + " to place a ring"
	case yinsh.PhaseMove:
		return who + " to move a ring"
	case yinsh.PhaseRow:
		if s.Mover() != s.ToMove() {
			return who + " to remove a row (made by " + yinsh.Names[s.Mover()] + "'s move)"
		}
		return who + " to remove a row"
	case yinsh.PhaseRing:
		return who + " to remove one of his rings"
	}
	switch r := s.Result(); r.Winner() {
	case 0, 1:
		return "game over: " + yinsh.Names[r.Winner()] + " wins"
	}
	return "game over: draw"
}

// lastRingMove finds the last "move P-Q" of a game, as point indices.
func lastRingMove(moves []string) (from, to int, ok bool) {
	for i := len(moves) - 1; i >= 0; i-- {
		if arg, ok := strings.CutPrefix(moves[i], "move "); ok {
			a, b, _ := strings.Cut(arg, "-")
			p, err1 := yinsh.ParsePoint(a)
			q, err2 := yinsh.ParsePoint(b)
			if err1 == nil && err2 == nil {
				return p, q, true
			}
		}
	}
	return -1, -1, false
}

// yinshView is what the page needs to draw a YINSH position.
type yinshView struct {
	Kind string `json:"kind"` // "yinsh"
	// Points are the 85 points: name, column (0 = a), row number, and what lies there:
	// "" empty, "W"/"B" a white/black ring, "w"/"b" a marker showing white/black.
	Points []yinshPoint `json:"points"`
	// Phase is the next decision: place, move, row, ring or over.
	Phase string `json:"phase"`
	// Mover is whose move made the rows being removed (phases row and ring).
	Mover   string         `json:"mover"`
	Removed map[string]int `json:"removed"` // rings removed by each player
	Target  int            `json:"target"`  // rings to remove to win
	Pool    int            `json:"pool"`    // markers left
	Status  string         `json:"status"`
	// LastFrom and LastTo are the last ring move's points ("" before the first).
	LastFrom string `json:"last_from"`
	LastTo   string `json:"last_to"`
}

type yinshPoint struct {
	Name   string `json:"name"`
	Column int    `json:"col"`
	Row    int    `json:"row"`
	Piece  string `json:"piece"`
}

var yinshPieceCodes = [...]string{yinsh.Empty: "", yinsh.WhiteRing: "W", yinsh.BlackRing: "B",
	yinsh.WhiteMarker: "w", yinsh.BlackMarker: "b"}

var yinshPhases = [...]string{yinsh.PhasePlace: "place", yinsh.PhaseMove: "move", yinsh.PhaseRow: "row",
	yinsh.PhaseRing: "ring", yinsh.PhaseOver: "over"}

func (yinshBoard) View(pos *games.Position) any {
	s := yinshState(pos)
	v := yinshView{Kind: "yinsh", Phase: yinshPhases[s.Phase()], Mover: yinsh.Names[s.Mover()],
		Removed: map[string]int{"white": s.RingsRemoved(0), "black": s.RingsRemoved(1)},
		Target:  3, Pool: s.Pool(), Status: yinshStatus(s)}
	if s.Blitz() {
		v.Target = 1
	}
	for p := range yinsh.NumPoints {
		x, r := yinsh.PointCoords(p)
		v.Points = append(v.Points, yinshPoint{yinsh.PointName(p), x, r, yinshPieceCodes[s.At(p)]})
	}
	if from, to, ok := lastRingMove(pos.Moves()); ok {
		v.LastFrom, v.LastTo = yinsh.PointName(from), yinsh.PointName(to)
	}
	return v
}

// Group lists YINSH's moves as a person looks for them: ring placements by column, ring moves
// by the ring that moves (each item a destination), rows and rings to remove. A move is its
// label's verb with the item: "place" + "f6", "move f6-" + "f9", "row" + "c4-c8".
func (yinshBoard) Group(pos *games.Position) []MoveGroup {
	var groups []MoveGroup
	add := func(label, item string) {
		if n := len(groups); n > 0 && groups[n-1].Label == label {
			groups[n-1].Items = append(groups[n-1].Items, item)
			return
		}
		groups = append(groups, MoveGroup{Label: label, Items: []string{item}})
	}
	legal := pos.Legal()
	// Points in board order (a2 … k10), not byte-wise (e10 before e2).
	key := func(m string) (int, int) {
		verb, arg, _ := strings.Cut(m, " ")
		a, b, _ := strings.Cut(arg, "-")
		p, _ := yinsh.ParsePoint(a)
		q, _ := yinsh.ParsePoint(b)
		if verb == "pass" {
			p = -1
		}
		return p, q
	}
	slices.SortFunc(legal, func(m, n string) int {
		p1, q1 := key(m)
		p2, q2 := key(n)
		return cmp.Or(cmp.Compare(p1, p2), cmp.Compare(q1, q2))
	})
	for _, m := range legal {
		verb, arg, _ := strings.Cut(m, " ")
		switch verb {
		case "place":
			add("place "+arg[:1], arg)
		case "move":
			from, to, _ := strings.Cut(arg, "-")
			add("move "+from+"-", to)
		case "row", "ring":
			add(verb, arg)
		default:
			add(m, "")
		}
	}
	for i := range groups {
		if groups[i].Items[0] == "" {
			groups[i].Items = nil
		}
	}
	return groups
}
