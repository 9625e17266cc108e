#include "textflag.h"

// func MXCSR() uint32
TEXT ·MXCSR(SB), NOSPLIT, $0-4
	STMXCSR ret+0(FP)
	RET

// func SetMXCSR(v uint32)
TEXT ·SetMXCSR(SB), NOSPLIT, $0-4
	LDMXCSR v+0(FP)
	RET
