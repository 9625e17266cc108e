package net

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBackendsDoc keeps docs/BACKENDS.md true, as cmd/zero's TestNewGameDoc keeps NEW_GAME.md:
// each code block marked with a file (```go PATH) is in that file as written, so that the
// interface, the factory and the list the page quotes are the source's, and the example backend
// it walks through is the one TestAddingABackend adds.
func TestBackendsDoc(t *testing.T) {
	doc, err := os.ReadFile("../docs/BACKENDS.md")
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	lines := strings.Split(string(doc), "\n")
	for i := 0; i < len(lines); i++ {
		info, ok := strings.CutPrefix(lines[i], "```")
		if !ok {
			continue
		}
		start := i + 1
		for i++; i < len(lines) && lines[i] != "```"; i++ {
		}
		block := lines[start:i]
		where := fmt.Sprintf("docs/BACKENDS.md:%d", start)
		kind, path, _ := strings.Cut(info, " ")
		if kind != "go" || path == "" {
			t.Errorf("%s: a block of kind %q: mark it with the file it copies (```go PATH)", where, info)
			continue
		}
		src, err := os.ReadFile(filepath.Join("..", path))
		if err != nil {
			t.Errorf("%s: %v", where, err)
		} else if !strings.Contains(string(src), strings.Join(block, "\n")+"\n") {
			t.Errorf("%s: the block is not in %s as written:\n%s", where, path, strings.Join(block, "\n"))
		}
		files++
	}
	if files < 9 {
		t.Errorf("checked %d blocks: the page lost blocks, or this test lost track of them", files)
	}
}
