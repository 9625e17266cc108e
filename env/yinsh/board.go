package yinsh

import "math/bits"

// The 85 points live in an 11×11 grid indexed [column][row]: column x = 0..10 for a..k, row
// y = 0..10 for 1..11, grid index x*11+y. A bitboard is that grid in 128 bits (121 used).
//
// The six directions in the grid are ±(0,1) along a column (±1), ±(1,0) along a row (±11) and
// ±(1,1) along the diagonal (±12). Shifting a bitboard by them never wraps from one valid point
// to another: only column a/k and rows 1/11 could wrap, and their wrap targets are all off the
// board (a1, k1, a12…), so masking with the board after a shift is enough.
const (
	gridSize  = 11
	numCells  = gridSize * gridSize // 121
	numPoints = 85
)

// bitboard is a set of grid cells: cell i is bit i%64 of word i/64.
type bitboard [2]uint64

func cellBit(c int) bitboard {
	var b bitboard
	b[c>>6] = 1 << (c & 63)
	return b
}

func (b bitboard) has(c int) bool             { return b[c>>6]>>(c&63)&1 != 0 }
func (b *bitboard) set(c int)                 { b[c>>6] |= 1 << (c & 63) }
func (b *bitboard) clear(c int)               { b[c>>6] &^= 1 << (c & 63) }
func (b bitboard) and(o bitboard) bitboard    { return bitboard{b[0] & o[0], b[1] & o[1]} }
func (b bitboard) or(o bitboard) bitboard     { return bitboard{b[0] | o[0], b[1] | o[1]} }
func (b bitboard) xor(o bitboard) bitboard    { return bitboard{b[0] ^ o[0], b[1] ^ o[1]} }
func (b bitboard) andNot(o bitboard) bitboard { return bitboard{b[0] &^ o[0], b[1] &^ o[1]} }
func (b bitboard) empty() bool                { return b[0]|b[1] == 0 }
func (b bitboard) count() int                 { return bits.OnesCount64(b[0]) + bits.OnesCount64(b[1]) }

// shr shifts toward lower cells by n (0 < n < 64): bit c of the result is bit c+n of b.
func (b bitboard) shr(n uint) bitboard {
	return bitboard{b[0]>>n | b[1]<<(64-n), b[1] >> n}
}

// first returns the lowest cell of a non-empty b.
func (b bitboard) first() int {
	if b[0] != 0 {
		return bits.TrailingZeros64(b[0])
	}
	return 64 + bits.TrailingZeros64(b[1])
}

// columns gives, for each column a..k, its first and last row (1-based), as the spec's table.
var columns = [gridSize][2]int{{2, 5}, {1, 7}, {1, 8}, {1, 9}, {1, 10}, {2, 10}, {2, 11}, {3, 11}, {4, 11}, {5, 11}, {7, 10}}

// Direction steps in the grid: 0..2 are the positive directions (the ones rows are named along).
var (
	dirDX   = [6]int{0, 1, 1, 0, -1, -1}
	dirDY   = [6]int{1, 0, 1, -1, 0, -1}
	dirStep = [6]int{1, 11, 12, -1, -11, -12}
)

const maxRay = 9 // the longest line has 10 points

// Tables built once from the geometry.
var (
	board      bitboard         // the 85 valid cells
	pointCell  [numPoints]uint8 // point index (column-major: a2, a3, …, k10) → cell
	cellPoint  [numCells]int8   // cell → point index, or -1 off the board
	rays       [numPoints][6][maxRay]uint8
	rayLen     [numPoints][6]uint8
	rayMask    [numPoints][6]bitboard // the cells of the ray, the start excluded
	rowMask    [numPoints][3]bitboard // the 5 cells from a point along a positive direction
	rowOK      [numPoints][3]bool     // whether those 5 cells are all on the board
	symPoint   [numSymmetries][numPoints]uint8
	symDir     [numSymmetries][6]uint8
	symActions [numSymmetries][NumActions]int16
)

func cellXY(c int) (x, y int) { return c / gridSize, c % gridSize }

