package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// zero play through a real pseudo-terminal: stdin, stdout and stderr are the terminal, as
// when a person runs it, so the spinner is on. The test types as a person would and reads
// the screen's byte stream.
func TestPlayInATerminal(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer ptmx.Close()
	var mu sync.Mutex
	var screen bytes.Buffer
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			mu.Lock()
			screen.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	waitFor := func(part string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			mu.Lock()
			ok := strings.Contains(screen.String(), part)
			mu.Unlock()
			if ok {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("the terminal never showed %q; it shows:\n%s", part, screen.String())
	}
	done := make(chan error, 1)
	go func() {
		done <- run(context.Background(), []string{"play", "--game", "yinsh-blitz", "--as", "black", "--opponent", "random", "--seed", "5", "--record", "-"},
			tty, tty, tty)
	}()
	waitFor("white thinks") // the spinner, on the terminal's stderr
	waitFor("white (random) plays place ")
	waitFor("black> ")
	io.WriteString(ptmx, "place zz\n")
	waitFor(`? "place zz": "zz" is not a point`)
	io.WriteString(ptmx, "quit\n")
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("zero play did not quit")
	}
	tty.Close()
}

// zero play saves games by default in a folder the repository's .gitignore covers.
func TestSavedGamesAreIgnored(t *testing.T) {
	ignore, err := os.ReadFile("../../.gitignore")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(strings.Split(string(ignore), "\n"), "/"+savedGames+"/") {
		t.Errorf(".gitignore does not cover %s/:\n%s", savedGames, ignore)
	}
}
