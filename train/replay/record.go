// Package replay is the replay buffer of a training run: finished self-play games on disk, in
// append-only shards, and in memory a window of the most recent samples to draw minibatches from.
//
// A game is stored as what rebuilds it (its actions from the start) plus, for each decision
// searched in full, the search's policy target; the final result gives every sample its value
// target from the decider's side. A sample's observation is rebuilt by replaying the actions,
// which costs microseconds and keeps the shards small (a YINSH game is under 2 KiB).
//
// Durability: each record carries its length and a CRC-32C. A process killed mid-write leaves at
// most a torn last record, which Open detects and cuts off; every record before it is kept. So a
// run loses at most the games in progress.
//
// Damage (a flipped byte, a page lost) costs the records it hits, not the run: a record whose
// checksum fails is skipped, and reading goes on at the next whole record (framing.go). Open,
// Scan and Repair report each damaged span with its bytes and the games and samples lost.
//
// On disk: replay/NNNNNN.zrp shards, each a header (magic, format version, game
// name, samples added before the shard) and records u32 length | payload |
// u32 CRC-32C. A session appends to a new shard, of at most 2000 games; a record
// is written as soon as its game ends. Format 3 gives each target a flags byte
// (proven); format 2 shards are read and never appended to. A write that fails
// part-way (a full disk) is cut off the shard at once; if the cut fails too, the
// buffer takes no more games.
//
// Records carry no sync marker, so after one that does not read, reading goes on
// at the next offset where a whole record reads: its own length tried first,
// then every offset, the payload's layout rejecting almost every offset before a
// checksum is computed. A flipped byte costs one game, a span of zeros the games
// it covers. Since a crash tears only what was not yet synced, Open takes the
// run's count of samples as a floor: a tail that looks torn is cut off only if the
// shards hold that count without it, else it is damage, left as it is. Repair
// writes each damaged shard again with its records that read, keeping the
// damaged file as NNNNNN.zrp.damaged; after it, Scan finds nothing. ReadGames
// and ReadNewest read a folder without a buffer, changing nothing.
//
// The window grows with the samples ever added N, as KataGo's does:
// min·(1 + growth·((N/min)^exponent − 1)/exponent), capped at max; games and
// shards wholly outside it are dropped, their ids appended to retired-ids (folded
// into ranges, synced before a shard holding their games is removed), so that Has
// knows a game for the run's life.
package replay

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"

	"github.com/zerogames/zero/env"
)

// Game is one finished game as self-play records it.
type Game struct {
	Actions []env.Action // every decision from the start, chance included
	Targets []Target     // the decisions searched in full, in order of Ply
	Result  env.Result
	Step    int64 // the training step of the network that played it
	// ID names the game uniquely within its run ("worker/session/number", as the worker that
	// played it published it): the trainer keeps a game once however often it is delivered.
	// "" for games played before games had one.
	ID string
}

// MaxID is the longest Game.ID a record holds.
const MaxID = 255

// Target is the training target of one decision.
type Target struct {
	Ply    int           // index in Actions of the decision
	Policy []PolicyEntry // the search's improved policy over the legal actions; sums to 1
	Value  float32       // the search's root value, from the decider's side
	// Proven tells that the search proved Value (its solver): the value target is then Value
	// itself, not a blend with the game's result.
	Proven bool
}

// PolicyEntry is one action's share of a policy target.
type PolicyEntry struct {
	Action env.Action
	Prob   float32
}

// Record layout (little endian):
//
//	u32 payload length | payload | u32 CRC-32C (Castagnoli) of the payload
//
// payload:
//
//	u8 result | i64 step | u16 n | n × u16 action |
//	u16 t | t × ( u16 ply | f32 value | u8 flags | u16 m | m × ( u16 action | u16 prob·65535 ) ) |
//	u8 k | k bytes ID
//
// flags bit 0 is Proven. Shards of version 2 have no flags byte (nothing proven), shards of
// version 3 no ID; they are read, and appended to no more.
//
// Actions fit 16 bits: every game's action space is under 65,536 (checked when writing).
const maxRecord = 1 << 24

