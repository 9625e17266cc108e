//go:build dnnl

// The network on oneDNN 2.6: see zdnnl.h for the contract, net.go for how Go uses it.
//
// The net (package net's Model) is built of oneDNN primitives, once per chunk size (a "plan"):
//
//   obs (f32 nchw) -> [reorder] -> stem conv 3x3 + bias + ReLU                    -> x
//     (bf16: the observations split in two, hi = bf16(obs) and lo = obs - hi, as 2·planes
//     input planes read by the stem's weights twice over: inputs such as a turn / 44 keep
//     float32's precision, which bf16 alone rounds by up to a twelfth of a turn)
//   each block:  conv A 3x3 + bias + ReLU                                   x     -> t
//                conv B 3x3 + bias, + x (sum post-op, in place), ReLU       t     -> x
//   policy: conv 1x1 + bias + ReLU -> pfeat (spatial: f32, plain, channels last);
//           spatial: conv 1x1 + bias -> planes (plain f32; zd_run_legal skips them and works
//           out each legal action's logit from pfeat, a dot product), off-grid: average
//           pooling over the board -> inner product; dense: inner product
//   value:  conv 1x1 + bias + ReLU -> vfeat -> inner product + ReLU (global pooling: average
//           and max pooling, two inner products summed) -> inner product + tanh
//
// All the tower's convolutions share two primitives (A and B: the same shapes), run with each
// block's weights. Activations take the formats oneDNN chooses (format "any"); the tower's is
// fixed by conv A's choice so that no reorder runs between layers. Weights live once in their
// given (plain f32) layout (the bf16 stem's twice over, for the split observations) and once
// per format a primitive asked for; loading new weights copies them in and runs those reorders
// again, nothing else.
#include <immintrin.h>
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <oneapi/dnnl/dnnl.h>

#include "zdnnl.h"
#include "zdnnl_common.h"

enum { maxCopies = 8, maxPrims = 24, maxPlans = 16, maxArgs = 6, maxMems = 32 };

// copy is a layer's weights in one format a primitive asked for, and the reorder that fills it.
typedef struct {
	dnnl_memory_desc_t md;
	dnnl_memory_t mem;
	dnnl_primitive_t reorder;
} copy;

// layer is one convolution or dense layer's parameters, in C memory.
typedef struct {
	dnnl_memory_desc_t umd; // the weights as net.Model lays them out (f32)
	dnnl_memory_t w;        // the weights, umd
	dnnl_memory_t b;        // the bias (f32, [out]) or NULL
	int64_t wskip;          // floats to skip at the given weights offset (fc1's max half)
	int twice;              // a convolution whose input planes are given twice (the split stem)
	int ncopies;
	copy copies[maxCopies];
} layer;

// prim is a primitive of a plan with its scratchpad (over the plan's scratch buffer).
typedef struct {
	dnnl_primitive_t p;
	dnnl_memory_desc_t smd;
	dnnl_memory_t smem;
} prim;

// Which runs a step belongs to: every run, or zd_run's only (the policy planes of a spatial
// head, which zd_run_legal does without).
enum { runAlways, runFull };

typedef struct {
	prim *pr;
	int nargs;
	int when; // runAlways or runFull
	dnnl_exec_arg_t args[maxArgs + 1];
} step;

// plan is the net built for n positions.
typedef struct {
	int n;
	int nprims, nsteps, nmems;
	prim prims[maxPrims];
	step *steps;
	dnnl_memory_t *mems; // activations this plan owns
	void *scratch;
	dnnl_memory_t in;     // the observations (handle set for each run)
	float *split;         // bf16: the observations as hi and lo planes ([n][2·planes][h][w])
	dnnl_memory_t value;  // [n][1] (handle set for each run)
	dnnl_memory_t logits; // dense heads: [n][actions] (handle set for each run)
	dnnl_memory_t planes; // spatial heads: [n][policy planes][h][w], or [n][h][w][planes] if nhwc
	int nhwc;
	dnnl_memory_t offgrid;
	dnnl_memory_t feat;   // spatial heads: the policy features, f32 [n][h][w][policy channels]
} plan;

struct zd_net {
	zd_shape s;
	int32_t *out;     // out[a]: action a's output index
	int32_t *outNHWC; // the same with the policy planes channels last
	dnnl_engine_t eng;
	dnnl_stream_t stream;
	dnnl_primitive_attr_t attr; // user scratchpad
	int nlayers;
	layer *layers;
	// Layer indices.
	int lstem, lblocks, lpconv, lpout, lpoff, lpfc, lvconv, lfc1, lfc1max, lfc2;
	int nplans;
	plan plans[maxPlans];
	char impl[128];
	char err[512];
};

static void fail(zd_net *z, const char *format, ...) {
	va_list ap;
	va_start(ap, format);
	vsnprintf(z->err, sizeof z->err, format, ap);
	va_end(ap);
}

// zd_execute (zdnnl_common.h): align the stack pointer down to 64 bytes, call
// dnnl_primitive_execute (its four arguments still in rdi, rsi, edx, rcx), restore. ELF on
// x86-64 (System V calls); elsewhere a plain call.
#if defined(__x86_64__) && defined(__ELF__)
__asm__(".pushsection .text\n"
        ".globl zd_execute\n"
        ".type zd_execute, @function\n"
        "zd_execute:\n"
        "	.cfi_startproc\n"
        "	endbr64\n"
        "	push %rbp\n"
        "	.cfi_def_cfa_offset 16\n"
        "	.cfi_offset %rbp, -16\n"
        "	mov %rsp, %rbp\n"
        "	.cfi_def_cfa_register %rbp\n"
        "	and $-64, %rsp\n"
        "	call dnnl_primitive_execute@PLT\n"
        "	mov %rbp, %rsp\n"
        "	pop %rbp\n"
        "	.cfi_restore %rbp\n"
        "	.cfi_def_cfa %rsp, 8\n"
        "	ret\n"
        "	.cfi_endproc\n"
        ".size zd_execute, .-zd_execute\n"
        ".popsection\n");
#else
dnnl_status_t zd_execute(const_dnnl_primitive_t p, dnnl_stream_t s, int nargs, const dnnl_exec_arg_t *args) {
	return dnnl_primitive_execute(p, s, nargs, args);
}
#endif

int zd_isa(void) { return (int)dnnl_get_effective_cpu_isa(); }

const char *zd_error(zd_net *z) { return z->err; }

const char *zd_impl(zd_net *z) { return z->impl; }

static dnnl_data_type_t act(zd_net *z) { return z->s.bf16 ? dnnl_bf16 : dnnl_f32; }

// md2 describes a 2D tensor by format tag (md4, zdnnl_common.h, a 4D one).
static dnnl_status_t md2(dnnl_memory_desc_t *md, int64_t a, int64_t b, dnnl_data_type_t dt, dnnl_format_tag_t tag) {
	dnnl_dims_t dims = {a, b};
	return dnnl_memory_desc_init_by_tag(md, 2, dims, dt, tag);
}

// addLayer adds a layer with weights umd and a bias of nbias floats (0: none).
static int addLayer(zd_net *z, const dnnl_memory_desc_t *umd, int64_t nbias, int64_t wskip) {
	layer *l = &z->layers[z->nlayers];
	memset(l, 0, sizeof *l);
	l->umd = *umd;
	l->wskip = wskip;
	CK(dnnl_memory_create(&l->w, umd, z->eng, DNNL_MEMORY_ALLOCATE));
	void *h;
	CK(dnnl_memory_get_data_handle(l->w, &h));
	memset(h, 0, dnnl_memory_desc_get_size(umd));
	if (nbias > 0) {
		dnnl_memory_desc_t bmd;
		dnnl_dims_t dims = {nbias};
		CK(dnnl_memory_desc_init_by_tag(&bmd, 1, dims, dnnl_f32, dnnl_a));
		CK(dnnl_memory_create(&l->b, &bmd, z->eng, DNNL_MEMORY_ALLOCATE));
		CK(dnnl_memory_get_data_handle(l->b, &h));
		memset(h, 0, nbias * sizeof(float));
	}
	return z->nlayers++;
bad:
	return -1;
}

