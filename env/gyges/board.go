package gyges

import "math/bits"

// The board is kept in the frame of the player to move (see the package doc): square
// sq = row·6 + col, row 0 his start row, row 5 the far row beyond which lies the goal he aims
// at. South's frame is the board as written (a1 = 0, f6 = 35); North's is the board turned by
// 180° (f6 = 0, a1 = 35), so turning the board over is reversing the 36 bits of a mask.
//
// A mask is a set of squares in the low 36 bits of a uint64; bit 36 (goalBit) stands for the
// goal in the masks of reached squares.
const (
	numSquares = 36
	goal       = numSquares // the end "square" of a move into the goal
	goalBit    = uint64(1) << goal
	allSquares = uint64(1)<<numSquares - 1
)

// The 60 connections between adjacent squares are numbered in the frame: between (r,c) and
// (r,c+1) is r·5+c, between (r,c) and (r+1,c) is 30+r·6+c. The connection from the far row
// into the goal has no number: a move that takes it ends there, so it is never used twice.
const numConnections = 60

// path is one way to make a movement of k steps from a square: the squares it passes through
// (which must be empty), where it ends, and the connections it uses. Within one movement the
// only way to use a connection twice is to turn straight back, which the table leaves out.
type path struct {
	// cells holds the squares passed through in bits 0..35 and the end square (0..35, or goal)
	// in bits 56..63, so that cells&occupied tests the squares passed through alone.
	cells uint64
	conns uint64
}

func (p path) end() int { return int(p.cells >> 56) }

// Tables built once from the geometry.
var (
	// paths[sq][k] lists the movements of exactly k steps (1..3) from sq, those into the goal
	// included (whose last step leaves the far row upward).
	paths [numSquares][4][]path
	// rowMask[r] is row r; rowsUpTo[r] is rows 0..r.
	rowMask  [6]uint64
	rowsUpTo [6]uint64
	// reverse6[b] is the 6-bit value b read backwards: a row mirrored left–right.
	reverse6 [64]uint64
)

func init() { buildTables() }

func buildTables() {
	for r := range 6 {
		rowMask[r] = 0x3f << (6 * r)
		rowsUpTo[r] = uint64(1)<<(6*(r+1)) - 1
	}
	for b := range 64 {
		reverse6[b] = uint64(bits.Reverse8(uint8(b)) >> 2)
	}
	for sq := range numSquares {
		for k := 1; k <= 3; k++ {
			var list []path
			walkPaths(sq, k, 0, 0, func(cells, conns uint64, end int) {
				list = append(list, path{cells: cells | uint64(end)<<56, conns: conns})
			})
			paths[sq][k] = list
		}
	}
}

// walkPaths calls found for every movement of exactly left steps from sq that does not use a
// connection twice, passing the squares passed through so far (cells) and connections used.
func walkPaths(sq, left int, cells, conns uint64, found func(cells, conns uint64, end int)) {
	r, c := sq/6, sq%6
	if left == 1 && r == 5 {
		found(cells, conns, goal)
	}
	for _, d := range [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
		nr, nc := r+d[0], c+d[1]
		if nr < 0 || nr > 5 || nc < 0 || nc > 5 {
			continue
		}
		conn := connection(r, c, nr, nc)
		if conns&conn != 0 {
			continue
		}
		next := nr*6 + nc
		if left == 1 {
			found(cells, conns|conn, next)
			continue
		}
		walkPaths(next, left-1, cells|1<<next, conns|conn, found)
	}
}

// connection is the bit of the connection between two adjacent squares.
func connection(r, c, nr, nc int) uint64 {
	if r == nr {
		return 1 << (r*5 + min(c, nc))
	}
	return 1 << (30 + min(r, nr)*6 + c)
}

// turn is the board seen from the other side: square sq becomes 35-sq.
func turn(m uint64) uint64 { return bits.Reverse64(m) >> (64 - numSquares) }

// mirror is the board mirrored left–right: column c becomes 5-c.
func mirror(m uint64) uint64 {
	var out uint64
	for r := 0; r < 6*6; r += 6 {
		out |= reverse6[m>>r&63] << r
	}
	return out
}

// mirrorSquare is square sq mirrored left–right; the goal stays the goal.
func mirrorSquare(sq int) int {
	if sq == goal {
		return goal
	}
	c := sq % 6
	return sq - c + 5 - c
}

// Columns a and f.
const (
	colA = uint64(0x041041041)
	colF = colA << 5
)

// adjacent is the set of squares next to a square of m (m's own squares only if next to
// another).
func adjacent(m uint64) uint64 {
	return (m<<6 | m>>6 | m&^colF<<1 | m&^colA>>1) & allSquares
}

// topRow is the highest occupied row of a non-empty mask.
func topRow(m uint64) int { return (63 - bits.LeadingZeros64(m)) / 6 }

func lowest(m uint64) int { return bits.TrailingZeros64(m) }