func onBoard(x, y int) bool {
	return x >= 0 && x < gridSize && y+1 >= columns[x][0] && y+1 <= columns[x][1]
}

func init() { buildTables() }

func buildTables() {
	for c := range cellPoint {
		cellPoint[c] = -1
	}
	n := 0
	for x := 0; x < gridSize; x++ {
		for y := columns[x][0] - 1; y < columns[x][1]; y++ {
			c := x*gridSize + y
			board.set(c)
			pointCell[n] = uint8(c)
			cellPoint[c] = int8(n)
			n++
		}
	}
	if n != numPoints {
		panic("yinsh: the board does not have 85 points")
	}
	for p := 0; p < numPoints; p++ {
		x, y := cellXY(int(pointCell[p]))
		for d := 0; d < 6; d++ {
			for k := 1; ; k++ {
				nx, ny := x+k*dirDX[d], y+k*dirDY[d]
				if !onBoard(nx, ny) {
					break
				}
				c := nx*gridSize + ny
				rays[p][d][k-1] = uint8(c)
				rayLen[p][d] = uint8(k)
				rayMask[p][d].set(c)
			}
		}
		for d := 0; d < 3; d++ {
			rowOK[p][d] = rayLen[p][d] >= 4
			rowMask[p][d] = cellBit(int(pointCell[p]))
			for k := 0; k < 4 && k < int(rayLen[p][d]); k++ {
				rowMask[p][d].set(int(rays[p][d][k]))
			}
		}
	}
	buildSymmetries()
}

// numSymmetries: the 6 rotations of the hexagon, and each followed by a reflection.
const numSymmetries = 12

// buildSymmetries: around f6, with u = x-5, v = y-5, the rotation by 60° is (u,v) → (u-v, u)
// (it takes direction (1,0) to (1,1), (1,1) to (0,1), and so on around), and the reflection
// (u,v) → (v,u) swaps the column and row directions. Symmetry k < 6 is rotation k times;
// k ≥ 6 is the reflection followed by rotation k-6 times.
func buildSymmetries() {
	transform := func(k, u, v int) (int, int) {
		if k >= 6 {
			u, v = v, u
		}
		for i := 0; i < k%6; i++ {
			u, v = u-v, u
		}
		return u, v
	}
	for k := 0; k < numSymmetries; k++ {
		for p := 0; p < numPoints; p++ {
			x, y := cellXY(int(pointCell[p]))
			u, v := transform(k, x-5, y-5)
			if !onBoard(u+5, v+5) {
				panic("yinsh: a symmetry leaves the board")
			}
			symPoint[k][p] = uint8(cellPoint[(u+5)*gridSize+v+5])
		}
		for d := 0; d < 6; d++ {
			u, v := transform(k, dirDX[d], dirDY[d])
			for e := 0; e < 6; e++ {
				if dirDX[e] == u && dirDY[e] == v {
					symDir[k][d] = uint8(e)
				}
			}
		}
		for a := range NumActions {
			symActions[k][a] = int16(mapAction(k, a))
		}
	}
}

// mapAction maps action a by symmetry k, from the point and direction tables.
func mapAction(k, a int) int {
	switch {
	case a < moveBase: // place
		return placeBase + int(symPoint[k][a-placeBase])
	case a < rowBase:
		p, d, dist := (a-moveBase)/54, (a-moveBase)%54/9, (a-moveBase)%9+1
		return moveAction(int(symPoint[k][p]), int(symDir[k][d]), dist)
	case a < ringBase:
		p, d := (a-rowBase)/3, (a-rowBase)%3
		q, e := int(symPoint[k][p]), int(symDir[k][d])
		if !rowOK[p][d] {
			return a // a hole: left in place so the map stays a permutation
		}
		if e >= 3 { // the image runs the other way: name it from its other end
			q, e = int(cellPoint[rays[q][e][3]]), e-3
		}
		return rowBase + q*3 + e
	case a < passAction:
		return ringBase + int(symPoint[k][a-ringBase])
	}
	return a
}

func moveAction(p, d, dist int) int { return moveBase + p*54 + d*9 + dist - 1 }

func trailing(m uint64) int { return bits.TrailingZeros64(m) }
