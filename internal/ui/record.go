package ui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/zerogames/zero/internal/games"
)

// RecordFormat names the version of the record format; a record of another is refused.
const RecordFormat = "zero-game/1"

// MaxRecordSize bounds a record file; the longest games are a few kilobytes.
const MaxRecordSize = 1 << 20

// Record is a game as saved: by `zero play` at the end and on `save`, by the browser's
// download. It is JSON:
//
//	{"format": "zero-game/1", "game": "yinsh-blitz",
//	 "players": {"white": "human", "black": "uct:1000"},
//	 "moves": ["place f6", "place e5", …], "result": "black", "resigned": "white"}
//
// Players maps each of the game's player names to "human" or an agent spec. Moves are every
// decision from the start in the game's notation, chance draws included, so the record
// replays exactly. Result is "none" for an unfinished game, a player name, or "draw";
// Resigned, when present, names the player who resigned (the result is then the other).
type Record struct {
	Format   string            `json:"format"`
	Game     string            `json:"game"`
	Players  map[string]string `json:"players"`
	Moves    []string          `json:"moves"`
	Result   string            `json:"result"`
	Resigned string            `json:"resigned,omitempty"`
}

// Marshal is the record as indented JSON, one move per line.
func (r Record) Marshal() []byte {
	if r.Moves == nil {
		r.Moves = []string{}
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		panic(err) // strings and maps of strings always marshal
	}
	return append(b, '\n')
}

// ReadRecord reads and checks a record: strict JSON (unknown fields refused), a known format
// and game, the players named as the game names them, every move legal in turn, and the
// result the one the moves (and resignation) give.
func ReadRecord(r io.Reader) (Record, error) {
	var rec Record
	data, err := io.ReadAll(io.LimitReader(r, MaxRecordSize+1))
	if err != nil {
		return rec, err
	}
	if len(data) > MaxRecordSize {
		return rec, fmt.Errorf("larger than %d bytes: not a game record", MaxRecordSize)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		return rec, fmt.Errorf("not a game record: %w", err)
	}
	if dec.More() {
		return rec, errors.New("not a game record: data after the JSON object")
	}
	if rec.Format != RecordFormat {
		return rec, fmt.Errorf("format: %q, want %q", rec.Format, RecordFormat)
	}
	if _, _, err := rec.Replay(); err != nil {
		return rec, err
	}
	return rec, nil
}

// LoadRecord reads and checks the record in a file; errors name the file.
func LoadRecord(path string) (Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return Record{}, err
	}
	defer f.Close()
	rec, err := ReadRecord(f)
	if err != nil {
		return rec, fmt.Errorf("%s: %w", path, err)
	}
	return rec, nil
}

// Save writes the record to a file.
func (r Record) Save(path string) error {
	return os.WriteFile(path, r.Marshal(), 0o644)
}

// Replay plays the record's moves through the rules and returns the position and the side
// that resigned (-1 for none). It checks everything ReadRecord promises.
func (r Record) Replay() (*games.Position, int, error) {
	g, err := games.Lookup(r.Game)
	if err != nil {
		return nil, -1, fmt.Errorf("game: %w", err)
	}
	names := g.Info().PlayerNames
	if len(r.Players) != 2 || r.Players[names[0]] == "" || r.Players[names[1]] == "" {
		return nil, -1, fmt.Errorf("players: want who played %s and %s", names[0], names[1])
	}
	pos := g.NewPosition()
	for i, m := range r.Moves {
		if err := pos.Play(m); err != nil {
			return nil, -1, fmt.Errorf("moves: move %d: %w", i+1, err)
		}
	}
	resigned := -1
	if r.Resigned != "" {
		resigned = slices.Index(names[:], r.Resigned)
		if resigned < 0 {
			return nil, -1, fmt.Errorf("resigned: %q is not a player of %s", r.Resigned, r.Game)
		}
		if pos.Over() {
			return nil, -1, fmt.Errorf("resigned: %s resigned a game that had ended", r.Resigned)
		}
	}
	want := pos.Result()
	if resigned >= 0 {
		want = names[1-resigned]
	}
	if r.Result != want {
		return nil, -1, fmt.Errorf("result: %q, but the moves give %q", r.Result, want)
	}
	return pos, resigned, nil
}
