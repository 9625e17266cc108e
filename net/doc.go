// Package net is the policy/value network: its configuration, its weights, the gorgonia graph
// that trains it, the hand-written engine that runs it for search, and its checkpoint files.
//
// # One architecture, two implementations, one store
//
// A game is described to the network by a [Spec] (observation shape, action space, and where
// each action's logit is read: a cell of a policy plane for games that implement
// env.SpatialPolicy, a dense output otherwise). A [Config] gives the residual tower and heads
// (see its doc). [NewWeights] lays out every tensor of that network, by name, in a fixed order:
// the [Weights] are the one store that both implementations and the checkpoints use.
//
//   - [Trainer] builds the network as a gorgonia graph over the Weights' own slices (one graph
//     per batch size, reused) with the loss: policy cross-entropy against the search's target
//     distribution over the legal actions (illegal ones masked out of the softmax), plus the
//     value's squared error, plus L2; and steps an [Optimizer] (Adam or SGD with momentum) whose
//     state a checkpoint saves, so a resumed run is bit for bit the uninterrupted one.
//   - [NewModel] folds a snapshot of the Weights (batchnorm merged into the convolutions) and
//     [Engine] runs it: im2col and BLAS GEMM over channel-major activations, allocation-free.
//     [Engine.Evaluate] writes every action's logit and a value in [-1, 1] for the player to
//     decide (the search's evaluator); [Engine.EvaluateLegal] the softmax over each position's
//     legal actions of a [Batch].
//
// Invariants, each held by a test: the engine equals gorgonia's forward pass in evaluation mode
// within 1e-4 (relative) for every architecture; the training graph's gradient equals finite
// differences of its loss; the engine allocates nothing; a checkpoint that is truncated, damaged,
// of another format, game or shape is refused with an error saying which.
//
// An Engine and a Trainer are each for one goroutine; a Model is read-only and shared. Run one
// Engine per inference worker: BLAS is single-threaded per call (package linalg), so speed
// scales with workers.
package net
