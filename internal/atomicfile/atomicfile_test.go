package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	if err := WriteBytes(path, []byte("first")); err != nil {
		t.Fatal(err)
	}
	if err := WriteBytes(path, []byte("second")); err != nil {
		t.Fatal(err)
	}
	// A failed write leaves the file as it was, and no temporary file behind.
	broken := errors.New("disk full")
	err := Write(path, func(w io.Writer) error {
		w.Write([]byte("half"))
		return broken
	})
	if !errors.Is(err, broken) || err.Error() != "writing "+path+": disk full" {
		t.Fatalf("err = %v, want the writer's error after the file's name", err)
	}
	got, _ := os.ReadFile(path)
	st, _ := os.Stat(path)
	entries, _ := os.ReadDir(dir)
	if string(got) != "second" || st.Mode().Perm() != 0o644 || len(entries) != 1 {
		t.Errorf("after a failed write: %q, mode %v, %d files in the folder", got, st.Mode().Perm(), len(entries))
	}
	// The error names the file asked for, not the temporary one.
	missing := filepath.Join(dir, "missing", "x")
	if err := WriteBytes(missing, nil); err == nil || !strings.HasPrefix(err.Error(), "writing "+missing+": ") {
		t.Errorf("a write into a missing folder: %v", err)
	}
}

// TestWriteMode: the file has its mode while its data is written (the temporary file is
// looked at from inside the writer), not only once renamed: a secret is never readable by
// others.
func TestWriteMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "worker.token")
	err := WriteMode(path, 0o600, func(w io.Writer) error {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if info, err := e.Info(); err != nil || info.Mode().Perm() != 0o600 {
				t.Errorf("while writing, %s has mode %v (%v)", e.Name(), info.Mode().Perm(), err)
			}
		}
		_, err := w.Write([]byte("secret\n"))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("written: mode %v (%v)", st.Mode().Perm(), err)
	}
}
