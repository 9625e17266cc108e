package ui

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/imbriqua"
	"github.com/zerogames/zero/internal/games"
)

// imbriquaBoard draws Imbriqua: the board, the deck and what the last turns did.
type imbriquaBoard struct{}

func imbriquaState(pos *games.Position) imbriqua.State { return pos.State().(imbriqua.State) }

var imbriquaPhases = [...]string{imbriqua.PhaseOpening: "opening", imbriqua.PhasePlace: "place",
	imbriqua.PhaseDraw: "draw", imbriqua.PhaseAct: "act", imbriqua.PhaseChain: "chain",
	imbriqua.PhaseBonus: "bonus", imbriqua.PhasePenalty: "penalty", imbriqua.PhaseOver: "over"}

// imbriquaCard is a card as the page shows it.
type imbriquaCard struct {
	Number int    `json:"number"` // 1..11
	Name   string `json:"name"`   // "capture, long orthogonal"
	// Colour is "green" (any of the mover's pawns), "red" (only the pawn placed this turn) or
	// "" (card 11).
	Colour string `json:"colour"`
	Turn   int    `json:"turn"` // the turn it is played at, 1..44
	By     string `json:"by"`   // the player whose turn that is
}

func imbriquaCardOf(k, turn int) *imbriquaCard {
	if k == 0 {
		return nil
	}
	c := &imbriquaCard{Number: k, Name: imbriqua.CardName(k), Turn: turn + 1, By: imbriqua.Names[turn%2]}
	switch {
	case k <= 6:
		c.Colour = "green"
	case k <= 10:
		c.Colour = "red"
	}
	return c
}

// cardText is "card 7 (capture, long orthogonal; red)".
func (c *imbriquaCard) text() string {
	if c.Colour == "" {
		return fmt.Sprintf("card %d (%s)", c.Number, c.Name)
	}
	return fmt.Sprintf("card %d (%s; %s)", c.Number, c.Name, c.Colour)
}

// imbriquaPile is the pile the cards of the turn in progress come from.
type imbriquaPile struct {
	Number int `json:"number"` // 1..4
	// Cards are the pile's 11 cards in the order they are turned over, 0 for a card of the
	// first pile not drawn yet.
	Cards []int `json:"cards"`
	// Done is how many of them have been turned over, the turn's own card included once it is.
	Done int `json:"done"`
	// Reversed tells that the pile is the first pile's order reversed (piles 2 and 4).
	Reversed bool `json:"reversed"`
}

// imbriquaDecision is one decision of a turn, or the card turned over (which is a decision
// of chance only in the first pile).
type imbriquaDecision struct {
	By   string `json:"by"`   // a player, "chance", or "" for a card turned over by the rules
	Move string `json:"move"` // the decision in notation; "" for a card turned over by the rules
	// Kind is place, card, move, capture, stop, bonus or remove.
	Kind string `json:"kind"`
	Text string `json:"text"` // the decision in words
}

// imbriquaTurn is what happened in one turn (or the opening, turn 0).
type imbriquaTurn struct {
	Turn      int                `json:"turn"` // 1..44, 0 the opening
	Mover     string             `json:"mover"`
	Decisions []imbriquaDecision `json:"decisions"`
}

// imbriquaRecent is the turns of the game's last decisions: the turn in progress and the one
// before it (or the opening), each with its decisions in order.
func imbriquaRecent(pos *games.Position) []imbriquaTurn {
	c := pos.Clone()
	after := imbriquaState(c)
	var turns []imbriquaTurn // most recent first while collecting
	for len(c.Moves()) > 0 {
		move := c.Moves()[len(c.Moves())-1]
		if c.Undo() != nil {
			break
		}
		before := imbriquaState(c)
		turn := 0
		if before.Phase() != imbriqua.PhaseOpening {
			turn = before.Turn() + 1
		}
		if len(turns) == 0 || turns[len(turns)-1].Turn != turn {
			if len(turns) == 2 {
				break
			}
			turns = append(turns, imbriquaTurn{Turn: turn, Mover: imbriqua.Names[before.Mover()]})
		}
		t := &turns[len(turns)-1]
		t.Decisions = append(imbriquaDescribe(before, move, after), t.Decisions...)
		after = before
	}
	slices.Reverse(turns)
	if turns == nil {
		turns = []imbriquaTurn{} // the page iterates it: [] rather than null
	}
	return turns
}

