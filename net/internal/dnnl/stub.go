//go:build !dnnl || !cgo

package net

import "errors"

// Without the tag dnnl (or without cgo) there is no oneDNN backend.

const dnnlBuilt = false

func dnnlISA() int { return 0 }

// DNNLVersion is the version of the oneDNN library loaded ("" without oneDNN).
func DNNLVersion() string { return "" }

type dnnlNet struct{}

func newDNNL(m *Model, bf16 bool, o dnnlOptions) (*dnnlNet, error) {
	return nil, errors.New("built without oneDNN")
}

func (d *dnnlNet) load(m *Model) error { return errors.New("built without oneDNN") }
func (d *dnnlNet) run(n int, obs, logits, value []float32) error {
	return errors.New("built without oneDNN")
}
func (d *dnnlNet) impl() string { return "" }
func (d *dnnlNet) close()       {}

type dnnlMatmul struct{}

func newDNNLMatmul(n int, bf16 bool) (*dnnlMatmul, error) {
	return nil, errors.New("built without oneDNN")
}

func (d *dnnlMatmul) run() error { return errors.New("built without oneDNN") }
func (d *dnnlMatmul) close()     {}

// DNNLConv is a convolution's training passes on oneDNN: without the tag dnnl, none.
type DNNLConv struct{}

// NewDNNLConv fails: built without oneDNN.
func NewDNNLConv(batch, in, out, h, w, k int, xl, yl DNNLLayout) (*DNNLConv, error) {
	return nil, errors.New("built without oneDNN")
}

func (d *DNNLConv) Forward(x, w, y []float32) error        { return errors.New("built without oneDNN") }
func (d *DNNLConv) BackwardData(w, dy, dx []float32) error { return errors.New("built without oneDNN") }
func (d *DNNLConv) BackwardWeights(x, dy, dw []float32) error {
	return errors.New("built without oneDNN")
}
func (d *DNNLConv) Impl() string { return "" }
func (d *DNNLConv) Close()       {}

// DNNLBatchNorm is a batchnorm's training passes on oneDNN: without the tag dnnl, none.
type DNNLBatchNorm struct{}

// NewDNNLBatchNorm fails: built without oneDNN.
func NewDNNLBatchNorm(batch, c, h, w int, l DNNLLayout) (*DNNLBatchNorm, error) {
	return nil, errors.New("built without oneDNN")
}

func (d *DNNLBatchNorm) Forward(x, gamma, beta, y, mean, variance []float32) error {
	return errors.New("built without oneDNN")
}
func (d *DNNLBatchNorm) Backward(x, dy, gamma, mean, variance, dx, dgamma, dbeta []float32) error {
	return errors.New("built without oneDNN")
}
func (d *DNNLBatchNorm) Impl() string { return "" }
func (d *DNNLBatchNorm) Close()       {}
