// Package doctest reads the fenced code blocks of a Markdown page, for the tests that keep the
// project's documents true: a block marked with a file (```go PATH) must be in that file as
// written, and a session block must be what the program answers (each test replays its own).
package doctest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A Block is one fenced code block of a page.
type Block struct {
	// Info is what follows the opening fence ("go net/backend.go", "sh", or "").
	Info string
	// Lines are the block's lines, without the fences.
	Lines []string
	// Where is the page and the line the block's text starts on ("docs/NEW_GAME.md:42").
	Where string
}

// Kind and Path are Info's first word and the rest ("go", "net/backend.go").
func (b Block) Kind() string { k, _, _ := strings.Cut(b.Info, " "); return k }
func (b Block) Path() string { _, p, _ := strings.Cut(b.Info, " "); return p }

// Blocks reads the page at path (shown as name in Where) and returns its fenced blocks.
func Blocks(path, name string) ([]Block, error) {
	doc, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var blocks []Block
	lines := strings.Split(string(doc), "\n")
	for i := 0; i < len(lines); i++ {
		info, ok := strings.CutPrefix(lines[i], "```")
		if !ok {
			continue
		}
		start := i + 1
		for i++; i < len(lines) && lines[i] != "```"; i++ {
		}
		blocks = append(blocks, Block{Info: info, Lines: lines[start:i], Where: fmt.Sprintf("%s:%d", name, start)})
	}
	return blocks, nil
}

// Quoted checks a block marked with a file: the file, under root, holds the block's lines as
// written. It returns what is wrong, or nil.
func (b Block) Quoted(root string) error {
	path := b.Path()
	if path == "" {
		return fmt.Errorf("%s: a block of kind %q: mark it with the file it copies (```go PATH)", b.Where, b.Info)
	}
	src, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		return fmt.Errorf("%s: %v", b.Where, err)
	}
	if text := strings.Join(b.Lines, "\n"); !strings.Contains(string(src), text+"\n") {
		return fmt.Errorf("%s: the block is not in %s as written:\n%s", b.Where, path, text)
	}
	return nil
}
