package metrics

import (
	"os"
	"path/filepath"
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
