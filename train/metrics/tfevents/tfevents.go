// Package tfevents writes TensorBoard's event files: scalars by step, so that a training run is
// seen in TensorBoard (`tensorboard --logdir runs`) as well as in `zero report`.
//
// An event file is a sequence of records, each
//
//	uint64 length (little-endian) | uint32 masked CRC-32C of the length | data | uint32 masked CRC-32C of data
//
// where data is a serialized tensorflow.Event protocol buffer: wall_time (field 1, double),
// step (2, int64), and either file_version (3, string: "brain.Event:2", the first record) or
// summary (5: repeated Value value = 1; Value: tag = 1, simple_value = 2, float). The masked
// CRC is ((crc >> 15) | (crc << 17)) + 0xa282ead8, Castagnoli polynomial. This is TensorFlow's
// record format (tensorflow/core/lib/io/record_writer.cc) and event.proto / summary.proto; the
// few fields are written with protowire.
package tfevents

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
)

// FileVersion is the first event's file_version, the format TensorBoard reads.
const FileVersion = "brain.Event:2"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// maskedCRC is TensorFlow's masked CRC-32C of b.
func maskedCRC(b []byte) uint32 {
	c := crc32.Checksum(b, castagnoli)
	return (c>>15 | c<<17) + 0xa282ead8
}

// Writer appends events to one file. It is safe for concurrent use.
type Writer struct {
	mu  sync.Mutex
	f   *os.File
	w   *bufio.Writer
	buf []byte
}

// Create starts a new event file in dir, named as TensorBoard looks for them
// (events.out.tfevents.SECONDS.HOST.PID, .1, .2… after it for more in the same second: each
// session of a run has its own, and TensorBoard reads them all as one run), with its
// file_version event.
func Create(dir string, now time.Time) (*Writer, error) {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	name := fmt.Sprintf("events.out.tfevents.%d.%s.%d", now.Unix(), host, os.Getpid())
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	for i := 1; errors.Is(err, os.ErrExist) && i < 100; i++ { // a second file of this process this second
		f, err = os.OpenFile(filepath.Join(dir, fmt.Sprintf("%s.%d", name, i)), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	}
	if err != nil {
		return nil, err
	}
	w := &Writer{f: f, w: bufio.NewWriter(f)}
	ev := appendEventHead(nil, now, 0)
	ev = protowire.AppendTag(ev, 3, protowire.BytesType)
	ev = protowire.AppendString(ev, FileVersion)
	if err := w.writeRecord(ev); err != nil {
		f.Close()
		return nil, err
	}
	return w, nil
}

// Name is the file's path.
func (w *Writer) Name() string { return w.f.Name() }

func appendEventHead(b []byte, wall time.Time, step int64) []byte {
	b = protowire.AppendTag(b, 1, protowire.Fixed64Type)
	b = protowire.AppendFixed64(b, math.Float64bits(float64(wall.Unix())+float64(wall.Nanosecond())/1e9))
	if step == 0 {
		return b // proto3 leaves a default out, as TensorFlow's writers do
	}
	b = protowire.AppendTag(b, 2, protowire.VarintType)
	return protowire.AppendVarint(b, uint64(step))
}

// Scalars writes one event of step holding each value under its tag (in tag order, so that a
// file's bytes are the same for the same calls), and hands it to the operating system. NaN and
// infinities are written as they are (TensorBoard shows them as such).
func (w *Writer) Scalars(wall time.Time, step int64, values map[string]float64) error {
	tags := make([]string, 0, len(values))
	for tag := range values {
		tags = append(tags, tag)
	}
	slices.Sort(tags)
	w.mu.Lock()
	defer w.mu.Unlock()
	var summary []byte
	for _, tag := range tags {
		var v []byte
		v = protowire.AppendTag(v, 1, protowire.BytesType)
		v = protowire.AppendString(v, tag)
		v = protowire.AppendTag(v, 2, protowire.Fixed32Type)
		v = protowire.AppendFixed32(v, math.Float32bits(float32(values[tag])))
		summary = protowire.AppendTag(summary, 1, protowire.BytesType)
		summary = protowire.AppendBytes(summary, v)
	}
	ev := appendEventHead(w.buf[:0], wall, step)
	ev = protowire.AppendTag(ev, 5, protowire.BytesType)
	ev = protowire.AppendBytes(ev, summary)
	w.buf = ev
	if err := w.writeRecord(ev); err != nil {
		return err
	}
	return w.w.Flush()
}

func (w *Writer) writeRecord(data []byte) error {
	var head [12]byte
	binary.LittleEndian.PutUint64(head[:8], uint64(len(data)))
	binary.LittleEndian.PutUint32(head[8:], maskedCRC(head[:8]))
	var tail [4]byte
	binary.LittleEndian.PutUint32(tail[:], maskedCRC(data))
	w.w.Write(head[:])
	w.w.Write(data)
	_, err := w.w.Write(tail[:])
	return err
}

// Close flushes and closes the file.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return errors.Join(w.w.Flush(), w.f.Sync(), w.f.Close())
}

