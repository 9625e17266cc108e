//go:build unix

package runfolder

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestLockFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	first, err := Take(dir) // makes the folder
	if err != nil {
		t.Fatal(err)
	}
	// A second holder, in this process or another, is refused and told who holds it.
	_, err = Take(dir)
	if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), fmt.Sprintf("(pid %d on ", os.Getpid())) {
		t.Fatalf("second lock: %v, want ErrBusy naming pid %d", err, os.Getpid())
	}
	if err := first.Release(); err != nil {
		t.Fatal(err)
	}
	// The file stays behind, as after a SIGKILL: it does not hold the folder.
	if _, err := os.Stat(filepath.Join(dir, lockFile)); err != nil {
		t.Fatal(err)
	}
	again, err := Take(dir)
	if err != nil {
		t.Fatalf("the folder stays locked after its holder let go: %v", err)
	}
	// The lock file deleted (by hand) while the folder is held: a second holder is still
	// refused, though the first is no longer named (it was, with a lock on the file alone).
	if err := os.Remove(filepath.Join(dir, lockFile)); err != nil {
		t.Fatal(err)
	}
	if _, err = Take(dir); !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "another process trains in it") {
		t.Fatalf("second lock with the lock file deleted: %v, want ErrBusy", err)
	}
	if holder, training, err := Holder(dir); !training || err != nil || holder != "another process" {
		t.Fatalf("Holder with the lock file deleted: %q, training %v, %v", holder, training, err)
	}
	again.Release()
	if _, training, err := Holder(dir); training || err != nil {
		t.Fatalf("let go, the lock file deleted: training %v, %v", training, err)
	}
	// A lock file an older zero holds (it locked only the file): refused too.
	f, err := os.OpenFile(filepath.Join(dir, lockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if held, err := tryLock(f); !held || err != nil {
		t.Fatal(held, err)
	}
	f.WriteString("zero (an older one)\n")
	if _, err = Take(dir); !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "zero (an older one) trains in it") {
		t.Fatalf("the lock file held by another: %v, want ErrBusy naming it", err)
	}
	if holder, training, err := Holder(dir); !training || err != nil || holder != "zero (an older one)" {
		t.Fatalf("Holder of a lock file held by another: %q, training %v, %v", holder, training, err)
	}
}

// TestHolder tells a folder trained in from one that is not, and a trainer starting while a
// watcher probes gets the folder all the same.
func TestHolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if _, training, err := Holder(dir); training || err != nil {
		t.Fatalf("a folder that does not exist: training %v, %v", training, err)
	}
	l, err := Take(dir)
	if err != nil {
		t.Fatal(err)
	}
	holder, training, err := Holder(dir)
	if !training || err != nil || !strings.Contains(holder, fmt.Sprintf("(pid %d on ", os.Getpid())) {
		t.Fatalf("held: %q, training %v, %v", holder, training, err)
	}
	l.Release()
	if _, training, err := Holder(dir); training || err != nil {
		t.Fatalf("let go: training %v, %v", training, err)
	}
	// A watcher holding the lock shared (as Holder does for an instant, here for longer).
	f, err := os.Open(filepath.Join(dir, lockFile))
	if err != nil {
		t.Fatal(err)
	}
	if free, err := probeLock(f); !free || err != nil {
		t.Fatal(free, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(probeWait / 4)
		f.Close()
	}()
	l, err = Take(dir)
	if err != nil {
		t.Fatalf("a trainer starting while a watcher probes: %v", err)
	}
	l.Release()
}
