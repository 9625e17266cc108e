package yinsh

import (
	"math/bits"

	"github.com/zerogames/zero/env"
)

// The 85 points live in an 11×11 grid indexed [column][row]: column x = 0..10 for a..k, row
// y = 0..10 for 1..11, grid index x*11+y (the observation's and the policy's planes).
//
// A bitboard holds the points in two words, the even columns (a, c, e, g, i, k) in one and the
// odd columns (b, d, f, h, j) in the other, each column 11 bits from its row 1:
//
//	even x: bit 11·(x/2) + y - 1 of lo (a has no row 1, so a2 is bit 0 and k10 bit 63)
//	odd x:  bit 11·(x/2) + y of hi
//
// Moving along a column is ±1 within a word. Moving along a row goes to the other word: from an
// even column +1 bit (into hi), from an odd column +10 (into lo); two columns on is +11 in the
// same word. Along the diagonal (1,1): +2 from even, +11 from odd, +13 two columns on. So a row
// of five is found with three shift-ands per direction on single words (hasRow), never a
// shift across the two words. Every bit of a word is one grid cell, and a shift that leaves the
// column's 11 rows lands on a cell off the board (checked by TestRows), so no false row is
// made of points from two lines.
const (
	gridSize  = 11
	numCells  = gridSize * gridSize // 121, the grid
	numPoints = 85
)

// cellOf is the bitboard cell (bit i of lo for i < 64, bit i-64 of hi) of the point on column x,
// row y.
func cellOf(x, y int) int {
	if x%2 == 0 {
		return 11*(x/2) + y - 1
	}
	return 64 + 11*(x/2) + y
}

// bitboard is a set of cells: cell i is bit i of lo (i < 64) or bit i-64 of hi. A struct,
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
func (b bitboard) count() int                 { return bits.OnesCount64(b.lo) + bits.OnesCount64(b.hi) }

// forEach calls f on each cell of b, in ascending cell order (not the points' order).
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

// Directions in the grid: 0..2 are the positive directions (the ones rows are named along).
var (
	dirDX = [6]int{0, 1, 1, 0, -1, -1}
	dirDY = [6]int{1, 0, 1, -1, 0, -1}
)

const maxRay = 9 // the longest line has 10 points

// moveCells is a move's start and end cells and direction (the end is 0 for moves off the board).
type moveCells struct{ from, to, dir uint8 }

// maxRingMoves bounds the moves of one ring: the other points of its three lines, each line
// at most 10 points (checked when the tables are built).
const maxRingMoves = 27

// Tables built once from the geometry.
var (
	board       bitboard         // the 85 points
	pointCell   [numPoints]uint8 // point index (column-major: a2, a3, …, k10) → cell
	cellPoint   [128]int8        // cell → point index, or -1 for a cell that is no point
	pointGrid   [numPoints]uint8 // point → grid index x*11+y
	gridPoint   [numCells]int8   // grid index → point, or -1 off the board
	cellGrid    [128]uint8       // cell → grid index (for the points; 0 for the others)
	columnFirst [gridSize]uint8  // a column's first point (its lowest row)
	columnMask  [gridSize]uint64 // a bit per point of the column, from its first
	rays        [numPoints][6][maxRay]uint8
	rayLen      [numPoints][6]uint8
	rayMask     [numPoints][6]bitboard      // the cells of the ray, the start excluded
	rayFrom     [128][8]bitboard            // by cell and direction: the cell and its ray
	moves       [numPoints * 54]moveCells   // by move action - moveBase
	moveSeq     [numPoints][6][8]env.Action // the moves of a ray to distances 1..8
	cellBits    [128]bitboard               // cell c alone
	pointLines  [numPoints][3]pointLine     // by axis (column, row, diagonal): the line through p
	lineGathers [numLines]lineGather
	reversed11  [1 << 11]uint16        // the 11 low bits in reverse order
	rowMask     [numPoints][3]bitboard // the 5 cells from a point along a positive direction
	rowOK       [numPoints][3]bool     // whether those 5 cells are all on the board
	symPoint    [numSymmetries][numPoints]uint8
	symDir      [numSymmetries][6]uint8
	symActions  [numSymmetries][NumActions]int16
)

