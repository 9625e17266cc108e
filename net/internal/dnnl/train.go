//go:build dnnl && cgo

package dnnl

// The training graph's convolutions and batchnorms on oneDNN (zd_conv and zd_bnorm in zdnnl.h,
// zdnnl_train.c), for package nettrain's ops.

/*
#include "zdnnl.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
)

// Conv is a convolution's forward and backward passes on oneDNN, for training: a k×k
// convolution (k 1 or 3, pad k/2, stride 1, no bias) of batch positions of in planes of h×w
// cells into out planes, float32, its primitives built once for these shapes. Tensors: x and dx
// (batch, in, h, w) laid out as xl says, y and dy (batch, out, h, w) as yl says, weights and
// their gradient (out, in, k, k). It holds C memory, freed by Close (or a cleanup when it is
// collected), and is for one goroutine at a time. Without the build tag dnnl, NewConv fails.
type Conv struct {
	c          *C.zd_conv
	free       runtime.Cleanup
	nx, ny, nw int // the sizes of x, y and the weights
}

// NewConv builds the convolution's primitives.
func NewConv(batch, in, out, h, w, k int, xl, yl Layout) (*Conv, error) {
	if err := xl.check(in); err != nil {
		return nil, err
	}
	if err := yl.check(out); err != nil {
		return nil, err
	}
	var msg [512]C.char
	c := C.zd_conv_new(C.int(batch), C.int(in), C.int(out), C.int(h), C.int(w), C.int(k), C.int(xl), C.int(yl), &msg[0], C.int(len(msg)))
	if c == nil {
		return nil, errors.New(C.GoString(&msg[0]))
	}
	d := &Conv{c: c, nx: batch * in * h * w, ny: batch * out * h * w, nw: out * in * k * k}
	d.free = runtime.AddCleanup(d, func(c *C.zd_conv) { C.zd_conv_free(c) }, c)
	return d, nil
}

// check fails if a tensor is shorter than the shapes say (C would read or write past it).
func (d *Conv) check(a, b, c []float32, na, nb, nc int) error {
	if len(a) < na || len(b) < nb || len(c) < nc {
		return fmt.Errorf("oneDNN convolution: tensors of %d, %d and %d values, %d, %d and %d needed", len(a), len(b), len(c), na, nb, nc)
	}
	return nil
}

func (d *Conv) result(rc C.int) error {
	runtime.KeepAlive(d) // the cleanup must not free c during the call
	if rc != 0 {
		return errors.New(C.GoString(C.zd_conv_error(d.c)))
	}
	return nil
}

// Forward computes y = x ∗ w.
func (d *Conv) Forward(x, w, y []float32) error {
	if err := d.check(x, w, y, d.nx, d.nw, d.ny); err != nil {
		return err
	}
	return d.result(C.zd_conv_forward(d.c, (*C.float)(&x[0]), (*C.float)(&w[0]), (*C.float)(&y[0])))
}

// BackwardData computes dx, the gradient with respect to the input, from w and dy.
func (d *Conv) BackwardData(w, dy, dx []float32) error {
	if err := d.check(w, dy, dx, d.nw, d.ny, d.nx); err != nil {
		return err
	}
	return d.result(C.zd_conv_backward_data(d.c, (*C.float)(&w[0]), (*C.float)(&dy[0]), (*C.float)(&dx[0])))
}

// BackwardWeights computes dw, the gradient with respect to the weights, from x and dy.
func (d *Conv) BackwardWeights(x, dy, dw []float32) error {
	if err := d.check(x, dy, dw, d.nx, d.ny, d.nw); err != nil {
		return err
	}
	return d.result(C.zd_conv_backward_weights(d.c, (*C.float)(&x[0]), (*C.float)(&dy[0]), (*C.float)(&dw[0])))
}

// Impl names the implementations oneDNN chose: forward, backward data, backward weights.
func (d *Conv) Impl() string {
	s := C.GoString(C.zd_conv_impl(d.c))
	runtime.KeepAlive(d)
	return s
}

// Close releases the primitives.
func (d *Conv) Close() {
	if d.c != nil {
		d.free.Stop()
		C.zd_conv_free(d.c)
		d.c = nil
	}
}

// BatchNorm is a batchnorm's forward (training: normalised by the batch's statistics) and
// backward passes on oneDNN: batch positions of c planes of h×w cells, float32, ε eps
// (net.BatchNormEpsilon), its primitives built once. x, y, dx and dy are (batch, c, h, w) laid
// out as the layout given says, the scale gamma, the shift beta, their gradients and the
// statistics (c). Like Conv, C memory freed by Close, for one goroutine at a time; without the
// build tag dnnl, NewBatchNorm fails.
type BatchNorm struct {
	b      *C.zd_bnorm
	free   runtime.Cleanup
	nx, nc int
}

// NewBatchNorm builds the batchnorm's primitives, for tensors laid out as l says.
func NewBatchNorm(batch, c, h, w int, eps float32, l Layout) (*BatchNorm, error) {
	if err := l.check(c); err != nil {
		return nil, err
	}
	var msg [512]C.char
	b := C.zd_bnorm_new(C.int(batch), C.int(c), C.int(h), C.int(w), C.float(eps), C.int(l), &msg[0], C.int(len(msg)))
	if b == nil {
		return nil, errors.New(C.GoString(&msg[0]))
	}
	d := &BatchNorm{b: b, nx: batch * c * h * w, nc: c}
	d.free = runtime.AddCleanup(d, func(b *C.zd_bnorm) { C.zd_bnorm_free(b) }, b)
	return d, nil
}

func (d *BatchNorm) check(data [][]float32, vecs [][]float32) error {
	for _, x := range data {
		if len(x) < d.nx {
			return fmt.Errorf("oneDNN batchnorm: a tensor of %d values, %d needed", len(x), d.nx)
		}
	}
	for _, v := range vecs {
		if len(v) < d.nc {
			return fmt.Errorf("oneDNN batchnorm: a vector of %d values, %d needed", len(v), d.nc)
		}
	}
	return nil
}

func (d *BatchNorm) result(rc C.int) error {
	runtime.KeepAlive(d)
	if rc != 0 {
		return errors.New(C.GoString(C.zd_bnorm_error(d.b)))
	}
	return nil
}

// Forward computes y = gamma·(x − mean)/√(variance + ε) + beta with the batch's statistics,
// which it writes into mean and variance (the biased variance).
func (d *BatchNorm) Forward(x, gamma, beta, y, mean, variance []float32) error {
	if len(x) < d.nx || len(y) < d.nx || len(gamma) < d.nc || len(beta) < d.nc || len(mean) < d.nc || len(variance) < d.nc {
		return d.check([][]float32{x, y}, [][]float32{gamma, beta, mean, variance})
	}
	return d.result(C.zd_bnorm_forward(d.b, (*C.float)(&x[0]), (*C.float)(&gamma[0]), (*C.float)(&beta[0]), (*C.float)(&y[0]),
		(*C.float)(&mean[0]), (*C.float)(&variance[0])))
}

// Backward computes the gradients with respect to x, gamma and beta from dy, with the
// statistics Forward wrote.
func (d *BatchNorm) Backward(x, dy, gamma, mean, variance, dx, dgamma, dbeta []float32) error {
	if len(x) < d.nx || len(dy) < d.nx || len(dx) < d.nx || len(gamma) < d.nc || len(mean) < d.nc || len(variance) < d.nc || len(dgamma) < d.nc || len(dbeta) < d.nc {
		return d.check([][]float32{x, dy, dx}, [][]float32{gamma, mean, variance, dgamma, dbeta})
	}
	return d.result(C.zd_bnorm_backward(d.b, (*C.float)(&x[0]), (*C.float)(&dy[0]), (*C.float)(&gamma[0]), (*C.float)(&mean[0]),
		(*C.float)(&variance[0]), (*C.float)(&dx[0]), (*C.float)(&dgamma[0]), (*C.float)(&dbeta[0])))
}

// Impl names the implementations oneDNN chose: forward, backward.
func (d *BatchNorm) Impl() string {
	s := C.GoString(C.zd_bnorm_impl(d.b))
	runtime.KeepAlive(d)
	return s
}

// Close releases the primitives.
func (d *BatchNorm) Close() {
	if d.b != nil {
		d.free.Stop()
		C.zd_bnorm_free(d.b)
		d.b = nil
	}
}
