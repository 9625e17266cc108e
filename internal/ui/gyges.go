package ui

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/gyges"
	"github.com/zerogames/zero/internal/games"
)

// gygesBoard draws Gygès, basic and advanced rule.
type gygesBoard struct{}

func gygesState(pos *games.Position) gyges.State { return pos.State().(gyges.State) }

// gygesSizeNames name the pieces by size, one and several.
var gygesSizeNames = [4][2]string{1: {"single", "singles"}, 2: {"double", "doubles"}, 3: {"triple", "triples"}}

// gygesLast is the last decision of a game: who made it, and where it went.
type gygesLast struct {
	Move string `json:"move"` // as played: "3@c1", "b1-d4", "b1-goal", "b1-d4*e2"
	By   string `json:"by"`   // the player who made it
	Size int    `json:"size"` // the size of the piece placed or moved
	// Path is the way a move went, as the engine prints it ("b1-b3^b3-d4"); Route is the same
	// square by square, one list per movement ("goal" for the goal). Both empty for a placement.
	Path  string     `json:"path,omitempty"`
	Route [][]string `json:"route,omitempty"`
	Start string     `json:"start,omitempty"` // the square a move left
	End   string     `json:"end"`             // where the piece now stands, or "goal"
	Drop  string     `json:"drop,omitempty"`  // where a replacement put the displaced piece
}

// gygesLastMove is the game's last decision, or nil at the start.
func gygesLastMove(pos *games.Position) *gygesLast {
	moves := pos.Moves()
	if len(moves) == 0 {
		return nil
	}
	prev := pos.Clone()
	if prev.Undo() != nil {
		return nil
	}
	s := gygesState(prev)
	move := moves[len(moves)-1]
	last := &gygesLast{Move: move, By: gyges.Names[s.Side()]}
	if size, at, ok := strings.Cut(move, "@"); ok && len(size) == 1 {
		last.End, last.Size = at, int(size[0]-'0')
		return last
	}
	a, err := s.ParseAction(move)
	if err != nil {
		return last
	}
	last.Path, _ = s.Path(a)
	route, _ := s.Route(a)
	last.Route = gygesRouteNames(route)
	rest, drop, _ := strings.Cut(move, "*")
	last.Start, last.End, _ = strings.Cut(rest, "-")
	last.Drop = drop
	if sq, err := gyges.ParseSquare(last.Start); err == nil {
		last.Size = s.At(sq)
	}
	return last
}

// gygesRouteNames writes a route with square names.
func gygesRouteNames(route [][]int) [][]string {
	out := make([][]string, len(route))
	for i, m := range route {
		for _, sq := range m {
			out[i] = append(out[i], gyges.SquareName(sq))
		}
	}
	return out
}

// gygesStatus says what the next decision is, or how the game ended.
func gygesStatus(s gyges.State) string {
	who := gyges.Names[s.Side()]
	start := 1
	if s.Side() == 1 {
		start = 6
	}
	switch r := s.Result(); {
	case r == env.Ongoing && s.SettingUp():
		return fmt.Sprintf("%s to place a piece on row %d", who, start)
	case r == env.Ongoing:
		row := s.PlayableRow()
		if row == 0 {
			return who + " to move" // never in a real game: no legal move ends it at once
		}
		return fmt.Sprintf("%s to move a piece from row %d", who, row)
	case r == env.Draw && s.Moves() >= s.MoveCap():
		return fmt.Sprintf("game over: draw, %d moves made (the cap)", s.MoveCap())
	case r == env.Draw:
		return "game over: draw, " + who + " has no legal move"
	}
	winner := gyges.Names[s.Result().Winner()]
	goal := "north"
	if s.Result().Winner() == 1 {
		goal = "south"
	}
	return fmt.Sprintf("game over: %s wins, a piece in the %s goal", winner, goal)
}

// gygesToPlace lists what player p has still to place: "1 triple, 2 doubles".
func gygesToPlace(s gyges.State, p env.Player) string {
	var parts []string
	for k := 3; k >= 1; k-- {
		if n := s.ToPlace(p, k); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, gygesSizeNames[k][min(n, 2)-1]))
		}
	}
	if parts == nil {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}

// The text drawing: row 6 at the top as South sees the board, each square five characters
// between rules, the goals above and below as boxes over the two middle columns.
const (
	gygesIndent = 5 // characters left of the board's left rule
	gygesCell   = 6 // characters from one rule to the next
)

