package replay

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/zerogames/zero/internal/atomicfile"
)

// RetiredFile, in a replay folder, lists the ids of the games the window has passed. A game
// delivered twice (a worker re-sending its outbox after a long outage, or killed between a
// publication and its removal) is known as a duplicate as long as the run lasts, not only
// while its first copy is in the window: Has answers from it too.
//
// Each line is `R PREFIX LO HI` (the ids PREFIX/LO to PREFIX/HI: a worker's session numbers its
// games, so its ids fold into ranges) or `I ID` (an id not ending in /N), PREFIX and ID quoted
// as Go quotes them (strconv.Quote: every byte kept, valid UTF-8 or not). The ids a trim drops
// are appended, folded into ranges, and the file synced, before a shard holding their games is
// removed; Open folds the whole file again. A shard still on the disk is read whole by Open, so
// the ids of its games are known whether or not the file lists them yet: what an append not
// synced left (the file's tail, since no append follows one that did not sync) is cut off from
// the first line that does not read.
const RetiredFile = "retired-ids"

// idRange is the ids prefix/lo to prefix/hi.
type idRange struct{ lo, hi uint64 }

// idSet is a set of game ids, those of the form PREFIX/N as disjoint, non-adjacent ranges of N
// by prefix, sorted.
type idSet struct {
	runs  map[string][]idRange
	other map[string]struct{}
}

func newIDSet() *idSet {
	return &idSet{runs: map[string][]idRange{}, other: map[string]struct{}{}}
}

// splitID splits PREFIX/N; ok is false for an id of another form (N not a decimal number
// written as strconv writes it: 007 is an id of its own, not 7).
func splitID(id string) (prefix string, n uint64, ok bool) {
	i := strings.LastIndexByte(id, '/')
	if i < 0 {
		return "", 0, false
	}
	n, err := strconv.ParseUint(id[i+1:], 10, 64)
	if err != nil || strconv.FormatUint(n, 10) != id[i+1:] {
		return "", 0, false
	}
	return id[:i], n, true
}

func (s *idSet) has(id string) bool {
	prefix, n, ok := splitID(id)
	if !ok {
		_, found := s.other[id]
		return found
	}
	rs := s.runs[prefix]
	i, _ := slices.BinarySearchFunc(rs, n, func(r idRange, n uint64) int {
		switch {
		case r.hi < n:
			return -1
		case r.lo > n:
			return 1
		}
		return 0
	})
	return i < len(rs) && rs[i].lo <= n && n <= rs[i].hi
}

func (s *idSet) add(id string) {
	prefix, n, ok := splitID(id)
	if !ok {
		s.other[id] = struct{}{}
		return
	}
	s.addRange(prefix, idRange{n, n})
}

// addRange adds prefix/r.lo to prefix/r.hi, merging what overlaps or touches.
func (s *idSet) addRange(prefix string, r idRange) {
	rs := s.runs[prefix]
	// rs[i:j] are the ranges that overlap r or touch it: from the first that ends at r.lo-1 or
	// after, up to the first that starts after r.hi+1.
	i := sort.Search(len(rs), func(k int) bool { return r.lo == 0 || rs[k].hi >= r.lo-1 })
	j := i
	for j < len(rs) && (r.hi == math.MaxUint64 || rs[j].lo <= r.hi+1) {
		r.lo, r.hi = min(r.lo, rs[j].lo), max(r.hi, rs[j].hi)
		j++
	}
	s.runs[prefix] = slices.Replace(rs, i, j, r)
}

// lines is the number of lines the set is written in.
func (s *idSet) lines() int {
	n := len(s.other)
	for _, rs := range s.runs {
		n += len(rs)
	}
	return n
}

// appendRange appends the line of prefix/r.lo to prefix/r.hi to dst.
func appendRange(dst []byte, prefix string, r idRange) []byte {
	return fmt.Appendf(dst, "R %s %d %d\n", strconv.Quote(prefix), r.lo, r.hi)
}

