package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/zerogames/zero/internal/atomicfile"
	"github.com/zerogames/zero/internal/engine"
	"github.com/zerogames/zero/internal/games"
	"github.com/zerogames/zero/selfplay"
)

// analyseCmd is `zero analyse FILE`: every decision of a record searched again by a player,
// each move's win rate set beside the player's choice, and the record written back as SGF
// with the findings as comments.
func analyseCmd(fs *flag.FlagSet) func(context.Context, []string, io.Reader, io.Writer, io.Writer) error {
	player := fs.String("player", "", "the analysing player's `SPEC` (default: the game's shipped model, mcts with the model, else "+engine.DefaultPlayer+")")
	visits := fs.Int("visits", 0, "simulations a move, replacing the player's own `N` (0: the player's)")
	movetime := fs.Duration("time", 0, "a search's time a move, `D` (0: the player's own budget)")
	out := fs.String("out", "", "where to write the analysed record, SGF (default: FILE's name ending -analysed.sgf; - for standard output)")
	mistake := fs.Float64("mistake", 10, "the drop in the mover's win rate, in `POINTS` of percent, that marks a move a mistake")
	seed := fs.Uint64("seed", 1, "the seed of the player")
	return func(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
		switch {
		case len(args) != 1:
			return errors.New("analyse: give one record, zero analyse FILE (FILE#N for game N of a file of several)")
		case *visits < 0:
			return fmt.Errorf("--visits %d: want a number of simulations ≥ 0", *visits)
		case *movetime < 0:
			return fmt.Errorf("--time %s: want a duration ≥ 0", *movetime)
		case *mistake <= 0 || *mistake > 100:
			return fmt.Errorf("--mistake %g: want points of percent in (0, 100]", *mistake)
		}
		rec, err := games.LoadRecord(args[0])
		if err != nil {
			return err
		}
		g, err := games.Lookup(rec.Game)
		if err != nil {
			return err
		}
		spec := *player
		if spec == "" {
			spec = engineDefault(rec.Game)
		}
		agent, err := g.NewAgent(spec, *seed)
		if err != nil {
			return fmt.Errorf("--player: %w", err)
		}
		dest := *out
		if dest == "" {
			file, _, _ := strings.Cut(args[0], "#")
			dest = strings.TrimSuffix(file, filepath.Ext(file)) + "-analysed.sgf"
		}
		lim := selfplay.Limits{Simulations: *visits, Time: *movetime}
		start := time.Now()
		report := stdout
		if dest == "-" {
			report = stderr
		}
		a, err := analyseRecord(ctx, g, agent, rec, lim, *mistake/100, report)
		if err != nil {
			return err
		}
		text, err := games.MarshalSGF(a.rec)
		if err != nil {
			return err
		}
		if dest == "-" {
			_, err = stdout.Write(text)
		} else {
			err = atomicfile.WriteBytes(dest, text)
		}
		if err != nil {
			return err
		}
		where := dest
		if dest == "-" {
			where = "standard output"
		}
		fmt.Fprintf(report, "zero analyse: %d of %d decisions searched by %s in %s; %s (a drop of %g points or more); written to %s\n",
			a.searched, len(rec.Moves), spec, time.Since(start).Round(100*time.Millisecond), nouns(a.mistakes, "mistake"), *mistake, where)
		return nil
	}
}

// analysed is a record with its findings in its comments.
type analysed struct {
	rec      selfplay.Record
	searched int // the decisions searched (chance's are not)
	mistakes int
}

