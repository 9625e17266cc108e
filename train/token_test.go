package train

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/zerogames/zero/train/runfolder"
)

// TestWorkerTokenIsPrivate: the worker token is made readable by its owner only, and a token
// file others may read (as a build that wrote it 0644 and then changed its mode could leave
// it, on a crash between the two) is made private and kept.
func TestWorkerTokenIsPrivate(t *testing.T) {
	dir := t.TempDir()
	token, err := workerToken(dir)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, runfolder.TokenFile)
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("a new token file: mode %v (%v)", st.Mode().Perm(), err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	again, err := workerToken(dir)
	if err != nil || again != token {
		t.Fatalf("the token read again: %q, %v; want %q", again, err, token)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("a token file others could read: mode %v after reading it (%v)", st.Mode().Perm(), err)
	}
}
