//go:build dnnl

// The training graph's convolutions on oneDNN 2.6: see zdnnl.h (zd_conv_*) for the contract,
// dnnl_train.go for how Go uses it, net/nettrain/convop.go for the ops that call it.
//
// A zd_conv is one convolution's three primitives (forward training, backward data, backward
// weights), built once for its shapes. The caller's tensors are plain (activations nchw,
// weights oihw); each primitive works in the formats oneDNN chooses for it (format "any"), and
// where one differs from the caller's, the zd_conv holds its own tensor in that format and a
// reorder to fill it (an input) or to write the caller's from it (an output). One scratch
// buffer serves every primitive and reorder (user scratchpad).
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include <oneapi/dnnl/dnnl.h>

#include "zdnnl.h"
#include "zdnnl_common.h"

// tensor is an argument of a primitive: the caller's plain memory (its handle set for each
// call, NULL between calls) and, if the primitive wants another format, its own copy and the
// reorder between the two (caller's to own for an input, own to caller's for an output).
typedef struct {
	dnnl_memory_t user, own;
	dnnl_primitive_t reorder;
	dnnl_memory_t rscratch; // the reorder's scratchpad, or NULL
} tensor;

// prim is a primitive and its scratchpad (over the zd_conv's scratch buffer).
typedef struct {
	dnnl_primitive_t p;
	dnnl_memory_t scratch;
	char impl[64];
} prim;

struct zd_conv {
	dnnl_engine_t eng;
	dnnl_stream_t stream;
	dnnl_primitive_attr_t attr; // user scratchpad
	prim fwd, bwdData, bwdWeights;
	tensor fx, fw, fy;    // forward: src, weights, dst
	tensor dw, ddy, ddx;  // backward data: weights, diff dst, diff src
	tensor wx, wdy, wdw;  // backward weights: src, diff dst, diff weights
	void *scratch;
	size_t scratchSize;
	char impl[256];
	char err[512];
};

const char *zd_conv_error(zd_conv *z) { return z->err; }

const char *zd_conv_impl(zd_conv *z) { return z->impl; }

// need grows the scratch buffer's size to hold md.
static void need(zd_conv *z, const dnnl_memory_desc_t *md) {
	size_t sz = dnnl_memory_desc_get_size(md);
	z->scratchSize = sz > z->scratchSize ? sz : z->scratchSize;
}

// tensorNew makes t: the caller's memory of format user, and if want differs, the primitive's
// own memory and the reorder between them (input: user to own; else own to user).
static int tensorNew(zd_conv *z, tensor *t, const dnnl_memory_desc_t *user, const dnnl_memory_desc_t *want, int input) {
	dnnl_primitive_desc_t pd = NULL;
	CK(dnnl_memory_create(&t->user, user, z->eng, NULL));
	if (dnnl_memory_desc_equal(user, want)) {
		return 0;
	}
	CK(dnnl_memory_create(&t->own, want, z->eng, DNNL_MEMORY_ALLOCATE));
	if (input) {
		CK(dnnl_reorder_primitive_desc_create(&pd, user, z->eng, want, z->eng, z->attr));
	} else {
		CK(dnnl_reorder_primitive_desc_create(&pd, want, z->eng, user, z->eng, z->attr));
	}
	need(z, dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0));
	CK(dnnl_primitive_create(&t->reorder, pd));
	dnnl_primitive_desc_destroy(pd);
	return 0;
bad:
	if (pd) {
		dnnl_primitive_desc_destroy(pd);
	}
	return -1;
}

// mem is the memory the primitive reads or writes for t.
static dnnl_memory_t mem(const tensor *t) { return t->own ? t->own : t->user; }

// primNew makes pd's primitive (pd is the caller's to destroy) and its tensors' formats known.
static int primNew(zd_conv *z, prim *p, dnnl_primitive_desc_t pd) {
	const char *impl = NULL;
	need(z, dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0));
	if (dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl) == dnnl_success && impl) {
		snprintf(p->impl, sizeof p->impl, "%s", impl);
	}
	CK(dnnl_primitive_create(&p->p, pd));
	return 0;
bad:
	return -1;
}

// scratchFor makes the scratchpad memory of a primitive (pd) over the shared buffer.
static int scratchFor(zd_conv *z, dnnl_memory_t *m, dnnl_primitive_t p) {
	const_dnnl_primitive_desc_t pd;
	CK(dnnl_primitive_get_primitive_desc(p, &pd));
	const dnnl_memory_desc_t *md = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
	if (dnnl_memory_desc_get_size(md) > 0) {
		CK(dnnl_memory_create(m, md, z->eng, z->scratch));
	}
	return 0;
bad:
	return -1;
}

static void tensorFree(tensor *t) {
	dnnl_memory_destroy(t->user);
	dnnl_memory_destroy(t->own);
	dnnl_primitive_destroy(t->reorder);
	dnnl_memory_destroy(t->rscratch);
}

