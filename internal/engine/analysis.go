package engine

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/zerogames/zero/internal/games"
	"github.com/zerogames/zero/selfplay"
)

// The JSON analysis engine (zero analysis), modelled on KataGo's: a query a line in, one answer
// a line out for each position it asks about, several queries searched at once, each answer
// naming its query's id (answers may come in another order than the queries).

// Query is one request of the analysis engine.
type Query struct {
	// ID names the query in its answers.
	ID string `json:"id"`
	// Game is the game (default: the engine's --game).
	Game string `json:"game,omitempty"`
	// Position, if set, is where the moves start: a position in the game's notation (Gygès),
	// else the game's beginning.
	Position string `json:"position,omitempty"`
	// Moves are the decisions played from there, in the game's notation.
	Moves []string `json:"moves,omitempty"`
	// AnalyzeTurns lists the positions to analyse, each after that many of the moves (default:
	// after all of them).
	AnalyzeTurns []int `json:"analyzeTurns,omitempty"`
	// Player is the player that analyses (a spec; default: the engine's --player).
	Player string `json:"player,omitempty"`
	// MaxVisits bounds the simulations (alpha-beta: ignored) and MaxTime the seconds of each
	// analysis; neither: the player's own budget.
	MaxVisits int     `json:"maxVisits,omitempty"`
	MaxTime   float64 `json:"maxTime,omitempty"`
}

// Answer is the analysis of one position of a query, or the query's error.
type Answer struct {
	ID         string     `json:"id"`
	TurnNumber int        `json:"turnNumber"`
	Error      string     `json:"error,omitempty"`
	Game       string     `json:"game,omitempty"`
	ToMove     string     `json:"toMove,omitempty"`
	RootInfo   *RootInfo  `json:"rootInfo,omitempty"`
	MoveInfos  []MoveInfo `json:"moveInfos,omitempty"`
}

// RootInfo is what the player thinks of the position. Value and WinRate are null where the
// player has no opinion (random, a chance decision).
type RootInfo struct {
	Visits  int      `json:"visits"`
	Value   *float64 `json:"value"`
	WinRate *float64 `json:"winrate"`
	Time    float64  `json:"time"`
	NPS     float64  `json:"nps"`
	PV      []string `json:"pv"`
}

// MoveInfo is one candidate move, the player's choice first (order 0), then the others it
// searched: as the engine's analyze lines give them (docs/ENGINE.md). Prior, WinRate and LCB
// are null where the player does not know them.
type MoveInfo struct {
	Move    string   `json:"move"`
	Order   int      `json:"order"`
	Visits  int      `json:"visits"`
	Share   float64  `json:"share"`
	Prior   *float64 `json:"prior"`
	WinRate *float64 `json:"winrate"`
	LCB     *float64 `json:"lcb"`
	PV      []string `json:"pv"`
}

// AnalysisOptions are the analysis engine's defaults and its workers.
type AnalysisOptions struct {
	Game    string
	Player  string
	Seed    uint64
	Workers int // queries searched at once (at least 1)
}

// maxQueryBytes bounds a query's line.
const maxQueryBytes = 1 << 20

// maxQueryTurns bounds the positions one query asks about.
const maxQueryTurns = 1000

// ServeAnalysis answers the queries of in, a JSON object a line, on out until in ends (the
// queries read by then all answered) or ctx does. A line that is not a query is answered with
// an error naming its line; a query that cannot be analysed, with its id and the reason.
func ServeAnalysis(ctx context.Context, in io.Reader, out io.Writer, opts AnalysisOptions) error {
	if _, err := games.Lookup(opts.Game); err != nil {
		return err
	}
	workers := max(opts.Workers, 1)
	var mu sync.Mutex
	w := bufio.NewWriter(out)
	write := func(a Answer) {
		b, err := json.Marshal(a)
		if err != nil {
			b, _ = json.Marshal(Answer{ID: a.ID, TurnNumber: a.TurnNumber, Error: err.Error()})
		}
		mu.Lock()
		defer mu.Unlock()
		w.Write(append(b, '\n'))
		w.Flush()
	}
	jobs := make(chan Query)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			agents := map[string]games.Agent{} // by game and player
			for q := range jobs {
				for _, a := range analyseQuery(ctx, q, opts, agents) {
					write(a)
				}
			}
		})
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), maxQueryBytes)
	line := 0
	var readErr error
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		var q Query
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&q); err != nil {
			write(Answer{Error: fmt.Sprintf("line %d: not a query: %v", line, err)})
			continue
		}
		if f := unknownField(text); f != "" {
			// encoding/json matches names regardless of case; a query's are exact.
			write(Answer{ID: q.ID, Error: fmt.Sprintf("line %d: not a query: unknown field %q (the fields: %s)", line, f, strings.Join(queryFields(), ", "))})
			continue
		}
		if dec.More() {
			write(Answer{ID: q.ID, Error: fmt.Sprintf("line %d: more after the query's object", line)})
			continue
		}
		if q.ID == "" {
			write(Answer{Error: fmt.Sprintf("line %d: the query has no id", line)})
			continue
		}
		select {
		case jobs <- q:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			err = fmt.Errorf("line %d: a query longer than %d bytes", line+1, maxQueryBytes)
		}
		readErr = err
	}
	close(jobs)
	wg.Wait()
	if readErr != nil {
		write(Answer{Error: readErr.Error()})
	}
	return ctx.Err()
}

