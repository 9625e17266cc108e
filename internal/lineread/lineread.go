// Package lineread reads text input a line at a time with a bound on a line's length, for the
// programs a person or another program types to (zero engine, zero play): a line too long is
// consumed and reported, and the reading goes on with the next.
package lineread

import (
	"bufio"
	"errors"
	"io"
	"strings"
)

// Max bounds a line's text; a longer one is refused (and skipped) as ErrLong.
const Max = 1 << 20

// ErrLong is the error of a line longer than Max bytes. The line is consumed: the next read
// returns the line after it.
var ErrLong = errors.New("line too long")

// Read reads one line without its end ("\n" or "\r\n"; the last line may have none); a line
// whose text is longer than Max bytes is consumed and reported as ErrLong. At the end of the
// input it returns the last line's text with io.EOF (an empty text if the input ended with a
// line end), and a read error with what was read of the line.
func Read(r *bufio.Reader) (string, error) {
	var buf []byte // the line, up to Max bytes and an end
	n := 0         // the line's length, its end included
	var prev byte  // the last byte of the chunk before
	for {
		chunk, err := r.ReadSlice('\n')
		n += len(chunk)
		if room := Max + 2 - len(buf); room > 0 {
			buf = append(buf, chunk[:min(room, len(chunk))]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			prev = chunk[len(chunk)-1]
			continue
		}
		end := 0
		if k := len(chunk); k > 0 && chunk[k-1] == '\n' {
			end = 1
			if k > 1 && chunk[k-2] == '\r' || k == 1 && prev == '\r' {
				end = 2
			}
		}
		if n-end > Max {
			return "", ErrLong
		}
		return strings.TrimRight(string(buf), "\r\n"), err
	}
}

// Line is a line as Lines reads it: its text without its end, and the error that came with it
// (ErrLong for a line refused, io.EOF or another for the input's end).
type Line struct {
	Text string
	Err  error
}

// Lines reads in line by line (Read) on a goroutine of its own, so that its reader can wait on
// other things too (an interrupt, a search's end), until done closes. A line too long comes
// with ErrLong and the reading goes on; the channel closes after the line that comes with the
// input's end (io.EOF) or a read error.
func Lines(in io.Reader, done <-chan struct{}) <-chan Line {
	ch := make(chan Line)
	go func() {
		defer close(ch)
		r := bufio.NewReaderSize(in, 64*1024)
		for {
			text, err := Read(r)
			select {
			case ch <- Line{text, err}:
			case <-done:
				return
			}
			if err != nil && !errors.Is(err, ErrLong) {
				return
			}
		}
	}()
	return ch
}