static void primFree(prim *p) {
	dnnl_primitive_destroy(p->p);
	dnnl_memory_destroy(p->scratch);
}

void zd_conv_free(zd_conv *z) {
	if (!z) {
		return;
	}
	primFree(&z->fwd);
	primFree(&z->bwdData);
	primFree(&z->bwdWeights);
	tensor *ts[] = {&z->fx, &z->fw, &z->fy, &z->dw, &z->ddy, &z->ddx, &z->wx, &z->wdy, &z->wdw};
	for (int i = 0; i < 9; i++) {
		tensorFree(ts[i]);
	}
	free(z->scratch);
	dnnl_primitive_attr_destroy(z->attr);
	if (z->stream) {
		dnnl_stream_destroy(z->stream);
	}
	if (z->eng) {
		dnnl_engine_destroy(z->eng);
	}
	free(z);
}

zd_conv *zd_conv_new(int n, int in, int out, int h, int w, int k, char *err, int errlen) {
	omp_set_num_threads(1);
	zd_conv *z = calloc(1, sizeof *z);
	if (!z) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	dnnl_primitive_desc_t fpd = NULL, dpd = NULL, wpd = NULL;
	dnnl_convolution_desc_t cd;
	dnnl_memory_desc_t x, wt, y, xany, wany, yany;
	dnnl_dims_t strides = {1, 1}, pad = {k / 2, k / 2};
	if (n < 1 || in < 1 || out < 1 || h < 1 || w < 1 || (k != 1 && k != 3)) {
		failf(z->err, sizeof z->err, "oneDNN: a %dx%d convolution of %d positions, %d to %d planes of %dx%d", k, k, n, in, out, h, w);
		goto bad;
	}
	CK(dnnl_engine_create(&z->eng, dnnl_cpu, 0));
	CK(dnnl_stream_create(&z->stream, z->eng, dnnl_stream_default_flags));
	CK(dnnl_primitive_attr_create(&z->attr));
	CK(dnnl_primitive_attr_set_scratchpad_mode(z->attr, dnnl_scratchpad_mode_user));
	CK(md4(&x, n, in, h, w, dnnl_f32, dnnl_nchw));
	CK(md4(&wt, out, in, k, k, dnnl_f32, dnnl_oihw));
	CK(md4(&y, n, out, h, w, dnnl_f32, dnnl_nchw));
	CK(md4(&xany, n, in, h, w, dnnl_f32, dnnl_format_tag_any));
	CK(md4(&wany, out, in, k, k, dnnl_f32, dnnl_format_tag_any));
	CK(md4(&yany, n, out, h, w, dnnl_f32, dnnl_format_tag_any));
	// Forward, and the backward passes with it as their hint.
	CK(dnnl_convolution_forward_desc_init(&cd, dnnl_forward_training, dnnl_convolution_direct, &xany, &wany, NULL, &yany, strides, pad, pad));
	CK(dnnl_primitive_desc_create(&fpd, &cd, z->attr, z->eng, NULL));
	CK(dnnl_convolution_backward_data_desc_init(&cd, dnnl_convolution_direct, &xany, &wany, &yany, strides, pad, pad));
	CK(dnnl_primitive_desc_create(&dpd, &cd, z->attr, z->eng, fpd));
	CK(dnnl_convolution_backward_weights_desc_init(&cd, dnnl_convolution_direct, &xany, &wany, NULL, &yany, strides, pad, pad));
	CK(dnnl_primitive_desc_create(&wpd, &cd, z->attr, z->eng, fpd));
	if (primNew(z, &z->fwd, fpd) < 0 || primNew(z, &z->bwdData, dpd) < 0 || primNew(z, &z->bwdWeights, wpd) < 0 ||
	    tensorNew(z, &z->fx, &x, dnnl_primitive_desc_query_md(fpd, dnnl_query_src_md, 0), 1) < 0 ||
	    tensorNew(z, &z->fw, &wt, dnnl_primitive_desc_query_md(fpd, dnnl_query_weights_md, 0), 1) < 0 ||
	    tensorNew(z, &z->fy, &y, dnnl_primitive_desc_query_md(fpd, dnnl_query_dst_md, 0), 0) < 0 ||
	    tensorNew(z, &z->dw, &wt, dnnl_primitive_desc_query_md(dpd, dnnl_query_weights_md, 0), 1) < 0 ||
	    tensorNew(z, &z->ddy, &y, dnnl_primitive_desc_query_md(dpd, dnnl_query_diff_dst_md, 0), 1) < 0 ||
	    tensorNew(z, &z->ddx, &x, dnnl_primitive_desc_query_md(dpd, dnnl_query_diff_src_md, 0), 0) < 0 ||
	    tensorNew(z, &z->wx, &x, dnnl_primitive_desc_query_md(wpd, dnnl_query_src_md, 0), 1) < 0 ||
	    tensorNew(z, &z->wdy, &y, dnnl_primitive_desc_query_md(wpd, dnnl_query_diff_dst_md, 0), 1) < 0 ||
	    tensorNew(z, &z->wdw, &wt, dnnl_primitive_desc_query_md(wpd, dnnl_query_diff_weights_md, 0), 0) < 0) {
		goto bad;
	}
	snprintf(z->impl, sizeof z->impl, "%s, %s, %s", z->fwd.impl, z->bwdData.impl, z->bwdWeights.impl);
	dnnl_primitive_desc_destroy(fpd);
	dnnl_primitive_desc_destroy(dpd);
	dnnl_primitive_desc_destroy(wpd);
	fpd = dpd = wpd = NULL;
	// One scratch buffer, as large as the largest scratchpad.
	if (z->scratchSize > 0) {
		if (!(z->scratch = aligned_alloc(64, (z->scratchSize + 63) / 64 * 64))) {
			failf(z->err, sizeof z->err, "out of memory");
			goto bad;
		}
		if (scratchFor(z, &z->fwd.scratch, z->fwd.p) < 0 || scratchFor(z, &z->bwdData.scratch, z->bwdData.p) < 0 ||
		    scratchFor(z, &z->bwdWeights.scratch, z->bwdWeights.p) < 0) {
			goto bad;
		}
		tensor *ts[] = {&z->fx, &z->fw, &z->fy, &z->dw, &z->ddy, &z->ddx, &z->wx, &z->wdy, &z->wdw};
		for (int i = 0; i < 9; i++) {
			if (ts[i]->reorder && scratchFor(z, &ts[i]->rscratch, ts[i]->reorder) < 0) {
				goto bad;
			}
		}
	}
	return z;
bad:
	snprintf(err, errlen, "%s", z->err);
	if (fpd) {
		dnnl_primitive_desc_destroy(fpd);
	}
	if (dpd) {
		dnnl_primitive_desc_destroy(dpd);
	}
	if (wpd) {
		dnnl_primitive_desc_destroy(wpd);
	}
	zd_conv_free(z);
	return NULL;
}