// convLayer adds a convolution's layer: weights [out][in][k][k].
static int convLayer(zd_net *z, int out, int in, int k, int bias) {
	dnnl_memory_desc_t md;
	if (md4(&md, out, in, k, k, dnnl_f32, dnnl_oihw) != dnnl_success) {
		fail(z, "oneDNN: convolution weights %dx%dx%dx%d", out, in, k, k);
		return -1;
	}
	return addLayer(z, &md, bias ? out : 0, 0);
}

// denseLayer adds a dense layer reading c planes of h×w cells (as [n][c][h][w]) into out
// units, whose weights net.Model holds as [c·h·w][out]: element (o, c, y, x) at
// ((c·h + y)·w + x)·out + o. wskip skips that many floats of the given weights.
static int denseLayer(zd_net *z, int out, int c, int h, int w, int bias, int64_t wskip) {
	dnnl_memory_desc_t md;
	dnnl_dims_t dims = {out, c, h, w};
	dnnl_dims_t strides = {1, (int64_t)h * w * out, (int64_t)w * out, out};
	if (dnnl_memory_desc_init_by_strides(&md, 4, dims, dnnl_f32, strides) != dnnl_success) {
		fail(z, "oneDNN: dense weights %dx%dx%dx%d", out, c, h, w);
		return -1;
	}
	return addLayer(z, &md, bias ? out : 0, wskip);
}

// weights returns layer l's weights in the format md, made (and filled) on first request.
static dnnl_memory_t weights(zd_net *z, int l, const dnnl_memory_desc_t *md) {
	layer *ly = &z->layers[l];
	for (int i = 0; i < ly->ncopies; i++) {
		if (dnnl_memory_desc_equal(&ly->copies[i].md, md)) {
			return ly->copies[i].mem;
		}
	}
	if (ly->ncopies == maxCopies) {
		fail(z, "oneDNN: layer %d: more than %d weight formats", l, maxCopies);
		return NULL;
	}
	copy *c = &ly->copies[ly->ncopies];
	dnnl_primitive_desc_t pd = NULL;
	c->md = *md;
	CK(dnnl_memory_create(&c->mem, md, z->eng, DNNL_MEMORY_ALLOCATE));
	CK(dnnl_reorder_primitive_desc_create(&pd, &ly->umd, z->eng, md, z->eng, NULL));
	CK(dnnl_primitive_create(&c->reorder, pd));
	dnnl_primitive_desc_destroy(pd);
	pd = NULL;
	dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, ly->w}, {DNNL_ARG_TO, c->mem}};
	CK(zd_execute(c->reorder, z->stream, 2, args));
	CK(dnnl_stream_wait(z->stream));
	ly->ncopies++;
	return c->mem;
bad:
	if (pd) {
		dnnl_primitive_desc_destroy(pd);
	}
	return NULL;
}

// mem makes an activation of plan p.
static dnnl_memory_t mem(zd_net *z, plan *p, const dnnl_memory_desc_t *md) {
	dnnl_memory_t m = NULL;
	if (p->nmems == maxMems) {
		fail(z, "oneDNN: more than %d activations in a plan", maxMems);
		return NULL;
	}
	CK(dnnl_memory_create(&m, md, z->eng, DNNL_MEMORY_ALLOCATE));
	p->mems[p->nmems++] = m;
	return m;
bad:
	return NULL;
}

// addPrim makes pd's primitive for plan p; it takes pd: destroyed, success or not.
static prim *addPrim(zd_net *z, plan *p, dnnl_primitive_desc_t pd) {
	prim *pr = &p->prims[p->nprims];
	memset(pr, 0, sizeof *pr);
	pr->smd = *dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
	CK(dnnl_primitive_create(&pr->p, pd));
	dnnl_primitive_desc_destroy(pd);
	p->nprims++;
	return pr;
bad:
	dnnl_primitive_desc_destroy(pd);
	return NULL;
}

// addStep appends a run of pr with args to plan p.
static void addStep(plan *p, prim *pr, int nargs, const dnnl_exec_arg_t *args) {
	step *s = &p->steps[p->nsteps++];
	s->pr = pr;
	s->nargs = nargs;
	s->when = runAlways;
	memcpy(s->args, args, nargs * sizeof *args);
}

// reorderInto appends a reorder of src into dst, returned.
static dnnl_memory_t reorderInto(zd_net *z, plan *p, dnnl_memory_t src, dnnl_memory_t dst) {
	const dnnl_memory_desc_t *smd, *dmd;
	dnnl_primitive_desc_t pd;
	CK(dnnl_memory_get_memory_desc(src, &smd));
	CK(dnnl_memory_get_memory_desc(dst, &dmd));
	CK(dnnl_reorder_primitive_desc_create(&pd, smd, z->eng, dmd, z->eng, z->attr));
	prim *pr = addPrim(z, p, pd);
	if (!pr) {
		return NULL;
	}
	dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}};
	addStep(p, pr, 2, args);
	return dst;
bad:
	return NULL;
}

// reorderTo appends a reorder of src into a new activation of format md, returned.
static dnnl_memory_t reorderTo(zd_net *z, plan *p, dnnl_memory_t src, const dnnl_memory_desc_t *md) {
	dnnl_memory_t dst = mem(z, p, md);
	return dst ? reorderInto(z, p, src, dst) : NULL;
}

// Post-operations of a primitive.
enum { postNone, postReLU, postSumReLU, postSum, postTanh };

static dnnl_status_t attrWith(zd_net *z, dnnl_primitive_attr_t *attr, int post) {
	dnnl_post_ops_t po = NULL;
	dnnl_status_t st = dnnl_primitive_attr_clone(attr, z->attr);
	if (st != dnnl_success || post == postNone) {
		return st;
	}
	if ((st = dnnl_post_ops_create(&po)) != dnnl_success) {
		return st;
	}
	if (post == postSum || post == postSumReLU) {
		st = dnnl_post_ops_append_sum(po, 1);
	}
	if (st == dnnl_success && (post == postReLU || post == postSumReLU)) {
		st = dnnl_post_ops_append_eltwise(po, 1, dnnl_eltwise_relu, 0, 0);
	}
	if (st == dnnl_success && post == postTanh) {
		st = dnnl_post_ops_append_eltwise(po, 1, dnnl_eltwise_tanh, 0, 0);
	}
	if (st == dnnl_success) {
		st = dnnl_primitive_attr_set_post_ops(*attr, po);
	}
	dnnl_post_ops_destroy(po);
	return st;
}

