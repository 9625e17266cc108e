package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// analyse runs the analysis engine on queries and returns its answers.
func analyse(t *testing.T, workers int, queries string) []Answer {
	t.Helper()
	var out strings.Builder
	err := ServeAnalysis(context.Background(), strings.NewReader(queries), &out,
		AnalysisOptions{Game: "yinsh", Player: "uct:40", Seed: 1, Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	var answers []Answer
	for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		var a Answer
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&a); err != nil {
			t.Fatalf("an answer that is not one: %q: %v", line, err)
		}
		answers = append(answers, a)
	}
	return answers
}

// TestAnalysisEngine: each query is answered once for each position it asks about, with its
// id, the root's visits and a line per move searched (the choice first, its line the root's
// principal variation); bad lines and bad queries are answered with an error naming the line,
// the field, the move or the turn, and the engine goes on.
func TestAnalysisEngine(t *testing.T) {
	for _, tc := range []struct {
		name, query string
		want        []string // per answer: its id, turn and error (empty: analysed), as "id/turn/error"
	}{
		{"the position after the moves", `{"id":"a","moves":["place f6","place e5"],"maxVisits":25}`, []string{"a/2/"}},
		{"two turns", `{"id":"b","moves":["place f6","place e5"],"analyzeTurns":[0,1]}`, []string{"b/0/", "b/1/"}},
		{"another game and player", `{"id":"c","game":"gyges","player":"uct:30"}`, []string{"c/0/"}},
		{"a position in the game's notation", `{"id":"d","game":"gyges-advanced","position":"023100/100300/000020/002010/300000/010320 s","maxTime":0.05}`, []string{"d/0/"}},
		{"a player without a search", `{"id":"e","player":"random"}`, []string{"e/0/"}},
		{"not JSON", `not json`, []string{"/0/line 1: not a query"}},
		{"an unknown field", `{"id":"f","maxNodes":3}`, []string{`/0/line 1: not a query: json: unknown field "maxNodes"`}},
		{"a field's name in another case", `{"id":"f","maxvisits":3}`, []string{`f/0/line 1: not a query: unknown field "maxvisits" (the fields: id, game, position, moves, analyzeTurns, player, maxVisits, maxTime)`}},
		{"no id", `{"moves":[]}`, []string{"/0/line 1: the query has no id"}},
		{"two objects on a line", `{"id":"g"} {"id":"h"}`, []string{"g/0/line 1: more after the query's object"}},
		{"an illegal move", `{"id":"i","moves":["place f6","place f6"]}`, []string{`i/2/move 2 "place f6": `}},
		{"a turn past the moves", `{"id":"j","moves":["place f6"],"analyzeTurns":[2]}`, []string{"j/2/analyzeTurns: 2 is not a turn from 0 to 1"}},
		{"an unknown game", `{"id":"k","game":"chess"}`, []string{`k/0/unknown game "chess"`}},
		{"a player refused", `{"id":"l","player":"uct:0"}`, []string{"l/0/player: player \"uct:0\""}},
		{"too many visits", `{"id":"m","maxVisits":-1}`, []string{"m/0/maxVisits -1: want 1 to"}},
		{"a bad position", `{"id":"n","game":"gyges","position":"xyz"}`, []string{`n/0/position "xyz": `}},
		{"a game over", `{"id":"o","game":"yinsh-blitz","moves":["` + strings.ReplaceAll(winInOne, ";", `","`) + `","move d4-f4","row e2-e6","ring a2"]}`,
			[]string{fmt.Sprintf("o/%d/the game is over after %[1]d moves (white)", len(strings.Split(winInOne, ";"))+3)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := analyse(t, 1, tc.query+"\n")
			if len(got) != len(tc.want) {
				t.Fatalf("%d answers, want %d: %+v", len(got), len(tc.want), got)
			}
			for i, a := range got {
				id, rest, _ := strings.Cut(tc.want[i], "/")
				turn, wantErr, _ := strings.Cut(rest, "/")
				if a.ID != id || fmt.Sprint(a.TurnNumber) != turn || !strings.HasPrefix(a.Error, wantErr) || (wantErr == "") != (a.Error == "") {
					t.Fatalf("answer %d: id %q, turn %d, error %q; want %s", i, a.ID, a.TurnNumber, a.Error, tc.want[i])
				}
				if a.Error != "" {
					continue
				}
				if a.RootInfo == nil || len(a.MoveInfos) == 0 || a.MoveInfos[0].Order != 0 {
					t.Fatalf("answer %d: no root or moves: %+v", i, a)
				}
				if m := a.MoveInfos[0]; m.Move != a.RootInfo.PV[0] || strings.Join(m.PV, ";") != strings.Join(a.RootInfo.PV, ";") {
					t.Errorf("answer %d: the choice %q (line %v) is not the root's line %v", i, m.Move, m.PV, a.RootInfo.PV)
				}
				for k, m := range a.MoveInfos {
					if m.Order != k || len(m.PV) == 0 || m.PV[0] != m.Move {
						t.Errorf("answer %d, move %d: %+v", i, k, m)
					}
					if m.LCB != nil && m.WinRate != nil && *m.LCB > *m.WinRate {
						t.Errorf("answer %d, move %d: lcb %v above the win rate %v", i, k, *m.LCB, *m.WinRate)
					}
				}
			}
			if tc.name == "the position after the moves" && got[0].RootInfo.Visits != 25 {
				t.Errorf("maxVisits 25: %d visits", got[0].RootInfo.Visits)
			}
			if tc.name == "a player without a search" && (got[0].RootInfo.Value != nil || got[0].MoveInfos[0].Prior != nil) {
				t.Errorf("random has an opinion: %+v", got[0])
			}
		})
	}
}

// TestAnalysisInFlight: queries searched at once by several workers are each answered once,
// every answer naming its query.
func TestAnalysisInFlight(t *testing.T) {
	var in strings.Builder
	for i := range 12 {
		fmt.Fprintf(&in, `{"id":"q%d","moves":["place f6"],"maxVisits":%d}`+"\n", i, 20+i)
	}
	got := analyse(t, 3, in.String())
	seen := map[string]int{}
	for _, a := range got {
		if a.Error != "" {
			t.Fatalf("%s: %s", a.ID, a.Error)
		}
		seen[a.ID]++
		var i int
		fmt.Sscanf(a.ID, "q%d", &i)
		if a.RootInfo.Visits != 20+i {
			t.Errorf("%s: %d visits, want %d", a.ID, a.RootInfo.Visits, 20+i)
		}
	}
	if len(seen) != 12 || len(got) != 12 {
		t.Errorf("%d answers for %d queries: %v", len(got), len(seen), seen)
	}
}
