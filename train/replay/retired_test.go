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
		{"other forms", []string{"plain", "w/s/007", "w/s/", "w/s/-1", "w/s/+1", "w s/\"q\"/3", "w\xff/s/4", "bad \xfe\n"},
			map[string][]idRange{`w s/"q"`: {{3, 3}}, "w\xff/s": {{4, 4}}}, []string{"plain", "w/s/", "w/s/-1", "w/s/+1", "w/s/007", "bad \xfe\n"}},
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
			back, rewrite, cut, err := readRetired(dir)
			if err != nil || rewrite || cut != "" || !reflect.DeepEqual(back.runs, s.runs) || !reflect.DeepEqual(back.other, s.other) {
				t.Errorf("read back: %v, rewrite %v, %v %v", err, rewrite, back.runs, back.other)
			}
		})
	}
}

// TestRetiredFile: appended lines fold at the next read (which asks for a rewrite); from the
// first line that does not read (what a crash during an append not synced leaves: the file's
// tail) the file is left out, said, and Open writes it again without it, so that an append
// after it reads.
func TestRetiredFile(t *testing.T) {
	tests := []struct {
		name, data string
		rewrite    bool
		has, not   []string
		cut        string
	}{
		{"none", "", false, nil, nil, ""},
		{"folded", "R \"w/s\" 1 3\nI \"odd\"\n", false, []string{"w/s/1", "w/s/3", "odd"}, []string{"w/s/4"}, ""},
		{"appended singles", "R \"w/s\" 1 1\nR \"w/s\" 2 2\n", true, []string{"w/s/1", "w/s/2"}, nil, ""},
		{"a torn last line", "R \"w/s\" 1 3\nR \"w/s\" 4", true, []string{"w/s/3"}, []string{"w/s/4"}, "line 2: cut short (9 bytes without a newline)"},
		{"a torn first line", "R \"w", true, nil, nil, "line 1: cut short"},
		{"a bad line and what follows", "R \"w/s\" 1 3\nX 1\nR \"w/s\" 4 4\n", true, []string{"w/s/1", "w/s/3"}, []string{"w/s/4"},
			"line 2: \"X 1\": want a line R PREFIX LO HI or I ID: left out, with the 12 bytes after it"},
		{"zeros a crash left", "R \"w/s\" 1 3\n\x00\x00\x00\n", true, []string{"w/s/2"}, nil, "line 2:"},
		{"a range backwards", "R \"w/s\" 3 1\n", true, nil, []string{"w/s/2"}, "line 1:"},
		{"a number not as written", "R \"w/s\" 01 3\n", true, nil, []string{"w/s/2"}, "line 1:"},
		{"trailing text", "R \"w/s\" 1 3 4\n", true, nil, []string{"w/s/2"}, "line 1:"},
		{"a prefix not quoted", "R w/s 1 3\n", true, nil, []string{"w/s/2"}, "line 1:"},
		{"an empty id", "I \"\"\n", true, nil, nil, "line 1:"},
		{"an empty line", "R \"w/s\" 1 3\n\n", true, []string{"w/s/2"}, nil, "line 2:"},
		{"bytes not UTF-8, quoted", "R \"w\\xff/s\" 5 5\nI \"a\\xfeb\"\n", false, []string{"w\xff/s/5", "a\xfeb"}, []string{"w\ufffd/s/5", "a\ufffdb"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.data != "" {
				os.WriteFile(filepath.Join(dir, RetiredFile), []byte(tt.data), 0o644)
			}
			s, rewrite, cut, err := readRetired(dir)
			if err != nil || rewrite != tt.rewrite || !strings.Contains(cut, tt.cut) || (tt.cut == "") != (cut == "") {
				t.Fatalf("%v, rewrite %v, cut %q; want rewrite %v, cut %q", err, rewrite, cut, tt.rewrite, tt.cut)
			}
			for _, id := range tt.has {
				if !s.has(id) {
					t.Errorf("%q not had", id)
				}
			}
			for _, id := range tt.not {
				if s.has(id) {
					t.Errorf("%q had", id)
				}
			}
			// Open says what it left out and writes the file folded, without it; an append then
			// reads whole.
			b, err := Open(dir, "yinsh-blitz", small, 0)
			if err != nil {
				t.Fatal(err)
			}
			if b.RetiredCut() != cut || b.RetireErr() != nil {
				t.Errorf("Open: cut %q, want %q; %v", b.RetiredCut(), cut, b.RetireErr())
			}
			b.Close()
			if err := appendRetired(dir, appendID(nil, "w/s/9")); err != nil {
				t.Fatal(err)
			}
			s, rewrite, cut, err = readRetired(dir)
			if err != nil || !s.has("w/s/9") || cut != "" {
				t.Errorf("after an append: %v, cut %q", err, cut)
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
