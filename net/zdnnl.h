// The network on oneDNN 2.6 (Debian's libdnnl-dev), through its C API: the whole C surface
// that package net's dnnl backend (dnnl.go, build tag dnnl) calls. Everything here is built and
// owned by C; Go pointers cross only as call arguments and are never kept after a call returns
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

#endif
