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

// bitboard is a set of grid cells: cell i is bit i of lo (i < 64) or bit i-64 of hi. A struct,
// not an array: the compiler keeps a struct of two words in registers and passes it in
// registers, while it keeps any array of two words in memory.
type bitboard struct{ lo, hi uint64 }

// cellBit is the set of cell c alone.
func cellBit(c int) bitboard { return cellBits[c&127] }

func (b bitboard) has(c int) bool             { return !b.and(cellBit(c)).empty() }
func (b *bitboard) set(c int)                 { *b = b.or(cellBit(c)) }
func (b *bitboard) clear(c int)               { *b = b.andNot(cellBit(c)) }
func (b bitboard) and(o bitboard) bitboard    { return bitboard{b.lo & o.lo, b.hi & o.hi} }
func (b bitboard) or(o bitboard) bitboard     { return bitboard{b.lo | o.lo, b.hi | o.hi} }
func (b bitboard) xor(o bitboard) bitboard    { return bitboard{b.lo ^ o.lo, b.hi ^ o.hi} }
func (b bitboard) andNot(o bitboard) bitboard { return bitboard{b.lo &^ o.lo, b.hi &^ o.hi} }
func (b bitboard) empty() bool                { return b.lo|b.hi == 0 }
func (b bitboard) any() uint64                { return b.lo | b.hi }
func (b bitboard) count() int                 { return bits.OnesCount64(b.lo) + bits.OnesCount64(b.hi) }

// upToLowest returns the cells up to and including the lowest cell of b: all cells if b is
// empty. Along a positive direction (the cell index grows with the distance), it is what lies
// between the start and the first cell of b on the way, that one included.
func (b bitboard) upToLowest() bitboard {
	lo, borrow := bits.Sub64(b.lo, 1, 0)
	hi, _ := bits.Sub64(b.hi, 0, borrow)
	return bitboard{b.lo ^ lo, b.hi ^ hi}
}

// downToHighest returns the cells down to and including the highest cell of b: all cells if b
// is empty. It is upToLowest for the negative directions.
func (b bitboard) downToHighest() bitboard {
	n := 64 + bits.Len64(b.hi)
	if b.hi == 0 {
		n = bits.Len64(b.lo)
	}
	return fromCell[n]
}

// forEach calls f on each cell of b, in ascending order.
func (b bitboard) forEach(f func(c int)) {
	for m := b.lo; m != 0; m &= m - 1 {
		f(bits.TrailingZeros64(m))
	}
	for m := b.hi; m != 0; m &= m - 1 {
		f(64 + bits.TrailingZeros64(m))
	}
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

// moveCells is a move's start and end cells and direction (the end is 0 for moves off the board).
type moveCells struct{ from, to, dir uint8 }

// maxRingMoves bounds the moves of one ring: the other points of its three lines, each line
// at most 10 points (checked when the tables are built).
const maxRingMoves = 27

// Tables built once from the geometry.
var (
	board       bitboard         // the 85 valid cells
	pointCell   [numPoints]uint8 // point index (column-major: a2, a3, …, k10) → cell
	cellPoint   [numCells]int8   // cell → point index, or -1 off the board
	rays        [numPoints][6][maxRay]uint8
	rayLen      [numPoints][6]uint8
	rayMask     [numPoints][6]bitboard    // the cells of the ray, the start excluded
	rayFrom     [128][8]bitboard          // by cell and direction: the cell and its ray
	moves       [numPoints * 54]moveCells // by move action - moveBase
	cellBits    [128]bitboard             // cell c alone (cells 121..127 are off the grid)
	fromCell    [129]bitboard             // fromCell[n]: the cells from n-1 up; fromCell[0] all
	pointLines  [numPoints][3]pointLine   // by axis (column, row, diagonal): the line through p
	lineGathers [numLines]lineGather
	reversed11  [1 << 11]uint16        // the 11 low bits in reverse order
	rowMask     [numPoints][3]bitboard // the 5 cells from a point along a positive direction
	rowOK       [numPoints][3]bool     // whether those 5 cells are all on the board
	symPoint    [numSymmetries][numPoints]uint8
	symDir      [numSymmetries][6]uint8
	symActions  [numSymmetries][NumActions]int16
)

func cellXY(c int) (x, y int) { return c / gridSize, c % gridSize }

func onBoard(x, y int) bool {
	return x >= 0 && x < gridSize && y+1 >= columns[x][0] && y+1 <= columns[x][1]
}

func init() { buildTables() }

func buildTables() {
	for c := range cellBits {
		if c < 64 {
			cellBits[c].lo = 1 << c
		} else {
			cellBits[c].hi = 1 << (c - 64)
		}
	}
	fromCell[0] = bitboard{^uint64(0), ^uint64(0)}
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
			rayFrom[pointCell[p]][d] = rayMask[p][d].or(cellBit(int(pointCell[p])))
			for k := range maxRay {
				moves[p*54+d*9+k] = moveCells{pointCell[p], rays[p][d][k], uint8(d)}
			}
		}
		lines := 0
		for d := range 6 {
			lines += int(rayLen[p][d])
		}
		if lines > maxRingMoves {
			panic("yinsh: a ring has more moves than maxRingMoves")
		}
		for d := 0; d < 3; d++ {
			rowOK[p][d] = rayLen[p][d] >= 4
			rowMask[p][d] = cellBit(int(pointCell[p]))
			for k := 0; k < 4 && k < int(rayLen[p][d]); k++ {
				rowMask[p][d].set(int(rays[p][d][k]))
			}
		}
	}
	buildLines()
	buildSymmetries()
}

