package replay

import (
	"encoding/binary"
	"hash/crc32"
)

// Finding the records again after damage. A record's framing is its length, and nothing marks
// where a record starts; so when a record does not read (its checksum fails, or its length runs
// past the end or is no record's), the next one is found as the first offset after it where a
// whole record reads: a length that fits, a payload laid out to exactly that length (the counts
// of actions, targets and policy entries, walked without decoding), and a checksum that matches.
// The record's own length is tried first, which is right when only its payload or checksum was
// hit; a damaged length is why every offset is tried after. A random offset passes the layout
// walk seldom and the checksum once in 2^32, so what is skipped is the damaged span only, and
// what follows it is read as if nothing had happened. If no whole record follows, the span runs
// to the end of the shard (in the newest shard, that is how a torn write looks too).

// payloadSize walks the layout of a payload of the given format at the start of p, without
// decoding it: it returns the bytes the layout takes and its count of targets (samples), or
// false if the layout runs past the end of p or has flags no format has.
func payloadSize(p []byte, version uint16) (size int, samples int, ok bool) {
	at := 1 + 8 // result, step
	if at+2 > len(p) {
		return 0, 0, false
	}
	at += 2 + 2*int(binary.LittleEndian.Uint16(p[at:]))
	if at+2 > len(p) {
		return 0, 0, false
	}
	targets := int(binary.LittleEndian.Uint16(p[at:]))
	at += 2
	head := 2 + 4 // ply, value
	if version >= 3 {
		head++ // flags
	}
	for range targets {
		if at+head+2 > len(p) {
			return 0, 0, false
		}
		if version >= 3 && p[at+6]&^flagProven != 0 {
			return 0, 0, false
		}
		at += head + 2 + 4*int(binary.LittleEndian.Uint16(p[at+head:]))
	}
	if version >= 4 {
		if at+1 > len(p) {
			return 0, 0, false
		}
		at += 1 + int(p[at])
	}
	if at > len(p) {
		return 0, 0, false
	}
	return at, targets, true
}

// recordAt tells whether a whole record starts at b[0]: a length that fits in b, a payload of
// that length by its layout, and a matching checksum. size is the record's size.
func recordAt(b []byte, version uint16) (size int, ok bool) {
	if len(b) < 4+minPayload+4 {
		return 0, false
	}
	n := int(binary.LittleEndian.Uint32(b))
	if n < minPayload || n > maxRecord || 4+n+4 > len(b) {
		return 0, false
	}
	if s, _, ok := payloadSize(b[4:4+n], version); !ok || s != n {
		return 0, false
	}
	if crc32.Checksum(b[4:4+n], castagnoli) != binary.LittleEndian.Uint32(b[4+n:]) {
		return 0, false
	}
	return 4 + n + 4, true
}

// nextRecord is where reading goes on after a record at off that does not read, of size bytes
// by its length (0 if its length is no record's or runs past the end): the start of the next
// whole record, or len(data) if none follows.
func nextRecord(data []byte, off, size int, version uint16) int {
	if size > 0 && off+size <= len(data) {
		if off+size == len(data) {
			return off + size
		}
		if _, ok := recordAt(data[off+size:], version); ok {
			return off + size
		}
	}
	for p := off + 1; p+4+minPayload+4 <= len(data); p++ {
		if _, ok := recordAt(data[p:], version); ok {
			return p
		}
	}
	return len(data)
}

// spanRecords counts the records in a damaged span and their samples: it chains records from
// the span's start to exactly its end, each taking the size its layout gives or the size its
// length gives (whichever of the two damage spared), and sums the targets of those whose layout
// and length agree. games is -1 if no chain ends exactly at the span's end (the bytes do not say
// how many games they held), samples -1 if some record's count cannot be trusted.
func spanRecords(span []byte, version uint16) (games int, samples int64) {
	failed := make(map[int]bool)
	var chain func(p int) (int, int64, bool)
	chain = func(p int) (int, int64, bool) {
		if p == len(span) {
			return 0, 0, true
		}
		if failed[p] || len(span)-p < 4+minPayload+4 {
			return 0, 0, false
		}
		type step struct {
			next    int
			samples int64 // -1: unknown
		}
		var steps [2]step
		k := 0
		// The layout's size first: right when the length was hit.
		if s, t, ok := payloadSize(span[p+4:len(span)-4], version); ok {
			steps[k] = step{p + 4 + s + 4, int64(t)}
			k++
		}
		if n := int(binary.LittleEndian.Uint32(span[p:])); n >= minPayload && p+4+n+4 <= len(span) {
			t := int64(-1)
			if s, targets, ok := payloadSize(span[p+4:p+4+n], version); ok && s == n {
				t = int64(targets)
			}
			steps[k] = step{p + 4 + n + 4, t}
			k++
		}
		for _, st := range steps[:k] {
			if g, s, ok := chain(st.next); ok {
				if s < 0 || st.samples < 0 {
					s = -1
				} else {
					s += st.samples
				}
				return g + 1, s, true
			}
		}
		failed[p] = true
		return 0, 0, false
	}
	if g, s, ok := chain(0); ok {
		return g, s
	}
	return -1, -1
}

// damagedHeader tells whether data starts with a header of game that one damaged byte changed:
// its magic, name length or name differ from the header of a format this build reads in exactly
// one byte, and a whole record (or the end of the file) follows it where that header's would.
// It gives the format. A version this build does not read is never taken for damage (a newer
// build's shard must not be read as this one's), nor is a header that differs in two bytes or
// more (another game's shard).
func damagedHeader(data []byte, game string) (uint16, bool) {
	if game == "" || len(data) < 6 {
		return 0, false
	}
	v := binary.LittleEndian.Uint16(data[4:])
	if v < oldestShardVersion || v > shardVersion {
		return 0, false
	}
	want := shardHeader(game, v)
	if len(data) < len(want)+8 {
		return 0, false
	}
	diff := 0
	for i, c := range want {
		if data[i] != c {
			diff++
		}
	}
	if diff != 1 {
		return 0, false
	}
	if off := len(want) + 8; off < len(data) {
		if _, ok := recordAt(data[off:], v); !ok {
			return 0, false
		}
	}
	return v, true
}
