package games

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/internal/atomicfile"
	"github.com/zerogames/zero/selfplay"
)

// ReadRecords reads the game records of r (a game file or an arena's games.jsonl, see
// selfplay.ReadRecords; or an SGF collection, see MarshalSGF) and checks each against the
// rules of its game: every move legal in turn, a resignation only in a game that had not
// ended, and the result the one the moves (and resignation) give.
func ReadRecords(r io.Reader) ([]selfplay.Record, error) {
	data, err := io.ReadAll(io.LimitReader(r, selfplay.MaxRecordsSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > selfplay.MaxRecordsSize {
		return nil, fmt.Errorf("larger than %d bytes: not a file of game records", selfplay.MaxRecordsSize)
	}
	var recs []selfplay.Record
	if IsSGF(data) {
		recs, err = readSGF(data)
	} else {
		recs, err = selfplay.ReadRecords(bytes.NewReader(data), info)
	}
	if err != nil {
		return nil, err
	}
	for i := range recs {
		if _, _, err := Replay(&recs[i]); err != nil {
			if len(recs) > 1 {
				return nil, fmt.Errorf("game %d: %w", i+1, err)
			}
			return nil, err
		}
	}
	return recs, nil
}

// ReadRecord reads and checks one game record (see ReadRecords); a file of several is refused.
func ReadRecord(r io.Reader) (selfplay.Record, error) {
	recs, err := ReadRecords(r)
	switch {
	case err != nil:
		return selfplay.Record{}, err
	case len(recs) > 1:
		return selfplay.Record{}, fmt.Errorf("%d games: want one", len(recs))
	}
	return recs[0], nil
}

// SelfPlay is who played both sides of a training run's self-play game, in its record.
const SelfPlay = "self-play"

// ActionRecord is the record of a game of g kept as action indices with its result (a
// training run's replay buffer keeps its games so): every decision checked by the rules and
// written in the game's notation, players the given ones. A game that stops before its end
// with a winner was resigned by the loser. The result must be the one the moves give.
func ActionRecord(g Game, actions []env.Action, result env.Result, players [2]string) (selfplay.Record, error) {
	in := g.Info()
	pos, err := g.PositionOf(actions)
	if err != nil {
		return selfplay.Record{}, err
	}
	r := selfplay.Record{Game: in.Name, Sides: in.PlayerNames, Players: players, Moves: pos.Moves(), Result: in.ResultName(result)}
	switch {
	case pos.Over() && pos.Result() != r.Result:
		return r, fmt.Errorf("result: %s, but the moves give %s", r.Result, pos.Result())
	case pos.Over():
	case result == env.Win0 || result == env.Win1:
		r.Resigned = in.PlayerNames[1-result.Winner()]
	default:
		return r, fmt.Errorf("the game stops after %d decisions, unfinished, and nobody won (result %s)", len(actions), r.Result)
	}
	return r, nil
}

func info(game string) (*env.Info, error) {
	g, err := Lookup(game)
	if err != nil {
		return nil, err
	}
	return g.Info(), nil
}

// LoadRecord reads and checks one game of a file: path, or path#N for the N-th game (from 1)
// of a file of several (an arena's games.jsonl). Errors name the file.
func LoadRecord(path string) (selfplay.Record, error) {
	n := 0
	if i := strings.LastIndexByte(path, '#'); i >= 0 {
		if _, err := os.Stat(path); err != nil {
			k, err := strconv.Atoi(path[i+1:])
			if err != nil || k < 1 {
				return selfplay.Record{}, fmt.Errorf("%s: want FILE#N, N the number of a game from 1", path)
			}
			path, n = path[:i], k
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return selfplay.Record{}, err
	}
	defer f.Close()
	recs, err := ReadRecords(f)
	switch {
	case err != nil:
		return selfplay.Record{}, fmt.Errorf("%s: %w", path, err)
	case n == 0 && len(recs) > 1:
		return selfplay.Record{}, fmt.Errorf("%s holds %d games: load one as %s#N", path, len(recs), path)
	case n > len(recs):
		return selfplay.Record{}, fmt.Errorf("%s holds %d games, not %d", path, len(recs), n)
	}
	return recs[max(n-1, 0)], nil
}

// Replay plays the record's moves through the rules and returns the position and the side
// that resigned (-1 for none). It checks everything ReadRecords promises.
func Replay(r *selfplay.Record) (*Position, int, error) {
	g, err := Lookup(r.Game)
	if err != nil {
		return nil, -1, fmt.Errorf("game: %w", err)
	}
	names := g.Info().PlayerNames
	if r.Sides != names || r.Players[0] == "" || r.Players[1] == "" {
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

// SaveRecord writes one record to path, atomically: as SGF (MarshalSGF) when the name ends in
// .sgf, else in zero's game-file layout (selfplay.Record.SaveFile).
func SaveRecord(path string, r selfplay.Record) error {
	if !IsSGFName(path) {
		return r.SaveFile(path)
	}
	text, err := MarshalSGF(r)
	if err != nil {
		return err
	}
	return atomicfile.WriteBytes(path, text)
}

// IsSGFName tells a file name that asks for SGF: it ends in .sgf, in any case.
func IsSGFName(path string) bool { return strings.EqualFold(filepath.Ext(path), ".sgf") }
