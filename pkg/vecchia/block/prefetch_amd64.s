//go:build amd64 && !purego

#include "textflag.h"

// func prefetchIdx(idx []int32, a *float64, stride int)
TEXT ·prefetchIdx(SB), NOSPLIT, $0-40
	MOVQ idx_base+0(FP), SI
	MOVQ idx_len+8(FP), CX
	MOVQ a+24(FP), DI
	MOVQ stride+32(FP), BX
	SHLQ $3, BX
	TESTQ CX, CX
	JZ   done

loop:
	MOVLQSX (SI), AX
	MOVQ    AX, DX
	SARQ    $63, DX
	XORQ    DX, AX     // ^v for a response (v < 0)
	IMULQ   BX, AX
	PREFETCHT0 (DI)(AX*1)
	ADDQ    $4, SI
	DECQ    CX
	JNZ     loop

done:
	RET