// convPD describes a k×k convolution (pad k/2) of src into dst with bias and post-ops.
static dnnl_status_t convPD(zd_net *z, dnnl_primitive_desc_t *pd, const dnnl_memory_desc_t *src, int oc, int k, const dnnl_memory_desc_t *dst, int post) {
	dnnl_convolution_desc_t cd;
	dnnl_memory_desc_t wmd, bmd;
	dnnl_primitive_attr_t attr = NULL;
	int64_t ic = src->dims[1];
	dnnl_dims_t bdims = {oc}, strides = {1, 1}, pad = {k / 2, k / 2};
	dnnl_status_t st;
	if ((st = md4(&wmd, oc, ic, k, k, src->data_type, dnnl_format_tag_any)) != dnnl_success ||
	    (st = dnnl_memory_desc_init_by_tag(&bmd, 1, bdims, dnnl_f32, dnnl_a)) != dnnl_success ||
	    (st = attrWith(z, &attr, post)) != dnnl_success) {
		dnnl_primitive_attr_destroy(attr);
		return st;
	}
	// Winograd's F(4×4, 3×3) where oneDNN has it (float32, channels by 16), else direct.
	st = dnnl_unimplemented;
	for (int wino = k == 3 && z->s.winograd; wino >= 0 && st != dnnl_success; wino--) {
		dnnl_alg_kind_t alg = wino ? dnnl_convolution_winograd : dnnl_convolution_direct;
		if ((st = dnnl_convolution_forward_desc_init(&cd, dnnl_forward_inference, alg, src, &wmd, &bmd, dst, strides, pad, pad)) == dnnl_success) {
			st = dnnl_primitive_desc_create(pd, &cd, attr, z->eng, NULL);
		}
	}
	dnnl_primitive_attr_destroy(attr);
	return st;
}

// ipPD describes an inner product of src (4D) into dst [n][oc] f32 with post-ops.
static dnnl_status_t ipPD(zd_net *z, dnnl_primitive_desc_t *pd, const dnnl_memory_desc_t *src, int oc, int bias, const dnnl_memory_desc_t *dst, int post) {
	dnnl_inner_product_desc_t id;
	dnnl_memory_desc_t wmd, bmd;
	dnnl_primitive_attr_t attr = NULL;
	dnnl_status_t st;
	dnnl_dims_t bdims = {oc};
	if (src->ndims == 4) {
		st = md4(&wmd, oc, src->dims[1], src->dims[2], src->dims[3], src->data_type, dnnl_format_tag_any);
	} else {
		st = md2(&wmd, oc, src->dims[1], src->data_type, dnnl_format_tag_any);
	}
	if (st != dnnl_success ||
	    (st = dnnl_memory_desc_init_by_tag(&bmd, 1, bdims, dnnl_f32, dnnl_a)) != dnnl_success ||
	    (st = dnnl_inner_product_forward_desc_init(&id, dnnl_forward_inference, src, &wmd, bias ? &bmd : NULL, dst)) != dnnl_success ||
	    (st = attrWith(z, &attr, post)) != dnnl_success) {
		dnnl_primitive_attr_destroy(attr);
		return st;
	}
	st = dnnl_primitive_desc_create(pd, &id, attr, z->eng, NULL);
	dnnl_primitive_attr_destroy(attr);
	return st;
}

// poolPD describes a pooling of each plane of src over the whole board.
static dnnl_status_t poolPD(zd_net *z, dnnl_primitive_desc_t *pd, const dnnl_memory_desc_t *src, dnnl_alg_kind_t alg) {
	dnnl_pooling_desc_t pl;
	dnnl_memory_desc_t dmd;
	dnnl_dims_t kernel = {src->dims[2], src->dims[3]}, pad = {0, 0};
	dnnl_status_t st;
	if ((st = md4(&dmd, src->dims[0], src->dims[1], 1, 1, src->data_type, dnnl_format_tag_any)) != dnnl_success ||
	    (st = dnnl_pooling_forward_desc_init(&pl, dnnl_forward_inference, alg, src, &dmd, kernel, kernel, pad, pad)) != dnnl_success) {
		return st;
	}
	return dnnl_primitive_desc_create(pd, &pl, z->attr, z->eng, NULL);
}

static const dnnl_memory_desc_t *query(dnnl_primitive_desc_t pd, dnnl_query_t what) {
	return dnnl_primitive_desc_query_md(pd, what, 0);
}

// layerStep appends a convolution or inner product of layer l (its weights in the format pd
// wants) from src into dst, and makes its primitive. It takes pd: destroyed, success or not.
static int layerStep(zd_net *z, plan *p, dnnl_primitive_desc_t pd, int l, dnnl_memory_t src, dnnl_memory_t dst) {
	dnnl_memory_t w = weights(z, l, query(pd, dnnl_query_weights_md));
	if (!w) {
		dnnl_primitive_desc_destroy(pd);
		return -1;
	}
	prim *pr = addPrim(z, p, pd);
	if (!pr) {
		return -1;
	}
	dnnl_exec_arg_t args[4] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DST, dst}, {DNNL_ARG_BIAS, z->layers[l].b}};
	addStep(p, pr, z->layers[l].b ? 4 : 3, args);
	return 0;
}

// ready returns src in format md: src itself, or a new activation filled by a reorder step.
static dnnl_memory_t ready(zd_net *z, plan *p, dnnl_memory_t src, const dnnl_memory_desc_t *md) {
	const dnnl_memory_desc_t *smd;
	if (dnnl_memory_get_memory_desc(src, &smd) != dnnl_success) {
		fail(z, "oneDNN: a memory without a descriptor");
		return NULL;
	}
	return dnnl_memory_desc_equal(smd, md) ? src : reorderTo(z, p, src, md);
}

#define PD(call)                                                                        \
	do {                                                                                \
		dnnl_status_t st_ = (call);                                                     \
		if (st_ != dnnl_success) {                                                      \
			fail(z, "oneDNN: %s (line %d, %d positions): %s", #call, __LINE__, n, status(st_)); \
			goto bad;                                                                   \
		}                                                                               \
	} while (0)

// The plan of n positions, block by block: observations (the input), formats (the tower's and
// the primitives that choose it), stem, tower (its residual blocks, each a block), policyHead
// (policyPlanes and policyOffGrid for a spatial head), valueHead, scratch; build calls them in
// that order. Each appends its primitives and steps to the plan and returns -1 on failure, the
// reason in z->err; a primitive descriptor given to one is its to destroy, success or not.

// observations makes the plan's observations, p->in (as the caller lays them out, the handle
// set for each run), and returns what the stem reads: p->in, or in bf16 the observations split
// into hi and lo planes (chunk fills them, at p->split).
static dnnl_memory_t observations(zd_net *z, plan *p) {
	const zd_shape *s = &z->s;
	int n = p->n, h = s->height, w = s->width;
	dnnl_memory_desc_t md;
	PD(md4(&md, n, s->planes, h, w, dnnl_f32, dnnl_nchw));
	CK(dnnl_memory_create(&p->in, &md, z->eng, NULL));
	dnnl_memory_t given = p->in;
	if (s->bf16) {
		PD(md4(&md, n, 2 * s->planes, h, w, dnnl_f32, dnnl_nchw));
		if (!(given = mem(z, p, &md))) {
			goto bad;
		}
		CK(dnnl_memory_get_data_handle(given, (void **)&p->split));
	}
	return given;
bad:
	return NULL;
}

// implOf records pd's implementation as the tower's (zd_impl).
static void implOf(zd_net *z, dnnl_primitive_desc_t pd) {
	const char *impl = NULL;
	if (dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl) == dnnl_success && impl) {
		snprintf(z->impl, sizeof z->impl, "%s", impl);
	}
}

// formats chooses the tower's activation format, *tower: what conv A of the blocks chooses (the
// stem and conv B write it), or without blocks what the stem chooses. It makes the descriptors
// of the stem's convolution (*stem) and of the blocks' convolutions A and B (*pdA, *pdB; left
// NULL without blocks): the caller's to destroy, success or not.
static int formats(zd_net *z, int n, dnnl_primitive_desc_t *stem, dnnl_primitive_desc_t *pdA, dnnl_primitive_desc_t *pdB, dnnl_memory_desc_t *tower) {
	const zd_shape *s = &z->s;
	int h = s->height, w = s->width, inPlanes = (s->bf16 ? 2 : 1) * s->planes;
	dnnl_memory_desc_t md, any;
	PD(md4(&any, n, s->channels, h, w, act(z), dnnl_format_tag_any));
	if (s->blocks > 0) {
		PD(convPD(z, pdA, &any, s->channels, 3, &any, postReLU));
		*tower = *query(*pdA, dnnl_query_src_md);
		PD(convPD(z, pdB, query(*pdA, dnnl_query_dst_md), s->channels, 3, tower, postSumReLU));
		implOf(z, *pdA);
		PD(md4(&md, n, inPlanes, h, w, act(z), dnnl_format_tag_any));
		PD(convPD(z, stem, &md, s->channels, 3, tower, postReLU));
	} else {
		PD(md4(&md, n, inPlanes, h, w, act(z), dnnl_format_tag_any));
		PD(convPD(z, stem, &md, s->channels, 3, &any, postReLU));
		implOf(z, *stem);
		*tower = *query(*stem, dnnl_query_dst_md);
	}
	return 0;
bad:
	return -1;
}

