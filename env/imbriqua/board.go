package imbriqua

import "math/bits"

// A bitboard is a set of squares: bit sq = rank·8 + file, so a1 = 0, h1 = 7, a8 = 56, h8 = 63.
type bitboard = uint64

const (
	numSquares = 64
	fileA      = bitboard(0x0101010101010101)
	fileH      = fileA << 7
	rank1      = bitboard(0xff)
	rank8      = rank1 << 56
	// edge is the 28 squares of the outer ring.
	edge = fileA | fileH | rank1 | rank8
	// inner is the 36 squares a turn's placement must use while one of them is empty.
	inner = ^edge
)

// The 8 directions, orthogonal ones even and diagonal ones odd, so a card's kind picks every
// other direction. Opposite directions are 4 apart.
const (
	north = iota
	northEast
	east
	southEast
	south
	southWest
	west
	northWest
	numDirs
)

var (
	dirDX = [numDirs]int{0, 1, 1, 1, 0, -1, -1, -1}
	dirDY = [numDirs]int{1, 1, 0, -1, -1, -1, 0, 1}
)

// maxDist is the longest distance along a line of the board.
const maxDist = 7

// rays[sq][d] lists the squares from sq in direction d, nearest first, rayLen[sq][d] of them;
// rayMask[sq][d] is the same squares as a set.
var (
	rays    [numSquares][numDirs][maxDist]int8
	rayLen  [numSquares][numDirs]int8
	rayMask [numSquares][numDirs]bitboard
)

func init() {
	for sq := 0; sq < numSquares; sq++ {
		for d := 0; d < numDirs; d++ {
			x, y := sq%8, sq/8
			for n := 0; ; n++ {
				x, y = x+dirDX[d], y+dirDY[d]
				if x < 0 || x > 7 || y < 0 || y > 7 {
					break
				}
				rays[sq][d][n] = int8(y*8 + x)
				rayLen[sq][d]++
				rayMask[sq][d] |= 1 << (y*8 + x)
			}
		}
	}
}

func bit(sq int) bitboard { return 1 << uint(sq) }

func has(b bitboard, sq int) bool { return b>>uint(sq)&1 != 0 }

func count(b bitboard) int { return bits.OnesCount64(b) }

// first is the lowest square of a non-empty set.
func first(b bitboard) int { return bits.TrailingZeros64(b) }

// between is the set of squares strictly between from and to, which lie on line d from from.
func between(from, to, d int) bitboard {
	return rayMask[from][d] &^ rayMask[to][d] &^ bit(to)
}

// shift moves every square of b one step in direction d; squares that would leave the board
// are dropped (the file masks stop a step east of h from wrapping to a).
func shift(b bitboard, d int) bitboard {
	switch d {
	case north:
		return b << 8
	case northEast:
		return (b &^ fileH) << 9
	case east:
		return (b &^ fileH) << 1
	case southEast:
		return (b &^ fileH) >> 7
	case south:
		return b >> 8
	case southWest:
		return (b &^ fileA) >> 9
	case west:
		return (b &^ fileA) >> 1
	}
	return (b &^ fileA) << 7 // northWest
}

// framed is the set of empty squares that p frames along the line of directions d and d+4:
// both neighbours on that line are p's.
func framed(p, empty bitboard, d int) bitboard {
	return empty & shift(p, d) & shift(p, d+4)
}

// frameCount is the number of framed squares of p, each counted once per line that frames it.
func frameCount(p, empty bitboard) int {
	return count(framed(p, empty, north)) + count(framed(p, empty, northEast)) +
		count(framed(p, empty, east)) + count(framed(p, empty, southEast))
}

// The 8 symmetries of the square: k < 4 turns the board k quarter turns counterclockwise
// (a1 → h1 → h8 → a8), k ≥ 4 mirrors it first (file a ↔ file h), then turns it k-4 times.

const numSymmetries = 8

// symSquare maps square sq by symmetry k.
func symSquare(k, sq int) int {
	x, y := sq%8, sq/8
	if k >= 4 {
		x = 7 - x
	}
	for range k % 4 {
		x, y = 7-y, x
	}
	return y*8 + x
}

// symDir maps direction d by symmetry k: the same map applied to the step (dx, dy).
func symDir(k, d int) int {
	if k >= 4 {
		d = (8 - d) % 8 // the mirror x → -x: north stays, east ↔ west, NE ↔ NW, SE ↔ SW
	}
	return (d + 6*(k%4)) % 8 // a quarter turn counterclockwise: north → west, east → north
}

// symBoard maps a set of squares by symmetry k with the usual bit tricks: a quarter turn is
// a flip about the a1-h8 diagonal then a mirror of the files.
func symBoard(k int, b bitboard) bitboard {
	if k >= 4 {
		b = mirrorFiles(b)
	}
	for range k % 4 {
		b = mirrorFiles(flipDiagonal(b))
	}
	return b
}

// mirrorFiles maps file a to file h: the bits of each byte reversed.
func mirrorFiles(b bitboard) bitboard {
	const k1, k2, k4 = 0x5555555555555555, 0x3333333333333333, 0x0f0f0f0f0f0f0f0f
	b = b>>1&k1 | b&k1<<1
	b = b>>2&k2 | b&k2<<2
	return b>>4&k4 | b&k4<<4
}

// flipDiagonal maps (file, rank) to (rank, file), fixing the a1-h8 diagonal.
func flipDiagonal(b bitboard) bitboard {
	const k1, k2, k4 = 0x5500550055005500, 0x3333000033330000, 0x0f0f0f0f00000000
	t := k4 & (b ^ b<<28)
	b ^= t ^ t>>28
	t = k2 & (b ^ b<<14)
	b ^= t ^ t>>14
	t = k1 & (b ^ b<<7)
	return b ^ t ^ t>>7
}
