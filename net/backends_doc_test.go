package net

import (
	"testing"

	"github.com/zerogames/zero/internal/doctest"
)

// TestBackendsDoc keeps docs/BACKENDS.md true, as cmd/zero's TestNewGameDoc keeps NEW_GAME.md:
// each code block marked with a file (```go PATH) is in that file as written, so that the
// interface, the factory and the list the page quotes are the source's, and the example backend
// it walks through is the one TestAddingABackend adds.
func TestBackendsDoc(t *testing.T) {
	blocks, err := doctest.Blocks("../docs/BACKENDS.md", "docs/BACKENDS.md")
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	for _, b := range blocks {
		if b.Kind() != "go" {
			t.Errorf("%s: a block of kind %q: mark it with the file it copies (```go PATH)", b.Where, b.Info)
			continue
		}
		if err := b.Quoted(".."); err != nil {
			t.Error(err)
		}
		files++
	}
	if files < 9 {
		t.Errorf("checked %d blocks: the page lost blocks, or this test lost track of them", files)
	}
}