// stem appends the stem: the observations given, reordered to the format pd reads if it is
// another, through the 3×3 convolution + bias + ReLU (pd) into a new activation of the tower's
// format, returned (NULL on failure). It takes pd.
static dnnl_memory_t stem(zd_net *z, plan *p, dnnl_primitive_desc_t pd, dnnl_memory_t given, const dnnl_memory_desc_t *tower) {
	dnnl_memory_t in = ready(z, p, given, query(pd, dnnl_query_src_md)), x = NULL;
	if (!in || !(x = mem(z, p, tower))) {
		dnnl_primitive_desc_destroy(pd);
		return NULL;
	}
	return layerStep(z, p, pd, z->lstem, in, x) < 0 ? NULL : x;
}

// block appends residual block i: conv A (prA, with block i's weights wA) + bias + ReLU from x
// into t, conv B (prB, wB) + bias from t into x, summed with x in place, ReLU.
static void block(zd_net *z, plan *p, int i, prim *prA, prim *prB, dnnl_memory_t wA, dnnl_memory_t wB, dnnl_memory_t x, dnnl_memory_t t) {
	dnnl_exec_arg_t a[4] = {{DNNL_ARG_SRC, x}, {DNNL_ARG_WEIGHTS, wA}, {DNNL_ARG_BIAS, z->layers[z->lblocks + 2 * i].b}, {DNNL_ARG_DST, t}};
	addStep(p, prA, 4, a);
	dnnl_exec_arg_t b[4] = {{DNNL_ARG_SRC, t}, {DNNL_ARG_WEIGHTS, wB}, {DNNL_ARG_BIAS, z->layers[z->lblocks + 2 * i + 1].b}, {DNNL_ARG_DST, x}};
	addStep(p, prB, 4, b);
}

// tower appends the residual blocks on x: the primitives of convolutions A and B (pdA's and
// pdB's), which every block runs with its own weights, each layer's weights in the format its
// primitive wants, then each block. It takes pdA and pdB.
static int tower(zd_net *z, plan *p, dnnl_primitive_desc_t pdA, dnnl_primitive_desc_t pdB, dnnl_memory_t x) {
	const zd_shape *s = &z->s;
	prim *prA, *prB;
	dnnl_memory_t t, wA[128], wB[128];
	if (!(t = mem(z, p, query(pdA, dnnl_query_dst_md)))) {
		goto bad;
	}
	for (int i = 0; i < s->blocks; i++) {
		if (!(wA[i] = weights(z, z->lblocks + 2 * i, query(pdA, dnnl_query_weights_md))) ||
		    !(wB[i] = weights(z, z->lblocks + 2 * i + 1, query(pdB, dnnl_query_weights_md)))) {
			goto bad;
		}
	}
	prA = addPrim(z, p, pdA); // destroys pdA
	pdA = NULL;
	if (!prA) {
		goto bad;
	}
	prB = addPrim(z, p, pdB);
	pdB = NULL;
	if (!prB) {
		goto bad;
	}
	for (int i = 0; i < s->blocks; i++) {
		block(z, p, i, prA, prB, wA[i], wB[i], x, t);
	}
	return 0;
bad:
	if (pdA) {
		dnnl_primitive_desc_destroy(pdA);
	}
	if (pdB) {
		dnnl_primitive_desc_destroy(pdB);
	}
	return -1;
}

// pool appends a pooling (alg) of each plane of src, format md, over the whole board into a new
// activation, returned (NULL on failure).
static dnnl_memory_t pool(zd_net *z, plan *p, dnnl_memory_t src, const dnnl_memory_desc_t *md, dnnl_alg_kind_t alg) {
	int n = p->n;
	dnnl_primitive_desc_t pd = NULL;
	dnnl_memory_t dst;
	PD(poolPD(z, &pd, md, alg));
	if (!(dst = mem(z, p, query(pd, dnnl_query_dst_md)))) {
		goto bad;
	}
	prim *pr = addPrim(z, p, pd); // destroys pd
	pd = NULL;
	if (!pr) {
		goto bad;
	}
	dnnl_exec_arg_t a[2] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
	addStep(p, pr, 2, a);
	return dst;
bad:
	if (pd) {
		dnnl_primitive_desc_destroy(pd);
	}
	return NULL;
}

// policyPlanes appends the spatial head's 1×1 convolution + bias from the policy features pfeat
// (format pmd) to the policy planes, p->planes. They are read cell by cell (chunk):
// position-major, plain, channels last as the tower's format is on AVX-512, else channels
// first. A format no fast kernel writes is reached by a reorder.
static int policyPlanes(zd_net *z, plan *p, dnnl_memory_t pfeat, const dnnl_memory_desc_t *pmd) {
	const zd_shape *s = &z->s;
	int n = p->n, h = s->height, w = s->width;
	dnnl_memory_desc_t md, any;
	dnnl_primitive_desc_t pd = NULL;
	dnnl_format_tag_t tags[2] = {dnnl_nhwc, dnnl_nchw};
	for (int k = 0; k < 2; k++) {
		const char *impl = "ref";
		PD(md4(&md, n, s->policy_planes, h, w, dnnl_f32, tags[k]));
		if (convPD(z, &pd, pmd, s->policy_planes, 1, &md, postNone) != dnnl_success) {
			pd = NULL;
			continue;
		}
		dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
		if (strncmp(impl, "ref", 3) == 0) {
			dnnl_primitive_desc_destroy(pd);
			pd = NULL;
			continue;
		}
		p->nhwc = tags[k] == dnnl_nhwc;
		if (!(p->planes = mem(z, p, &md))) {
			goto bad;
		}
		return layerStep(z, p, pd, z->lpout, pfeat, p->planes); // destroys pd
	}
	PD(md4(&md, n, s->policy_planes, h, w, dnnl_f32, dnnl_nchw));
	PD(md4(&any, n, s->policy_planes, h, w, dnnl_f32, dnnl_format_tag_any));
	PD(convPD(z, &pd, pmd, s->policy_planes, 1, &any, postNone));
	dnnl_memory_t o = mem(z, p, query(pd, dnnl_query_dst_md));
	if (!o) {
		goto bad;
	}
	if (layerStep(z, p, pd, z->lpout, pfeat, o) < 0) {
		return -1;
	}
	if (!(p->planes = mem(z, p, &md)) || !reorderInto(z, p, o, p->planes)) {
		return -1;
	}
	return 0;
bad:
	if (pd) {
		dnnl_primitive_desc_destroy(pd);
	}
	return -1;
}

