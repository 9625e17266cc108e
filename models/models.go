// Package models holds the trained checkpoints shipped with zero (GAME.zck in this folder),
// embedded in the binary, so that every command finds them from any working folder.
//
// A checkpoint is named by a path. The rule, for every reader of checkpoints (net.Load,
// net.Inspect, and so every mcts:N:CHECKPOINT player): a file at the path is read if there is
// one; otherwise a path of the form models/NAME (relative, as `mcts:400:models/yinsh.zck`
// writes it) where NAME is a shipped model reads the copy embedded in the binary. So specs
// written in the repository's root (records, scripts, docs) play the same anywhere, and a
// newer file in ./models, as in a checkout being retrained, still wins over the build's copy.
// Nothing here depends on the models' bytes: retraining replaces the files and the next build
// embeds them.
//
// The package imports nothing of zero: any package may read the shipped models through it.
package models

import (
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

//go:embed *.zck
var shipped embed.FS

// Dir is the folder of the shipped models in the repository, and the prefix of the paths that
// name them (models/GAME.zck).
const Dir = "models"

// Ext ends a checkpoint's file name.
const Ext = ".zck"

// Names lists the shipped models' file names (GAME.zck), sorted.
func Names() []string {
	entries, _ := shipped.ReadDir(".") // the embedded root always reads
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	return names
}

// Shipped tells whether name is the file name of a shipped model (yinsh.zck).
func Shipped(name string) bool {
	if !fs.ValidPath(name) || strings.Contains(name, "/") || name == "." {
		return false
	}
	_, err := fs.Stat(shipped, name)
	return err == nil
}

// Path is the path that names the shipped model called name: models/NAME.
func Path(name string) string { return Dir + "/" + name }

// ShippedName is the shipped model a path names under the rule above (models/NAME, once
// cleaned, NAME shipped), and whether it names one; it does not look at the disk.
func ShippedName(p string) (string, bool) {
	name, ok := strings.CutPrefix(path.Clean(filepath.ToSlash(p)), Dir+"/")
	if !ok || !Shipped(name) {
		return "", false
	}
	return name, true
}

// MaxBytes is the largest checkpoint any reader reads, 256 MiB: a net of some 20 million
// parameters with its optimizer's state (the shipped models are under half a megabyte, a
// preset's run writes about 1.2 MB). A larger file is refused unread, and net.Save refuses to
// write one.
const MaxBytes = 256 << 20

// ReadFile reads the checkpoint at path: the file there (ReadDisk), or, when there is none
// and the path names a shipped model (models/NAME), the copy in the binary. Any other error is
// the file's. The readers of player specs and model paths pass it to net's loaders; a run's
// own checkpoints are read with ReadDisk.
func ReadFile(path string) ([]byte, error) {
	data, err := ReadDisk(path)
	if errors.Is(err, fs.ErrNotExist) {
		if name, ok := ShippedName(path); ok {
			return shipped.ReadFile(name)
		}
	}
	return data, err
}

// ReadDisk reads the checkpoint file at path, never the binary's copy of a shipped model. Only
// a regular file (or a link to one) is read, and at most MaxBytes of it: a device, a named
// pipe, a socket or a folder is refused without a read that could block or never end
// (/dev/zero, a FIFO nobody writes), and a larger file with an error naming the path and the
// limit.
func ReadDisk(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := regular(path, st); err != nil {
		return nil, err
	}
	// Non-blocking: what was a file at the Stat may be a FIFO by the open, which must not
	// wait for a writer. A regular file reads as it would without the flag.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := regular(path, st); err != nil {
		return nil, err
	}
	// At most MaxBytes+1 bytes, whatever the size said: a file that grows is still refused.
	data := make([]byte, 0, min(st.Size(), MaxBytes)+1)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if len(data) > MaxBytes {
			return nil, tooLarge(path)
		}
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
		if len(data) == cap(data) {
			data = slices.Grow(data, min(len(data), MaxBytes+1-len(data)))
		}
	}
}

// regular refuses a path that is not a regular file, or is one larger than MaxBytes.
func regular(path string, st fs.FileInfo) error {
	switch m := st.Mode(); {
	case m.IsDir():
		return fmt.Errorf("%s: a folder, not a checkpoint file", path)
	case m&fs.ModeNamedPipe != 0:
		return fmt.Errorf("%s: a named pipe, not a checkpoint file", path)
	case m&fs.ModeSocket != 0:
		return fmt.Errorf("%s: a socket, not a checkpoint file", path)
	case m&fs.ModeDevice != 0:
		return fmt.Errorf("%s: a device, not a checkpoint file", path)
	case !m.IsRegular():
		return fmt.Errorf("%s: not a regular file (%v), not a checkpoint file", path, m.Type())
	case st.Size() > MaxBytes:
		return tooLarge(path)
	}
	return nil
}

func tooLarge(path string) error {
	return fmt.Errorf("%s: larger than %d bytes (256 MiB), the most a checkpoint may hold (models.MaxBytes)", path, MaxBytes)
}

// Exists tells whether ReadFile finds a regular file or a shipped model at path.
func Exists(path string) bool {
	if st, err := os.Stat(path); err == nil {
		return st.Mode().IsRegular()
	}
	_, ok := ShippedName(path)
	return ok
}
