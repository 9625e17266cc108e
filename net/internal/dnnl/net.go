//go:build dnnl && cgo

package net

// The oneDNN backend's side in Go: zdnnl.h is the whole C surface (nine functions for the
// engine, seven for training's convolutions in dnnl_train.go), zdnnl.c builds the network from
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

const dnnlBuilt = true

func dnnlISA() int { return int(C.zd_isa()) }

// DNNLVersion is the version of the oneDNN library loaded ("" without oneDNN).
func DNNLVersion() string {
	v := C.dnnl_version()
	return fmt.Sprintf("%d.%d.%d", v.major, v.minor, v.patch)
}

// dnnlNet is a network built on oneDNN: a zd_net, C memory the Go collector does not see,
// freed by close (or by a cleanup when its Engine is collected).
type dnnlNet struct {
	z    *C.zd_net
	free runtime.Cleanup
}

// newDNNL builds m's network on oneDNN, in bfloat16 if bf16, with options o, and loads m's
// weights. Primitives are built on the calling thread, set to one OpenMP thread.
func newDNNL(m *Model, bf16 bool, o dnnlOptions) (*dnnlNet, error) {
	s, c := m.spec, m.cfg
	shape := C.zd_shape{
		planes: C.int(s.Observation.Planes), height: C.int(s.Observation.Height), width: C.int(s.Observation.Width),
		channels: C.int(c.Channels), blocks: C.int(c.Blocks), policy_channels: C.int(c.PolicyChannels),
		policy_planes: C.int(s.PolicyPlanes), offgrid: C.int(s.OffGrid), actions: C.int(s.NumActions),
		value_channels: C.int(c.ValueChannels), value_hidden: C.int(c.ValueHidden),
		chunk: C.int(o.chunk),
	}
	if o.winograd {
		shape.winograd = 1
	}
	if c.GlobalPool {
		shape.global_pool = 1
	}
	if bf16 {
		shape.bf16 = 1
	}
	var msg [512]C.char
	runtime.LockOSThread()
	z := C.zd_new(&shape, (*C.int32_t)(unsafe.Pointer(&s.output[0])), &msg[0], C.int(len(msg)))
	runtime.UnlockOSThread()
	if z == nil {
		return nil, errors.New(C.GoString(&msg[0]))
	}
	d := &dnnlNet{z: z}
	d.free = runtime.AddCleanup(d, dnnlFree, z)
	if err := d.load(m); err != nil {
		d.close()
		return nil, err
	}
	return d, nil
}

// load copies m's folded weights into the network and reorders them for its primitives.
func (d *dnnlNet) load(m *Model) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if C.zd_load(d.z, (*C.float)(&m.params[0]), (*C.int64_t)(&m.offsets[0]), C.int(len(m.offsets)/2)) != 0 {
		return errors.New(C.GoString(C.zd_error(d.z)))
	}
	runtime.KeepAlive(d)
	return nil
}

// run evaluates n positions (see zd_run). The thread is held for the call: MXCSR and OpenMP's
// thread count are the thread's.
func (d *dnnlNet) run(n int, obs, logits, value []float32) error {
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

// impl names the kernels of the tower's convolutions.
func (d *dnnlNet) impl() string { return C.GoString(C.zd_impl(d.z)) }

func (d *dnnlNet) close() {
	if d.z != nil {
		d.free.Stop()
		C.zd_free(d.z)
		d.z = nil
	}
}

// dnnlFree frees a zd_net whose engine was collected without Close.
func dnnlFree(z *C.zd_net) { C.zd_free(z) }

// dnnlMatmul is oneDNN's n×n matrix product, a yardstick (zd_matmul).
type dnnlMatmul struct {
	m    *C.zd_matmul
	free runtime.Cleanup
}

// newDNNLMatmul builds oneDNN's n×n product in bfloat16 or float32 on the calling thread.
func newDNNLMatmul(n int, bf16 bool) (*dnnlMatmul, error) {
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
	d := &dnnlMatmul{m: m}
	d.free = runtime.AddCleanup(d, func(m *C.zd_matmul) { C.zd_matmul_free(m) }, m)
	return d, nil
}

func (d *dnnlMatmul) run() error {
	runtime.LockOSThread()
	rc := C.zd_matmul_run(d.m)
	runtime.UnlockOSThread()
	runtime.KeepAlive(d)
	if rc != 0 {
		return errors.New("oneDNN matmul failed")
	}
	return nil
}

func (d *dnnlMatmul) close() {
	if d.m != nil {
		d.free.Stop()
		C.zd_matmul_free(d.m)
		d.m = nil
	}
}
