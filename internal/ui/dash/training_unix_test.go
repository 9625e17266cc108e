//go:build unix

package dash

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestTraining: the list says a run is trained in while a process holds its lock.
func TestTraining(t *testing.T) {
	runs := t.TempDir()
	dir := writeRun(t, runs, "blitz", 20, 0)
	h := New(Options{RunsDir: runs})
	lock := filepath.Join(dir, "lock")
	os.WriteFile(lock, []byte("zero (pid 1 on elsewhere, since 2026-11-24 10:00:00)\n"), 0o644)
	if _, body, _ := get(t, h, "GET", "/api/runs"); !strings.Contains(string(body), `"training":false`) {
		t.Fatalf("a lock file nobody holds: %s", body)
	}
	f := holdLock(t, lock)
	defer f.Close()
	if _, body, _ := get(t, h, "GET", "/api/runs"); !strings.Contains(string(body), `"training":true,"holder":"zero (pid 1 on elsewhere, since 2026-11-24 10:00:00)"`) {
		t.Fatalf("a lock held: %s", body)
	}
}

// holdLock holds path's lock as a trainer does (an exclusive flock) until the file is closed.
func holdLock(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	return f
}