// analyseRecord searches the position before each decision of rec with agent, and writes into
// a copy of the record, after each move, the mover's win rate before it, the player's choice
// and its win rate, the played move's and the drop between them; a table of the same goes to
// w as it is found. A played move's win rate is the next position's searched value from the
// mover's side (a whole search, as the player's choice had), else the search's own where it
// searched the move (before a chance decision), else the end's result.
func analyseRecord(ctx context.Context, g games.Game, agent games.Agent, rec selfplay.Record, lim selfplay.Limits, mistake float64, w io.Writer) (analysed, error) {
	a := analysed{rec: rec}
	n := len(rec.Moves)
	type found struct {
		mover  string
		an     selfplay.Analysis
		search bool // a player's decision, searched
	}
	res := make([]found, n)
	pos := g.NewPosition()
	// The table's columns, right-aligned, wide enough for the record's moves and sides: each
	// line is written as soon as it is known, so a tabwriter (which aligns what it holds) cannot.
	mw, sw := len("choice"), len("side")
	for _, m := range rec.Moves {
		mw = max(mw, utf8.RuneCountInString(m))
	}
	for _, name := range g.Info().PlayerNames {
		sw = max(sw, utf8.RuneCountInString(name))
	}
	row := func(cells ...string) {
		line := fmt.Sprintf("%5s  %*s  %*s  %6s  %*s  %6s  %s", cells[0], sw, cells[1], mw, cells[2], cells[3], mw, cells[4], cells[5], cells[6])
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
	row("move", "side", "played", "win", "choice", "win", "drop")
	// winAfter is the win rate of move i for its mover, and whether it is known.
	winAfter := func(i int) (float64, bool) {
		f := res[i]
		if i+1 < n && res[i+1].search && !res[i+1].an.NoValue {
			v := (res[i+1].an.Value + 1) / 2
			if res[i+1].mover != f.mover {
				v = 1 - v
			}
			return v, true
		}
		for _, m := range f.an.Moves {
			if m.Move == rec.Moves[i] && m.WinProb >= 0 && (m.Visits > 0 || m.Proven || m.Prior < 0) {
				return m.WinProb, true
			}
		}
		return 0, false
	}
	// Each position is searched before the next, so that a move's line (row) is written once
	// its next position is known.
	line := func(i int, end *games.Position) {
		f := res[i]
		if !f.search {
			return
		}
		played, ok := winAfter(i)
		if !ok && i == n-1 && end.Over() {
			switch end.Result() {
			case f.mover:
				played, ok = 1, true
			case "draw":
				played, ok = 0.5, true
			default:
				played, ok = 0, true
			}
		}
		var c strings.Builder
		fmt.Fprintf(&c, "zero analyse (%s):", agent.Spec())
		if !f.an.NoValue {
			fmt.Fprintf(&c, " %s's win %.1f%% before the move;", f.mover, 50*(f.an.Value+1))
		}
		choice := f.an.Moves[0]
		fmt.Fprintf(&c, " choice %s", choice.Move)
		if choice.WinProb >= 0 {
			fmt.Fprintf(&c, " (%.1f%%", 100*choice.WinProb)
			if choice.Visits > 0 {
				fmt.Fprintf(&c, ", %d visits", choice.Visits)
			}
			c.WriteString(")")
		}
		if len(f.an.PV) > 1 {
			fmt.Fprintf(&c, ", line %s", strings.Join(f.an.PV, " "))
		}
		drop := ""
		switch {
		case choice.Move == rec.Moves[i]:
			c.WriteString("; played it")
		case ok:
			fmt.Fprintf(&c, "; played %s: %.1f%%", rec.Moves[i], 100*played)
			if choice.WinProb >= 0 {
				d := 100 * (choice.WinProb - played)
				drop = fmt.Sprintf("%.1f", math.Max(d, 0))
				if d >= 100*mistake-1e-9 {
					fmt.Fprintf(&c, ", a drop of %.1f points: a mistake", d)
					drop += " mistake"
					a.mistakes++
				}
			}
		default:
			fmt.Fprintf(&c, "; played %s, not searched", rec.Moves[i])
		}
		win, choiceWin := "?", "?"
		if ok {
			win = fmt.Sprintf("%.1f%%", 100*played)
		}
		if choice.WinProb >= 0 {
			choiceWin = fmt.Sprintf("%.1f%%", 100*choice.WinProb)
		}
		row(strconv.Itoa(i+1), f.mover, rec.Moves[i], win, choice.Move, choiceWin, drop)
		comments := a.rec.Comments
		if len(comments) < n+1 {
			comments = append(comments, make([]string, n+1-len(comments))...)
		}
		if comments[i+1] != "" {
			comments[i+1] += "\n"
		}
		comments[i+1] += c.String()
		a.rec.Comments = comments
	}
	a.rec.Comments = append([]string(nil), rec.Comments...)
	for i, m := range rec.Moves {
		if err := ctx.Err(); err != nil {
			return a, err
		}
		mover := pos.ToMove()
		res[i].mover = mover
		if mover != "chance" {
			an, err := agent.Analyze(ctx, pos, lim, nil)
			if err != nil {
				return a, fmt.Errorf("move %d: %w", i+1, err)
			}
			if err := ctx.Err(); err != nil {
				return a, err
			}
			res[i].an, res[i].search = an, true
			a.searched++
		}
		if i > 0 {
			line(i-1, pos)
		}
		if err := pos.Play(m); err != nil {
			return a, fmt.Errorf("move %d: %w", i+1, err)
		}
	}
	if n > 0 {
		line(n-1, pos)
	}
	if len(a.rec.Comments) == 0 {
		a.rec.Comments = make([]string, n+1)
	}
	note := fmt.Sprintf("Analysed by zero analyse with %s: %s (a drop of %g points or more in the mover's win rate).", agent.Spec(), nouns(a.mistakes, "mistake"), 100*mistake)
	if a.rec.Comments[0] != "" {
		note = a.rec.Comments[0] + "\n" + note
	}
	a.rec.Comments[0] = note
	return a, nil
}