// Event is one event as Read finds it.
type Event struct {
	Wall        float64 // seconds since 1970
	Step        int64
	FileVersion string
	Scalars     map[string]float32
}

// Read reads an event file back, checking every record's two CRCs: it is how the tests know
// TensorBoard can read what Writer writes. A record torn at the end (a killed process) is an
// error naming its offset, as is any damage before it.
func Read(r io.Reader) ([]Event, error) {
	br := bufio.NewReader(r)
	var events []Event
	for offset := int64(0); ; {
		var head [12]byte
		if _, err := io.ReadFull(br, head[:]); err == io.EOF {
			return events, nil
		} else if err != nil {
			return events, fmt.Errorf("record at byte %d: its header is cut short", offset)
		}
		if got, want := binary.LittleEndian.Uint32(head[8:]), maskedCRC(head[:8]); got != want {
			return events, fmt.Errorf("record at byte %d: the length's CRC is %#x, not %#x", offset, got, want)
		}
		n := binary.LittleEndian.Uint64(head[:8])
		if n > 1<<30 {
			return events, fmt.Errorf("record at byte %d: a length of %d bytes", offset, n)
		}
		data := make([]byte, n+4)
		if _, err := io.ReadFull(br, data); err != nil {
			return events, fmt.Errorf("record at byte %d: cut short", offset)
		}
		if got, want := binary.LittleEndian.Uint32(data[n:]), maskedCRC(data[:n]); got != want {
			return events, fmt.Errorf("record at byte %d: the data's CRC is %#x, not %#x", offset, got, want)
		}
		ev, err := parseEvent(data[:n])
		if err != nil {
			return events, fmt.Errorf("record at byte %d: %w", offset, err)
		}
		events = append(events, ev)
		offset += int64(len(head)) + int64(len(data))
	}
}

// fields calls f with each field of a serialized message.
func fields(b []byte, f func(num protowire.Number, typ protowire.Type, v []byte) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		n = protowire.ConsumeFieldValue(num, typ, b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		if err := f(num, typ, b[:n]); err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

func parseEvent(b []byte) (Event, error) {
	var ev Event
	err := fields(b, func(num protowire.Number, typ protowire.Type, v []byte) error {
		switch {
		case num == 1 && typ == protowire.Fixed64Type:
			x, _ := protowire.ConsumeFixed64(v)
			ev.Wall = math.Float64frombits(x)
		case num == 2 && typ == protowire.VarintType:
			x, _ := protowire.ConsumeVarint(v)
			ev.Step = int64(x)
		case num == 3 && typ == protowire.BytesType:
			s, _ := protowire.ConsumeString(v)
			ev.FileVersion = s
		case num == 5 && typ == protowire.BytesType:
			summary, _ := protowire.ConsumeBytes(v)
			ev.Scalars = map[string]float32{}
			return fields(summary, func(num protowire.Number, typ protowire.Type, v []byte) error {
				if num != 1 || typ != protowire.BytesType {
					return nil
				}
				value, _ := protowire.ConsumeBytes(v)
				var tag string
				var x float32
				err := fields(value, func(num protowire.Number, typ protowire.Type, v []byte) error {
					switch {
					case num == 1 && typ == protowire.BytesType:
						tag, _ = protowire.ConsumeString(v)
					case num == 2 && typ == protowire.Fixed32Type:
						u, _ := protowire.ConsumeFixed32(v)
						x = math.Float32frombits(u)
					}
					return nil
				})
				ev.Scalars[tag] = x
				return err
			})
		}
		return nil
	})
	return ev, err
}
