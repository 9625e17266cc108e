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

// TestRemoveTemps: the temporary file of a write a killed process left is removed, named as
// Write names it (its name taken from inside a writer); the folder's other files, dot files
// included, are not.
func TestRemoveTemps(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	var temp string
	WriteBytes(filepath.Join(dir, "keep.json"), []byte("{}"))
	Write(filepath.Join(dir, "state.json"), func(io.Writer) error {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".state.json.tmp") {
				temp = filepath.Join(dir, e.Name())
			}
		}
		data, _ := os.ReadFile(temp)
		return os.WriteFile(filepath.Join(other, filepath.Base(temp)), data, 0o644) // what a kill leaves
	})
	os.WriteFile(filepath.Join(dir, ".hidden"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "notes.tmp"), nil, 0o644)
	removed, err := RemoveTemps(dir, other)
	if err != nil || temp == "" || len(removed) != 1 || removed[0] != filepath.Join(other, filepath.Base(temp)) {
		t.Fatalf("RemoveTemps = %q, %v; want the one temporary file %s of %s", removed, err, filepath.Base(temp), other)
	}
	for _, name := range []string{"keep.json", ".hidden", "notes.tmp"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