// policyOffGrid appends the spatial head's actions off the grid: the policy features pfeat
// (format pmd) averaged over the board, then an inner product + bias into p->offgrid.
static int policyOffGrid(zd_net *z, plan *p, dnnl_memory_t pfeat, const dnnl_memory_desc_t *pmd) {
	const zd_shape *s = &z->s;
	int n = p->n;
	dnnl_memory_desc_t md;
	dnnl_primitive_desc_t pd = NULL;
	const dnnl_memory_desc_t *qmd;
	dnnl_memory_t pooled = pool(z, p, pfeat, pmd, dnnl_pooling_avg);
	if (!pooled) {
		goto bad;
	}
	CK(dnnl_memory_get_memory_desc(pooled, &qmd));
	PD(md2(&md, n, s->offgrid, dnnl_f32, dnnl_nc));
	PD(ipPD(z, &pd, qmd, s->offgrid, 1, &md, postNone));
	if (!(p->offgrid = mem(z, p, &md))) {
		goto bad;
	}
	return layerStep(z, p, pd, z->lpoff, pooled, p->offgrid); // destroys pd
bad:
	if (pd) {
		dnnl_primitive_desc_destroy(pd);
	}
	return -1;
}

// policyHead appends the policy head on x, the tower's output (format tower): a 1×1
// convolution + bias + ReLU to the policy features, then the spatial head's planes and its
// actions off the grid, or the dense head's inner product + bias into p->logits.
static int policyHead(zd_net *z, plan *p, const dnnl_memory_desc_t *tower, dnnl_memory_t x) {
	const zd_shape *s = &z->s;
	int n = p->n, h = s->height, w = s->width;
	dnnl_memory_desc_t md, any;
	dnnl_primitive_desc_t pd = NULL;
	dnnl_memory_t pfeat;
	const dnnl_memory_desc_t *pmd;
	// A spatial head's features are float32, plain and channels last: zd_run_legal reads them
	// for each legal action's dot product, and the planes (zd_run's) are computed from the
	// same features, so both runs give the same logits (in bf16 too, a rounding fewer than
	// bf16 features would make).
	if (s->policy_planes > 0) {
		PD(md4(&any, n, s->policy_channels, h, w, dnnl_f32, dnnl_nhwc));
	} else {
		PD(md4(&any, n, s->policy_channels, h, w, act(z), dnnl_format_tag_any));
	}
	PD(convPD(z, &pd, tower, s->policy_channels, 1, &any, postReLU));
	if (!(pfeat = mem(z, p, query(pd, dnnl_query_dst_md)))) {
		goto bad;
	}
	if (layerStep(z, p, pd, z->lpconv, x, pfeat) < 0) { // destroys pd
		return -1;
	}
	pd = NULL;
	CK(dnnl_memory_get_memory_desc(pfeat, &pmd));
	if (s->policy_planes > 0) {
		p->feat = pfeat;
		int first = p->nsteps;
		if (policyPlanes(z, p, pfeat, pmd) < 0) {
			return -1;
		}
		for (int i = first; i < p->nsteps; i++) {
			p->steps[i].when = runFull; // zd_run_legal works out the logits it needs itself
		}
		return s->offgrid > 0 ? policyOffGrid(z, p, pfeat, pmd) : 0;
	}
	PD(md2(&md, n, s->actions, dnnl_f32, dnnl_nc));
	CK(dnnl_memory_create(&p->logits, &md, z->eng, NULL));
	PD(ipPD(z, &pd, pmd, s->actions, 1, &md, postNone));
	return layerStep(z, p, pd, z->lpfc, pfeat, p->logits); // destroys pd
bad:
	if (pd) {
		dnnl_primitive_desc_destroy(pd);
	}
	return -1;
}

// valueHead appends the value head on x, the tower's output (format tower): a 1×1 convolution
// + bias + ReLU to the value features, an inner product + bias + ReLU to the hidden layer (with
// global pooling: of the features' means, plus one of their maxima, summed), an inner product
// + bias + tanh into p->value.
static int valueHead(zd_net *z, plan *p, const dnnl_memory_desc_t *tower, dnnl_memory_t x) {
	const zd_shape *s = &z->s;
	int n = p->n, h = s->height, w = s->width;
	dnnl_memory_desc_t md, any, hmd;
	dnnl_primitive_desc_t pd = NULL;
	dnnl_memory_t vfeat, vhid;
	const dnnl_memory_desc_t *vmd;
	PD(md4(&any, n, s->value_channels, h, w, act(z), dnnl_format_tag_any));
	PD(convPD(z, &pd, tower, s->value_channels, 1, &any, postReLU));
	if (!(vfeat = mem(z, p, query(pd, dnnl_query_dst_md)))) {
		goto bad;
	}
	if (layerStep(z, p, pd, z->lvconv, x, vfeat) < 0) { // destroys pd
		return -1;
	}
	pd = NULL;
	CK(dnnl_memory_get_memory_desc(vfeat, &vmd));
	PD(md2(&hmd, n, s->value_hidden, dnnl_f32, dnnl_nc));
	if (!(vhid = mem(z, p, &hmd))) {
		goto bad;
	}
	if (!s->global_pool) {
		PD(ipPD(z, &pd, vmd, s->value_hidden, 1, &hmd, postReLU));
		if (layerStep(z, p, pd, z->lfc1, vfeat, vhid) < 0) {
			return -1;
		}
		pd = NULL;
	} else {
		// fc1(mean, max) = mean·W[:c] + b, then + max·W[c:] (sum post-op), then ReLU.
		dnnl_alg_kind_t algs[2] = {dnnl_pooling_avg, dnnl_pooling_max};
		int layers[2] = {z->lfc1, z->lfc1max};
		for (int k = 0; k < 2; k++) {
			const dnnl_memory_desc_t *qmd;
			dnnl_memory_t pooled = pool(z, p, vfeat, vmd, algs[k]);
			if (!pooled) {
				goto bad;
			}
			CK(dnnl_memory_get_memory_desc(pooled, &qmd));
			PD(ipPD(z, &pd, qmd, s->value_hidden, k == 0, &hmd, k == 0 ? postNone : postSumReLU));
			if (layerStep(z, p, pd, layers[k], pooled, vhid) < 0) {
				return -1;
			}
			pd = NULL;
		}
	}
	PD(md2(&md, n, 1, dnnl_f32, dnnl_nc));
	CK(dnnl_memory_create(&p->value, &md, z->eng, NULL));
	PD(ipPD(z, &pd, &hmd, 1, 1, &md, postTanh));
	return layerStep(z, p, pd, z->lfc2, vhid, p->value); // destroys pd
bad:
	if (pd) {
		dnnl_primitive_desc_destroy(pd);
	}
	return -1;
}

// scratch gives the plan one scratch buffer, as large as the largest primitive's scratchpad,
// each primitive's scratchpad over it, and each step its scratchpad.
static int scratch(zd_net *z, plan *p) {
	size_t most = 0;
	for (int i = 0; i < p->nprims; i++) {
		size_t sz = dnnl_memory_desc_get_size(&p->prims[i].smd);
		most = sz > most ? sz : most;
	}
	if (most == 0) {
		return 0;
	}
	if (!(p->scratch = aligned_alloc(64, (most + 63) / 64 * 64))) {
		fail(z, "out of memory");
		return -1;
	}
	for (int i = 0; i < p->nprims; i++) {
		if (dnnl_memory_desc_get_size(&p->prims[i].smd) > 0) {
			CK(dnnl_memory_create(&p->prims[i].smem, &p->prims[i].smd, z->eng, p->scratch));
		}
	}
	for (int i = 0; i < p->nsteps; i++) {
		step *st = &p->steps[i];
		if (st->pr->smem) {
			st->args[st->nargs++] = (dnnl_exec_arg_t){DNNL_ARG_SCRATCHPAD, st->pr->smem};
		}
	}
	return 0;
bad:
	return -1;
}

