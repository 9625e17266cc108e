// Package metrics is a training run's log of measurements: metrics.jsonl in the run folder, one
// JSON object per line, appended as the run goes and read back by `zero report`.
//
// A record has a kind ("train", "selfplay", "eval"), the training step, the wall-clock time and
// the run's own elapsed time (which resumes where the last session stopped), and any number of
// named values. A line cut short by a crash is skipped when reading; nothing before it is lost.
package metrics

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"sync"
	"time"
)

// Record is one line of metrics.jsonl.
type Record struct {
	Kind    string             `json:"kind"`
	Step    int64              `json:"step"`
	Time    time.Time          `json:"time"`
	Elapsed float64            `json:"elapsed"` // seconds of the run's life, across sessions
	Values  map[string]float64 `json:"values"`
}

// Log appends records to a metrics file. It is safe for concurrent use.
type Log struct {
	mu sync.Mutex
	f  *os.File
	w  *bufio.Writer
}

// Create opens path for appending, creating it if need be.
func Create(path string) (*Log, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	l := &Log{f: f, w: bufio.NewWriter(f)}
	// A crash may have left a line cut short: end it, so the next record starts a line of its
	// own (the torn line is skipped when reading).
	if st, err := f.Stat(); err == nil && st.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, st.Size()-1); err == nil && last[0] != '\n' {
			l.w.WriteByte('\n')
		}
	}
	return l, nil
}

// Write appends a record and hands it to the operating system at once, so a killed process
// keeps it.
func (l *Log) Write(r Record) error {
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.w.Write(line)
	l.w.WriteByte('\n')
	return l.w.Flush()
}

// Close flushes, syncs and closes the file.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return errors.Join(l.w.Flush(), l.f.Sync(), l.f.Close())
}

// Read reads the records of a metrics file. A damaged line (a write cut short) is skipped and
// counted in skipped; the file not existing is an error.
func Read(path string) (records []Record, skipped int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	return read(f)
}

func read(r io.Reader) ([]Record, int, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	var out []Record
	skipped := 0
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var rec Record
		if err := json.Unmarshal(line, &rec); err != nil {
			skipped++
			continue
		}
		out = append(out, rec)
	}
	return out, skipped, sc.Err()
}

// Timeline drops the train and selfplay records of sessions' lost ends: a session killed
// (SIGKILL, a crash) after its last checkpoint wrote records that its resume wrote again, for
// the steps it trained again from that checkpoint. The run's clock (Elapsed) of those two
// kinds, taken when written, goes forward within a session (but for writers racing by a few
// microseconds); a record more than a second behind the newest starts a resumed session, and
// the earlier records ahead of it are dropped. Eval records, stamped with their checkpoint's
// clock, are kept.
func Timeline(records []Record) []Record {
	out := make([]Record, 0, len(records))
	live := func(r Record) bool { return r.Kind == "train" || r.Kind == "selfplay" }
	clock := math.Inf(-1) // the newest train or selfplay record's Elapsed
	for _, r := range records {
		if live(r) {
			if r.Elapsed < clock-1 {
				out = slices.DeleteFunc(out, func(o Record) bool { return live(o) && o.Elapsed > r.Elapsed })
				clock = r.Elapsed
			}
			clock = max(clock, r.Elapsed)
		}
		out = append(out, r)
	}
	return out
}

// Series is the values of one name in records of one kind, in file order.
type Series struct {
	Name    string
	Step    []float64
	Elapsed []float64 // seconds
	Value   []float64
}

// Collect gathers, for records of the given kind, one series per value name, sorted by name.
func Collect(records []Record, kind string) []Series {
	byName := map[string]*Series{}
	for _, r := range records {
		if r.Kind != kind {
			continue
		}
		for name, v := range r.Values {
			s := byName[name]
			if s == nil {
				s = &Series{Name: name}
				byName[name] = s
			}
			s.Step = append(s.Step, float64(r.Step))
			s.Elapsed = append(s.Elapsed, r.Elapsed)
			s.Value = append(s.Value, v)
		}
	}
	out := make([]Series, 0, len(byName))
	for _, s := range byName {
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
