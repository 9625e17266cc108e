// The network on oneDNN 2.6 (Debian's libdnnl-dev), through its C API: the whole C surface
// that package net's oneDNN backends call (through net.go, build tag dnnl, of package
// net/internal/dnnl), and the training graph's convolutions and batchnorms (zd_conv, zd_bnorm:
// zdnnl_train.c, for train.go).
// Everything here is built and owned by C; Go pointers cross only as call arguments and are never kept after a call returns
// (the rule of cgo).
//
// A zd_net is one engine: the model's folded weights in C memory, and for each chunk size it
// has run, a plan (the primitives, their activations and scratchpad). A zd_net is for one
// thread at a time; zd_new and zd_run set that thread to one OpenMP thread (the engine scales
// by workers, one engine each) and zd_run runs with flush-to-zero and denormals-are-zero set,
// restoring the caller's MXCSR before it returns.
#ifndef ZDNNL_H
#define ZDNNL_H

#include <stdint.h>

// zd_shape is the network's architecture (net.Config with the game's net.Spec).
typedef struct {
	int planes, height, width; // the observation
	int channels, blocks;      // the residual tower
	int policy_channels;
	int policy_planes; // spatial policy head: planes over the grid; 0: a dense head
	int offgrid;       // spatial heads: actions off the grid
	int actions;       // the game's action space (the dense head's outputs)
	int value_channels, value_hidden;
	int global_pool; // the value head reads each plane's mean and max
	int bf16;        // activations and weights in bfloat16 (outputs stay float32)
	int winograd;    // 3×3 convolutions by Winograd's algorithm where oneDNN has it
	int chunk;       // the most positions run through the net at once
} zd_shape;

// zd_net is an engine (opaque).
typedef struct zd_net zd_net;

// zd_isa is oneDNN's dnnl_get_effective_cpu_isa(): the instructions its kernels may use.
int zd_isa(void);

// zd_new builds an engine for shape s and builds its plan for s->chunk positions. out[a] is
// action a's index among the policy head's outputs (net.Spec.OutputOf), s->actions of them;
// copied. On failure it returns NULL with the reason in err (errlen bytes).
zd_net *zd_new(const zd_shape *s, const int32_t *out, char *err, int errlen);

// zd_load copies the model's parameters into the engine and reorders them for its primitives:
// params holds the folded tensors, and offs[2k], offs[2k+1] the offsets of layer k's weights
// and bias in it, layers in this order: stem, block 0 conv 1, block 0 conv 2, ..., policy conv,
// then (spatial) policy out and, when offgrid > 0, policy off-grid, or (dense) policy fc; value
// conv, value fc1, value fc2. Weights are laid out as net.Model holds them: convolutions
// [out][in][k][k], dense layers [in][out]. Returns 0, or -1 with the reason in zd_error.
int zd_load(zd_net *z, const float *params, const int64_t *offs, int nlayers);

// zd_run evaluates n positions: obs [n][planes][height][width] in, logits [n][actions] and
// values [n] out (through tanh). Chunks of s->chunk positions, and the rest by powers of two,
// each size's plan built on first use. Returns 0, or -1 with the reason in zd_error.
int zd_run(zd_net *z, int n, const float *obs, float *logits, float *values);
// zd_run_legal is zd_run for a spatial policy head that works out only the logits asked for:
// position i's actions are legal[ends[i-1]:ends[i]] (from 0 for i = 0), and their logits go
// to the same places of policy; the policy planes are not computed. Returns 0, or -1 with the
// reason in zd_error (a dense head, an action out of range).
int zd_run_legal(zd_net *z, int n, const float *obs, const int32_t *legal, const int32_t *ends, float *policy, float *values);

// zd_error is the reason of the last failure.
const char *zd_error(zd_net *z);

// zd_impl names the implementations oneDNN chose for the tower's convolution (e.g.
// "brgconv:avx512_core"), for reports.
const char *zd_impl(zd_net *z);

// zd_free releases everything the engine holds.
void zd_free(zd_net *z);

// zd_matmul is a yardstick for zero bench net: the n×n by n×n matrix product on oneDNN (its
// matmul primitive, f32 or bf16 operands, f32 result), on one thread.
typedef struct zd_matmul zd_matmul;

// zd_matmul_new builds one, its operands filled; NULL with the reason in err on failure.
zd_matmul *zd_matmul_new(int n, int bf16, char *err, int errlen);