// appendID appends the line of one id to dst.
func appendID(dst []byte, id string) []byte {
	if prefix, n, ok := splitID(id); ok {
		return appendRange(dst, prefix, idRange{n, n})
	}
	return fmt.Appendf(dst, "I %s\n", strconv.Quote(id))
}

func (s *idSet) empty() bool { return len(s.runs) == 0 && len(s.other) == 0 }

// encode writes the whole set, sorted (the same set, the same bytes).
func (s *idSet) encode() []byte {
	var out []byte
	for _, prefix := range slices.Sorted(maps.Keys(s.runs)) {
		for _, r := range s.runs[prefix] {
			out = appendRange(out, prefix, r)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(s.other)) {
		out = appendID(out, id)
	}
	return out
}

// readRetired reads the retired ids in dir into a set, and tells whether the file should be
// written again: it holds more lines than the set folds into, or a tail that does not read. An
// append is synced before the shards its ids come from are removed, and none follows one that
// failed, so what a crash can have left unread is the tail of the last append, whose games
// are still on the disk: the file is read up to the first line that does not read, and cut
// says what was left (with its line, "" if nothing).
func readRetired(dir string) (set *idSet, rewrite bool, cut string, err error) {
	set = newIDSet()
	path := filepath.Join(dir, RetiredFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return set, false, "", nil
	}
	if err != nil {
		return nil, false, "", err
	}
	lines, off := 0, 0
	for off < len(data) {
		end := bytes.IndexByte(data[off:], '\n')
		if end < 0 {
			cut = fmt.Sprintf("%s: line %d: cut short (%d bytes without a newline): left out, with nothing after it", path, lines+1, len(data)-off)
			break
		}
		if err := set.parseLine(string(data[off : off+end])); err != nil {
			cut = fmt.Sprintf("%s: line %d: %v: left out, with the %d bytes after it (a crash during an append that was not synced; those ids' games are still in their shards)", path, lines+1, err, len(data)-off-end-1)
			break
		}
		lines++
		off += end + 1
	}
	return set, cut != "" || lines > set.lines(), cut, nil
}

// parseLine adds the ids of one line.
func (s *idSet) parseLine(line string) error {
	kind, rest, _ := strings.Cut(line, " ")
	switch kind {
	case "I":
		id, err := strconv.Unquote(rest)
		if err != nil || id == "" || string(appendID(nil, id)) != line+"\n" {
			return fmt.Errorf("%q: want I and an id, quoted", line)
		}
		s.add(id)
		return nil
	case "R":
		q, err := strconv.QuotedPrefix(rest)
		var prefix string
		if err == nil {
			prefix, err = strconv.Unquote(q)
		}
		var lo, hi uint64
		if err == nil {
			_, err = fmt.Sscanf(rest[len(q):], " %d %d", &lo, &hi)
		}
		// As written, and only so: the numbers in decimal, the first at most the second.
		if err != nil || lo > hi || string(appendRange(nil, prefix, idRange{lo, hi})) != line+"\n" {
			return fmt.Errorf("%q: want R, a prefix (quoted) and two numbers, the first at most the second", line)
		}
		s.addRange(prefix, idRange{lo, hi})
		return nil
	}
	return fmt.Errorf("%q: want a line R PREFIX LO HI or I ID", line)
}

// writeRetired replaces the file with the set, folded.
func writeRetired(dir string, s *idSet) error {
	return atomicfile.WriteBytes(filepath.Join(dir, RetiredFile), s.encode())
}

// appendRetired appends lines to the file and syncs it (and the folder, when it makes the
// file).
func appendRetired(dir string, lines []byte) error {
	path := filepath.Join(dir, RetiredFile)
	_, statErr := os.Lstat(path)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(lines)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && statErr != nil {
		err = atomicfile.SyncDir(dir)
	}
	return err
}