// build makes plan p for n positions, block by block (above).
static int build(zd_net *z, plan *p, int n) {
	const zd_shape *s = &z->s;
	dnnl_primitive_desc_t pdStem = NULL, pdA = NULL, pdB = NULL;
	dnnl_memory_desc_t tmd;
	dnnl_memory_t given, x;
	memset(p, 0, sizeof *p);
	p->n = n;
	p->steps = calloc(2 * s->blocks + 32, sizeof *p->steps);
	p->mems = calloc(maxMems, sizeof *p->mems);
	if (!p->steps || !p->mems) {
		fail(z, "out of memory");
		return -1;
	}
	if (!(given = observations(z, p)) || formats(z, n, &pdStem, &pdA, &pdB, &tmd) < 0) {
		goto bad;
	}
	x = stem(z, p, pdStem, given, &tmd);
	pdStem = NULL;
	if (!x) {
		goto bad;
	}
	if (s->blocks > 0) {
		int rc = tower(z, p, pdA, pdB, x);
		pdA = pdB = NULL;
		if (rc < 0) {
			goto bad;
		}
	}
	if (policyHead(z, p, &tmd, x) < 0 || valueHead(z, p, &tmd, x) < 0 || scratch(z, p) < 0) {
		goto bad;
	}
	return 0;
bad:
	if (pdStem) {
		dnnl_primitive_desc_destroy(pdStem);
	}
	if (pdA) {
		dnnl_primitive_desc_destroy(pdA);
	}
	if (pdB) {
		dnnl_primitive_desc_destroy(pdB);
	}
	return -1;
}

static void freePlan(plan *p) {
	for (int i = 0; i < p->nprims; i++) {
		dnnl_primitive_destroy(p->prims[i].p);
		dnnl_memory_destroy(p->prims[i].smem);
	}
	for (int i = 0; i < p->nmems; i++) {
		dnnl_memory_destroy(p->mems[i]);
	}
	dnnl_memory_destroy(p->in);
	dnnl_memory_destroy(p->value);
	dnnl_memory_destroy(p->logits);
	free(p->steps);
	free(p->mems);
	free(p->scratch);
	memset(p, 0, sizeof *p);
}

// planFor returns the plan for n positions, built on first use.
static plan *planFor(zd_net *z, int n) {
	for (int i = 0; i < z->nplans; i++) {
		if (z->plans[i].n == n) {
			return &z->plans[i];
		}
	}
	if (z->nplans == maxPlans) {
		fail(z, "oneDNN: more than %d chunk sizes", maxPlans);
		return NULL;
	}
	plan *p = &z->plans[z->nplans];
	if (build(z, p, n) < 0) {
		freePlan(p);
		return NULL;
	}
	z->nplans++;
	return p;
}

zd_net *zd_new(const zd_shape *s, const int32_t *out, char *err, int errlen) {
	omp_set_num_threads(1);
	zd_net *z = calloc(1, sizeof *z);
	if (!z) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	z->s = *s;
	int h = s->height, w = s->width;
	if (s->blocks > 128 || s->chunk < 1) {
		fail(z, "oneDNN: %d blocks, chunk %d", s->blocks, s->chunk);
		goto bad;
	}
	z->out = malloc(s->actions * sizeof *z->out);
	z->outNHWC = malloc(s->actions * sizeof *z->out);
	z->layers = calloc(2 * s->blocks + 16, sizeof *z->layers);
	if (!z->out || !z->outNHWC || !z->layers) {
		fail(z, "out of memory");
		goto bad;
	}
	memcpy(z->out, out, s->actions * sizeof *z->out);
	for (int a = 0, cells = h * w, grid = s->policy_planes * cells; a < s->actions; a++) {
		int o = out[a];
		z->outNHWC[a] = o < grid ? o % cells * s->policy_planes + o / cells : o;
	}
	CK(dnnl_engine_create(&z->eng, dnnl_cpu, 0));
	CK(dnnl_stream_create(&z->stream, z->eng, dnnl_stream_default_flags));
	CK(dnnl_primitive_attr_create(&z->attr));
	CK(dnnl_primitive_attr_set_scratchpad_mode(z->attr, dnnl_scratchpad_mode_user));
	// The layers, in zd_load's order.
	z->lpout = z->lpoff = z->lpfc = z->lfc1max = -1;
	if ((z->lstem = convLayer(z, s->channels, (s->bf16 ? 2 : 1) * s->planes, 3, 1)) < 0) {
		goto bad;
	}
	z->layers[z->lstem].twice = s->bf16;
	z->lblocks = z->nlayers;
	for (int i = 0; i < 2 * s->blocks; i++) {
		if (convLayer(z, s->channels, s->channels, 3, 1) < 0) {
			goto bad;
		}
	}
	if ((z->lpconv = convLayer(z, s->policy_channels, s->channels, 1, 1)) < 0) {
		goto bad;
	}
	if (s->policy_planes > 0) {
		if ((z->lpout = convLayer(z, s->policy_planes, s->policy_channels, 1, 1)) < 0 ||
		    (s->offgrid > 0 && (z->lpoff = denseLayer(z, s->offgrid, s->policy_channels, 1, 1, 1, 0)) < 0)) {
			goto bad;
		}
	} else if ((z->lpfc = denseLayer(z, s->actions, s->policy_channels, h, w, 1, 0)) < 0) {
		goto bad;
	}
	if ((z->lvconv = convLayer(z, s->value_channels, s->channels, 1, 1)) < 0) {
		goto bad;
	}
	if (s->global_pool) {
		// fc1's weights are [2·channels][hidden]: the means' rows, then the maxima's.
		if ((z->lfc1 = denseLayer(z, s->value_hidden, s->value_channels, 1, 1, 1, 0)) < 0 ||
		    (z->lfc1max = denseLayer(z, s->value_hidden, s->value_channels, 1, 1, 0, (int64_t)s->value_channels * s->value_hidden)) < 0) {
			goto bad;
		}
	} else if ((z->lfc1 = denseLayer(z, s->value_hidden, s->value_channels, h, w, 1, 0)) < 0) {
		goto bad;
	}
	{
		dnnl_memory_desc_t md;
		dnnl_dims_t dims = {1, s->value_hidden}, strides = {1, 1};
		CK(dnnl_memory_desc_init_by_strides(&md, 2, dims, dnnl_f32, strides));
		if ((z->lfc2 = addLayer(z, &md, 1, 0)) < 0) {
			goto bad;
		}
	}
	if (!planFor(z, s->chunk)) {
		goto bad;
	}
	return z;
bad:
	snprintf(err, errlen, "%s", z->err);
	zd_free(z);
	return NULL;
}

int zd_load(zd_net *z, const float *params, const int64_t *offs, int nlayers) {
	// The go side counts fc1 once; global pooling splits it in two here.
	int want = z->nlayers - (z->lfc1max >= 0);
	if (nlayers != want) {
		fail(z, "zd_load: %d layers, the net has %d", nlayers, want);
		return -1;
	}
	for (int l = 0, k = 0; l < z->nlayers; l++) {
		layer *ly = &z->layers[l];
		if (l == z->lfc1max) {
			k--; // the same tensors as fc1, further on
		}
		void *h;
		CK(dnnl_memory_get_data_handle(ly->w, &h));
		if (ly->twice) { // [out][2·in][k][k] from [out][in][k][k]: each output's weights twice
			int64_t outs = ly->umd.dims[0], each = dnnl_memory_desc_get_size(&ly->umd) / outs / 2;
			for (int64_t o = 0; o < outs; o++) {
				const char *from = (const char *)(params + offs[2 * k]) + o * each;
				memcpy((char *)h + 2 * o * each, from, each);
				memcpy((char *)h + (2 * o + 1) * each, from, each);
			}
		} else {
			memcpy(h, params + offs[2 * k] + ly->wskip, dnnl_memory_desc_get_size(&ly->umd));
		}
		if (ly->b) {
			const dnnl_memory_desc_t *bmd;
			CK(dnnl_memory_get_memory_desc(ly->b, &bmd));
			CK(dnnl_memory_get_data_handle(ly->b, &h));
			memcpy(h, params + offs[2 * k + 1], dnnl_memory_desc_get_size(bmd));
		}
		for (int i = 0; i < ly->ncopies; i++) {
			dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, ly->w}, {DNNL_ARG_TO, ly->copies[i].mem}};
			CK(zd_execute(ly->copies[i].reorder, z->stream, 2, args));
		}
		k++;
	}
	CK(dnnl_stream_wait(z->stream));
	return 0;
