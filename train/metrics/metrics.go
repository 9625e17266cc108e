// Package metrics is a training run's log of measurements: metrics.jsonl in the run folder, one
// JSON object per line, appended as the run goes and read back by `zero report`.
//
// A record has a kind ("train", "selfplay", "eval"), the training step, the wall-clock time and
// the run's own elapsed time (which resumes where the last session stopped), and any number of
// named values. A line cut short by a crash is skipped when reading; nothing before it is lost.
//
// A killed session's records after its last checkpoint stay in the file; Timeline
// drops them where the resumed session's clock steps back, Sequence does the same
// as records arrive, and Tail reads a growing file by its whole new lines (the
// dashboard follows a run with the two). The selfplay and ingest records come
// every log period and once more for a session's last period when it stops, so
// that the records end at the step, time and games the run's state gives.
package metrics

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"sync"
	"time"
)

// TrainerWorker is the worker name of the trainer's own self-play in the ingest records
// (worker/train/games_per_s): the games of any other worker are remote workers'.
const TrainerWorker = "train"

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

// MaxLine bounds a line of a metrics file (a record is some hundreds of bytes): Read fails past
// it, a Tail skips the line.
const MaxLine = 16 << 20

func read(r io.Reader) ([]Record, int, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), MaxLine)
	var out []Record
	skipped := 0
	for sc.Scan() {
		rec, ok, blank := parseLine(sc.Bytes())
		switch {
		case ok:
			out = append(out, rec)
		case !blank:
			skipped++
		}
	}
	return out, skipped, sc.Err()
}

// parseLine decodes one line of a metrics file: ok if it is a record, blank if it is empty
// (neither: a damaged line).
func parseLine(line []byte) (rec Record, ok, blank bool) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return rec, false, true
	}
	if err := json.Unmarshal(line, &rec); err != nil {
		return rec, false, false
	}
	return rec, true, false
}

// Tail reads a metrics file as a run appends to it: each Next returns the records of the lines
// written since the one before, reading only the new bytes, so that a watcher (zero serve's
// dashboard) follows a long run without reading it again every time.
//
// A last line without its newline is a record being written: it is left for the next call.
// A whole line that is not a record (cut short by a crash, then ended by the next session's
// Create) is skipped and counted, as Read does; so is a line longer than MaxLine (a torn tail
// of zeros), read past once, not gathered.
type Tail struct {
	path    string
	file    os.FileInfo // the file read so far, to tell another file at path
	off     int64       // the end of the last whole line read (or, in a line too long, how far it was read)
	seen    []byte      // the bytes just before off, as read: a file made anew at the path may reuse the inode
	long    bool        // off is inside a line longer than MaxLine, being skipped
	skipped int
}

// seenBytes is how many bytes before its offset a Tail checks are unchanged.
const seenBytes = 64

// NewTail follows the metrics file at path, from its start.
func NewTail(path string) *Tail { return &Tail{path: path} }

// Skipped is the number of damaged lines skipped so far.
func (t *Tail) Skipped() int { return t.skipped }