// analyseQuery analyses each position q asks about with its player (made once per worker for
// each game and player, kept in agents).
func analyseQuery(ctx context.Context, q Query, opts AnalysisOptions, agents map[string]games.Agent) []Answer {
	fail := func(turn int, format string, a ...any) []Answer {
		return []Answer{{ID: q.ID, TurnNumber: turn, Error: fmt.Sprintf(format, a...)}}
	}
	gameName := orDefault(q.Game, opts.Game)
	g, err := games.Lookup(gameName)
	if err != nil {
		return fail(0, "%v", err)
	}
	spec := orDefault(q.Player, opts.Player)
	switch {
	case q.MaxVisits < 0 || q.MaxVisits > selfplay.MaxSimulations:
		return fail(0, "maxVisits %d: want 1 to %d (or none: the player's own)", q.MaxVisits, selfplay.MaxSimulations)
	case q.MaxTime < 0 || math.IsNaN(q.MaxTime) || q.MaxTime > selfplay.MaxMoveTime.Seconds():
		return fail(0, "maxTime %v: want a number of seconds above 0 up to %v (or none)", q.MaxTime, selfplay.MaxMoveTime.Seconds())
	case len(q.AnalyzeTurns) > maxQueryTurns:
		return fail(0, "analyzeTurns: %d turns, at most %d", len(q.AnalyzeTurns), maxQueryTurns)
	}
	turns := q.AnalyzeTurns
	if len(turns) == 0 {
		turns = []int{len(q.Moves)}
	}
	for _, t := range turns {
		if t < 0 || t > len(q.Moves) {
			return fail(t, "analyzeTurns: %d is not a turn from 0 to %d (the moves given)", t, len(q.Moves))
		}
	}
	start := func() (*games.Position, error) {
		if q.Position == "" {
			return g.NewPosition(), nil
		}
		return games.FromPosition(g, q.Position)
	}
	if _, err := start(); err != nil {
		return fail(0, "position %q: %v", q.Position, err)
	}
	key := gameName + "\x00" + spec
	a, ok := agents[key]
	if !ok {
		if a, err = g.NewAgent(spec, opts.Seed); err != nil {
			return fail(0, "player: %v", err)
		}
		agents[key] = a
	}
	lim := selfplay.Limits{}
	if q.MaxTime > 0 {
		lim = selfplay.Limits{Simulations: math.MaxInt, Time: time.Duration(q.MaxTime * float64(time.Second))}
	}
	if q.MaxVisits > 0 {
		lim.Simulations = q.MaxVisits
		lim.Untimed = q.MaxTime == 0
	}
	var answers []Answer
	for _, t := range turns {
		pos, _ := start()
		for i, m := range q.Moves[:t] {
			if err := pos.Play(m); err != nil {
				return append(answers, fail(t, "move %d %q: %v", i+1, m, err)...)
			}
		}
		if pos.Over() {
			answers = append(answers, fail(t, "the game is over after %d moves (%s)", t, pos.Result())...)
			continue
		}
		began := time.Now()
		an, err := a.Analyze(ctx, pos, lim, nil)
		if err != nil {
			answers = append(answers, fail(t, "%v", err)...)
			continue
		}
		el := time.Since(began).Seconds()
		root := &RootInfo{Visits: an.Work, Time: el, NPS: float64(an.Work) / max(el, 1e-9), PV: an.PV}
		if !an.NoValue {
			v, w := an.Value, (an.Value+1)/2
			root.Value, root.WinRate = &v, &w
		}
		ans := Answer{ID: q.ID, TurnNumber: t, Game: gameName, ToMove: pos.ToMove(), RootInfo: root}
		for k, m := range an.Moves {
			if k > 0 && m.Visits == 0 && !m.Proven {
				continue
			}
			mi := MoveInfo{Move: m.Move, Order: len(ans.MoveInfos), Visits: m.Visits, Share: m.Share, PV: m.PV,
				Prior: known(m.Prior), WinRate: known(m.WinProb), LCB: known(m.LCB())}
			if len(mi.PV) == 0 {
				mi.PV = []string{m.Move}
			}
			ans.MoveInfos = append(ans.MoveInfos, mi)
		}
		answers = append(answers, ans)
	}
	return answers
}

// queryFields are the JSON names of Query's fields.
func queryFields() []string {
	t := reflect.TypeFor[Query]()
	var names []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		names = append(names, name)
	}
	return names
}

// unknownField is the first key of the JSON object text that is not exactly a field of Query,
// or "".
func unknownField(text []byte) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(text, &m) != nil {
		return ""
	}
	fields := queryFields()
	for k := range m {
		if !slices.Contains(fields, k) {
			return k
		}
	}
	return ""
}

// known is x, or nil where it is unknown (negative).
func known(x float64) *float64 {
	if x < 0 {
		return nil
	}
	return &x
}

// orDefault is s, or def where s is empty.
func orDefault(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}