// minPayload is the shortest payload of any format: a result, a step and two counts.
const minPayload = 1 + 8 + 2 + 2

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// appendRecord appends g's record to dst.
func appendRecord(dst []byte, g *Game) ([]byte, error) {
	if len(g.Actions) > math.MaxUint16 || len(g.Targets) > math.MaxUint16 {
		return dst, fmt.Errorf("replay: a game of %d decisions is too long to record", len(g.Actions))
	}
	start := len(dst)
	dst = binary.LittleEndian.AppendUint32(dst, 0) // length, filled below
	dst = append(dst, byte(g.Result))
	dst = binary.LittleEndian.AppendUint64(dst, uint64(g.Step))
	dst = binary.LittleEndian.AppendUint16(dst, uint16(len(g.Actions)))
	for _, a := range g.Actions {
		if a < 0 || a > math.MaxUint16 {
			return dst[:start], fmt.Errorf("replay: action %d does not fit a record", a)
		}
		dst = binary.LittleEndian.AppendUint16(dst, uint16(a))
	}
	dst = binary.LittleEndian.AppendUint16(dst, uint16(len(g.Targets)))
	for _, t := range g.Targets {
		if t.Ply < 0 || t.Ply >= len(g.Actions) || len(t.Policy) > math.MaxUint16 {
			return dst[:start], fmt.Errorf("replay: target at ply %d of a %d-decision game", t.Ply, len(g.Actions))
		}
		dst = binary.LittleEndian.AppendUint16(dst, uint16(t.Ply))
		dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(t.Value))
		var flags byte
		if t.Proven {
			flags |= flagProven
		}
		dst = append(dst, flags)
		dst = binary.LittleEndian.AppendUint16(dst, uint16(len(t.Policy)))
		for _, e := range t.Policy {
			if e.Action < 0 || e.Action > math.MaxUint16 {
				return dst[:start], fmt.Errorf("replay: action %d does not fit a record", e.Action)
			}
			dst = binary.LittleEndian.AppendUint16(dst, uint16(e.Action))
			dst = binary.LittleEndian.AppendUint16(dst, uint16(math.Round(float64(min(max(e.Prob, 0), 1))*65535)))
		}
	}
	if len(g.ID) > MaxID {
		return dst[:start], fmt.Errorf("replay: a game id of %d bytes (at most %d)", len(g.ID), MaxID)
	}
	dst = append(dst, byte(len(g.ID)))
	dst = append(dst, g.ID...)
	n := len(dst) - start - 4
	if n > maxRecord {
		return dst[:start], fmt.Errorf("replay: a record of %d bytes is too large", n)
	}
	binary.LittleEndian.PutUint32(dst[start:], uint32(n))
	return binary.LittleEndian.AppendUint32(dst, crc32.Checksum(dst[start+4:], castagnoli)), nil
}

// AppendGame appends g as one record to dst: the bytes a shard holds for it, which are also
// how a game travels from a worker to the trainer (a message's payload).
func AppendGame(dst []byte, g *Game) ([]byte, error) { return appendRecord(dst, g) }

// DecodeGame reads a game that AppendGame wrote: exactly one whole record whose checksum
// matches. It checks the record's layout, not the game's rules (Check does).
func DecodeGame(b []byte) (*Game, error) {
	g, n, err := readRecord(b, shardVersion)
	switch {
	case errors.Is(err, errTorn):
		return nil, fmt.Errorf("replay: a record of %d bytes, cut short", len(b))
	case err != nil:
		return nil, fmt.Errorf("replay: %w", err)
	case n != len(b):
		return nil, fmt.Errorf("replay: %d bytes after the record", len(b)-n)
	}
	return g, nil
}

// errTorn marks a record cut short: it runs past the end of the data.
var errTorn = errors.New("record cut short")