// Next returns the records of the whole lines appended since the last call. reset tells that
// the file is not the one read before (another file at the path, or one shorter than what was
// read: a run folder made again): the records are then the new file's from its start, and
// whatever the caller kept from the old one is void. A file that does not exist (yet) has no
// records; it is not an error.
//
// The file is told from another by its identity (os.SameFile), its size, and the bytes just
// before what was read, which must read the same again: a run folder removed and made anew
// may get the old file's inode back, and a new file longer than what was read is no sequel.
func (t *Tail) Next() (records []Record, reset bool, err error) {
	f, err := os.Open(t.path)
	if errors.Is(err, os.ErrNotExist) {
		reset = t.file != nil
		t.file, t.off, t.seen, t.long, t.skipped = nil, 0, nil, false, 0
		return nil, reset, nil
	}
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	if t.file != nil && (!os.SameFile(t.file, st) || st.Size() < t.off || !t.unchanged(f)) {
		reset = true
		t.off, t.seen, t.long, t.skipped = 0, nil, false, 0
	}
	t.file = st
	defer t.remember(f)
	// Line by line through a small buffer: a first read of a long run's file holds one line
	// at a time, not the whole file.
	r := bufio.NewReaderSize(io.NewSectionReader(f, t.off, st.Size()-t.off), 64<<10)
	for {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) || t.long {
			// A line longer than the buffer: gathered whole up to MaxLine (none is, in
			// practice), read past beyond it.
			var long []byte
			n := int64(0)
			for {
				n += int64(len(line))
				if !t.long && int64(len(long))+int64(len(line)) <= MaxLine {
					long = append(long, line...)
				} else {
					t.long, long = true, nil
				}
				if !errors.Is(err, bufio.ErrBufferFull) {
					break
				}
				line, err = r.ReadSlice('\n')
			}
			line = long
			if t.long {
				t.off += n // past what was read: nothing of it is parsed
				if err == nil {
					t.long = false // it ended here
					t.skipped++
					continue
				}
			}
		}
		if err == io.EOF {
			return records, reset, nil // what is left, if anything, is a line being written
		}
		if err != nil {
			if len(records) > 0 {
				return records, reset, nil // read past: the error comes again next time
			}
			return nil, reset, err
		}
		t.off += int64(len(line))
		rec, ok, blank := parseLine(line)
		switch {
		case ok:
			records = append(records, rec)
		case !blank:
			t.skipped++
		}
	}
}

// unchanged tells whether f holds, just before t.off, the bytes read there before.
func (t *Tail) unchanged(f *os.File) bool {
	if len(t.seen) == 0 {
		return true
	}
	var buf [seenBytes]byte
	b := buf[:len(t.seen)]
	_, err := f.ReadAt(b, t.off-int64(len(b)))
	return err == nil && bytes.Equal(b, t.seen)
}

// remember keeps the bytes just before t.off, for unchanged.
func (t *Tail) remember(f *os.File) {
	n := min(t.off, seenBytes)
	t.seen = slices.Grow(t.seen[:0], int(n))[:n]
	if _, err := f.ReadAt(t.seen, t.off-n); err != nil {
		t.seen = t.seen[:0]
	}
}

// Timeline drops the train and selfplay records of sessions' lost ends: a session killed
// (SIGKILL, a crash) after its last checkpoint wrote records that its resume wrote again, for
// the steps it trained again from that checkpoint. The run's clock (Elapsed) of those two
// kinds, taken when written, goes forward within a session (but for writers racing by a few
// microseconds); a record more than a second behind the newest starts a resumed session, and
// the earlier records ahead of it are dropped. Eval records, stamped with their checkpoint's
// clock, are kept.
func Timeline(records []Record) []Record {
	s := Sequence{out: make([]Record, 0, len(records))}
	s.Add(records...)
	return s.out
}

// Sequence is Timeline kept as records arrive: after each Add, Records is the Timeline of
// every record added so far. The zero value is an empty sequence.
type Sequence struct {
	out     []Record
	clock   float64 // the newest train or selfplay record's Elapsed, when started
	started bool
}

// Add appends records in file order and returns how many records added before were dropped
// (a resumed session's first record drops the lost end of the session before).
func (s *Sequence) Add(records ...Record) (dropped int) {
	live := func(r Record) bool { return r.Kind == "train" || r.Kind == "selfplay" }
	for _, r := range records {
		if live(r) {
			if s.started && r.Elapsed < s.clock-1 {
				n := len(s.out)
				s.out = slices.DeleteFunc(s.out, func(o Record) bool { return live(o) && o.Elapsed > r.Elapsed })
				dropped += n - len(s.out)
				s.clock = r.Elapsed
			}
			if !s.started {
				s.clock, s.started = r.Elapsed, true
			}
			s.clock = max(s.clock, r.Elapsed)
		}
		s.out = append(s.out, r)
	}
	return dropped
}

// Records are the records kept, in file order. The slice is the sequence's own: read it
// before the next Add.
func (s *Sequence) Records() []Record { return s.out }

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