// imbriquaDescribe tells in words the decision move, which took before to after, and the card
// the rules turned over after it, if any.
func imbriquaDescribe(before imbriqua.State, move string, after imbriqua.State) []imbriquaDecision {
	by := imbriqua.Names[max(before.ToMove(), 0)]
	mover := imbriqua.Names[before.Mover()]
	d := imbriquaDecision{By: by, Move: move}
	// impossible says how the turn went on after its card was turned over.
	impossible := func(card int) string {
		switch {
		case after.Phase() == imbriqua.PhasePenalty:
			return fmt.Sprintf(": impossible, %s removes one of %s's pawns", imbriqua.Names[1-before.Mover()], mover)
		case after.Turn() != before.Turn() && card != 11:
			return fmt.Sprintf(": impossible, and %s has no pawn to lose", mover)
		case after.Turn() != before.Turn():
			return ": impossible (fewer than two empty squares)"
		}
		return ""
	}
	var out []imbriquaDecision
	switch before.Phase() {
	case imbriqua.PhaseOpening:
		d.Kind, d.Text = "place", fmt.Sprintf("%s placed a pawn on %s", by, move)
	case imbriqua.PhasePlace:
		d.Kind, d.Text = "place", fmt.Sprintf("%s placed a pawn on %s", by, move)
		if k := after.CardOf(before.Turn()); after.Phase() != imbriqua.PhaseDraw && k != 0 {
			// A card known in advance is turned over by the rules, not drawn.
			c := imbriquaCardOf(k, before.Turn())
			out = append(out, d)
			d = imbriquaDecision{Kind: "card", Text: "turned over " + c.text() + impossible(k)}
		}
	case imbriqua.PhaseDraw:
		k := after.CardOf(before.Turn())
		d.By, d.Kind = "chance", "card"
		d.Text = "chance turned over " + imbriquaCardOf(k, before.Turn()).text() + impossible(k)
	case imbriqua.PhaseAct, imbriqua.PhaseChain:
		switch {
		case move == "stop":
			d.Kind, d.Text = "stop", by+" stopped the chain of jumps"
		case strings.Contains(move, "x"):
			var taken []string
			for sq := range imbriqua.NumSquares {
				if before.At(sq) != imbriqua.Empty && after.At(sq) == imbriqua.Empty && before.At(sq) != imbriquaPawnOf(before.Mover()) {
					taken = append(taken, imbriqua.SquareName(sq))
				}
			}
			d.Kind, d.Text = "capture", fmt.Sprintf("%s jumped %s, taking %s", by, move, strings.Join(taken, " and "))
		default:
			d.Kind, d.Text = "move", fmt.Sprintf("%s moved %s", by, move)
		}
	case imbriqua.PhaseBonus:
		d.Kind, d.Text = "bonus", fmt.Sprintf("%s placed a pawn on %s (card 11)", by, move)
	case imbriqua.PhasePenalty:
		sq := strings.TrimPrefix(move, "remove ")
		d.Kind, d.Text = "remove", fmt.Sprintf("%s removed %s's pawn on %s (penalty)", by, mover, sq)
	}
	return append(out, d)
}

func imbriquaPawnOf(p env.Player) imbriqua.Pawn {
	if p == 1 {
		return imbriqua.DarkPawn
	}
	return imbriqua.LightPawn
}

// imbriquaStatus says what the next decision is, and whose.
func imbriquaStatus(s imbriqua.State) string {
	mover := imbriqua.Names[s.Mover()]
	card := imbriquaCardOf(s.Card(), s.Turn())
	switch s.Phase() {
	case imbriqua.PhaseOpening:
		return fmt.Sprintf("%s to place a pawn (the opening: 4 each, anywhere)", mover)
	case imbriqua.PhasePlace:
		return fmt.Sprintf("%s to place a pawn", mover)
	case imbriqua.PhaseDraw:
		return fmt.Sprintf("the card of %s is being turned over", mover)
	case imbriqua.PhaseAct:
		who := "any of " + mover + "'s pawns"
		if card.Colour == "red" {
			who = "the pawn placed this turn"
		}
		return fmt.Sprintf("%s to play %s with %s", mover, card.text(), who)
	case imbriqua.PhaseChain:
		return fmt.Sprintf("%s to jump again from %s, or stop", mover, imbriqua.SquareName(s.Chain()))
	case imbriqua.PhaseBonus:
		return fmt.Sprintf("%s to place a pawn (card 11: %d more, edges allowed)", mover, s.Bonus())
	case imbriqua.PhasePenalty:
		return fmt.Sprintf("%s to remove one of %s's pawns: %s cannot play %s", imbriqua.Names[s.ToMove()], mover, mover, card.text())
	}
	r, score := s.Result(), s.Score()
	if r == env.Draw {
		return fmt.Sprintf("game over: a draw, framed squares %d each and pawns %d each", score[0], s.Pawns(0))
	}
	w := r.Winner()
	if score[w] == score[1-w] {
		return fmt.Sprintf("game over: %s wins, on pawns %d to %d (framed squares level at %d)",
			imbriqua.Names[w], s.Pawns(w), s.Pawns(1-w), score[w])
	}
	return fmt.Sprintf("game over: %s wins, framed squares %d to %d", imbriqua.Names[w], score[w], score[1-w])
}