// errChecksum marks a whole record whose checksum does not match, or whose length is beyond
// any record's (above maxRecord, or below minPayload).
var errChecksum = errors.New("record damaged (its checksum does not match)")

// flagProven is Target.Proven in a record's flags.
const flagProven = 1

// readRecord decodes the record at the start of b, of a shard of the given format version,
// and returns it and its size in bytes.
func readRecord(b []byte, version uint16) (*Game, int, error) {
	if len(b) < 4 {
		return nil, 0, errTorn
	}
	n := int(binary.LittleEndian.Uint32(b))
	if n > maxRecord || n < minPayload {
		// Zeros (a page never written) read as an empty record whose checksum, 0, matches.
		return nil, 0, errChecksum
	}
	if len(b) < 4+n+4 {
		return nil, 0, errTorn
	}
	payload := b[4 : 4+n]
	if crc32.Checksum(payload, castagnoli) != binary.LittleEndian.Uint32(b[4+n:]) {
		return nil, 4 + n + 4, errChecksum
	}
	r := reader{b: payload}
	g := &Game{Result: env.Result(r.u8()), Step: int64(r.u64())}
	g.Actions = make([]env.Action, r.u16())
	for i := range g.Actions {
		g.Actions[i] = env.Action(r.u16())
	}
	g.Targets = make([]Target, r.u16())
	for i := range g.Targets {
		t := &g.Targets[i]
		t.Ply = int(r.u16())
		t.Value = math.Float32frombits(r.u32())
		if version >= 3 {
			flags := r.u8()
			t.Proven = flags&flagProven != 0
			if r.err == nil && flags&^flagProven != 0 {
				r.err = fmt.Errorf("target at ply %d: unknown flags %#x", t.Ply, flags)
			}
		}
		t.Policy = make([]PolicyEntry, r.u16())
		for j := range t.Policy {
			t.Policy[j] = PolicyEntry{Action: env.Action(r.u16()), Prob: float32(r.u16()) / 65535}
		}
		if r.err == nil && t.Ply >= len(g.Actions) {
			r.err = fmt.Errorf("target at ply %d of a %d-decision game", t.Ply, len(g.Actions))
		}
	}
	if version >= 4 {
		g.ID = string(r.take(int(r.u8())))
	}
	if r.err == nil && len(r.b) != 0 {
		r.err = fmt.Errorf("%d bytes left over", len(r.b))
	}
	if r.err != nil {
		// The checksum matched, so this is no torn write: the file is not ours or is corrupt.
		return nil, 0, fmt.Errorf("bad record: %w", r.err)
	}
	return g, 4 + n + 4, nil
}

// tornSamples is the number of samples of a record cut short, if the part written holds it:
// the record starts with its length, then result (1 byte), step (8), the actions (a count of 2
// bytes and 2 bytes each) and the targets' count (2); -1 if the part ends before that or is
// zeros.
func tornSamples(b []byte) int {
	if len(b) < 4+1+8+2 || binary.LittleEndian.Uint32(b) == 0 { // zeros: nothing was written
		return -1
	}
	actions := int(binary.LittleEndian.Uint16(b[4+1+8:]))
	at := 4 + 1 + 8 + 2 + 2*actions
	if len(b) < at+2 {
		return -1
	}
	return int(binary.LittleEndian.Uint16(b[at:]))
}

type reader struct {
	b   []byte
	err error
}

func (r *reader) take(n int) []byte {
	if r.err != nil || len(r.b) < n {
		if r.err == nil {
			r.err = errors.New("record too short")
		}
		return make([]byte, n)
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) u8() uint8   { return r.take(1)[0] }
func (r *reader) u16() uint16 { return binary.LittleEndian.Uint16(r.take(2)) }
func (r *reader) u32() uint32 { return binary.LittleEndian.Uint32(r.take(4)) }
func (r *reader) u64() uint64 { return binary.LittleEndian.Uint64(r.take(8)) }