// reorder runs t's reorder, if it has one: into its own copy (an input) or out of it.
static int reorder(zd_conv *z, tensor *t, int input) {
	if (!t->reorder) {
		return 0;
	}
	dnnl_exec_arg_t args[3] = {{DNNL_ARG_FROM, input ? t->user : t->own}, {DNNL_ARG_TO, input ? t->own : t->user}, {DNNL_ARG_SCRATCHPAD, t->rscratch}};
	CK(dnnl_primitive_execute(t->reorder, z->stream, t->rscratch ? 3 : 2, args));
	return 0;
bad:
	return -1;
}

// run runs primitive p on a and b (inputs) into c (the output), the caller's tensors at pa, pb
// and pc, with args naming them; it holds none of the caller's pointers after it returns.
static int run(zd_conv *z, prim *p, tensor *a, tensor *b, tensor *c, const void *pa, const void *pb, void *pc, const int *names) {
	unsigned csr = ftz();
	omp_set_num_threads(1);
	int rc = -1;
	CK(dnnl_memory_set_data_handle(a->user, (void *)pa));
	CK(dnnl_memory_set_data_handle(b->user, (void *)pb));
	CK(dnnl_memory_set_data_handle(c->user, pc));
	if (reorder(z, a, 1) < 0 || reorder(z, b, 1) < 0) {
		goto bad;
	}
	dnnl_exec_arg_t args[4] = {{names[0], mem(a)}, {names[1], mem(b)}, {names[2], mem(c)}, {DNNL_ARG_SCRATCHPAD, p->scratch}};
	CK(dnnl_primitive_execute(p->p, z->stream, p->scratch ? 4 : 3, args));
	if (reorder(z, c, 0) < 0) {
		goto bad;
	}
	CK(dnnl_stream_wait(z->stream));
	rc = 0;
bad:
	dnnl_memory_set_data_handle(a->user, NULL);
	dnnl_memory_set_data_handle(b->user, NULL);
	dnnl_memory_set_data_handle(c->user, NULL);
	_mm_setcsr(csr);
	return rc;
}

int zd_conv_forward(zd_conv *z, const float *x, const float *w, float *y) {
	static const int names[3] = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST};
	return run(z, &z->fwd, &z->fx, &z->fw, &z->fy, x, w, y, names);
}

int zd_conv_backward_data(zd_conv *z, const float *w, const float *dy, float *dx) {
	static const int names[3] = {DNNL_ARG_WEIGHTS, DNNL_ARG_DIFF_DST, DNNL_ARG_DIFF_SRC};
	return run(z, &z->bwdData, &z->dw, &z->ddy, &z->ddx, w, dy, dx, names);
}

int zd_conv_backward_weights(zd_conv *z, const float *x, const float *dy, float *dw) {
	static const int names[3] = {DNNL_ARG_SRC, DNNL_ARG_DIFF_DST, DNNL_ARG_DIFF_WEIGHTS};
	return run(z, &z->bwdWeights, &z->wx, &z->wdy, &z->wdw, x, dy, dw, names);
}