// imbriquaPileOf is the pile the turn in progress takes its card from.
func imbriquaPileOf(s imbriqua.State) imbriquaPile {
	t := min(s.Turn(), imbriqua.NumTurns-1)
	n := t / imbriqua.PileSize
	p := imbriquaPile{Number: n + 1, Reversed: n%2 == 1, Done: t % imbriqua.PileSize}
	for i := range imbriqua.PileSize {
		p.Cards = append(p.Cards, s.CardOf(n*imbriqua.PileSize+i))
	}
	if s.Card() != 0 || s.Phase() == imbriqua.PhaseOver {
		p.Done++
	}
	return p
}

// imbriquaFramed is an empty square framed by one player or both: the lines that frame it
// for each ("row", "column", "diagonal" as a1-h8, "anti" as h1-a8).
type imbriquaFramed struct {
	Square string   `json:"square"`
	Light  []string `json:"light"`
	Dark   []string `json:"dark"`
}

var imbriquaLines = []struct {
	bit  uint8
	name string
}{{imbriqua.LineRow, "row"}, {imbriqua.LineColumn, "column"}, {imbriqua.LineDiagonal, "diagonal"}, {imbriqua.LineAnti, "anti"}}

func imbriquaLineNames(lines uint8) []string {
	out := []string{}
	for _, l := range imbriquaLines {
		if lines&l.bit != 0 {
			out = append(out, l.name)
		}
	}
	return out
}

// imbriquaView is what the page needs to draw an Imbriqua position.
type imbriquaView struct {
	Kind string `json:"kind"` // "imbriqua"
	// Squares are a1, b1, …, h8 (index (rank-1)·8 + file): "" empty, "L" light, "D" dark.
	Squares [imbriqua.NumSquares]string `json:"squares"`
	Framed  []imbriquaFramed            `json:"framed"`
	// Phase is the next decision: opening, place, draw, act, chain, bonus, penalty or over.
	Phase   string `json:"phase"`
	Mover   string `json:"mover"`   // whose turn it is
	Decider string `json:"decider"` // who decides next: a player (the mover's opponent for a penalty), chance or none
	Turn    int    `json:"turn"`    // the turn in progress, 1..44; 0 in the opening
	Turns   int    `json:"turns"`   // 44
	// Card is the card of the turn in progress once turned over; Previous the card of the turn
	// before (nil in the opening and at the first turn).
	Card     *imbriquaCard `json:"card"`
	Previous *imbriquaCard `json:"previous"`
	// Next is the next card to be turned over (this turn's while it is not yet, else the next
	// turn's) when it is known: nil for a draw of the first pile, which chance decides.
	Next *imbriquaCard `json:"next"`
	Pile imbriquaPile  `json:"pile"`
	// Unknown are the first pile's cards not drawn yet: each draw is one of them, equally likely.
	Unknown []int          `json:"unknown"`
	Score   map[string]int `json:"score"` // framed squares
	Pawns   map[string]int `json:"pawns"`
	Placed  string         `json:"placed"` // the pawn placed this turn ("" if none yet)
	Chain   string         `json:"chain"`  // the pawn that goes on with a chain of jumps
	Bonus   int            `json:"bonus"`  // card 11's placements left
	Status  string         `json:"status"`
	Recent  []imbriquaTurn `json:"recent"`
}

