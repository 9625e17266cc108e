package linalg

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// TestSgemm holds this build's engine BLAS to gonum's reference GEMM on odd sizes, transposed or
// not, with offsets (leading dimensions wider than the matrices), alpha and beta.
func TestSgemm(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, sz := range [][3]int{{1, 1, 1}, {3, 200, 17}, {130, 70, 9}, {64, 64, 64}, {65, 129, 33}} {
		m, n, k := sz[0], sz[1], sz[2]
		for _, tA := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			for _, tB := range []blas.Transpose{blas.NoTrans, blas.Trans} {
				ra, ca := m, k
				if tA == blas.Trans {
					ra, ca = k, m
				}
				rb, cb := k, n
				if tB == blas.Trans {
					rb, cb = n, k
				}
				lda, ldb, ldc := ca+3, cb+2, n+5
				a, b := make([]float32, ra*lda), make([]float32, rb*ldb)
				c := make([]float32, m*ldc)
				for _, x := range [][]float32{a, b, c} {
					for i := range x {
						x[i] = rng.Float32()*2 - 1
					}
				}
				want := append([]float32(nil), c...)
				gonum.Implementation{}.Sgemm(tA, tB, m, n, k, 0.5, a, lda, b, ldb, 0.25, want, ldc)
				Float32.Sgemm(tA, tB, m, n, k, 0.5, a, lda, b, ldb, 0.25, c, ldc)
				for i := range c {
					if d := c[i] - want[i]; d > 1e-4 || d < -1e-4 {
						t.Fatalf("%v %v %d×%d×%d: c[%d] = %g, want %g", tA, tB, m, n, k, i, c[i], want[i])
					}
				}
			}
		}
	}
}

// TestSgemmAllocatesNothing: the engine's calls must not allocate (gonum's parallel GEMM does).
func TestSgemmAllocatesNothing(t *testing.T) {
	const m, n, k = 64, 1000, 576
	a, b, c := make([]float32, m*k), make([]float32, k*n), make([]float32, m*n)
	if allocs := testing.AllocsPerRun(3, func() {
		Float32.Sgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, a, k, b, n, 0, c, n)
	}); allocs != 0 {
		t.Errorf("Sgemm allocates %v times a call", allocs)
	}
}
