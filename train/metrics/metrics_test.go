package metrics

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

func TestWriteReadAndTornLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "metrics.jsonl")
	l, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	for step := range int64(3) {
		if err := l.Write(Record{Kind: "train", Step: step, Time: now, Elapsed: float64(step), Values: map[string]float64{"loss": 3 - float64(step), "lr": 0.01}}); err != nil {
			t.Fatal(err)
		}
	}
	l.Write(Record{Kind: "eval", Step: 2, Time: now, Values: map[string]float64{"elo": 120}})
	// No Close: a crash in the middle of the next line.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"kind":"train","step":3,"val`)
	f.Close()

	records, skipped, err := Read(path)
	if err != nil || len(records) != 4 || skipped != 1 {
		t.Fatalf("read %d records, skipped %d, err %v; want 4, 1, nil", len(records), skipped, err)
	}
	series := Collect(records, "train")
	if len(series) != 2 || series[0].Name != "loss" || series[1].Name != "lr" {
		t.Fatalf("series %+v", series)
	}
	if got := series[0].Value; len(got) != 3 || got[2] != 1 || series[0].Step[2] != 2 {
		t.Fatalf("loss series %+v", series[0])
	}
	// Appending after a torn line starts a new line that reads back.
	l2, _ := Create(path)
	l2.Write(Record{Kind: "eval", Step: 9, Values: map[string]float64{"elo": 200}})
	l2.Close()
	records, skipped, _ = Read(path)
	if elo := Collect(records, "eval"); len(elo) != 1 || len(elo[0].Value) != 2 {
		t.Fatalf("after appending past a torn line: %+v (skipped %d)", elo, skipped)
	}
}

// TestTimeline drops the records a killed session wrote after its last checkpoint, which its
// resume wrote again, and keeps everything else.
func TestTimeline(t *testing.T) {
	rec := func(kind string, step int64, elapsed float64) Record {
		return Record{Kind: kind, Step: step, Elapsed: elapsed}
	}
	type r = Record
	for _, c := range []struct {
		name     string
		in, want []Record
	}{
		{"one session", []r{rec("train", 1, 1), rec("selfplay", 1, 2), rec("eval", 1, 1.5), rec("train", 2, 3)}, nil},
		{"writers racing", []r{rec("selfplay", 5, 10.0002), rec("train", 5, 10.0001), rec("train", 6, 11)}, nil},
		{"clean stop and resume", []r{rec("train", 1, 1), rec("train", 2, 2), rec("train", 3, 2.5), rec("train", 4, 3)}, nil},
		{
			"killed after step 2's checkpoint",
			[]r{rec("train", 1, 1), rec("train", 2, 2), rec("eval", 2, 2), rec("train", 3, 3), rec("selfplay", 3, 4), rec("train", 4, 5),
				rec("train", 3, 2.5), rec("train", 4, 3.5)},
			[]r{rec("train", 1, 1), rec("train", 2, 2), rec("eval", 2, 2), rec("train", 3, 2.5), rec("train", 4, 3.5)},
		},
		{
			"killed twice",
			[]r{rec("train", 1, 10), rec("train", 2, 20), rec("train", 2, 15), rec("train", 3, 25), rec("train", 2, 12)},
			[]r{rec("train", 1, 10), rec("train", 2, 12)},
		},
	} {
		want := c.want
		if want == nil {
			want = c.in
		}
		if got := Timeline(c.in); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %v, want %v", c.name, got, want)
		}
	}
}

// TestSequence adds Timeline's cases one record at a time, as a watcher gets them: each step
// is the Timeline of what came so far, and what a resume drops is counted.
func TestSequence(t *testing.T) {
	rec := func(kind string, step int64, elapsed float64) Record {
		return Record{Kind: kind, Step: step, Elapsed: elapsed}
	}
	in := []Record{rec("train", 1, 10), rec("eval", 1, 10), rec("train", 2, 20), rec("selfplay", 2, 21), rec("train", 2, 15),
		rec("train", 3, 25), rec("train", 2, 12)}
	var s Sequence
	dropped := 0
	for i, r := range in {
		dropped += s.Add(r)
		if got, want := s.Records(), Timeline(in[:i+1]); !reflect.DeepEqual(got, want) {
			t.Fatalf("after %d records: %v, want %v", i+1, got, want)
		}
	}
	// 20 and 21 dropped by 15, then 15 and 25 by 12.
	if dropped != 4 {
		t.Errorf("dropped %d records, want 4", dropped)
	}
}

