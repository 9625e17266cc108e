package lineread

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

// Read measures a line without its end: 1 MiB of text is taken with either end, one byte
// more is refused, and so is a last line with no end (it was taken whatever its length).
func TestReadLimit(t *testing.T) {
	text := strings.Repeat("x", Max)
	tests := []struct {
		name, in string
		long     bool
	}{
		{"the limit, \\n", text + "\n", false},
		{"the limit, \\r\\n", text + "\r\n", false},
		{"the limit, no end", text, false},
		{"one more, \\n", text + "y\n", true},
		{"one more, \\r\\n", text + "y\r\n", true},
		{"one more, no end", text + "y", true},
		{"\\r\\n across the buffer's edge", strings.Repeat("x", 64*1024-1) + "\r\n", false},
	}
	for _, tt := range tests {
		in, next := tt.in, ""
		if strings.HasSuffix(in, "\n") {
			in, next = in+"tomove\n", "tomove" // else the line is the input's last
		}
		r := bufio.NewReaderSize(strings.NewReader(in), 64*1024)
		got, err := Read(r)
		switch {
		case tt.long && !errors.Is(err, ErrLong):
			t.Errorf("%s: %d bytes, %v: want ErrLong", tt.name, len(got), err)
		case !tt.long && (err != nil && !errors.Is(err, io.EOF) || got != strings.TrimRight(tt.in, "\r\n")):
			t.Errorf("%s: %d bytes, %v: want the line's %d", tt.name, len(got), err, len(strings.TrimRight(tt.in, "\r\n")))
		}
		if got, err := Read(r); got != next || (err != nil) != (next == "") {
			t.Errorf("%s: the next line %q, %v; want %q", tt.name, got, err, next)
		}
	}
}
