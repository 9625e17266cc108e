package tfevents

import (
	"bytes"
	"encoding/hex"
	"math"
	"os"
	"strings"
	"testing"
	"time"
)

func TestMaskedCRC(t *testing.T) {
	// CRC-32C's check value (RFC 3720, B.4: "123456789" → 0xe3069283), masked by hand.
	c := uint32(0xe3069283)
	if got, want := maskedCRC([]byte("123456789")), (c>>15|c<<17)+0xa282ead8; got != want {
		t.Fatalf("maskedCRC = %#x, want %#x", got, want)
	}
}

func TestWriteRead(t *testing.T) {
	dir := t.TempDir()
	start := time.Unix(1_790_000_000, 250_000_000)
	w, err := Create(dir, start)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(w.Name(), dir+"/events.out.tfevents.1790000000.") {
		t.Errorf("file %s: TensorBoard looks for events.out.tfevents.*", w.Name())
	}
	steps := []struct {
		step   int64
		values map[string]float64
	}{
		{25, map[string]float64{"train/loss_policy": 3.25, "train/loss_value": 0.5}},
		{50, map[string]float64{"train/loss_policy": 2.75, "eval/elo": -12.5}},
		{1 << 40, map[string]float64{"selfplay/games_per_s": math.Inf(1)}},
	}
	for i, s := range steps {
		if err := w.Scalars(start.Add(time.Duration(i+1)*time.Second), s.step, s.values); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w2, err := Create(dir, start) // another in the same second
	if err != nil || w2.Name() != w.Name()+".1" {
		t.Fatalf("a second file in the same second: %v, %v", w2, err)
	}
	w2.Close()
	data, err := os.ReadFile(w.Name())
	if err != nil {
		t.Fatal(err)
	}
	// Every TensorFlow event file starts so: the 24-byte file_version event's length and that
	// length's masked CRC (the bytes of files TensorFlow writes).
	if got := hex.EncodeToString(data[:12]); got != "1800000000000000a37f4b22" {
		t.Errorf("the file starts %s, not as TensorFlow's do", got)
	}
	events, err := Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 1+len(steps) || events[0].FileVersion != FileVersion || events[0].Wall != 1_790_000_000.25 {
		t.Fatalf("events %+v: want the file version at the start time first", events)
	}
	for i, s := range steps {
		ev := events[i+1]
		if ev.Step != s.step || ev.Wall != float64(1_790_000_001+i)+0.25 || len(ev.Scalars) != len(s.values) {
			t.Errorf("event %d: %+v, want step %d with %v", i+1, ev, s.step, s.values)
		}
		for tag, v := range s.values {
			if got, ok := ev.Scalars[tag]; !ok || got != float32(v) {
				t.Errorf("event %d: %s = %v, want %v", i+1, tag, got, v)
			}
		}
	}
}

func TestReadDamage(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir, time.Unix(1, 0))
	if err != nil {
		t.Fatal(err)
	}
	w.Scalars(time.Unix(2, 0), 7, map[string]float64{"a": 1})
	w.Close()
	good, _ := os.ReadFile(w.Name())
	cases := []struct {
		name string
		data func() []byte
		want string
	}{
		{"torn tail", func() []byte { return good[:len(good)-3] }, "record at byte 40: cut short"},
		{"torn header", func() []byte { return good[:45] }, "record at byte 40: its header is cut short"},
		{"length flipped", func() []byte { b := bytes.Clone(good); b[40] ^= 1; return b }, "record at byte 40: the length's CRC"},
		{"data flipped", func() []byte { b := bytes.Clone(good); b[len(b)-6] ^= 0x10; return b }, "record at byte 40: the data's CRC"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			events, err := Read(bytes.NewReader(tc.data()))
			if err == nil || !strings.Contains(err.Error(), tc.want) || len(events) != 1 {
				t.Errorf("Read: %d events, %v; want the first event and %q", len(events), err, tc.want)
			}
		})
	}
}
