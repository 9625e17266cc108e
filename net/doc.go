// Package net is the policy/value network as the engine sees it: its configuration, its weights,
// the hand-written engine that runs it for search, and its checkpoint files. It links no
// training code (no gorgonia): everything that plays imports it alone. Training (the gorgonia
// graph, its ops and the optimizer's steps) is package nettrain, and the checkpoint file is the
// contract between the two.
//
// # One architecture, one store
//
// A game is described to the network by a [Spec] (observation shape, action space, and where
// each action's logit is read: a cell of a policy plane for games that implement
// env.SpatialPolicy, a dense output otherwise). A [Config] gives the residual tower and heads
// (see its doc). [NewWeights] lays out every tensor of that network, by name, in a fixed order:
// the [Weights] are the one store that the training graph, the engine and the checkpoints use.
//
//   - [NewModel] folds a snapshot of the Weights (batchnorm merged into the convolutions) and
//     [Engine] runs it: im2col and BLAS GEMM over channel-major activations, allocation-free.
//     [Engine.Evaluate] writes every action's logit and a value in [-1, 1] for the player to
//     decide (the search's evaluator); [Engine.EvaluateLegal] the softmax over each position's
//     legal actions of a [Batch].
//   - Backends: the engine runs on [Go] (im2col and BLAS, always there) or, built with the tag
//     dnnl (cgo, Debian's libdnnl-dev, oneDNN 2.6's C API: net/internal/dnnl's zdnnl.h), on
//     [OneDNN] (float32) or [OneDNNBF16]. Each is one value of an unexported interface, made by
//     its factory; the factories are a list in priority order (backend.go), which [Auto] walks:
//     bf16 where oneDNN runs on AMX, oneDNN float32 elsewhere, Go without oneDNN. ZERO_BACKEND
//     ([BackendVar]) forces one, and a backend the build or CPU cannot run gives way with one
//     warning line ([DefaultBackend]). docs/BACKENDS.md walks through adding one.
//   - [Save] and [Load] write and read a checkpoint: the Weights, and the [Optimizer]'s state
//     (Adam's or SGD's moments, kept in plain slices) so that a resumed run is bit for bit the
//     uninterrupted one.
//
// Invariants, each held by a test: the engine allocates nothing (in Go, every backend);
// oneDNN in float32 equals the Go engine within 1e-4 of the outputs' scale on every game's net
// (random and shipped weights), bf16 within stated tolerances with the same best move on 99%
// of the positions a shipped model plays; a swap of weights under load answers every request
// with the old weights or the new; a checkpoint that is truncated,
// damaged, of another format, game or shape is refused with an error saying which. Package
// nettrain holds the engine equal to gorgonia's forward pass in evaluation mode within 1e-4
// (relative) for every architecture.
//
// An Engine is for one goroutine; a Model is read-only and shared. Run one Engine per inference
// worker: BLAS is single-threaded per call (package linalg), so speed scales with workers.
package net
