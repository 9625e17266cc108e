package selfplay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/internal/atomicfile"
)

// Record is a game as zero keeps it: who played which side, every decision in the game's
// notation, and how it ended. PlayGame returns one; `zero arena` writes them to games.jsonl,
// `zero play` and the browser save one to a file, and `zero play --load` reads either.
//
// A record is written in one of two layouts, both JSON, which ReadRecords tells apart and
// reads into this one type:
//
//   - the game file (MarshalFile; `zero play --record`, `save`, the browser's download), one
//     game, indented, one move a line:
//
//     {"format": "zero-game/1", "game": "yinsh-blitz",
//     "players": {"white": "human", "black": "uct:1000"},
//     "moves": ["place f6", "place e5", …], "result": "black", "resigned": "white"}
//
//   - the game line (MarshalLine; an arena's games.jsonl, one game a line), which adds how the
//     game was set up:
//
//     {"game":"gyges","players":["random","ab:2"],"sides":["south","north"],
//     "moves":"1@a1;3@f1;…","decisions":28,"result":"north","seeds":[…]}
//
// Both layouts are exactly those of the files zero has written, so every such file still
// reads, and files written now read in earlier builds.
type Record struct {
	// Game is the game's registry name ("yinsh-blitz").
	Game string
	// Sides are the game's names of sides 0 and 1 ("white", "black").
	Sides [2]string
	// Players are who played sides 0 and 1: a player spec ("uct:1000"), or "human".
	Players [2]string
	// Moves are every decision from the start, chance's included, in the game's notation.
	Moves []string
	// Result is "none" for an unfinished game, the winner's side name, or "draw".
	Result string
	// Resigned is the side that resigned, or "" (the result is then the other side).
	Resigned string
	// Opening is the number of decisions at the start that were drawn at random (Setup).
	Opening int
	// Seeds are the seeds of the game's chance and of the players of sides 0 and 1: with the
	// same players they play the game again exactly (zero for a game not played by PlayGame).
	Seeds [3]uint64
	// Thinking is how each side's player spent its moves, as PlayGame measured it (not
	// written in files).
	Thinking [2]Thinking
	// Comments are notes on the game: index 0 before the first move, index i after move i;
	// nil for none. Only SGF holds them (internal/games.MarshalSGF): the JSON layouts leave
	// them out.
	Comments []string
}

// Thinking is what a player spent choosing moves: the moves it chose (neither the opening's
// nor chance's), the wall time its Choose took, and the simulations its searches ran (0 for
// a player that does not count them).
type Thinking struct {
	Moves       int           `json:"moves"`
	Time        time.Duration `json:"time_ns"`
	Simulations int64         `json:"simulations,omitempty"`
}

// Add adds o's counts to t.
func (t *Thinking) Add(o Thinking) {
	t.Moves += o.Moves
	t.Time += o.Time
	t.Simulations += o.Simulations
}

// RecordFormat names the game-file layout; a file of another format is refused.
const RecordFormat = "zero-game/1"

// MaxRecordSize bounds one record, and a file that is not games in lines; the longest games are
// a few kilobytes.
const MaxRecordSize = 1 << 20

// MaxRecordsSize bounds a file of records (an arena's games.jsonl).
const MaxRecordsSize = 256 << 20

// Winner is the side that won, or env.Terminal for a draw or an unfinished game.
func (r Record) Winner() env.Player {
	switch r.Result {
	case r.Sides[0]:
		return 0
	case r.Sides[1]:
		return 1
	}
	return env.Terminal
}

// PlayerOf is who played the side named side, or "" if the game has no such side.
func (r Record) PlayerOf(side string) string {
	for i, name := range r.Sides {
		if name == side {
			return r.Players[i]
		}
	}
	return ""
}

// MoveList is the moves separated by ';': a move list env.Replay and `zero engine` accept.
func (r Record) MoveList() string { return strings.Join(r.Moves, ";") }

// fileLayout is the game file: zero-game/1.
type fileLayout struct {
	Format   string            `json:"format"`
	Game     string            `json:"game"`
	Players  map[string]string `json:"players"`
	Moves    []string          `json:"moves"`
	Result   string            `json:"result"`
	Resigned string            `json:"resigned,omitempty"`
}

