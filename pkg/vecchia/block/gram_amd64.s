//go:build amd64 && !purego

#include "textflag.h"

// Masks of the last, partial chunk of 4 rows: 1, 2 or 3 rows kept.
DATA gramMask<>+0(SB)/8, $-1
DATA gramMask<>+8(SB)/8, $0
DATA gramMask<>+16(SB)/8, $0
DATA gramMask<>+24(SB)/8, $0
DATA gramMask<>+32(SB)/8, $-1
DATA gramMask<>+40(SB)/8, $-1
DATA gramMask<>+48(SB)/8, $0
DATA gramMask<>+56(SB)/8, $0
DATA gramMask<>+64(SB)/8, $-1
DATA gramMask<>+72(SB)/8, $-1
DATA gramMask<>+80(SB)/8, $-1
DATA gramMask<>+88(SB)/8, $0
GLOBL gramMask<>(SB), RODATA|NOPTR, $96

#define FMAS \
	VFMADD231PD Y12, Y8, Y0; \
	VFMADD231PD Y13, Y8, Y1; \
	VFMADD231PD Y12, Y9, Y2; \
	VFMADD231PD Y13, Y9, Y3; \
	VFMADD231PD Y12, Y10, Y4; \
	VFMADD231PD Y13, Y10, Y5; \
	VFMADD231PD Y12, Y11, Y6; \
	VFMADD231PD Y13, Y11, Y7

#define REDUCE(y, x, off) \
	VEXTRACTF128 $1, y, X15; \
	VADDPD X15, x, x; \
	VHADDPD x, x, x; \
	VMOVSD x, off(DI)

// func gram42AVX(n int, x0, x1, x2, x3, y0, y1 *float64, out *float64)
// out[2i+j] = sum_{q<n} x_i[q] y_j[q]: lane l of one accumulator a dot
// sums the rows q = l mod 4 in order with fused multiply-adds (the last
// chunk's missing rows loaded as zeros), then (l0 + l2) + (l1 + l3).
TEXT ·gram42AVX(SB), NOSPLIT, $0-64
	MOVQ n+0(FP), CX
	MOVQ x0+8(FP), R8
	MOVQ x1+16(FP), R9
	MOVQ x2+24(FP), R10
	MOVQ x3+32(FP), R11
	MOVQ y0+40(FP), R12
	MOVQ y1+48(FP), R13
	MOVQ out+56(FP), DI
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	XORQ AX, AX
	MOVQ CX, DX
	SHRQ $2, DX
	JZ   tail

loop:
	VMOVUPD (R8)(AX*1), Y8
	VMOVUPD (R9)(AX*1), Y9
	VMOVUPD (R10)(AX*1), Y10
	VMOVUPD (R11)(AX*1), Y11
	VMOVUPD (R12)(AX*1), Y12
	VMOVUPD (R13)(AX*1), Y13
	FMAS
	ADDQ $32, AX
	DECQ DX
	JNZ  loop

tail:
	ANDQ $3, CX
	JZ   reduce
	DECQ CX
	SHLQ $5, CX
	LEAQ gramMask<>(SB), BX
	VMOVUPD (BX)(CX*1), Y14
	VMASKMOVPD (R8)(AX*1), Y14, Y8
	VMASKMOVPD (R9)(AX*1), Y14, Y9
	VMASKMOVPD (R10)(AX*1), Y14, Y10
	VMASKMOVPD (R11)(AX*1), Y14, Y11
	VMASKMOVPD (R12)(AX*1), Y14, Y12
	VMASKMOVPD (R13)(AX*1), Y14, Y13
	FMAS

reduce:
	REDUCE(Y0, X0, 0)
	REDUCE(Y1, X1, 8)
	REDUCE(Y2, X2, 16)
	REDUCE(Y3, X3, 24)
	REDUCE(Y4, X4, 32)
	REDUCE(Y5, X5, 40)
	REDUCE(Y6, X6, 48)
	REDUCE(Y7, X7, 56)
	VZEROUPPER
	RET
