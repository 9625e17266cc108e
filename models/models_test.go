package models

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestReadFile holds the rule every reader of checkpoints follows: the file at the path if
// there is one, else for models/NAME a shipped model's copy in the binary; nothing else
// resolves to a shipped model. Run from an empty working folder, as a user anywhere would.
func TestReadFile(t *testing.T) {
	names := Names()
	onDisk, err := filepath.Glob("*" + Ext)
	if err != nil || len(names) == 0 || !slices.Equal(names, onDisk) {
		t.Fatalf("shipped %q, this folder holds %q (%v)", names, onDisk, err)
	}
	name := names[0]
	want, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	abs, _ := filepath.Abs(filepath.Join("elsewhere", Dir, name))
	tests := []struct {
		path    string
		shipped bool // read from the binary; else not found
	}{
		{"models/" + name, true},
		{"./models/" + name, true},
		{"models//" + name, true},
		{filepath.Join(Dir, name), true},
		{"models/none" + Ext, false},
		{name, false},
		{abs, false},
		{"models/sub/" + name, false},
		{"../models/" + name, false},
		{"models/", false},
	}
	for _, tt := range tests {
		data, err := ReadFile(tt.path)
		switch {
		case tt.shipped && (err != nil || !bytes.Equal(data, want)):
			t.Errorf("ReadFile(%q): %d bytes, %v; want the shipped %s", tt.path, len(data), err, name)
		case !tt.shipped && !errors.Is(err, fs.ErrNotExist):
			t.Errorf("ReadFile(%q): %d bytes, %v; want not found", tt.path, len(data), err)
		}
		if Exists(tt.path) != tt.shipped {
			t.Errorf("Exists(%q) = %v", tt.path, !tt.shipped)
		}
	}
	// A file on disk wins over the binary's copy.
	if err := os.Mkdir(Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(Dir, name), []byte("retrained"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFile("models/" + name); err != nil || string(data) != "retrained" {
		t.Errorf("with a file on disk: %q, %v", data, err)
	}
}
