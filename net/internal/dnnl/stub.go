//go:build !dnnl || !cgo

package dnnl

import "errors"

// Without the tag dnnl (or without cgo) there is no oneDNN: every constructor fails.

// Built tells whether this build has oneDNN (the tag dnnl, with cgo).
const Built = false

func isa() int { return 0 }

// Version is the version of the oneDNN library loaded ("" without oneDNN).
func Version() string { return "" }

// Net is a network on oneDNN: without the tag dnnl, none.
type Net struct{}

// New fails: built without oneDNN.
func New(s Shape, out []int32) (*Net, error) { return nil, errors.New("built without oneDNN") }

func (d *Net) Load(params []float32, offsets []int64) error {
	return errors.New("built without oneDNN")
}
func (d *Net) Run(n int, obs, logits, value []float32) error {
	return errors.New("built without oneDNN")
}
func (d *Net) RunLegal(n int, obs []float32, legal, ends []int32, logits, value []float32) error {
	return errors.New("built without oneDNN")
}
func (d *Net) Impl() string { return "" }
func (d *Net) Close()       {}

// Matmul is oneDNN's matrix product: without the tag dnnl, none.
type Matmul struct{}

// NewMatmul fails: built without oneDNN.
func NewMatmul(n int, bf16 bool) (*Matmul, error) { return nil, errors.New("built without oneDNN") }

func (d *Matmul) Run() error { return errors.New("built without oneDNN") }
func (d *Matmul) Close()     {}

// Conv is a convolution's training passes on oneDNN: without the tag dnnl, none.
type Conv struct{}

// NewConv fails: built without oneDNN.
func NewConv(batch, in, out, h, w, k int, xl, yl Layout) (*Conv, error) {
	return nil, errors.New("built without oneDNN")
}

func (d *Conv) Forward(x, w, y []float32) error        { return errors.New("built without oneDNN") }
func (d *Conv) BackwardData(w, dy, dx []float32) error { return errors.New("built without oneDNN") }
func (d *Conv) BackwardWeights(x, dy, dw []float32) error {
	return errors.New("built without oneDNN")
}
func (d *Conv) Impl() string { return "" }
func (d *Conv) Close()       {}

// BatchNorm is a batchnorm's training passes on oneDNN: without the tag dnnl, none.
type BatchNorm struct{}

// NewBatchNorm fails: built without oneDNN.
func NewBatchNorm(batch, c, h, w int, eps float32, l Layout) (*BatchNorm, error) {
	return nil, errors.New("built without oneDNN")
}

func (d *BatchNorm) Forward(x, gamma, beta, y, mean, variance []float32) error {
	return errors.New("built without oneDNN")
}
func (d *BatchNorm) Backward(x, dy, gamma, mean, variance, dx, dgamma, dbeta []float32) error {
	return errors.New("built without oneDNN")
}
func (d *BatchNorm) Impl() string { return "" }
func (d *BatchNorm) Close()       {}
