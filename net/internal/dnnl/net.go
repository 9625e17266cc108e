//go:build dnnl && cgo

package dnnl

// The inference engine's side in Go, and the bench's matmul: zdnnl.h is the whole C surface
// (training's convolutions and batchnorms are in train.go), zdnnl.c builds the network from
// oneDNN 2.6's primitives (Debian's libdnnl-dev; the 3.x API differs).

/*
#cgo LDFLAGS: -ldnnl -lgomp
#include <stdlib.h>
#include <oneapi/dnnl/dnnl.h>
#include "zdnnl.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"
)

// Built tells whether this build has oneDNN (the tag dnnl, with cgo).
const Built = true

func isa() int { return int(C.zd_isa()) }

// Version is the version of the oneDNN library loaded ("" without oneDNN).
func Version() string {
	v := C.dnnl_version()
	return fmt.Sprintf("%d.%d.%d", v.major, v.minor, v.patch)
}

// Net is a network built on oneDNN: a zd_net, C memory the Go collector does not see, freed by
// Close (or by a cleanup when it is collected).
type Net struct {
	z    *C.zd_net
	free runtime.Cleanup
}

// New builds the network of shape s on oneDNN (zd_new); out[a] is action a's index among the
// policy head's outputs. Primitives are built on the calling thread, set to one OpenMP thread.
func New(s Shape, out []int32) (*Net, error) {
	shape := C.zd_shape{
		planes: C.int(s.Planes), height: C.int(s.Height), width: C.int(s.Width),
		channels: C.int(s.Channels), blocks: C.int(s.Blocks), policy_channels: C.int(s.PolicyChannels),
		policy_planes: C.int(s.PolicyPlanes), offgrid: C.int(s.OffGrid), actions: C.int(s.Actions),
		value_channels: C.int(s.ValueChannels), value_hidden: C.int(s.ValueHidden),
		chunk: C.int(s.Chunk),
	}
	if s.Winograd {
		shape.winograd = 1
	}
	if s.GlobalPool {
		shape.global_pool = 1
	}
	if s.BF16 {
		shape.bf16 = 1
	}
	var msg [512]C.char
	runtime.LockOSThread()
	z := C.zd_new(&shape, (*C.int32_t)(unsafe.Pointer(&out[0])), &msg[0], C.int(len(msg)))
	runtime.UnlockOSThread()
	if z == nil {
		return nil, errors.New(C.GoString(&msg[0]))
	}
	d := &Net{z: z}
	d.free = runtime.AddCleanup(d, netFree, z)
	return d, nil
}

// Load copies the folded weights into the network and reorders them for its primitives
// (zd_load): params holds every tensor, offsets[2k] and offsets[2k+1] layer k's weights and bias.
func (d *Net) Load(params []float32, offsets []int64) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if C.zd_load(d.z, (*C.float)(&params[0]), (*C.int64_t)(&offsets[0]), C.int(len(offsets)/2)) != 0 {
		return errors.New(C.GoString(C.zd_error(d.z)))
	}
	runtime.KeepAlive(d)
	return nil
}

// Run evaluates n positions (see zd_run). The thread is held for the call: MXCSR and OpenMP's
// thread count are the thread's.
func (d *Net) Run(n int, obs, logits, value []float32) error {
	if n == 0 {
		return nil
	}
	runtime.LockOSThread()
	rc := C.zd_run(d.z, C.int(n), (*C.float)(&obs[0]), (*C.float)(&logits[0]), (*C.float)(&value[0]))
	runtime.UnlockOSThread()
	if rc != 0 {
		return errors.New(C.GoString(C.zd_error(d.z)))
	}
	runtime.KeepAlive(d) // the cleanup must not free z during the call
	return nil
}

// RunLegal evaluates n positions of a net with a spatial policy head, working out only the
// logits of the actions given (see zd_run_legal): position i's are legal[ends[i-1]:ends[i]]
// (from 0 for i = 0), their logits written to the same places of logits.
func (d *Net) RunLegal(n int, obs []float32, legal, ends []int32, logits, value []float32) error {
	if n == 0 {
		return nil
	}
	if len(ends) < n || len(legal) < int(ends[n-1]) || len(logits) < int(ends[n-1]) {
		return fmt.Errorf("oneDNN: %d positions with %d ends, %d actions and %d logits", n, len(ends), len(legal), len(logits))
	}
	var lp *C.int32_t
	var pp *C.float
	if len(legal) > 0 && len(logits) > 0 {
		lp, pp = (*C.int32_t)(unsafe.Pointer(&legal[0])), (*C.float)(&logits[0])
	}
	runtime.LockOSThread()
	rc := C.zd_run_legal(d.z, C.int(n), (*C.float)(&obs[0]), lp, (*C.int32_t)(unsafe.Pointer(&ends[0])), pp, (*C.float)(&value[0]))
	runtime.UnlockOSThread()
	if rc != 0 {
		return errors.New(C.GoString(C.zd_error(d.z)))
	}
	runtime.KeepAlive(d)
	return nil
}

// Impl names the kernels of the tower's convolutions.
func (d *Net) Impl() string { return C.GoString(C.zd_impl(d.z)) }

// Close releases the network.
func (d *Net) Close() {
	if d.z != nil {
		d.free.Stop()
		C.zd_free(d.z)
		d.z = nil
	}
}

// netFree frees a zd_net whose Net was collected without Close.
func netFree(z *C.zd_net) { C.zd_free(z) }

// Matmul is oneDNN's n×n matrix product, a yardstick (zd_matmul).
type Matmul struct {
	m    *C.zd_matmul
	free runtime.Cleanup
}

// NewMatmul builds oneDNN's n×n product in bfloat16 or float32 on the calling thread.
func NewMatmul(n int, bf16 bool) (*Matmul, error) {
	var msg [512]C.char
	b := C.int(0)
	if bf16 {
		b = 1
	}
	runtime.LockOSThread()
	m := C.zd_matmul_new(C.int(n), b, &msg[0], C.int(len(msg)))
	runtime.UnlockOSThread()
	if m == nil {
		return nil, errors.New(C.GoString(&msg[0]))
	}
	d := &Matmul{m: m}
	d.free = runtime.AddCleanup(d, func(m *C.zd_matmul) { C.zd_matmul_free(m) }, m)
	return d, nil
}

// Run computes the product once.
func (d *Matmul) Run() error {
	runtime.LockOSThread()
	rc := C.zd_matmul_run(d.m)
	runtime.UnlockOSThread()
	runtime.KeepAlive(d)
	if rc != 0 {
		return errors.New("oneDNN matmul failed")
	}
	return nil
}

// Close releases the product.
func (d *Matmul) Close() {
	if d.m != nil {
		d.free.Stop()
		C.zd_matmul_free(d.m)
		d.m = nil
	}
}
