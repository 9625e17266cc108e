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
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
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

// ReadFile reads the checkpoint at path: the file there, or, when there is none and the path
// names a shipped model (models/NAME), the copy in the binary. Any other error is the file's.
func ReadFile(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return data, err
	}
	if name, ok := ShippedName(path); ok {
		return shipped.ReadFile(name)
	}
	return nil, err
}

// Exists tells whether ReadFile finds a regular file or a shipped model at path.
func Exists(path string) bool {
	if st, err := os.Stat(path); err == nil {
		return st.Mode().IsRegular()
	}
	_, ok := ShippedName(path)
	return ok
}
