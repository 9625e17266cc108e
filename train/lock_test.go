//go:build unix

package train

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLockFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	first, err := lockFolder(dir) // makes the folder
	if err != nil {
		t.Fatal(err)
	}
	// A second holder, in this process or another, is refused and told who holds it.
	_, err = lockFolder(dir)
	if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), fmt.Sprintf("(pid %d on ", os.Getpid())) {
		t.Fatalf("second lock: %v, want ErrBusy naming pid %d", err, os.Getpid())
	}
	if err := first.unlock(); err != nil {
		t.Fatal(err)
	}
	// The file stays behind, as after a SIGKILL: it does not hold the folder.
	if _, err := os.Stat(filepath.Join(dir, lockFile)); err != nil {
		t.Fatal(err)
	}
	again, err := lockFolder(dir)
	if err != nil {
		t.Fatalf("the folder stays locked after its holder let go: %v", err)
	}
	again.unlock()
}
