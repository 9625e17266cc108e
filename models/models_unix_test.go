//go:build unix

package models

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadFileRefuses: a checkpoint path that is not a regular file is refused without a read
// (a FIFO nobody writes would block it for ever, /dev/zero fill the memory), and a file
// larger than MaxBytes is refused with the path and the limit, unread; a link to a file reads.
func TestReadFileRefuses(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.zck")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	large := filepath.Join(dir, "large.zck")
	f, err := os.Create(large)
	if err != nil {
		t.Fatal(err)
	}
	// Sparse: no disk used.
	if err := f.Truncate(MaxBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	limit := filepath.Join(dir, "limit.zck")
	if err := os.WriteFile(limit, []byte("zeronet\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(limit, MaxBytes); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.zck")
	if err := os.Symlink(limit, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want string // part of the error; "" reads MaxBytes bytes
	}{
		{dir, dir + ": a folder, not a checkpoint file"},
		{"/dev/null", "/dev/null: a device, not a checkpoint file"},
		{large, large + ": larger than 268435456 bytes (256 MiB), the most a checkpoint may hold"},
		{limit, ""},
		{link, ""},
		// Last, as a read that blocks ends the test. (/dev/zero, which an unbounded read
		// fills the memory with, is cmd/zero's TestHostileCheckpoints', in a child process
		// whose memory is bounded.)
		{fifo, fifo + ": a named pipe, not a checkpoint file"},
	}
	for _, tt := range tests {
		if _, err := os.Stat(tt.path); err != nil {
			t.Errorf("%s: %v", tt.path, err)
			continue
		}
		done := make(chan struct{})
		var data []byte
		go func() {
			defer close(done)
			data, err = ReadFile(tt.path)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("ReadFile(%q) still reads after 10 s", tt.path)
		}
		switch {
		case tt.want == "" && (err != nil || len(data) != MaxBytes || string(data[:8]) != "zeronet\n"):
			t.Errorf("ReadFile(%q): %d bytes, %v; want the %d bytes", tt.path, len(data), err, MaxBytes)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("ReadFile(%q): %d bytes, %v; want an error with %q", tt.path, len(data), err, tt.want)
		}
		if tt.path != large && tt.want != "" && Exists(tt.path) {
			t.Errorf("Exists(%q) is true", tt.path)
		}
	}
}
