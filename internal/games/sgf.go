package games

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/zerogames/zero/internal/sgf"
	"github.com/zerogames/zero/selfplay"
)

// Version is zero's version, as the engine protocol's `version` and SGF's AP property give it.
const Version = "0.1"

// sgfGame is the first game registered with the SGF number gm (FF[4]'s GM property: games.Play's
// SGF), "" if none: a record with GM but no ZG is that game's.
func sgfGame(gm string) string {
	for _, g := range All() {
		if g.Play().SGF == gm {
			return g.Info().Name
		}
	}
	return ""
}

// Letters are SGF's and GTP's colour letters of the game's sides 0 and 1: B for the first
// player and W for the second, unless the game's own names are white and black (YINSH, where
// white moves first), whose letters are their own.
func Letters(names [2]string) [2]string {
	if names[0] == "white" && names[1] == "black" {
		return [2]string{"W", "B"}
	}
	return [2]string{"B", "W"}
}

// MarshalSGF writes records as one SGF collection (FF[4]), one game tree per record, one node
// per decision. The root node holds FF[4], CA[UTF-8], AP[zero:VERSION], GM (YINSH only), ZG
// (zero's name of the game and rule: "gyges-advanced"), PB and PW (who played the sides of the
// letters B and W, Letters), RE (B+R or W+R for a resignation, B+N or W+N with Imbriqua's
// margin, B+ or W+ for another win, 0 for a draw, none for an unfinished game) and the
// record's first comment. Each decision is a node of one property, its move in the game's
// notation (docs/PLAY.md): B[...] or W[...] by the side of that letter, ZC[...] for chance's
// (Imbriqua's draws of the deck), followed by the comment after that move, if any. Each record
// is replayed through the rules to know who made each decision.
func MarshalSGF(recs ...selfplay.Record) ([]byte, error) {
	var b []byte
	for i, r := range recs {
		t, err := sgfTree(r)
		if err != nil {
			if len(recs) > 1 {
				return nil, fmt.Errorf("game %d: %w", i+1, err)
			}
			return nil, err
		}
		b = sgf.Append(b, t)
		b = append(b, '\n')
	}
	return b, nil
}

func sgfTree(r selfplay.Record) (*sgf.Tree, error) {
	g, err := Lookup(r.Game)
	if err != nil {
		return nil, fmt.Errorf("game: %w", err)
	}
	names := g.Info().PlayerNames
	letters := Letters(names)
	root := sgf.Node{}
	root.Set("FF", "4")
	root.Set("CA", "UTF-8")
	root.Set("AP", "zero:"+Version)
	if gm := g.Play().SGF; gm != "" {
		root.Set("GM", gm)
	}
	root.Set("ZG", r.Game)
	for side, l := range letters {
		root.Set("P"+l, r.Players[side])
	}
	pos := g.NewPosition()
	nodes := []sgf.Node{root}
	for i, m := range r.Moves {
		id := "ZC"
		switch pos.ToMove() {
		case names[0]:
			id = letters[0]
		case names[1]:
			id = letters[1]
		}
		if err := pos.Play(m); err != nil {
			return nil, fmt.Errorf("moves: move %d: %w", i+1, err)
		}
		var n sgf.Node
		n.Set(id, m)
		nodes = append(nodes, n)
	}
	if re := sgfResult(r, pos, letters); re != "" {
		nodes[0].Set("RE", re)
	}
	for i, c := range r.Comments {
		if c != "" && i < len(nodes) {
			nodes[i].Set("C", c)
		}
	}
	return &sgf.Tree{Nodes: nodes}, nil
}