// gygesGoal draws a goal: a box over the two middle columns, its name inside, and beside it
// who wins by entering it (player aiming at it) or, when the last move entered it, that it did.
func gygesGoal(sb *strings.Builder, name string, aiming env.Player, last *gygesLast) {
	note := gyges.Names[aiming] + " wins by moving a piece in"
	if last != nil && last.End == "goal" && last.By == gyges.Names[aiming] {
		note = fmt.Sprintf("%s's %s went in: %s wins", last.By, gygesSizeNames[last.Size][0], last.By)
	}
	pad := strings.Repeat(" ", gygesIndent+gygesCell*2-1)
	inner := 2 * gygesCell
	bar := strings.Repeat("━", inner)
	label := fmt.Sprintf("%-*s", inner, fmt.Sprintf("%*s", (inner+len(name))/2, name))
	fmt.Fprintf(sb, "%s┏%s┓\n%s┃%s┃  %s\n%s┗%s┛\n", pad, bar, pad, label, note, pad, bar)
}

func (gygesBoard) Text(pos *games.Position) string {
	s := gygesState(pos)
	last := gygesLastMove(pos)
	var sb strings.Builder
	letters := strings.Repeat(" ", gygesIndent)
	for c := range 6 {
		letters += fmt.Sprintf("%*c%*s", gygesCell/2+1, 'a'+c, gygesCell-gygesCell/2-1, "")
	}
	letters = strings.TrimRight(letters, " ") + "\n"
	rule := func(left, mid, right string) string {
		return strings.Repeat(" ", gygesIndent) + left +
			strings.Repeat(strings.Repeat("─", gygesCell-1)+mid, 5) + strings.Repeat("─", gygesCell-1) + right + "\n"
	}
	gygesGoal(&sb, "north goal", 0, last)
	sb.WriteString(letters)
	sb.WriteString(rule("┌", "┬", "┐"))
	mark := 0 // the row to mark: where the side to move places or moves
	switch {
	case s.SettingUp():
		mark = 1 + 5*int(s.Side())
	case s.Result() == env.Ongoing:
		mark = s.PlayableRow()
	}
	for r := 6; r >= 1; r-- {
		fmt.Fprintf(&sb, "%*d │", gygesIndent-1, r)
		for c := range 6 {
			sq := (r-1)*6 + c
			name := gyges.SquareName(sq)
			cell := "     "
			switch k := s.At(sq); {
			case k > 0 && last != nil && name == last.End:
				cell = fmt.Sprintf(" [%d] ", k)
			case k > 0 && last != nil && name == last.Drop:
				cell = fmt.Sprintf(" {%d} ", k)
			case k > 0:
				cell = fmt.Sprintf("  %d  ", k)
			case last != nil && name == last.Start:
				cell = "  ·  "
			}
			sb.WriteString(cell + "│")
		}
		fmt.Fprintf(&sb, " %d", r)
		if r == mark {
			verb := "moves a piece"
			if s.SettingUp() {
				verb = "places"
			}
			fmt.Fprintf(&sb, "  ◀ %s %s here", gyges.Names[s.Side()], verb)
		}
		sb.WriteByte('\n')
		if r > 1 {
			sb.WriteString(rule("├", "┼", "┤"))
		}
	}
	sb.WriteString(rule("└", "┴", "┘"))
	sb.WriteString(letters)
	gygesGoal(&sb, "south goal", 1, last)
	rule2 := "basic rule"
	if s.Advanced() {
		rule2 = "advanced rule (a move may end on a piece and replace it)"
	}
	sb.WriteString("\n1 2 3 the pieces, by size   [3] the piece just placed or moved   · the square it left")
	if s.Advanced() {
		sb.WriteString("\n{2} the piece it displaced")
	}
	fmt.Fprintf(&sb, "\n%d of %d moves made, %s\n", s.Moves(), s.MoveCap(), rule2)
	if s.SettingUp() {
		fmt.Fprintf(&sb, "to place: south %s; north %s\n", gygesToPlace(s, 0), gygesToPlace(s, 1))
	}
	if last != nil {
		fmt.Fprintf(&sb, "last move: %s %s", last.By, last.Move)
		if last.Path != "" && last.Path != last.Move {
			fmt.Fprintf(&sb, ", by %s (^ a bounce)", last.Path)
		}
		sb.WriteByte('\n')
	}
	sb.WriteString(gygesStatus(s))
	if !s.SettingUp() && s.Result() == env.Ongoing {
		if nearest := gygesNearestRow(s); nearest != s.PlayableRow() && nearest != 0 {
			fmt.Fprintf(&sb, " (no piece on row %d can move)", nearest)
		}
	}
	return sb.String()
}

// gygesNearestRow is the occupied row nearest to the side to move (1..6), 0 for none.
func gygesNearestRow(s gyges.State) int {
	rows := []int{1, 2, 3, 4, 5, 6}
	if s.Side() == 1 {
		slices.Reverse(rows)
	}
	for _, r := range rows {
		for c := range 6 {
			if s.At((r-1)*6+c) > 0 {
				return r
			}
		}
	}
	return 0
}

