package replay

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestIDSet: ids of the form PREFIX/N fold into ranges by prefix, whatever the order they come
// in; other ids are kept as they are; the set written and read back is the same.
func TestIDSet(t *testing.T) {
	tests := []struct {
		name  string
		add   []string
		runs  map[string][]idRange
		other []string
	}{
		{"in order", []string{"w/s/1", "w/s/2", "w/s/3"}, map[string][]idRange{"w/s": {{1, 3}}}, nil},
		{"backwards", []string{"w/s/3", "w/s/2", "w/s/1"}, map[string][]idRange{"w/s": {{1, 3}}}, nil},
		{"a gap filled last", []string{"w/s/1", "w/s/3", "w/s/5", "w/s/2", "w/s/4"}, map[string][]idRange{"w/s": {{1, 5}}}, nil},
		{"gaps kept", []string{"w/s/9", "w/s/1", "w/s/5", "w/s/6"}, map[string][]idRange{"w/s": {{1, 1}, {5, 6}, {9, 9}}}, nil},
		{"twice", []string{"w/s/4", "w/s/4"}, map[string][]idRange{"w/s": {{4, 4}}}, nil},
		{"zero and the largest", []string{"w/s/0", "w/s/1", "w/s/18446744073709551615", "w/s/18446744073709551614"},
			map[string][]idRange{"w/s": {{0, 1}, {18446744073709551614, 18446744073709551615}}}, nil},
		{"prefixes apart", []string{"a/x/1", "a/y/2", "a/x/2"}, map[string][]idRange{"a/x": {{1, 2}}, "a/y": {{2, 2}}}, nil},
		{"other forms", []string{"plain", "w/s/007", "w/s/", "w/s/-1", "w/s/+1", "w s/\"q\"/3"},
			map[string][]idRange{`w s/"q"`: {{3, 3}}}, []string{"plain", "w/s/", "w/s/-1", "w/s/+1", "w/s/007"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newIDSet()
			for _, id := range tt.add {
				s.add(id)
			}
			if !reflect.DeepEqual(s.runs, tt.runs) {
				t.Errorf("ranges %v, want %v", s.runs, tt.runs)
			}
			if len(s.other) != len(tt.other) {
				t.Errorf("other ids %v, want %v", s.other, tt.other)
			}
			for _, id := range tt.add {
				if !s.has(id) {
					t.Errorf("%q added, not had", id)
				}
			}
			for _, id := range []string{"w/s/10", "w/s/8", "w/x/1", "w/s/07", "other"} {
				if s.has(id) && !strings.Contains(strings.Join(tt.add, ","), id) {
					t.Errorf("%q had, never added", id)
				}
			}
			dir := t.TempDir()
			if err := writeRetired(dir, s); err != nil {
				t.Fatal(err)
			}
			back, rewrite, err := readRetired(dir)
			if err != nil || rewrite || !reflect.DeepEqual(back.runs, s.runs) || !reflect.DeepEqual(back.other, s.other) {
				t.Errorf("read back: %v, rewrite %v, %v %v", err, rewrite, back.runs, back.other)
			}
		})
	}
}

// TestRetiredFile: appended lines fold at the next read (which asks for a rewrite), a torn
// last line (a crash during an append) is dropped, and damage anywhere else is an error naming
// the file and the line.
func TestRetiredFile(t *testing.T) {
	tests := []struct {
		name, data string
		rewrite    bool
		has        []string
		err        string
	}{
		{"none", "", false, nil, ""},
		{"folded", "R \"w/s\" 1 3\nI \"odd\"\n", false, []string{"w/s/1", "w/s/3", "odd"}, ""},
		{"appended singles", "R \"w/s\" 1 1\nR \"w/s\" 2 2\n", true, []string{"w/s/1", "w/s/2"}, ""},
		{"a torn last line", "R \"w/s\" 1 3\nR \"w/s\" 4", true, []string{"w/s/3"}, ""},
		{"a torn first line", "R \"w", true, nil, ""},
		{"a bad line", "R \"w/s\" 1 3\nX 1\nR \"w/s\" 4 4\n", false, nil, "retired-ids: line 2: \"X 1\": want a line R PREFIX LO HI or I ID"},
		{"a range backwards", "R \"w/s\" 3 1\n", false, nil, "line 1: \"R \\\"w/s\\\" 3 1\""},
		{"a number not as written", "R \"w/s\" 01 3\n", false, nil, "line 1:"},
		{"trailing text", "R \"w/s\" 1 3 4\n", false, nil, "line 1:"},
		{"a prefix not quoted", "R w/s 1 3\n", false, nil, "line 1:"},
		{"an empty id", "I \"\"\n", false, nil, "line 1:"},
		{"an empty line", "R \"w/s\" 1 3\n\n", false, nil, "line 2:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.data != "" {
				os.WriteFile(filepath.Join(dir, RetiredFile), []byte(tt.data), 0o644)
			}
			s, rewrite, err := readRetired(dir)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one with %q", err, tt.err)
				}
				// Open refuses it too, changing nothing.
				if _, err := Open(dir, "yinsh-blitz", small, 0); err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("Open: %v", err)
				}
				if data, _ := os.ReadFile(filepath.Join(dir, RetiredFile)); string(data) != tt.data {
					t.Errorf("the file was changed to %q", data)
				}
				return
			}
			if err != nil || rewrite != tt.rewrite {
				t.Fatalf("%v, rewrite %v, want %v", err, rewrite, tt.rewrite)
			}
			for _, id := range tt.has {
				if !s.has(id) {
					t.Errorf("%q not had", id)
				}
			}
			// Open writes it folded, the torn line gone, and an append then reads whole.
			b, err := Open(dir, "yinsh-blitz", small, 0)
			if err != nil {
				t.Fatal(err)
			}
			b.Close()
			if err := appendRetired(dir, appendID(nil, "w/s/9")); err != nil {
				t.Fatal(err)
			}
			s, _, err = readRetired(dir)
			if err != nil || !s.has("w/s/9") {
				t.Errorf("after an append: %v", err)
			}
			for _, id := range tt.has {
				if !s.has(id) {
					t.Errorf("%q not had after Open's rewrite", id)
				}
			}
		})
	}
}

// A buffer of a long run from many workers keeps its retired ids small: a range a session.
func TestRetiredFolds(t *testing.T) {
	s := newIDSet()
	for w := range 64 {
		for n := range 1000 {
			s.add(fmt.Sprintf("worker-%d/abcd%04d/%d", w, w, (n*7919)%1000)) // every number, out of order
		}
	}
	if s.lines() != 64 {
		t.Errorf("64 sessions of 1000 games each fold into %d lines, want 64", s.lines())
	}
}