// pointXY returns point p's column and row (0-based).
func pointXY(p int) (x, y int) { return int(pointGrid[p]) / gridSize, int(pointGrid[p]) % gridSize }

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
	for c := range cellPoint {
		cellPoint[c] = -1
	}
	for g := range gridPoint {
		gridPoint[g] = -1
	}
	n := 0
	for x := 0; x < gridSize; x++ {
		columnFirst[x] = uint8(n)
		columnMask[x] = 1<<(columns[x][1]-columns[x][0]+1) - 1
		for y := columns[x][0] - 1; y < columns[x][1]; y++ {
			c := cellOf(x, y)
			if c < 0 || c >= 128 || cellPoint[c] >= 0 {
				panic("yinsh: two points share a cell")
			}
			board.set(c)
			pointCell[n] = uint8(c)
			cellPoint[c] = int8(n)
			pointGrid[n] = uint8(x*gridSize + y)
			gridPoint[x*gridSize+y] = int8(n)
			cellGrid[c] = uint8(x*gridSize + y)
			n++
		}
	}
	if n != numPoints {
		panic("yinsh: the board does not have 85 points")
	}
	for p := 0; p < numPoints; p++ {
		x, y := pointXY(p)
		for d := 0; d < 6; d++ {
			for k := 1; ; k++ {
				nx, ny := x+k*dirDX[d], y+k*dirDY[d]
				if !onBoard(nx, ny) {
					break
				}
				c := cellOf(nx, ny)
				rays[p][d][k-1] = uint8(c)
				rayLen[p][d] = uint8(k)
				rayMask[p][d].set(c)
			}
			rayFrom[pointCell[p]][d] = rayMask[p][d].or(cellBit(int(pointCell[p])))
			for k := range maxRay {
				moves[p*54+d*9+k] = moveCells{pointCell[p], rays[p][d][k], uint8(d)}
				if k < 8 {
					moveSeq[p][d][k] = env.Action(moveBase + p*54 + d*9 + k)
				}
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
// Each is read as an integer with a bit per index 0..10 (see gather).
const numLines = 11 + 11 + 21

// pointLine is the line through a point along an axis and the point's index in it.
type pointLine struct{ line, pos uint8 }

// lineGather reads a line out of a bitboard, a part per word. A part's points are evenly
// spaced in the word (step 1 along a column, 11 along a row, 13 along a diagonal) and go to
// evenly spaced indices (step 1 along a column, 2 otherwise: the other columns are in the other
// word). Shifted down to the first and masked, multiplied by mul, each point lands on its own
// bit at the top of the word (the spacings leave no two partial products below bit 64 on one
// bit, so nothing carries: checked when the table is built), where top keeps it, and a shift
// puts it at its index. off marks the indices 0..10 that are not points of the board, and
// 11..15: read as occupied, they end the rays.
type lineGather struct {
	lo, hi lineGatherPart
	off    uint16
}

type lineGatherPart struct {
	shift, down uint8
	mask, mul   uint64
	top         uint64
}

func (g *lineGatherPart) gather(w uint64) uint64 {
	return (w >> (g.shift & 63) & g.mask) * g.mul & g.top >> (g.down & 63)
}

func (g *lineGather) gather(b bitboard) uint64 { return g.lo.gather(b.lo) | g.hi.gather(b.hi) }

// lineXY returns the grid column and row of index i of a line, and whether it is on the board.
func lineXY(axis, k, i int) (x, y int, ok bool) {
	x, y = k, i // axis 0: column k
	switch axis {
	case 1:
		x, y = i, k // row k
	case 2:
		x, y = i, i+k-10 // diagonal k
	}
	return x, y, onBoard(x, y)
}

func buildLines() {
	line := 0
	for axis := range 3 {
		lines := gridSize
		if axis == 2 {
			lines = 21
		}
		for k := 0; k < lines; k++ {
			g := &lineGathers[line]
			g.off = 0xf800
			var index, cell [2][]int // by word: the line's points
			for i := 0; i < gridSize; i++ {
				x, y, ok := lineXY(axis, k, i)
				if !ok {
					g.off |= 1 << i
					continue
				}
				c := cellOf(x, y)
				index[c>>6] = append(index[c>>6], i)
				cell[c>>6] = append(cell[c>>6], c&63)
				pointLines[gridPoint[x*gridSize+y]][axis] = pointLine{uint8(line), uint8(i)}
			}
			g.lo = buildGatherPart(index[0], cell[0])
			g.hi = buildGatherPart(index[1], cell[1])
			line++
		}
	}
	for v := range reversed11 {
		reversed11[v] = uint16(bits.Reverse16(uint16(v)) >> 5)
	}
}

func buildGatherPart(index, cell []int) lineGatherPart {
	n := len(index)
	if n == 0 {
		return lineGatherPart{}
	}
	s, k := 1, 1 // the steps between cells and between indices
	if n > 1 {
		s, k = cell[1]-cell[0], index[1]-index[0]
	}
	top := 63 - k*(n-1) // where the first point lands
	var g lineGatherPart
	for t := 0; t < n; t++ {
		if cell[t] != cell[0]+s*t || index[t] != index[0]+k*t || top+k*t-s*t < 0 {
			panic("yinsh: a line cannot be gathered")
		}
		g.mask |= 1 << (s * t)
		g.mul |= 1 << (top + k*t - s*t)
		g.top |= 1 << (top + k*t)
	}
	seen := map[int]bool{} // the partial products below bit 64 fall on distinct bits
	for m := g.mul; m != 0; m &= m - 1 {
		for t := 0; t < n; t++ {
			if b := s*t + bits.TrailingZeros64(m); b < 64 {
				if seen[b] {
					panic("yinsh: a line's gather carries")
				}
				seen[b] = true
			}
		}
	}
	g.shift, g.down = uint8(cell[0]), uint8(top-index[0])
	return g
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
			x, y := pointXY(p)
			u, v := transform(k, x-5, y-5)
			if !onBoard(u+5, v+5) {
				panic("yinsh: a symmetry leaves the board")
			}
			symPoint[k][p] = uint8(gridPoint[(u+5)*gridSize+v+5])
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
