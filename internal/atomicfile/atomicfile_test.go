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