// lineLayout is the game line of an arena's games.jsonl.
type lineLayout struct {
	Game      string    `json:"game"`
	Players   [2]string `json:"players"`
	Sides     [2]string `json:"sides"`
	Moves     string    `json:"moves"`
	Decisions int       `json:"decisions"`
	Result    string    `json:"result"`
	Resigned  string    `json:"resigned,omitempty"`
	Opening   int       `json:"opening,omitempty"`
	Seeds     [3]uint64 `json:"seeds"`
}

// MarshalFile is the record in the game-file layout, indented, ending with a newline. The
// opening and seeds are not part of it.
func (r Record) MarshalFile() []byte {
	f := fileLayout{Format: RecordFormat, Game: r.Game, Moves: r.Moves, Result: r.Result, Resigned: r.Resigned,
		Players: map[string]string{r.Sides[0]: r.Players[0], r.Sides[1]: r.Players[1]}}
	if f.Moves == nil {
		f.Moves = []string{}
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		panic(err) // strings and maps of strings always marshal
	}
	return append(b, '\n')
}

// SaveFile writes the record to a file in the game-file layout, atomically: a game saved over
// an older one leaves the older whole if the write fails.
func (r Record) SaveFile(path string) error {
	return atomicfile.WriteBytes(path, r.MarshalFile())
}

// MarshalLine is the record in the game-line layout, on one line ending with a newline.
func (r Record) MarshalLine() []byte {
	l := lineLayout{Game: r.Game, Players: r.Players, Sides: r.Sides, Moves: r.MoveList(), Decisions: len(r.Moves),
		Result: r.Result, Resigned: r.Resigned, Opening: r.Opening, Seeds: r.Seeds}
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(&l); err != nil {
		panic(err) // strings and numbers always marshal
	}
	return buf.Bytes()
}

// anyLayout is what either layout may hold; Players and Moves differ in type between them.
type anyLayout struct {
	Format    *string         `json:"format"`
	Game      string          `json:"game"`
	Players   json.RawMessage `json:"players"`
	Sides     *[2]string      `json:"sides"`
	Moves     json.RawMessage `json:"moves"`
	Decisions *int            `json:"decisions"`
	Result    string          `json:"result"`
	Resigned  string          `json:"resigned"`
	Opening   *int            `json:"opening"`
	Seeds     *[3]uint64      `json:"seeds"`
}

