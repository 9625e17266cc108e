package dnnl

import "fmt"

// Layout is how the training graph's oneDNN ops lay out an activation of a batch of n
// positions of c planes of h×w cells (zd_layout in zdnnl.h: the values agree).
type Layout int

const (
	// Plain is (n, c, h, w) as gorgonia and the Go ops have it (nchw).
	Plain Layout = 0
	// Blocked is (n, c/16, h, w, 16): the planes in blocks of 16, innermost (nChw16c), the
	// format of oneDNN's AVX-512 convolution kernels, for c a multiple of 16 (the same size as
	// plain). Element-wise ops need not know it; only oneDNN's ops read its planes.
	Blocked Layout = 1
)

func (l Layout) check(c int) error {
	if l != Plain && (l != Blocked || c%16 != 0) {
		return fmt.Errorf("oneDNN: layout %d for %d planes", l, c)
	}
	return nil
}