func (imbriquaBoard) View(pos *games.Position) any {
	s := imbriquaState(pos)
	score := s.Score()
	v := imbriquaView{Kind: "imbriqua", Phase: imbriquaPhases[s.Phase()], Mover: imbriqua.Names[s.Mover()],
		Decider: pos.ToMove(), Turns: imbriqua.NumTurns, Pile: imbriquaPileOf(s), Unknown: []int{},
		Score: map[string]int{"light": score[0], "dark": score[1]},
		Pawns: map[string]int{"light": s.Pawns(0), "dark": s.Pawns(1)},
		Bonus: s.Bonus(), Status: imbriquaStatus(s), Framed: []imbriquaFramed{}, Recent: imbriquaRecent(pos)}
	for sq := range imbriqua.NumSquares {
		v.Squares[sq] = [...]string{"", "L", "D"}[s.At(sq)]
		if l, d := s.Framed(0, sq), s.Framed(1, sq); l|d != 0 {
			v.Framed = append(v.Framed, imbriquaFramed{imbriqua.SquareName(sq), imbriquaLineNames(l), imbriquaLineNames(d)})
		}
	}
	if s.Phase() != imbriqua.PhaseOpening {
		v.Turn = min(s.Turn(), imbriqua.NumTurns-1) + 1
		v.Card = imbriquaCardOf(s.Card(), s.Turn())
		if s.Turn() > 0 {
			v.Previous = imbriquaCardOf(s.CardOf(s.Turn()-1), s.Turn()-1)
		}
		next := s.Turn()
		if v.Card != nil {
			next++
		}
		v.Next = imbriquaCardOf(s.CardOf(next), next) // CardOf is 0 past the last turn

	}
	for k := 1; k <= 10; k++ {
		if s.Unknown(k) {
			v.Unknown = append(v.Unknown, k)
		}
	}
	if sq := s.Placed(); sq >= 0 {
		v.Placed = imbriqua.SquareName(sq)
	}
	if sq := s.Chain(); sq >= 0 {
		v.Chain = imbriqua.SquareName(sq)
	}
	return v
}

// The text drawing: rank 8 at the top as light sees the board, each square five characters.
func (b imbriquaBoard) Text(pos *games.Position) string {
	s := imbriquaState(pos)
	v := b.View(pos).(imbriquaView)
	var sb strings.Builder
	letters := "    "
	for f := range 8 {
		letters += fmt.Sprintf("  %c  ", 'a'+f)
	}
	letters = strings.TrimRight(letters, " ") + "\n"
	sb.WriteString(letters)
	sb.WriteString("   ┌" + strings.Repeat("─", 41) + "┐\n")
	for r := 7; r >= 0; r-- {
		fmt.Fprintf(&sb, " %d │", r+1)
		for f := range 8 {
			sq := r*8 + f
			name := imbriqua.SquareName(sq)
			cell := "  ·  "
			switch p := v.Squares[sq]; {
			case p != "" && name == v.Chain && v.Chain != v.Placed:
				cell = " <" + p + "> "
			case p != "" && name == v.Placed:
				cell = " [" + p + "] "
			case p != "":
				cell = "  " + p + "  "
			default:
				l, d := bits.OnesCount8(s.Framed(0, sq)), bits.OnesCount8(s.Framed(1, sq))
				switch {
				case l > 0 && d > 0:
					cell = fmt.Sprintf(" l%dd%d", l, d)
				case l > 0:
					cell = fmt.Sprintf(" l%d  ", l)
				case d > 0:
					cell = fmt.Sprintf(" d%d  ", d)
				}
			}
			sb.WriteString(cell)
		}
		fmt.Fprintf(&sb, " │ %d\n", r+1)
	}
	sb.WriteString("   └" + strings.Repeat("─", 41) + "┘\n")
	sb.WriteString(letters)
	sb.WriteString("\nL D light and dark pawns   [L] the pawn placed this turn")
	if v.Chain != "" && v.Chain != v.Placed {
		sb.WriteString("   <L> the pawn jumping on")
	}
	sb.WriteString("\nl2 d1 an empty square framed by light on 2 lines, by dark on 1\n")
	fmt.Fprintf(&sb, "framed squares: light %d, dark %d   pawns: light %d, dark %d\n",
		v.Score["light"], v.Score["dark"], v.Pawns["light"], v.Pawns["dark"])
	if v.Phase == "over" {
		fmt.Fprintf(&sb, "all %d turns played\n", v.Turns)
	} else if v.Turn > 0 {
		reversed := ""
		if v.Pile.Reversed {
			reversed = " (the first pile reversed)"
		}
		fmt.Fprintf(&sb, "turn %d of %d, %s's   pile %d of 4%s: %d card%s left to turn over",
			v.Turn, v.Turns, v.Mover, v.Pile.Number, reversed,
			imbriqua.PileSize-v.Pile.Done, plural(imbriqua.PileSize-v.Pile.Done))
		if coming := v.Pile.Cards[v.Pile.Done:]; len(coming) > 0 {
			var list []string
			for _, k := range coming {
				if k == 0 {
					list = append(list, "?")
				} else {
					list = append(list, fmt.Sprint(k))
				}
			}
			fmt.Fprintf(&sb, ", coming %s", strings.Join(list, " "))
		}
		sb.WriteByte('\n')
		if len(v.Unknown) > 0 {
			fmt.Fprintf(&sb, "? is one of the cards not drawn yet: %s\n", strings.Trim(fmt.Sprint(v.Unknown), "[]"))
		}
	}
	if v.Card != nil {
		fmt.Fprintf(&sb, "the card turned over: %s\n", v.Card.text())
	}
	if v.Next != nil {
		fmt.Fprintf(&sb, "the next card: %s, turn %d\n", v.Next.text(), v.Next.Turn)
	}
	for _, t := range v.Recent {
		label := fmt.Sprintf("turn %d, %s", t.Turn, t.Mover)
		if t.Turn == 0 {
			label = "the opening"
		}
		var parts []string
		for _, d := range t.Decisions {
			parts = append(parts, d.Text)
		}
		sb.WriteString(wrapText(label+": ", strings.Join(parts, "; "), 96) + "\n")
	}
	sb.WriteString(v.Status)
	if s.Phase() == imbriqua.PhasePenalty {
		sb.WriteString("; type remove SQUARE")
	}
	return sb.String()
}