// ReadRecords reads the records of a game file (one record) or of a file of game lines (any
// number, an arena's games.jsonl). Reading is strict: unknown fields, another format, fields
// of the other layout and a record larger than MaxRecordSize are refused; game names the
// record's game (nil from info refuses it) and the players, sides, result and resignation must
// name its sides. The moves are not checked against the rules here: internal/games replays
// them. An error about the n-th record of several says which.
func ReadRecords(rd io.Reader, info func(game string) (*env.Info, error)) ([]Record, error) {
	data, err := io.ReadAll(io.LimitReader(rd, MaxRecordsSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxRecordsSize {
		return nil, fmt.Errorf("larger than %d bytes: not a file of game records", MaxRecordsSize)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var recs []Record
	for {
		start := dec.InputOffset()
		var a anyLayout
		err := dec.Decode(&a)
		if errors.Is(err, io.EOF) && len(recs) > 0 {
			return recs, nil
		}
		game := len(recs) > 0 || a.Format == nil && dec.More()
		where := func(err error) error {
			if game {
				return fmt.Errorf("game %d: %w", len(recs)+1, err)
			}
			return err
		}
		if len(recs) == 0 && len(data) > MaxRecordSize && (err != nil || a.Format != nil) {
			return nil, fmt.Errorf("larger than %d bytes: not a game record", MaxRecordSize)
		}
		if err != nil {
			return nil, where(decodeError(err))
		}
		if dec.InputOffset()-start > MaxRecordSize {
			return nil, where(fmt.Errorf("larger than %d bytes: not a game record", MaxRecordSize))
		}
		if a.Format != nil && (len(recs) > 0 || dec.More()) {
			return nil, errors.New("not a game record: data after the JSON object")
		}
		rec, err := a.record(info)
		if err != nil {
			return nil, where(err)
		}
		recs = append(recs, rec)
	}
}

// fieldWants says what each field of a record holds, for errors about it.
var fieldWants = map[string]string{
	"format":    "a string (" + RecordFormat + ")",
	"game":      "the game's name, a string",
	"players":   "who played each side",
	"sides":     "the game's two sides, a list of two strings",
	"moves":     "the moves",
	"decisions": "the number of moves, an integer",
	"result":    "a string: none, draw or a side",
	"resigned":  "the side that resigned, a string",
	"opening":   "a number of decisions, an integer",
	"seeds":     "three integers from 0 to 18446744073709551615",
}

// decodeError words a JSON decoding error for people: which field and what it wants, never
// the Go types the record is decoded into.
func decodeError(err error) error {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return fmt.Errorf("not a game record: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	found := te.Value
	switch {
	case strings.HasPrefix(found, "number "):
		found = strings.TrimPrefix(found, "number ")
	case found == "array":
		found = "a list"
	case found == "bool":
		found = "true or false"
	default:
		found = "a " + found // string, number, object
	}
	field, _, _ := strings.Cut(te.Field, ".")
	if want, ok := fieldWants[field]; ok {
		return fmt.Errorf("%s: want %s, not %s", field, want, found)
	}
	return fmt.Errorf("not a game record: want a JSON object, not %s", found)
}

// record checks a decoded record and turns it into a Record.
func (a *anyLayout) record(info func(string) (*env.Info, error)) (Record, error) {
	var rec Record
	line := a.Format == nil
	for _, f := range []struct {
		name  string
		given bool
	}{{"sides", a.Sides != nil}, {"decisions", a.Decisions != nil}, {"opening", a.Opening != nil}, {"seeds", a.Seeds != nil}} {
		if !line && f.given {
			return rec, fmt.Errorf("not a game record: unknown field %q in %s", f.name, RecordFormat)
		}
	}
	switch {
	case !line && *a.Format != RecordFormat:
		return rec, fmt.Errorf("format: %q, want %q", *a.Format, RecordFormat)
	case line && (a.Sides == nil || a.Decisions == nil || a.Seeds == nil):
		return rec, fmt.Errorf("not a game record: want a format (%q), or sides, decisions and seeds", RecordFormat)
	}
	in, err := info(a.Game)
	if err != nil {
		return rec, fmt.Errorf("game: %w", err)
	}
	names := in.PlayerNames
	rec = Record{Game: a.Game, Sides: names, Result: a.Result, Resigned: a.Resigned}
	if line {
		if *a.Sides != names {
			return rec, fmt.Errorf("sides: %q, but %s's are %q", *a.Sides, a.Game, names)
		}
		var moves string
		if err := json.Unmarshal(a.Moves, &moves); err != nil {
			return rec, errors.New("moves: want the moves as one string, separated by ';'")
		}
		if moves != "" {
			rec.Moves = strings.Split(moves, ";")
		}
		if len(rec.Moves) != *a.Decisions {
			return rec, fmt.Errorf("decisions: %d, but the moves are %d", *a.Decisions, len(rec.Moves))
		}
		if err := json.Unmarshal(a.Players, &rec.Players); err != nil || rec.Players[0] == "" || rec.Players[1] == "" {
			return rec, fmt.Errorf("players: want who played %s and %s, in this order", names[0], names[1])
		}
		if a.Opening != nil {
			rec.Opening = *a.Opening
		}
		rec.Seeds = *a.Seeds
	} else {
		if err := json.Unmarshal(a.Moves, &rec.Moves); err != nil && len(a.Moves) > 0 {
			return rec, errors.New("moves: want a list of moves, each a string")
		}
		var players map[string]string
		if err := json.Unmarshal(a.Players, &players); err != nil || len(players) != 2 || players[names[0]] == "" || players[names[1]] == "" {
			return rec, fmt.Errorf("players: want who played %s and %s", names[0], names[1])
		}
		rec.Players = [2]string{players[names[0]], players[names[1]]}
	}
	if rec.Opening < 0 {
		return rec, fmt.Errorf("opening: %d, want a number of decisions ≥ 0", rec.Opening)
	}
	if rec.Resigned != "" && !slices.Contains(names[:], rec.Resigned) {
		return rec, fmt.Errorf("resigned: %q is not a player of %s", rec.Resigned, a.Game)
	}
	if r := rec.Result; r != "none" && r != "draw" && !slices.Contains(names[:], r) {
		return rec, fmt.Errorf("result: %q, want none, draw, %s or %s", r, names[0], names[1])
	}
	return rec, nil
}
