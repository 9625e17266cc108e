//go:build !openblas

package linalg

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

const name = "gonum"

// impl is the whole BLAS (Implementation, which training hands to gorgonia): gonum's GEMM,
// which spreads a large call over GOMAXPROCS goroutines.
var impl = gonum.Implementation{}

// engineImpl is what the inference engine uses: the same kernels called block by block so that
// each call stays on the calling goroutine and allocates nothing (gonum starts goroutines for a
// call of 4 blocks of 64×64 or more). Workers scale by goroutines, as with OpenBLAS's one thread.
var engineImpl blas.Float32 = serial{}

type serial struct{ gonum.Implementation }

// gonumBlock is gonum's GEMM block size: a call of one block of C runs serially.
const gonumBlock = 64

// Sgemm computes C = alpha·op(A)·op(B) + beta·C one 64×64 block of C at a time.
func (s serial) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if m <= gonumBlock && n <= gonumBlock {
		s.Implementation.Sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	for i := 0; i < m; i += gonumBlock {
		mi := min(gonumBlock, m-i)
		var ai []float32
		if tA == blas.NoTrans {
			ai = a[i*lda:]
		} else {
			ai = a[i:]
		}
		for j := 0; j < n; j += gonumBlock {
			nj := min(gonumBlock, n-j)
			var bj []float32
			if tB == blas.NoTrans {
				bj = b[j:]
			} else {
				bj = b[j*ldb:]
			}
			s.Implementation.Sgemm(tA, tB, mi, nj, k, alpha, ai, lda, bj, ldb, beta, c[i*ldc+j:], ldc)
		}
	}
}

// SetThreads sets the number of threads BLAS may use for one call: a no-op in this build, where
// the engine's calls are single-threaded and gorgonia's spread over GOMAXPROCS.
func SetThreads(n int) {}

// Threads is the number of threads one engine BLAS call uses.
func Threads() int { return 1 }

// Kernels names the kernels in use: gonum's pure-Go ones.
func Kernels() string { return "pure Go" }
