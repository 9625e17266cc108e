//go:build dnnl && cgo

package net

// The training graph's convolutions on oneDNN (zd_conv in zdnnl.h, zdnnl_train.c), for package
// nettrain's convolution ops.

/*
#include "zdnnl.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
)

// DNNLConv is a convolution's forward and backward passes on oneDNN, for training: a k×k
// convolution (k 1 or 3, pad k/2, stride 1, no bias) of batch positions of in planes of h×w
// cells into out planes, float32, its primitives built once for these shapes. Tensors are
// plain: x and dx (batch, in, h, w), y and dy (batch, out, h, w), weights and their gradient
// (out, in, k, k). It holds C memory, freed by Close (or a cleanup when it is collected), and
// is for one goroutine at a time. Without the build tag dnnl, NewDNNLConv fails.
type DNNLConv struct {
	c          *C.zd_conv
	free       runtime.Cleanup
	nx, ny, nw int // the sizes of x, y and the weights
}

// NewDNNLConv builds the convolution's primitives.
func NewDNNLConv(batch, in, out, h, w, k int) (*DNNLConv, error) {
	var msg [512]C.char
	c := C.zd_conv_new(C.int(batch), C.int(in), C.int(out), C.int(h), C.int(w), C.int(k), &msg[0], C.int(len(msg)))
	if c == nil {
		return nil, errors.New(C.GoString(&msg[0]))
	}
	d := &DNNLConv{c: c, nx: batch * in * h * w, ny: batch * out * h * w, nw: out * in * k * k}
	d.free = runtime.AddCleanup(d, func(c *C.zd_conv) { C.zd_conv_free(c) }, c)
	return d, nil
}

// check fails if a tensor is shorter than the shapes say (C would read or write past it).
func (d *DNNLConv) check(a, b, c []float32, na, nb, nc int) error {
	if len(a) < na || len(b) < nb || len(c) < nc {
		return fmt.Errorf("oneDNN convolution: tensors of %d, %d and %d values, %d, %d and %d needed", len(a), len(b), len(c), na, nb, nc)
	}
	return nil
}

func (d *DNNLConv) result(rc C.int) error {
	runtime.KeepAlive(d) // the cleanup must not free c during the call
	if rc != 0 {
		return errors.New(C.GoString(C.zd_conv_error(d.c)))
	}
	return nil
}

// Forward computes y = x ∗ w.
func (d *DNNLConv) Forward(x, w, y []float32) error {
	if err := d.check(x, w, y, d.nx, d.nw, d.ny); err != nil {
		return err
	}
	return d.result(C.zd_conv_forward(d.c, (*C.float)(&x[0]), (*C.float)(&w[0]), (*C.float)(&y[0])))
}

// BackwardData computes dx, the gradient with respect to the input, from w and dy.
func (d *DNNLConv) BackwardData(w, dy, dx []float32) error {
	if err := d.check(w, dy, dx, d.nw, d.ny, d.nx); err != nil {
		return err
	}
	return d.result(C.zd_conv_backward_data(d.c, (*C.float)(&w[0]), (*C.float)(&dy[0]), (*C.float)(&dx[0])))
}

// BackwardWeights computes dw, the gradient with respect to the weights, from x and dy.
func (d *DNNLConv) BackwardWeights(x, dy, dw []float32) error {
	if err := d.check(x, dy, dw, d.nx, d.ny, d.nw); err != nil {
		return err
	}
	return d.result(C.zd_conv_backward_weights(d.c, (*C.float)(&x[0]), (*C.float)(&dy[0]), (*C.float)(&dw[0])))
}

// Impl names the implementations oneDNN chose: forward, backward data, backward weights.
func (d *DNNLConv) Impl() string {
	s := C.GoString(C.zd_conv_impl(d.c))
	runtime.KeepAlive(d)
	return s
}

// Close releases the primitives.
func (d *DNNLConv) Close() {
	if d.c != nil {
		d.free.Stop()
		C.zd_conv_free(d.c)
		d.c = nil
	}
}
