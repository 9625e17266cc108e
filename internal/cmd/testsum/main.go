// Command testsum reads `go test -json` on its input and writes what `go test` would, plus the
// list of the tests that were skipped and why, which plain `go test ./...` keeps to itself when
// their packages pass (the browser tests without chromium, the rules checks without ../shared).
// It exits 1 if a test, a package or a build failed, so README's test command
//
//	go test -json ./... | go run ./internal/cmd/testsum
//
// fails as `go test ./...` would.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	Elapsed    float64
	ImportPath string
}

type key struct{ pkg, test string }

func main() {
	failed, err := summarize(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsum:", err)
	}
	if failed {
		os.Exit(1)
	}
}

// summarize copies the packages' results to w as go test prints them (a failed test's or
// package's output in full), then the skipped tests with their reasons, and says whether
// anything failed.
func summarize(r io.Reader, w io.Writer) (failed bool, err error) {
	output := map[key][]string{} // the output of each test, and of each package (test "")
	var skipped []key
	packages := 0 // packages with a result
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			// Not test2json's: pass it on as go test would have printed it.
			fmt.Fprintln(w, sc.Text())
			continue
		}
		pkg := e.Package
		if pkg == "" {
			pkg = e.ImportPath
		}
		k := key{pkg, e.Test}
		switch e.Action {
		case "output", "build-output":
			output[k] = append(output[k], e.Output)
		case "skip":
			if e.Test != "" {
				skipped = append(skipped, k)
			} else {
				fmt.Fprint(w, strings.Join(output[k], ""))
				packages++
			}
		case "fail", "build-fail":
			failed = true
			fmt.Fprint(w, strings.Join(output[k], ""))
			if e.Test == "" {
				packages++
			}
		case "pass":
			if e.Test == "" {
				packages++
				// The package's own lines: "ok  pkg 1.2s" (and "PASS" before it).
				for _, line := range output[k] {
					if line != "PASS\n" {
						fmt.Fprint(w, line)
					}
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return failed, err
	}
	if packages == 0 {
		// go test failed before testing anything (a bad pattern, no module): not a pass.
		return true, fmt.Errorf("no package's result in the input: is it go test -json's?")
	}
	if len(skipped) > 0 {
		sort.Slice(skipped, func(i, j int) bool {
			if skipped[i].pkg != skipped[j].pkg {
				return skipped[i].pkg < skipped[j].pkg
			}
			return skipped[i].test < skipped[j].test
		})
		fmt.Fprintf(w, "\nskipped (%d):\n", len(skipped))
		for _, k := range skipped {
			fmt.Fprintf(w, "  %s %s: %s\n", k.pkg, k.test, reason(output[k]))
		}
	}
	return failed, nil
}

// reason is what a skipped test said: its t.Skip message, without the file:line prefix and the
// "--- SKIP" line.
func reason(lines []string) string {
	var said []string
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "=== ") || strings.HasPrefix(l, "--- SKIP") {
			continue
		}
		if _, after, ok := strings.Cut(l, ".go:"); ok {
			if _, msg, ok := strings.Cut(after, ": "); ok {
				l = msg
			}
		}
		said = append(said, l)
	}
	if len(said) == 0 {
		return "(no reason given)"
	}
	return strings.Join(said, " ")
}