bad:
	return -1;
}

// unset takes the Go pointers of a run back out of plan p's memories: C keeps none.
static void unset(plan *p) {
	dnnl_memory_set_data_handle(p->in, NULL);
	dnnl_memory_set_data_handle(p->value, NULL);
	if (p->logits) {
		dnnl_memory_set_data_handle(p->logits, NULL);
	}
}

// bf16hi is x rounded to bfloat16's 8 significant bits (to nearest, ties to even), as float.
// Infinities and NaNs stay as they are (their lo is then NaN or 0: as bad as the input), and a
// finite x that would round up to infinity is truncated instead, so that hi + lo stays x.
static inline float bf16hi(float x) {
	uint32_t b, r;
	memcpy(&b, &x, 4);
	if ((b & 0x7f800000) == 0x7f800000) {
		return x;
	}
	r = (b + 0x7fff + ((b >> 16) & 1)) & 0xffff0000;
	if ((r & 0x7f800000) == 0x7f800000) {
		r = b & 0xffff0000;
	}
	memcpy(&x, &r, 4);
	return x;
}

// splitObs writes n positions of planes×cells observations as [n][2·planes][cells]: each
// position's planes rounded to bf16 (hi), then what the rounding left (lo = obs - hi). In
// bf16, hi is exact and lo rounds by 2^-9 of itself: together 16 significant bits.
static void splitObs(float *dst, const float *obs, int n, int planes, int cells) {
	int64_t size = (int64_t)planes * cells;
	for (int i = 0; i < n; i++) {
		const float *o = obs + i * size;
		float *hi = dst + 2 * i * size, *lo = hi + size;
		for (int64_t j = 0; j < size; j++) {
			float x = o[j], r = bf16hi(x);
			hi[j] = r;
			lo[j] = x - r;
		}
	}
}

// chunk runs plan p on its n positions: the observations at obs, the outputs to logits and
// values.
static int chunk(zd_net *z, plan *p, const float *obs, float *logits, float *values) {
	const zd_shape *s = &z->s;
	int cells = s->height * s->width, grid = s->policy_planes * cells;
	CK(dnnl_memory_set_data_handle(p->in, (void *)obs));
	if (p->split) {
		splitObs(p->split, obs, p->n, s->planes, cells);
	}
	CK(dnnl_memory_set_data_handle(p->value, values));
	if (p->logits) {
		CK(dnnl_memory_set_data_handle(p->logits, logits));
	}
	for (int i = 0; i < p->nsteps; i++) {
		CK(zd_execute(p->steps[i].pr->p, z->stream, p->steps[i].nargs, p->steps[i].args));
	}
	CK(dnnl_stream_wait(z->stream));
	if (!p->logits) { // spatial: each action's logit from its cell or the off-grid outputs
		void *hp, *ho = NULL;
		CK(dnnl_memory_get_data_handle(p->planes, &hp));
		if (p->offgrid) {
			CK(dnnl_memory_get_data_handle(p->offgrid, &ho));
		}
		const int32_t *out = p->nhwc ? z->outNHWC : z->out;
		for (int i = 0; i < p->n; i++) {
			const float *pl = (const float *)hp + (int64_t)i * grid;
			const float *og = ho ? (const float *)ho + (int64_t)i * s->offgrid : NULL;
			float *dst = logits + (int64_t)i * s->actions;
			for (int a = 0; a < s->actions; a++) {
				int o = out[a];
				dst[a] = o < grid ? pl[o] : og[o - grid];
			}
		}
	}
	unset(p);
	return 0;
bad:
	unset(p);
	return -1;
}

// dot is the sum of a[i]·b[i] over n floats, in four running sums (which compilers make one
// vector register).
static inline float dot(const float *a, const float *b, int n) {
	float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
	int i = 0;
	for (; i + 4 <= n; i += 4) {
		s0 += a[i] * b[i];
		s1 += a[i + 1] * b[i + 1];
		s2 += a[i + 2] * b[i + 2];
		s3 += a[i + 3] * b[i + 3];
	}
	for (; i < n; i++) {
		s0 += a[i] * b[i];
	}
	return (s0 + s1) + (s2 + s3);
}

// chunkLegal runs plan p (a spatial head) without its policy planes: each of the given actions'
// logit is its plane's bias plus the dot product of its plane's weights with its cell's
// policy features, or its off-grid output. Position i's actions are legal[ends[i-1]:ends[i]]
// (from 0 for i = 0), their logits written at the same places of policy.
static int chunkLegal(zd_net *z, plan *p, const float *obs, const int32_t *legal, const int32_t *ends, float *policy, float *values) {
	const zd_shape *s = &z->s;
	int cells = s->height * s->width, grid = s->policy_planes * cells, pc = s->policy_channels;
	CK(dnnl_memory_set_data_handle(p->in, (void *)obs));
	if (p->split) {
		splitObs(p->split, obs, p->n, s->planes, cells);
	}
	CK(dnnl_memory_set_data_handle(p->value, values));
	for (int i = 0; i < p->nsteps; i++) {
		if (p->steps[i].when != runFull) {
			CK(zd_execute(p->steps[i].pr->p, z->stream, p->steps[i].nargs, p->steps[i].args));
		}
	}
	CK(dnnl_stream_wait(z->stream));
	void *hf, *ho = NULL, *hw, *hb;
	CK(dnnl_memory_get_data_handle(p->feat, &hf));
	if (p->offgrid) {
		CK(dnnl_memory_get_data_handle(p->offgrid, &ho));
	}
	layer *ly = &z->layers[z->lpout];
	CK(dnnl_memory_get_data_handle(ly->w, &hw));
	CK(dnnl_memory_get_data_handle(ly->b, &hb));
	const float *W = hw, *B = hb;
	for (int i = 0, start = 0; i < p->n; i++) {
		const float *feat = (const float *)hf + (int64_t)i * cells * pc;
		const float *og = ho ? (const float *)ho + (int64_t)i * s->offgrid : NULL;
		for (int j = start; j < ends[i]; j++) {
			int a = legal[j];
			if (a < 0 || a >= s->actions) {
				fail(z, "oneDNN: action %d of position %d is not one of the %d actions", a, i, s->actions);
				goto bad;
			}
			int o = z->out[a];
			if (o >= grid) {
				policy[j] = og[o - grid];
				continue;
			}
			int plane = o / cells, cell = o % cells;
			policy[j] = B[plane] + dot(W + (int64_t)plane * pc, feat + (int64_t)cell * pc, pc);
		}
		start = ends[i];
	}
	unset(p);
	return 0;
bad:
	unset(p);
	return -1;
}