// TestTail follows a file as a run writes it: only new whole lines, a line being written
// left for later, a damaged line skipped, another file at the path read from its start.
func TestTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "metrics.jsonl")
	tail := NewTail(path)
	next := func(wantSteps []int64, wantReset bool) {
		t.Helper()
		recs, reset, err := tail.Next()
		if err != nil {
			t.Fatal(err)
		}
		var steps []int64
		for _, r := range recs {
			steps = append(steps, r.Step)
		}
		if !reflect.DeepEqual(steps, wantSteps) || reset != wantReset {
			t.Fatalf("steps %v reset %v, want %v %v", steps, reset, wantSteps, wantReset)
		}
	}
	next(nil, false) // no file yet
	l, _ := Create(path)
	l.Write(Record{Kind: "train", Step: 1, Values: map[string]float64{"loss": 2}})
	l.Write(Record{Kind: "train", Step: 2, Values: map[string]float64{"loss": 1.5}})
	next([]int64{1, 2}, false)
	next(nil, false)
	appendString := func(s string) {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(s)
		f.Close()
	}
	appendString(`{"kind":"train","step":3,"val`) // a writer mid-append
	next(nil, false)
	appendString(`ues":{"loss":1}}` + "\n")
	next([]int64{3}, false)
	appendString(`{"kind":"train","st` + "\n") // cut short by a crash, ended by the next session
	l.Write(Record{Kind: "eval", Step: 4})
	next([]int64{4}, false)
	// A record longer than the reader's buffer (a run with thousands of workers' rates).
	many := map[string]float64{}
	for i := range 5000 {
		many[fmt.Sprintf("worker/w%04d/games_per_s", i)] = float64(i)
	}
	l.Write(Record{Kind: "ingest", Step: 5, Values: many})
	l.Write(Record{Kind: "eval", Step: 6})
	if recs, _, err := tail.Next(); err != nil || len(recs) != 2 || len(recs[0].Values) != 5000 || recs[1].Step != 6 {
		t.Fatalf("a long record: %d records, %v", len(recs), err)
	}
	if tail.Skipped() != 1 {
		t.Errorf("skipped %d lines, want 1", tail.Skipped())
	}
	l.Close()
	// The run folder made again: a new file, read from its start.
	os.Remove(path)
	l, _ = Create(path)
	l.Write(Record{Kind: "train", Step: 1})
	l.Close()
	next([]int64{1}, true)
	// Another run's file written over it in place (the same inode, as a folder removed and made
	// anew may get), longer than what was read: no sequel of the first, read from its start.
	var other bytes.Buffer
	for step := range 4 {
		line, _ := json.Marshal(Record{Kind: "train", Step: int64(100 + step), Time: time.Unix(int64(step), 0)})
		other.Write(append(line, '\n'))
	}
	if err := os.WriteFile(path, other.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	next([]int64{100, 101, 102, 103}, true)
	next(nil, false)
}

// A line longer than MaxLine (a torn tail of zeros, a file of another kind) is read past and
// skipped, once, not gathered: the records after it are read, and a poll while it is still
// being written neither gathers it nor reads it again.
func TestTailOverlongLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "metrics.jsonl")
	l, _ := Create(path)
	l.Write(Record{Kind: "train", Step: 1})
	l.Close()
	tail := NewTail(path)
	steps := func() []int64 {
		t.Helper()
		recs, reset, err := tail.Next()
		if err != nil || reset {
			t.Fatalf("reset %v, %v", reset, err)
		}
		var out []int64
		for _, r := range recs {
			out = append(out, r.Step)
		}
		return out
	}
	if got := steps(); !reflect.DeepEqual(got, []int64{1}) {
		t.Fatalf("steps %v", got)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.Write(make([]byte, MaxLine+1)) // no newline yet
	if got := steps(); got != nil {
		t.Fatalf("steps %v in a line being written", got)
	}
	if st, err := os.Stat(path); err != nil || tail.off != st.Size() || !tail.long {
		t.Fatalf("offset %d, long %v: the line past MaxLine is not read past", tail.off, tail.long)
	}
	f.Write(make([]byte, 1000))
	f.WriteString("\n")
	line, _ := json.Marshal(Record{Kind: "eval", Step: 2})
	f.Write(append(line, '\n'))
	if got := steps(); !reflect.DeepEqual(got, []int64{2}) || tail.Skipped() != 1 {
		t.Fatalf("steps %v, skipped %d: want [2] and the long line skipped", got, tail.Skipped())
	}
}