// sgfResult is the RE value of a record whose moves lead to pos, "" for an unfinished game.
func sgfResult(r selfplay.Record, pos *Position, letters [2]string) string {
	winner := r.Winner()
	switch {
	case r.Result == "draw":
		return "0"
	case winner < 0:
		return ""
	case r.Resigned != "":
		return letters[winner] + "+R"
	}
	if score, ok := pos.Score(); ok {
		return letters[winner] + "+" + strconv.Itoa(abs(score[winner]-score[1-winner]))
	}
	return letters[winner] + "+"
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// IsSGF tells a text that is SGF (its first byte past a byte-order mark and white space is
// '(') from zero's JSON records.
func IsSGF(text []byte) bool {
	text = bytes.TrimPrefix(text, []byte("\xef\xbb\xbf"))
	text = bytes.TrimLeft(text, " \t\r\n\v\f")
	return len(text) > 0 && text[0] == '('
}

// readSGF reads every game tree of an SGF collection as a record, its main line the game
// (variations are left aside), each move replayed through the rules. What the file lacks is
// filled in: a player not named is "unknown"; a tree without ZG but with GM[24] is YINSH.
// Comments (C) are kept: the root's and those of the nodes after each move.
func readSGF(text []byte) ([]selfplay.Record, error) {
	trees, err := sgf.Parse(text)
	if err != nil {
		return nil, fmt.Errorf("not SGF: %w", err)
	}
	recs := make([]selfplay.Record, 0, len(trees))
	for i, t := range trees {
		r, err := sgfRecord(t)
		if err != nil {
			if len(trees) > 1 {
				return nil, fmt.Errorf("game %d: %w", i+1, err)
			}
			return nil, err
		}
		recs = append(recs, r)
	}
	return recs, nil
}

// sgfNumbers lists the registered games' SGF numbers, "yinsh is GM[24], …", the first game of
// each number only.
func sgfNumbers() string {
	var parts []string
	for _, g := range All() {
		if gm := g.Play().SGF; gm != "" && sgfGame(gm) == g.Info().Name {
			parts = append(parts, g.Info().Name+" is GM["+gm+"]")
		}
	}
	if len(parts) == 0 {
		return "no game has an SGF number"
	}
	return strings.Join(parts, ", ")
}

func sgfRecord(t *sgf.Tree) (selfplay.Record, error) {
	line := t.MainLine()
	root := &line[0]
	game, hasZG := root.Get("ZG")
	game = sgf.Simple(game)
	gm, hasGM := root.Get("GM")
	gm = sgf.Simple(gm)
	switch {
	case !hasZG && hasGM && sgfGame(gm) != "":
		game = sgfGame(gm)
	case !hasZG && hasGM:
		return selfplay.Record{}, fmt.Errorf("GM[%s]: not a game zero plays (%s; the others' records name their game in ZG)", gm, sgfNumbers())
	case !hasZG:
		return selfplay.Record{}, fmt.Errorf("no ZG or GM property: which game? (ZG[%s])", strings.Join(Names(), "], ZG["))
	}
	g, err := Lookup(game)
	if err != nil {
		return selfplay.Record{}, fmt.Errorf("ZG: %w", err)
	}
	if want := g.Play().SGF; hasGM && gm != want {
		if want == "" {
			want = "none"
		}
		return selfplay.Record{}, fmt.Errorf("GM[%s], but %s's is %s", gm, game, want)
	}
	info := g.Info()
	names := info.PlayerNames
	letters := Letters(names)
	r := selfplay.Record{Game: game, Sides: names, Players: [2]string{"unknown", "unknown"}}
	for side, l := range letters {
		if p, ok := root.Get("P" + l); ok && sgf.Simple(p) != "" {
			r.Players[side] = sgf.Simple(p)
		}
	}
	pos := g.NewPosition()
	var comments []string
	for k := range line {
		n := &line[k]
		var found []string
		for _, id := range []string{letters[0], letters[1], "ZC"} {
			if _, ok := n.Get(id); ok {
				found = append(found, id)
			}
		}
		switch len(found) {
		case 0:
		case 1:
			id := found[0]
			m, _ := n.Get(id)
			m = sgf.Simple(m)
			mover := "chance"
			switch id {
			case letters[0]:
				mover = names[0]
			case letters[1]:
				mover = names[1]
			}
			if pos.Over() {
				return r, fmt.Errorf("node %d: %s[%s] after the end of the game (%s)", k+1, id, m, pos.Result())
			}
			if mover != pos.ToMove() {
				return r, fmt.Errorf("node %d: %s[%s] is a move of %s, but %s is to move", k+1, id, m, mover, pos.ToMove())
			}
			if err := pos.Play(m); err != nil {
				return r, fmt.Errorf("node %d: move %d: %w", k+1, len(r.Moves)+1, err)
			}
			r.Moves = append(r.Moves, m)
		default:
			return r, fmt.Errorf("node %d: %s in one node: a node holds one decision", k+1, strings.Join(found, " and "))
		}
		if c, ok := n.Get("C"); ok {
			for len(comments) < len(r.Moves)+1 {
				comments = append(comments, "")
			}
			if comments[len(r.Moves)] != "" {
				c = comments[len(r.Moves)] + "\n" + c
			}
			comments[len(r.Moves)] = c
		}
	}
	if comments != nil {
		for len(comments) < len(r.Moves)+1 {
			comments = append(comments, "")
		}
		r.Comments = comments
	}
	r.Result = pos.Result()
	re, hasRE := root.Get("RE")
	re = sgf.Simple(re)
	if !hasRE || re == "?" || re == "" {
		return r, nil
	}
	claim, resigned, err := sgfClaim(re, names, letters)
	if err != nil {
		return r, err
	}
	switch {
	case resigned != "" && pos.Over():
		return r, fmt.Errorf("RE[%s]: a resignation, but the moves end the game (%s)", re, pos.Result())
	case resigned != "":
		r.Result, r.Resigned = claim, resigned
	case !pos.Over():
		return r, fmt.Errorf("RE[%s], but the game is not over: %s is to move after the moves (a resignation is RE[B+R] or RE[W+R])", re, pos.ToMove())
	case claim != r.Result:
		return r, fmt.Errorf("RE[%s], but the moves give %s", re, r.Result)
	}
	return r, nil
}

// sgfClaim reads an RE value: the result it claims, and the side that resigned if it says so.
func sgfClaim(re string, names, letters [2]string) (result, resigned string, err error) {
	switch strings.ToLower(re) {
	case "0", "draw", "jigo":
		return "draw", "", nil
	case "void":
		return "", "", fmt.Errorf("RE[%s]: a void game, which zero has not", re)
	}
	side := -1
	switch {
	case strings.HasPrefix(re, letters[0]+"+"):
		side = 0
	case strings.HasPrefix(re, letters[1]+"+"):
		side = 1
	default:
		return "", "", fmt.Errorf("RE[%s]: want B+…, W+…, 0 (a draw) or ? (unknown)", re)
	}
	switch reason := re[2:]; {
	case reason == "R" || reason == "Resign":
		return names[side], names[1-side], nil
	case reason == "T" || reason == "Time" || reason == "F" || reason == "Forfeit":
		return "", "", fmt.Errorf("RE[%s]: a win on time or by forfeit, which zero's records cannot hold (only a resignation or the end the moves reach)", re)
	}
	return names[side], "", nil
}
