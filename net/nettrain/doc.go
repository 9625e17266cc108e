// Package nettrain trains the network of package net: the gorgonia graph over the Weights' own
// slices, our convolution, batchnorm, ReLU and loss ops for it, and the optimizer's steps. Only
// training imports it; what plays imports net alone, and the checkpoint file (net.Save,
// net.Load) is the contract between the two.
//
// [Trainer] builds the network as a gorgonia graph (one graph and machine per batch size, built
// on first use and reused) with the loss: policy cross-entropy against the search's target
// distribution over the legal actions (illegal ones masked out of the softmax), plus the value's
// squared error, plus L2; and steps a net.Optimizer (Adam or SGD with momentum) whose state a
// checkpoint saves, so a resumed run is bit for bit the uninterrupted one. [MeasureTraining]
// times its steps (zero bench net --train).
//
// The first graph built makes gorgonia use this build's BLAS (linalg.Implementation). Built with
// the tag dnnl, the convolution and batchnorm ops run on oneDNN (net/internal/dnnl's Conv and
// BatchNorm), the tower's activations in its blocked layout; the Go ops are the fallback
// and the reference.
//
// Invariants, each held by a test: net's inference engine equals this package's forward pass
// (gorgonia's own ops, evaluation mode) within 1e-4 (relative) for every architecture; the
// training graph's gradient equals finite differences of its loss; our ops equal gorgonia's
// Conv2d, BatchNorm, Rectify and loss; the oneDNN ops equal the Go ones; a resumed training is
// the uninterrupted one.
//
// A Trainer is for one goroutine.
package nettrain
