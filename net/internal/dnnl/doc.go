// Package dnnl is the project's oneDNN code: its C, and the Go types that call it through cgo.
// It is all the cgo there is in net: the inference engine's network ([Net], zdnnl.c), the
// bench's matrix product ([Matmul]), and the training graph's convolutions and batchnorms
// ([Conv], [BatchNorm], zdnnl_train.c), which package net/nettrain's ops call. Package net's
// oneDNN backends (net/backend_onednn.go) and net/nettrain import it; Go's internal rule keeps
// it theirs.
//
// Built with the tag dnnl (and cgo), it links Debian's libdnnl-dev (oneDNN 2.6's C API: the whole
// C surface is zdnnl.h); without it every constructor fails with "built without oneDNN", [Built]
// is false and [Version] is "". Everything C builds, C owns: Go pointers cross only as call
// arguments and are never kept after a call returns (the rule of cgo); each object holds C memory
// until its Close, or until the collector finds it unreachable (runtime.AddCleanup), and is for
// one goroutine at a time.
package dnnl

import "fmt"

// ISA names the instruction set oneDNN's kernels use on this CPU (dnnl_get_effective_cpu_isa),
// "none" without oneDNN.
func ISA() string {
	if !Built {
		return "none"
	}
	// dnnl_cpu_isa_t's values (oneapi/dnnl/dnnl_types.h, 2.6).
	switch isa() {
	case 0x1:
		return "sse41"
	case 0x3:
		return "avx"
	case 0x7:
		return "avx2"
	case 0x407:
		return "avx2_vnni"
	case 0x27:
		return "avx512_core"
	case 0x67:
		return "avx512_core_vnni"
	case 0xe7:
		return "avx512_core_bf16"
	case 0x3e7:
		return "avx512_core_amx"
	}
	return fmt.Sprintf("isa %#x", isa())
}

// BF16 tells whether oneDNN's kernels have bfloat16 instructions here (AVX512-BF16 or AMX):
// dnnl_cpu_isa_t values are sets of bits, each ISA holding those it extends.
func BF16() bool { return Built && isa()&0xe7 == 0xe7 }

// AMX tells whether oneDNN's kernels run on AMX here.
func AMX() bool { return Built && isa()&0x3e7 == 0x3e7 }