// wrapText lays text out after prefix in lines of at most width bytes, continuation lines
// indented under the first word.
func wrapText(prefix, text string, width int) string {
	var sb strings.Builder
	sb.WriteString(prefix)
	n := len(prefix)
	for i, w := range strings.Fields(text) {
		switch {
		case i > 0 && n+1+len(w) > width:
			sb.WriteString("\n" + strings.Repeat(" ", len(prefix)))
			n = len(prefix)
		case i > 0:
			sb.WriteByte(' ')
			n++
		}
		sb.WriteString(w)
		n += len(w)
	}
	return sb.String()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Group lists Imbriqua's decisions as a person looks for them: placements ("place" + "c3",
// the move being the square alone), a pawn's moves ("c3-" + "c5") and jumps ("c3x" + "c5") by
// pawn, "stop", and the pawns to remove ("remove" + "d4", the move "remove d4"). Squares come
// in board order, a1 b1 … h8.
func (imbriquaBoard) Group(pos *games.Position) []MoveGroup {
	var groups []MoveGroup
	add := func(label, item string) {
		if n := len(groups); n > 0 && groups[n-1].Label == label {
			groups[n-1].Items = append(groups[n-1].Items, item)
			return
		}
		groups = append(groups, MoveGroup{Label: label, Items: []string{item}})
	}
	square := func(name string) int {
		sq, err := imbriqua.ParseSquare(name)
		if err != nil {
			return -1
		}
		return sq
	}
	legal := pos.Legal()
	key := func(m string) (int, int) {
		m = strings.TrimPrefix(m, "remove ")
		if len(m) == 5 {
			return square(m[:2]), square(m[3:])
		}
		return square(m), -1
	}
	slices.SortFunc(legal, func(a, b string) int {
		a1, a2 := key(a)
		b1, b2 := key(b)
		return cmp.Or(cmp.Compare(a1, b1), cmp.Compare(a2, b2))
	})
	for _, m := range legal {
		switch {
		case m == "stop":
			groups = append(groups, MoveGroup{Label: "stop"})
		case strings.HasPrefix(m, "remove "):
			add("remove", strings.TrimPrefix(m, "remove "))
		case strings.HasPrefix(m, "card "):
			add("card", strings.TrimPrefix(m, "card "))
		case len(m) == 5:
			add(m[:3], m[3:])
		default:
			add("place", m)
		}
	}
	return groups
}
