// Package atomicfile writes files so that a reader, or a process resumed after a crash, sees
// either the old file whole or the new one whole, never a part: the data goes to a temporary
// file beside the target, is synced, renamed over it, and the folder is synced.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Write writes path atomically with what write produces (through a buffer). The file is
// readable by all (0644), as os.WriteFile's files usually are; on an error the target is left
// as it was and the temporary file removed.
func Write(path string, write func(io.Writer) error) error { return WriteMode(path, 0o644, write) }

// WriteMode is Write making the file with mode: the temporary file has it before anything is
// written to it, so a secret written 0600 is never readable by others.
func WriteMode(path string, mode os.FileMode, write func(io.Writer) error) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	bw := bufio.NewWriter(f)
	err = f.Chmod(mode) // CreateTemp makes files only their owner can read
	if err == nil {
		err = write(bw)
	}
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("writing %s: %w", path, err)
	}
	// The rename itself survives a power cut only once the folder is synced.
	if err := SyncDir(dir); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// SyncDir syncs the folder dir: the files created, renamed or removed in it survive a power cut
// once it returns (a file's own sync does not make its name durable).
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err == nil {
		err = d.Sync()
		if cerr := d.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return fmt.Errorf("syncing the folder %s: %w", dir, err)
	}
	return nil
}

// RemoveTemps removes from each folder the temporary files of writes a killed process left
// (".NAME.tmp…", as Write names them), and returns their paths. Only for folders no other
// process writes in meanwhile (a run folder its lock holds): a write under way would lose its
// file.
func RemoveTemps(dirs ...string) ([]string, error) {
	var removed []string
	for _, dir := range dirs {
		found, err := filepath.Glob(filepath.Join(dir, ".*.tmp*"))
		if err != nil {
			return removed, err
		}
		for _, path := range found {
			if st, err := os.Lstat(path); err != nil || !st.Mode().IsRegular() {
				continue
			}
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return removed, err
			}
			removed = append(removed, path)
		}
	}
	return removed, nil
}

// WriteBytes writes data to path atomically.
func WriteBytes(path string, data []byte) error { return WriteBytesMode(path, data, 0o644) }

// WriteBytesMode writes data to path atomically, the file made with mode.
func WriteBytesMode(path string, data []byte, mode os.FileMode) error {
	return WriteMode(path, mode, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
