//go:build openblas

package linalg

/*
#cgo LDFLAGS: -lopenblas
void openblas_set_num_threads(int);
int openblas_get_num_threads(void);
char *openblas_get_corename(void);
*/
import "C"

import "gonum.org/v1/netlib/blas/netlib"

const name = "openblas"

var impl = netlib.Implementation{}

var engineImpl = impl

// SetThreads sets the number of threads OpenBLAS may use for one call (n ≥ 1). It applies to
// the whole process.
func SetThreads(n int) {
	if n < 1 {
		n = 1
	}
	C.openblas_set_num_threads(C.int(n))
}

// Threads is the number of threads one BLAS call may use.
func Threads() int { return int(C.openblas_get_num_threads()) }

// Kernels names the kernels OpenBLAS chose ("Haswell", "SkylakeX", ...).
func Kernels() string { return C.GoString(C.openblas_get_corename()) }
