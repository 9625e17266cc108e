//go:build dnnl

// The training graph's convolutions and batchnorms on oneDNN 2.6: see zdnnl.h (zd_conv_*,
// zd_bnorm_*) for the contract, train.go for how Go uses it, net/nettrain's convop.go and
// bnop.go for the ops that call it.
//
// A zd_conv is one convolution's three primitives (forward training, backward data, backward
// weights), built once for its shapes. The caller's tensors are in its layouts (activations
// nchw or nChw16c, weights oihw); each primitive works in the formats oneDNN chooses for it
// (format "any"), and where one differs from the caller's, the zd_conv holds its own tensor in
// that format and a reorder to fill it (an input) or to write the caller's from it (an output).
// The tower's activations are nChw16c, what the AVX-512 kernels choose: no reorder runs between
// its layers. A zd_bnorm is a batchnorm's forward (training: the batch's statistics) and
// backward primitives, on the caller's tensors as they are. Each has one scratch buffer for all its primitives and
// reorders (user scratchpad).
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include <oneapi/dnnl/dnnl.h>

#include "zdnnl.h"
#include "zdnnl_common.h"

// ctx is what a zd_conv and a zd_bnorm have in common (each begins with one).
typedef struct {
	dnnl_engine_t eng;
	dnnl_stream_t stream;
	dnnl_primitive_attr_t attr; // user scratchpad
	void *scratch;
	size_t scratchSize;
	char err[512];
} ctx;

static int ctxNew(ctx *z) {
	omp_set_num_threads(1);
	CK(dnnl_engine_create(&z->eng, dnnl_cpu, 0));
	CK(dnnl_stream_create(&z->stream, z->eng, dnnl_stream_default_flags));
	CK(dnnl_primitive_attr_create(&z->attr));
	CK(dnnl_primitive_attr_set_scratchpad_mode(z->attr, dnnl_scratchpad_mode_user));
	return 0;
bad:
	return -1;
}

static void ctxFree(ctx *z) {
	free(z->scratch);
	dnnl_primitive_attr_destroy(z->attr);
	if (z->stream) {
		dnnl_stream_destroy(z->stream);
	}
	if (z->eng) {
		dnnl_engine_destroy(z->eng);
	}
}

// need grows the scratch buffer's size to hold a scratchpad of format md.
static void need(ctx *z, const dnnl_memory_desc_t *md) {
	size_t sz = dnnl_memory_desc_get_size(md);
	z->scratchSize = sz > z->scratchSize ? sz : z->scratchSize;
}

// allocScratch allocates the scratch buffer, once every scratchpad's size is known.
static int allocScratch(ctx *z) {
	if (z->scratchSize > 0 && !(z->scratch = aligned_alloc(64, (z->scratchSize + 63) / 64 * 64))) {
		failf(z->err, sizeof z->err, "out of memory");
		return -1;
	}
	return 0;
}