int zd_run_legal(zd_net *z, int n, const float *obs, const int32_t *legal, const int32_t *ends, float *policy, float *values) {
	const zd_shape *s = &z->s;
	if (s->policy_planes <= 0) {
		fail(z, "oneDNN: zd_run_legal needs a spatial policy head");
		return -1;
	}
	unsigned csr = ftz();
	omp_set_num_threads(1);
	int rc = 0;
	int64_t obsSize = (int64_t)s->planes * s->height * s->width;
	int32_t rel[256];
	for (int done = 0; done < n && rc == 0;) {
		int size = n - done;
		if (size >= s->chunk) {
			size = s->chunk;
		} else {
			while (size & (size - 1)) {
				size &= size - 1;
			}
		}
		size = size > 256 ? 256 : size;
		plan *p = planFor(z, size);
		if (!p) {
			rc = -1;
			break;
		}
		// The chunk's actions start at base: ends made relative to it.
		int32_t base = done > 0 ? ends[done - 1] : 0;
		for (int i = 0; i < size; i++) {
			rel[i] = ends[done + i] - base;
		}
		rc = chunkLegal(z, p, obs + done * obsSize, legal + base, rel, policy + base, values + done);
		done += size;
	}
	_mm_setcsr(csr);
	return rc;
}

int zd_run(zd_net *z, int n, const float *obs, float *logits, float *values) {
	const zd_shape *s = &z->s;
	unsigned csr = ftz();
	omp_set_num_threads(1);
	int rc = 0;
	int64_t obsSize = (int64_t)s->planes * s->height * s->width;
	for (int done = 0; done < n && rc == 0;) {
		int size = n - done;
		if (size >= s->chunk) {
			size = s->chunk;
		} else {
			while (size & (size - 1)) {
				size &= size - 1; // the highest power of two ≤ the rest
			}
		}
		plan *p = planFor(z, size);
		rc = p ? chunk(z, p, obs + done * obsSize, logits + (int64_t)done * s->actions, values + done) : -1;
		done += size;
	}
	_mm_setcsr(csr);
	return rc;
}

void zd_free(zd_net *z) {
	if (!z) {
		return;
	}
	for (int i = 0; i < z->nplans; i++) {
		freePlan(&z->plans[i]);
	}
	for (int l = 0; l < z->nlayers; l++) {
		layer *ly = &z->layers[l];
		for (int i = 0; i < ly->ncopies; i++) {
			dnnl_primitive_destroy(ly->copies[i].reorder);
			dnnl_memory_destroy(ly->copies[i].mem);
		}
		dnnl_memory_destroy(ly->w);
		dnnl_memory_destroy(ly->b);
	}
	free(z->layers);
	free(z->out);
	free(z->outNHWC);
	dnnl_primitive_attr_destroy(z->attr);
	if (z->stream) {
		dnnl_stream_destroy(z->stream);
	}
	if (z->eng) {
		dnnl_engine_destroy(z->eng);
	}
	free(z);
}

struct zd_matmul {
	zd_net z; // for the engine, the stream, the error and CK
	dnnl_primitive_t mm;
	dnnl_memory_t a, b, c, s;
	void *scratch;
};

void zd_matmul_free(zd_matmul *m) {
	if (!m) {
		return;
	}
	dnnl_primitive_destroy(m->mm);
	dnnl_memory_destroy(m->a);
	dnnl_memory_destroy(m->b);
	dnnl_memory_destroy(m->c);
	dnnl_memory_destroy(m->s);
	free(m->scratch);
	dnnl_primitive_attr_destroy(m->z.attr);
	if (m->z.stream) {
		dnnl_stream_destroy(m->z.stream);
	}
	if (m->z.eng) {
		dnnl_engine_destroy(m->z.eng);
	}
	free(m);
}

zd_matmul *zd_matmul_new(int n, int bf16, char *err, int errlen) {
	omp_set_num_threads(1);
	zd_matmul *m = calloc(1, sizeof *m);
	if (!m) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	zd_net *z = &m->z;
	dnnl_primitive_desc_t pd = NULL, rpd = NULL;
	dnnl_primitive_t r = NULL;
	dnnl_memory_t u = NULL;
	dnnl_memory_desc_t amd, bmd, cmd, umd;
	dnnl_matmul_desc_t md;
	dnnl_data_type_t dt = bf16 ? dnnl_bf16 : dnnl_f32;
	CK(dnnl_engine_create(&z->eng, dnnl_cpu, 0));
	CK(dnnl_stream_create(&z->stream, z->eng, dnnl_stream_default_flags));
	CK(dnnl_primitive_attr_create(&z->attr));
	CK(dnnl_primitive_attr_set_scratchpad_mode(z->attr, dnnl_scratchpad_mode_user));
	CK(md2(&amd, n, n, dt, dnnl_ab));
	CK(md2(&bmd, n, n, dt, dnnl_format_tag_any));
	CK(md2(&cmd, n, n, dnnl_f32, dnnl_ab));
	CK(dnnl_matmul_desc_init(&md, &amd, &bmd, NULL, &cmd));
	CK(dnnl_primitive_desc_create(&pd, &md, z->attr, z->eng, NULL));
	CK(dnnl_primitive_create(&m->mm, pd));
	// The operands, from values as the Go engine's yardstick has (i mod 7 / 7, i mod 5 / 5).
	const dnnl_memory_desc_t *wmd = query(pd, dnnl_query_weights_md), *smd = query(pd, dnnl_query_scratchpad_md);
	CK(dnnl_memory_create(&m->a, &amd, z->eng, DNNL_MEMORY_ALLOCATE));
	CK(dnnl_memory_create(&m->b, wmd, z->eng, DNNL_MEMORY_ALLOCATE));
	CK(dnnl_memory_create(&m->c, &cmd, z->eng, DNNL_MEMORY_ALLOCATE));
	if (dnnl_memory_desc_get_size(smd) > 0) {
		if (!(m->scratch = aligned_alloc(64, (dnnl_memory_desc_get_size(smd) + 63) / 64 * 64))) {
			fail(z, "out of memory");
			goto bad;
		}
		CK(dnnl_memory_create(&m->s, smd, z->eng, m->scratch));
	}
	CK(md2(&umd, n, n, dnnl_f32, dnnl_ab));
	CK(dnnl_memory_create(&u, &umd, z->eng, DNNL_MEMORY_ALLOCATE));
	for (int k = 0; k < 2; k++) {
		float *h;
		CK(dnnl_memory_get_data_handle(u, (void **)&h));
		for (int64_t i = 0; i < (int64_t)n * n; i++) {
			h[i] = k == 0 ? (float)(i % 7) / 7 : (float)(i % 5) / 5;
		}
		dnnl_memory_t dst = k == 0 ? m->a : m->b;
		const dnnl_memory_desc_t *dmd;
		CK(dnnl_memory_get_memory_desc(dst, &dmd));
		CK(dnnl_reorder_primitive_desc_create(&rpd, &umd, z->eng, dmd, z->eng, NULL));
		CK(dnnl_primitive_create(&r, rpd));
		dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, u}, {DNNL_ARG_TO, dst}};
		CK(zd_execute(r, z->stream, 2, args));
		CK(dnnl_stream_wait(z->stream));
		dnnl_primitive_destroy(r);
		dnnl_primitive_desc_destroy(rpd);
		r = NULL;
		rpd = NULL;
	}
	dnnl_memory_destroy(u);
	dnnl_primitive_desc_destroy(pd);
	return m;
bad:
	snprintf(err, errlen, "%s", z->err);
	dnnl_primitive_destroy(r);
	dnnl_primitive_desc_destroy(rpd);
	dnnl_primitive_desc_destroy(pd);
	dnnl_memory_destroy(u);
	zd_matmul_free(m);
	return NULL;
}

int zd_matmul_run(zd_matmul *m) {
	zd_net *z = &m->z;
	omp_set_num_threads(1);
	dnnl_exec_arg_t args[4] = {{DNNL_ARG_SRC, m->a}, {DNNL_ARG_WEIGHTS, m->b}, {DNNL_ARG_DST, m->c}, {DNNL_ARG_SCRATCHPAD, m->s}};
	CK(zd_execute(m->mm, z->stream, m->s ? 4 : 3, args));
	CK(dnnl_stream_wait(z->stream));
	return 0;
bad:
	return -1;
}