// gygesView is what the page needs to draw a Gygès position.
type gygesView struct {
	Kind     string `json:"kind"` // "gyges"
	Advanced bool   `json:"advanced"`
	// Squares are the sizes of the pieces on a1, b1, …, f6 (index (row-1)·6 + column), 0 on
	// an empty square.
	Squares [gyges.NumSquares]int `json:"squares"`
	Phase   string                `json:"phase"` // "setup", "move" or "over"
	Side    string                `json:"side"`  // whose turn it is (after the end: who would be next)
	// Row is the row the side to move places on (the set-up) or must move a piece from; 0 once
	// the game is over.
	Row int `json:"row"`
	// Nearest is the side to move's nearest occupied row, which differs from Row when no
	// piece there can move.
	Nearest int `json:"nearest"`
	// ToPlace is, for each player, the pieces of size 1, 2, 3 still to place.
	ToPlace map[string][3]int `json:"to_place"`
	Moves   int               `json:"moves"` // moves made, placements not counted
	MoveCap int               `json:"move_cap"`
	Status  string            `json:"status"`
	Last    *gygesLast        `json:"last"`
	// Routes are the ways the legal moves go, square by square (see gygesLast.Route), keyed
	// by the move without its drop: "b1-d4", "b1-goal", and "b1-d4*" for the replacements on d4
	// (whichever their drop, the way there is the same).
	Routes map[string][][]string `json:"routes"`
}

func (gygesBoard) View(pos *games.Position) any {
	s := gygesState(pos)
	v := gygesView{Kind: "gyges", Advanced: s.Advanced(), Phase: "move", Side: gyges.Names[s.Side()],
		Row: s.PlayableRow(), Moves: s.Moves(), MoveCap: s.MoveCap(), Status: gygesStatus(s),
		Last: gygesLastMove(pos), Routes: map[string][][]string{}}
	for sq := range gyges.NumSquares {
		v.Squares[sq] = s.At(sq)
	}
	v.ToPlace = map[string][3]int{}
	for p := range env.Player(2) {
		v.ToPlace[gyges.Names[p]] = [3]int{s.ToPlace(p, 1), s.ToPlace(p, 2), s.ToPlace(p, 3)}
	}
	switch {
	case s.Result() != env.Ongoing:
		v.Phase, v.Row = "over", 0
		return v
	case s.SettingUp():
		v.Phase, v.Row = "setup", 1+5*int(s.Side())
		return v
	}
	v.Nearest = gygesNearestRow(s)
	for _, m := range pos.Legal() {
		key, _, replace := strings.Cut(m, "*")
		if replace {
			key += "*"
		}
		if _, ok := v.Routes[key]; ok {
			continue
		}
		a, err := s.ParseAction(m)
		if err != nil {
			continue
		}
		if route, err := s.Route(a); err == nil {
			v.Routes[key] = gygesRouteNames(route)
		}
	}
	return v
}

// Group lists Gygès's moves by piece. In the set-up, by size: "3@" + "c1". Then by the piece
// that moves, its ends in board order and the goal last: "b1-" + "d4"; with the advanced rule,
// each replacement's drops after the piece's moves: "b1-d4*" + "e2".
func (gygesBoard) Group(pos *games.Position) []MoveGroup {
	var groups []MoveGroup
	add := func(label, item string) {
		if n := len(groups); n > 0 && groups[n-1].Label == label {
			groups[n-1].Items = append(groups[n-1].Items, item)
			return
		}
		groups = append(groups, MoveGroup{Label: label, Items: []string{item}})
	}
	square := func(name string) int {
		if name == "goal" {
			return gyges.Goal
		}
		sq, _ := gyges.ParseSquare(name)
		return sq
	}
	type parsed struct {
		move             string
		size, start, end int
		drop             int // -1 for a move
		label, item      string
		replace, setting bool
	}
	var list []parsed
	for _, m := range pos.Legal() {
		if size, at, ok := strings.Cut(m, "@"); ok {
			list = append(list, parsed{move: m, size: -int(size[0] - '0'), start: square(at), label: size + "@", item: at, setting: true})
			continue
		}
		rest, drop, replace := strings.Cut(m, "*")
		from, to, _ := strings.Cut(rest, "-")
		p := parsed{move: m, start: square(from), end: square(to), drop: -1, label: from + "-", item: to, replace: replace}
		if replace {
			p.drop, p.label, p.item = square(drop), rest+"*", drop
		}
		list = append(list, p)
	}
	slices.SortFunc(list, func(a, b parsed) int {
		if a.setting {
			return cmp.Or(cmp.Compare(a.size, b.size), cmp.Compare(a.start, b.start)) // triples first
		}
		return cmp.Or(cmp.Compare(a.start, b.start), compareBool(a.replace, b.replace),
			cmp.Compare(a.end, b.end), cmp.Compare(a.drop, b.drop))
	})
	for _, p := range list {
		add(p.label, p.item)
	}
	return groups
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}
