// Helpers that zdnnl.c (the inference engine) and zdnnl_train.c (the training primitives)
// share: not part of the C surface (zdnnl.h), included by those two files only.
#ifndef ZDNNL_COMMON_H
#define ZDNNL_COMMON_H

#include <immintrin.h>
#include <stdarg.h>
#include <stdio.h>

#include <oneapi/dnnl/dnnl.h>

// failf writes a failure's reason into err (n bytes).
static inline void failf(char *err, size_t n, const char *format, ...) {
	va_list ap;
	va_start(ap, format);
	vsnprintf(err, n, format, ap);
	va_end(ap);
}

static inline const char *status(dnnl_status_t st) {
	switch (st) {
	case dnnl_out_of_memory:
		return "out of memory";
	case dnnl_invalid_arguments:
		return "invalid arguments";
	case dnnl_unimplemented:
		return "unimplemented";
	case dnnl_runtime_error:
		return "runtime error";
	default:
		return "error";
	}
}

// CK checks a oneDNN call: on failure it records which in z->err (z: the function's engine, a
// zd_net or a zd_conv) and jumps to the function's "bad" label.
#define CK(call)                                                                                      \
	do {                                                                                              \
		dnnl_status_t st_ = (call);                                                                   \
		if (st_ != dnnl_success) {                                                                    \
			failf(z->err, sizeof z->err, "oneDNN: %s (line %d): %s", #call, __LINE__, status(st_)); \
			goto bad;                                                                                 \
		}                                                                                             \
	} while (0)

// md4 describes a 4D tensor by format tag (dnnl_format_tag_any: the primitive chooses).
static inline dnnl_status_t md4(dnnl_memory_desc_t *md, int64_t a, int64_t b, int64_t c, int64_t d, dnnl_data_type_t dt, dnnl_format_tag_t tag) {
	dnnl_dims_t dims = {a, b, c, d};
	return dnnl_memory_desc_init_by_tag(md, 4, dims, dt, tag);
}

// ftz sets flush-to-zero and denormals-are-zero on this thread, as the kernels run best with
// them, and returns the MXCSR to restore (_mm_setcsr) before returning to Go.
static inline unsigned ftz(void) {
	unsigned csr = _mm_getcsr();
	_mm_setcsr(csr | 0x8040);
	return csr;
}

// zd_execute is dnnl_primitive_execute called with the stack 64-byte aligned (zdnnl.c): where
// the stack stood modulo 32 bytes at the call moved oneDNN 2.6's float32 Winograd convolution
// by 15-20% (AMD EPYC, AVX-512; the kernels spill to the stack), so that an edit of the C
// frames above the call would speed up or slow down the engine at random. bf16's kernels
// did not care. Every primitive runs through it.
dnnl_status_t zd_execute(const_dnnl_primitive_t p, dnnl_stream_t s, int nargs, const dnnl_exec_arg_t *args);

#endif