// The lines: 11 along columns (axis 0, indexed by row), 11 along rows (axis 1, by column) and
// 21 diagonals (axis 2, by column; diagonal k holds the grid cells with row-column = k-10).
// Each is read as an integer with a bit per index 0..10 of its grid cells (see gather).
const numLines = 11 + 11 + 21

// pointLine is the line through a point along an axis and the point's index in it.
type pointLine struct{ line, pos uint8 }

// lineGather reads a line out of a bitboard. Its grid cells in one word are evenly spaced
// (step 1, 11 or 12); shifted down to the first, masked, and multiplied by mul, each lands on
// its own bit at the top of the word (the spacing leaves no two partial products on one bit,
// so nothing carries), the top n bits hold them in order, and they go to indices i.. of the
// result. off marks the indices 0..10 that are not points of the board, and 11..15: read as
// occupied, they end the rays.
type lineGather struct {
	loShift, loTop, loIndex, hiShift, hiTop, hiIndex uint8
	off                                              uint16
	loMask, loMul, hiMask, hiMul                     uint64
}

func (g *lineGather) gather(b bitboard) uint64 {
	lo := (b.lo >> (g.loShift & 63) & g.loMask) * g.loMul >> (g.loTop & 63) << (g.loIndex & 15)
	hi := (b.hi >> (g.hiShift & 63) & g.hiMask) * g.hiMul >> (g.hiTop & 63) << (g.hiIndex & 15)
	return lo | hi
}

// lineCells returns the grid cells of a line by index (-1 where the index is off the grid).
func lineCells(axis, k int) (cells [11]int) {
	for i := range cells {
		x, y := k, i // axis 0: column k
		switch axis {
		case 1:
			x, y = i, k // row k
		case 2:
			x, y = i, i+k-10 // diagonal k
		}
		cells[i] = -1
		if y >= 0 && y < gridSize {
			cells[i] = x*gridSize + y
		}
	}
	return cells
}

func buildLines() {
	line := 0
	for axis := range 3 {
		lines := gridSize
		if axis == 2 {
			lines = 21
		}
		for k := 0; k < lines; k++ {
			cells := lineCells(axis, k)
			g := &lineGathers[line]
			g.off = 0xf800
			for word := range 2 {
				first, n, step := -1, 0, 0
				for i, c := range cells {
					if c < 0 || c>>6 != word {
						continue
					}
					if first < 0 {
						first = i
					}
					n++
					step = []int{1, 11, 12}[axis]
				}
				var shift, top, index uint8
				var mask, mul uint64
				if n > 0 {
					c0 := cells[first] & 63
					for t := 0; t < n; t++ {
						mask |= 1 << (t * step)
						mul |= 1 << (64 - n + t - t*step)
					}
					shift, top, index = uint8(c0), uint8(64-n), uint8(first)
				}
				if word == 0 {
					g.loShift, g.loTop, g.loIndex, g.loMask, g.loMul = shift, top, index, mask, mul
				} else {
					g.hiShift, g.hiTop, g.hiIndex, g.hiMask, g.hiMul = shift, top, index, mask, mul
				}
			}
			for i, c := range cells {
				if c < 0 || cellPoint[c] < 0 {
					g.off |= 1 << i
					continue
				}
				pointLines[cellPoint[c]][axis] = pointLine{uint8(line), uint8(i)}
			}
			line++
		}
	}
	for v := range reversed11 {
		reversed11[v] = uint16(bits.Reverse16(uint16(v)) >> 5)
	}
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