// zd_matmul_run computes the product once; 0, or -1 on failure.
int zd_matmul_run(zd_matmul *m);

// zd_matmul_free releases it.
void zd_matmul_free(zd_matmul *m);

// zd_layout is the layout of a training graph's activations (batch n, c planes of h×w cells):
// ZD_PLAIN, [n][c][h][w] (nchw); ZD_BLOCKED, [n][c/16][h][w][16] (nChw16c, the planes in blocks
// of 16, for c a multiple of 16: the same size), what oneDNN's AVX-512 kernels work in.
enum { ZD_PLAIN = 0, ZD_BLOCKED = 1 };

// zd_conv is a convolution of the training graph (zdnnl_train.c): a k×k convolution (k 1 or 3,
// pad k/2, stride 1, no bias) of n positions of in planes of h×w cells into out planes, in
// float32, with its forward (training), backward-data and backward-weights primitives built
// once. Tensors are the caller's: x and dx n×in×h×w in layout xlayout, y and dy n×out×h×w in
// layout ylayout, weights and their gradient [out][in][k][k]. Like a zd_net, a zd_conv is for one thread at a
// time; each call runs on one OpenMP thread with flush-to-zero and denormals-are-zero set,
// restoring the caller's MXCSR before it returns, and keeps none of the caller's pointers.
typedef struct zd_conv zd_conv;

// zd_conv_new builds one; NULL with the reason in err (errlen bytes) on failure.
zd_conv *zd_conv_new(int n, int in, int out, int h, int w, int k, int xlayout, int ylayout, char *err, int errlen);

// zd_conv_forward computes y = x ∗ w. Each call returns 0, or -1 with the reason in
// zd_conv_error.
int zd_conv_forward(zd_conv *c, const float *x, const float *w, float *y);

// zd_conv_backward_data computes dx, the gradient with respect to x, from dy and w.
int zd_conv_backward_data(zd_conv *c, const float *w, const float *dy, float *dx);

// zd_conv_backward_weights computes dw, the gradient with respect to w, from x and dy.
int zd_conv_backward_weights(zd_conv *c, const float *x, const float *dy, float *dw);

// zd_conv_error is the reason of the last failure.
const char *zd_conv_error(zd_conv *c);

// zd_conv_impl names the implementations oneDNN chose: forward, backward data, backward
// weights (e.g. "jit:avx512_core, jit:avx512_core, jit:avx512_core").
const char *zd_conv_impl(zd_conv *c);

// zd_conv_free releases everything it holds.
void zd_conv_free(zd_conv *c);

// zd_bnorm is a batchnorm of the training graph (zdnnl_train.c): n positions of c planes of h×w
// cells, normalised by the batch's statistics (ε eps), scaled and shifted, in float32, with its
// forward (training) and backward primitives built once. Tensors are the caller's: x, y, dx and
// dy n×c×h×w in layout xlayout; gamma (the scale), beta (the shift), their gradients, mean and
// var [c]. The same rules as a zd_conv's: one thread at a time, one OpenMP thread, FTZ/DAZ, none of
// the caller's pointers kept.
typedef struct zd_bnorm zd_bnorm;

// zd_bnorm_new builds one; NULL with the reason in err (errlen bytes) on failure.
zd_bnorm *zd_bnorm_new(int n, int c, int h, int w, float eps, int xlayout, char *err, int errlen);

// zd_bnorm_forward computes y = gamma·(x − mean)/√(var + eps) + beta and writes the batch's
// mean and (biased) variance. Each call returns 0, or -1 with the reason in zd_bnorm_error.
int zd_bnorm_forward(zd_bnorm *b, const float *x, const float *gamma, const float *beta, float *y, float *mean, float *var);

// zd_bnorm_backward computes the gradients with respect to x, gamma and beta from dy, with the
// statistics of the forward pass.
int zd_bnorm_backward(zd_bnorm *b, const float *x, const float *dy, const float *gamma, const float *mean, const float *var, float *dx, float *dgamma, float *dbeta);

// zd_bnorm_error is the reason of the last failure.
const char *zd_bnorm_error(zd_bnorm *b);

// zd_bnorm_impl names the implementations oneDNN chose: forward, backward.
const char *zd_bnorm_impl(zd_bnorm *b);

// zd_bnorm_free releases everything it holds.
void zd_bnorm_free(zd_bnorm *b);

#endif