// scratchFor makes primitive p's scratchpad memory over the scratch buffer (NULL if it needs
// none).
static int scratchFor(ctx *z, dnnl_memory_t *m, dnnl_primitive_t p) {
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

// prim is a primitive and its scratchpad (over the scratch buffer).
typedef struct {
	dnnl_primitive_t p;
	dnnl_memory_t scratch;
	char impl[64];
} prim;

// primNew makes pd's primitive (pd stays the caller's to destroy).
static int primNew(ctx *z, prim *p, dnnl_primitive_desc_t pd) {
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

static void primFree(prim *p) {
	dnnl_primitive_destroy(p->p);
	dnnl_memory_destroy(p->scratch);
}

// tensor is an argument of a primitive: the caller's plain memory (its handle set for each
// call, NULL between calls) and, if the primitive wants another format, its own copy and the
// reorder between the two (caller's to own for an input, own to caller's for an output).
typedef struct {
	dnnl_memory_t user, own;
	dnnl_primitive_t reorder;
	dnnl_memory_t rscratch; // the reorder's scratchpad, or NULL
} tensor;

// tensorNew makes t: the caller's memory of format user, and if want differs, the primitive's
// own memory and the reorder between them (input: user to own; else own to user).
static int tensorNew(ctx *z, tensor *t, const dnnl_memory_desc_t *user, const dnnl_memory_desc_t *want, int input) {
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

static void tensorFree(tensor *t) {
	dnnl_memory_destroy(t->user);
	dnnl_memory_destroy(t->own);
	dnnl_primitive_destroy(t->reorder);
	dnnl_memory_destroy(t->rscratch);
}

// mem is the memory the primitive reads or writes for t.
static dnnl_memory_t mem(const tensor *t) { return t->own ? t->own : t->user; }

// reorder runs t's reorder, if it has one: into its own copy (an input) or out of it.
static int reorder(ctx *z, tensor *t, int input) {
	if (!t->reorder) {
		return 0;
	}
	dnnl_exec_arg_t args[3] = {{DNNL_ARG_FROM, input ? t->user : t->own}, {DNNL_ARG_TO, input ? t->own : t->user}, {DNNL_ARG_SCRATCHPAD, t->rscratch}};
	CK(zd_execute(t->reorder, z->stream, t->rscratch ? 3 : 2, args));
	return 0;
bad:
	return -1;
}

// --- zd_conv ---

struct zd_conv {
	ctx c;
	prim fwd, bwdData, bwdWeights;
	tensor fx, fw, fy;   // forward: src, weights, dst
	tensor dw, ddy, ddx; // backward data: weights, diff dst, diff src
	tensor wx, wdy, wdw; // backward weights: src, diff dst, diff weights
	char impl[256];
};

const char *zd_conv_error(zd_conv *c) { return c->c.err; }

const char *zd_conv_impl(zd_conv *c) { return c->impl; }

void zd_conv_free(zd_conv *c) {
	if (!c) {
		return;
	}
	primFree(&c->fwd);
	primFree(&c->bwdData);
	primFree(&c->bwdWeights);
	tensor *ts[] = {&c->fx, &c->fw, &c->fy, &c->dw, &c->ddy, &c->ddx, &c->wx, &c->wdy, &c->wdw};
	for (int i = 0; i < 9; i++) {
		tensorFree(ts[i]);
	}
	ctxFree(&c->c);
	free(c);
}

// layout is the format of activations laid out as zd_layout says.
static dnnl_format_tag_t layout(int l) { return l == ZD_BLOCKED ? dnnl_nChw16c : dnnl_nchw; }

zd_conv *zd_conv_new(int n, int in, int out, int h, int w, int k, int xlayout, int ylayout, char *err, int errlen) {
	zd_conv *c = calloc(1, sizeof *c);
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	ctx *z = &c->c;
	dnnl_primitive_desc_t fpd = NULL, dpd = NULL, wpd = NULL;
	dnnl_convolution_desc_t cd;
	dnnl_memory_desc_t x, wt, y, xany, wany, yany;
	dnnl_dims_t strides = {1, 1}, pad = {k / 2, k / 2};
	if (n < 1 || in < 1 || out < 1 || h < 1 || w < 1 || (k != 1 && k != 3)) {
		failf(z->err, sizeof z->err, "oneDNN: a %dx%d convolution of %d positions, %d to %d planes of %dx%d", k, k, n, in, out, h, w);
		goto bad;
	}
	if (ctxNew(z) < 0) {
		goto bad;
	}
	CK(md4(&x, n, in, h, w, dnnl_f32, layout(xlayout)));
	CK(md4(&wt, out, in, k, k, dnnl_f32, dnnl_oihw));
	CK(md4(&y, n, out, h, w, dnnl_f32, layout(ylayout)));
	CK(md4(&xany, n, in, h, w, dnnl_f32, dnnl_format_tag_any));
	CK(md4(&wany, out, in, k, k, dnnl_f32, dnnl_format_tag_any));
	CK(md4(&yany, n, out, h, w, dnnl_f32, dnnl_format_tag_any));
	// Forward, and the backward passes with it as their hint: 3×3 by Winograd's F(4×4, 3×3)
	// where oneDNN has it for all three (AVX-512: 18% fewer CPU seconds a training step of the
	// preset's net than direct, within 2e-6 of it), else direct.
	for (int wino = k == 3; wino >= 0; wino--) {
		dnnl_alg_kind_t alg = wino ? dnnl_convolution_winograd : dnnl_convolution_direct;
		if (dnnl_convolution_forward_desc_init(&cd, dnnl_forward_training, alg, &xany, &wany, NULL, &yany, strides, pad, pad) == dnnl_success &&
		    dnnl_primitive_desc_create(&fpd, &cd, z->attr, z->eng, NULL) == dnnl_success &&
		    dnnl_convolution_backward_data_desc_init(&cd, alg, &xany, &wany, &yany, strides, pad, pad) == dnnl_success &&
		    dnnl_primitive_desc_create(&dpd, &cd, z->attr, z->eng, fpd) == dnnl_success &&
		    dnnl_convolution_backward_weights_desc_init(&cd, alg, &xany, &wany, NULL, &yany, strides, pad, pad) == dnnl_success &&
		    dnnl_primitive_desc_create(&wpd, &cd, z->attr, z->eng, fpd) == dnnl_success) {
			break;
		}
		if (!wino) {
			failf(z->err, sizeof z->err, "oneDNN: no convolution for %dx%d, %d to %d planes of %dx%d, %d positions", k, k, in, out, h, w, n);
			goto bad;
		}
		dnnl_primitive_desc_destroy(fpd);
		dnnl_primitive_desc_destroy(dpd);
		dnnl_primitive_desc_destroy(wpd);
		fpd = dpd = wpd = NULL;
	}
	if (primNew(z, &c->fwd, fpd) < 0 || primNew(z, &c->bwdData, dpd) < 0 || primNew(z, &c->bwdWeights, wpd) < 0 ||
	    tensorNew(z, &c->fx, &x, dnnl_primitive_desc_query_md(fpd, dnnl_query_src_md, 0), 1) < 0 ||
	    tensorNew(z, &c->fw, &wt, dnnl_primitive_desc_query_md(fpd, dnnl_query_weights_md, 0), 1) < 0 ||
	    tensorNew(z, &c->fy, &y, dnnl_primitive_desc_query_md(fpd, dnnl_query_dst_md, 0), 0) < 0 ||
	    tensorNew(z, &c->dw, &wt, dnnl_primitive_desc_query_md(dpd, dnnl_query_weights_md, 0), 1) < 0 ||
	    tensorNew(z, &c->ddy, &y, dnnl_primitive_desc_query_md(dpd, dnnl_query_diff_dst_md, 0), 1) < 0 ||
	    tensorNew(z, &c->ddx, &x, dnnl_primitive_desc_query_md(dpd, dnnl_query_diff_src_md, 0), 0) < 0 ||
	    tensorNew(z, &c->wx, &x, dnnl_primitive_desc_query_md(wpd, dnnl_query_src_md, 0), 1) < 0 ||
	    tensorNew(z, &c->wdy, &y, dnnl_primitive_desc_query_md(wpd, dnnl_query_diff_dst_md, 0), 1) < 0 ||
	    tensorNew(z, &c->wdw, &wt, dnnl_primitive_desc_query_md(wpd, dnnl_query_diff_weights_md, 0), 0) < 0) {
		goto bad;
	}
	snprintf(c->impl, sizeof c->impl, "%s, %s, %s", c->fwd.impl, c->bwdData.impl, c->bwdWeights.impl);
	dnnl_primitive_desc_destroy(fpd);
	dnnl_primitive_desc_destroy(dpd);
	dnnl_primitive_desc_destroy(wpd);
	fpd = dpd = wpd = NULL;
	if (allocScratch(z) < 0 || scratchFor(z, &c->fwd.scratch, c->fwd.p) < 0 ||
	    scratchFor(z, &c->bwdData.scratch, c->bwdData.p) < 0 || scratchFor(z, &c->bwdWeights.scratch, c->bwdWeights.p) < 0) {
		goto bad;
	}
	tensor *ts[] = {&c->fx, &c->fw, &c->fy, &c->dw, &c->ddy, &c->ddx, &c->wx, &c->wdy, &c->wdw};
	for (int i = 0; i < 9; i++) {
		if (ts[i]->reorder && scratchFor(z, &ts[i]->rscratch, ts[i]->reorder) < 0) {
			goto bad;
		}
	}
	return c;
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
	zd_conv_free(c);
	return NULL;
}

// run runs primitive p on a and b (inputs) into c (the output), the caller's tensors at pa, pb
// and pc, with args naming them; it holds none of the caller's pointers after it returns.
static int run(ctx *z, prim *p, tensor *a, tensor *b, tensor *c, const void *pa, const void *pb, void *pc, const int *names) {
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
	CK(zd_execute(p->p, z->stream, p->scratch ? 4 : 3, args));
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

int zd_conv_forward(zd_conv *c, const float *x, const float *w, float *y) {
	static const int names[3] = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST};
	return run(&c->c, &c->fwd, &c->fx, &c->fw, &c->fy, x, w, y, names);
}

int zd_conv_backward_data(zd_conv *c, const float *w, const float *dy, float *dx) {
	static const int names[3] = {DNNL_ARG_WEIGHTS, DNNL_ARG_DIFF_DST, DNNL_ARG_DIFF_SRC};
	return run(&c->c, &c->bwdData, &c->dw, &c->ddy, &c->ddx, w, dy, dx, names);
}

int zd_conv_backward_weights(zd_conv *c, const float *x, const float *dy, float *dw) {
	static const int names[3] = {DNNL_ARG_SRC, DNNL_ARG_DIFF_DST, DNNL_ARG_DIFF_WEIGHTS};
	return run(&c->c, &c->bwdWeights, &c->wx, &c->wdy, &c->wdw, x, dy, dw, names);
}

// --- zd_bnorm ---

// The arguments of a zd_bnorm's primitives, by position in zd_bnorm.mems and as the caller's
// functions take them.
enum { bnX, bnGamma, bnBeta, bnY, bnMean, bnVar, bnDy, bnDx, bnDgamma, bnDbeta, bnArgs };

struct zd_bnorm {
	ctx c;
	prim fwd, bwd;
	dnnl_memory_t mems[bnArgs]; // handles set for each call
	dnnl_memory_t shift;        // zeros: oneDNN 2.6's backward wants one (the gradients ignore it)
	char impl[256];
};

const char *zd_bnorm_error(zd_bnorm *b) { return b->c.err; }

const char *zd_bnorm_impl(zd_bnorm *b) { return b->impl; }

void zd_bnorm_free(zd_bnorm *b) {
	if (!b) {
		return;
	}
	primFree(&b->fwd);
	primFree(&b->bwd);
	for (int i = 0; i < bnArgs; i++) {
		dnnl_memory_destroy(b->mems[i]);
	}
	dnnl_memory_destroy(b->shift);
	ctxFree(&b->c);
	free(b);
}

zd_bnorm *zd_bnorm_new(int n, int c, int h, int w, float eps, int xlayout, char *err, int errlen) {
	zd_bnorm *b = calloc(1, sizeof *b);
	if (!b) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	ctx *z = &b->c;
	dnnl_primitive_desc_t fpd = NULL, bpd = NULL;
	dnnl_batch_normalization_desc_t bd;
	dnnl_memory_desc_t md, vmd;
	dnnl_dims_t vdims = {c};
	unsigned flags = dnnl_use_scale | dnnl_use_shift;
	if (n < 1 || c < 1 || h < 1 || w < 1) {
		failf(z->err, sizeof z->err, "oneDNN: a batchnorm of %d positions of %d planes of %dx%d", n, c, h, w);
		goto bad;
	}
	if (ctxNew(z) < 0) {
		goto bad;
	}
	CK(md4(&md, n, c, h, w, dnnl_f32, layout(xlayout)));
	CK(dnnl_memory_desc_init_by_tag(&vmd, 1, vdims, dnnl_f32, dnnl_a));
	CK(dnnl_batch_normalization_forward_desc_init(&bd, dnnl_forward_training, &md, eps, flags));
	CK(dnnl_primitive_desc_create(&fpd, &bd, z->attr, z->eng, NULL));
	CK(dnnl_batch_normalization_backward_desc_init(&bd, dnnl_backward, &md, &md, eps, flags));
	CK(dnnl_primitive_desc_create(&bpd, &bd, z->attr, z->eng, fpd));
	if (primNew(z, &b->fwd, fpd) < 0 || primNew(z, &b->bwd, bpd) < 0) {
		goto bad;
	}
	snprintf(b->impl, sizeof b->impl, "%s, %s", b->fwd.impl, b->bwd.impl);
	dnnl_primitive_desc_destroy(fpd);
	dnnl_primitive_desc_destroy(bpd);
	fpd = bpd = NULL;
	for (int i = 0; i < bnArgs; i++) {
		int data = i == bnX || i == bnY || i == bnDy || i == bnDx;
		CK(dnnl_memory_create(&b->mems[i], data ? &md : &vmd, z->eng, NULL));
	}
	void *zeros;
	CK(dnnl_memory_create(&b->shift, &vmd, z->eng, DNNL_MEMORY_ALLOCATE));
	CK(dnnl_memory_get_data_handle(b->shift, &zeros));
	memset(zeros, 0, c * sizeof(float));
	if (allocScratch(z) < 0 || scratchFor(z, &b->fwd.scratch, b->fwd.p) < 0 || scratchFor(z, &b->bwd.scratch, b->bwd.p) < 0) {
		goto bad;
	}
	return b;
bad:
	snprintf(err, errlen, "%s", z->err);
	if (fpd) {
		dnnl_primitive_desc_destroy(fpd);
	}
	if (bpd) {
		dnnl_primitive_desc_destroy(bpd);
	}
	zd_bnorm_free(b);
	return NULL;
}

// bnRun runs p with the caller's tensors ptrs (by bnX…) as the arguments named names[i] for
// the memories which[i], n of them; it holds none of the caller's pointers after it returns.
static int bnRun(zd_bnorm *b, prim *p, int n, const int *which, const int *names, void *const *ptrs) {
	ctx *z = &b->c;
	unsigned csr = ftz();
	omp_set_num_threads(1);
	int rc = -1;
	dnnl_exec_arg_t args[bnArgs + 2];
	for (int i = 0; i < n; i++) {
		CK(dnnl_memory_set_data_handle(b->mems[which[i]], ptrs[which[i]]));
		args[i] = (dnnl_exec_arg_t){names[i], b->mems[which[i]]};
	}
	if (p == &b->bwd) {
		args[n++] = (dnnl_exec_arg_t){DNNL_ARG_SHIFT, b->shift};
	}
	if (p->scratch) {
		args[n++] = (dnnl_exec_arg_t){DNNL_ARG_SCRATCHPAD, p->scratch};
	}
	CK(zd_execute(p->p, z->stream, n, args));
	CK(dnnl_stream_wait(z->stream));
	rc = 0;
bad:
	for (int i = 0; i < bnArgs; i++) {
		dnnl_memory_set_data_handle(b->mems[i], NULL);
	}
	_mm_setcsr(csr);
	return rc;
}

int zd_bnorm_forward(zd_bnorm *b, const float *x, const float *gamma, const float *beta, float *y, float *mean, float *var) {
	static const int which[6] = {bnX, bnGamma, bnBeta, bnY, bnMean, bnVar};
	static const int names[6] = {DNNL_ARG_SRC, DNNL_ARG_SCALE, DNNL_ARG_SHIFT, DNNL_ARG_DST, DNNL_ARG_MEAN, DNNL_ARG_VARIANCE};
	void *ptrs[bnArgs] = {[bnX] = (void *)x, [bnGamma] = (void *)gamma, [bnBeta] = (void *)beta, [bnY] = y, [bnMean] = mean, [bnVar] = var};
	return bnRun(b, &b->fwd, 6, which, names, ptrs);
}

int zd_bnorm_backward(zd_bnorm *b, const float *x, const float *dy, const float *gamma, const float *mean, const float *var, float *dx, float *dgamma, float *dbeta) {
	static const int which[8] = {bnX, bnDy, bnGamma, bnMean, bnVar, bnDx, bnDgamma, bnDbeta};
	static const int names[8] = {DNNL_ARG_SRC, DNNL_ARG_DIFF_DST, DNNL_ARG_SCALE, DNNL_ARG_MEAN, DNNL_ARG_VARIANCE, DNNL_ARG_DIFF_SRC, DNNL_ARG_DIFF_SCALE, DNNL_ARG_DIFF_SHIFT};
	void *ptrs[bnArgs] = {[bnX] = (void *)x, [bnDy] = (void *)dy, [bnGamma] = (void *)gamma, [bnMean] = (void *)mean, [bnVar] = (void *)var,
	                      [bnDx] = dx, [bnDgamma] = dgamma, [bnDbeta] = dbeta};
	return bnRun(b, &b->bwd, 8, which, names, ptrs);
}
