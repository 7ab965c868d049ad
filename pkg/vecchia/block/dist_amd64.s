//go:build amd64 && !purego

#include "textflag.h"

// func dist2AVX(x, y []float64, x0, y0 float64, out []float64)
TEXT ·dist2AVX(SB), NOSPLIT, $0-88
	MOVQ x_base+0(FP), SI
	MOVQ y_base+24(FP), DI
	MOVQ out_base+64(FP), DX
	MOVQ out_len+72(FP), CX
	VBROADCASTSD x0+48(FP), Y0
	VBROADCASTSD y0+56(FP), Y1
	XORQ AX, AX

loop4:
	LEAQ 4(AX), BX
	CMPQ BX, CX
	JGT  tail
	VMOVUPD (SI)(AX*8), Y2
	VSUBPD  Y0, Y2, Y2          // dx
	VMOVUPD (DI)(AX*8), Y3
	VSUBPD  Y1, Y3, Y3          // dy
	VMULPD  Y2, Y2, Y2
	VMULPD  Y3, Y3, Y3
	VADDPD  Y3, Y2, Y2
	VSQRTPD Y2, Y2
	VMOVUPD Y2, (DX)(AX*8)
	MOVQ    BX, AX
	JMP     loop4

tail:
	CMPQ AX, CX
	JGE  done
	VMOVSD (SI)(AX*8), X2
	VSUBSD X0, X2, X2
	VMOVSD (DI)(AX*8), X3
	VSUBSD X1, X3, X3
	VMULSD X2, X2, X2
	VMULSD X3, X3, X3
	VADDSD X3, X2, X2
	VSQRTSD X2, X2, X2
	VMOVSD X2, (DX)(AX*8)
	INCQ   AX
	JMP    tail

done:
	VZEROUPPER
	RET

// func mirrorAVX(n int, a *float64)
// The 4 x 4 tiles of the n x n matrix a above its diagonal, in the column
// blocks j0..j0+3 < n and rows i0..i0+3 < j0, from the lower triangle:
// columns i0..i0+3 at rows j0..j0+3 loaded, transposed in registers,
// stored as columns j0..j0+3 at rows i0..i0+3.
TEXT ·mirrorAVX(SB), NOSPLIT, $0-16
	MOVQ n+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ CX, R8
	SHLQ $3, R8                 // a column, in bytes
	XORQ DX, DX                 // j0

jloop:
	LEAQ 4(DX), AX
	CMPQ AX, CX
	JGT  mdone
	XORQ BX, BX                 // i0

iloop:
	LEAQ 4(BX), AX
	CMPQ AX, DX
	JGT  jnext
	MOVQ BX, AX
	IMULQ CX, AX
	ADDQ DX, AX
	LEAQ (SI)(AX*8), DI         // &a[j0 + i0 n]
	LEAQ (DI)(R8*2), R9
	VMOVUPD (DI), Y0            // column i0, rows j0..j0+3
	VMOVUPD (DI)(R8*1), Y1
	VMOVUPD (R9), Y2
	VMOVUPD (R9)(R8*1), Y3
	VUNPCKLPD Y1, Y0, Y4
	VUNPCKHPD Y1, Y0, Y5
	VUNPCKLPD Y3, Y2, Y6
	VUNPCKHPD Y3, Y2, Y7
	MOVQ DX, AX
	IMULQ CX, AX
	ADDQ BX, AX
	LEAQ (SI)(AX*8), DI         // &a[i0 + j0 n]
	LEAQ (DI)(R8*2), R9
	VPERM2F128 $0x20, Y6, Y4, Y0
	VPERM2F128 $0x20, Y7, Y5, Y1
	VPERM2F128 $0x31, Y6, Y4, Y2
	VPERM2F128 $0x31, Y7, Y5, Y3
	VMOVUPD Y0, (DI)            // column j0, rows i0..i0+3
	VMOVUPD Y1, (DI)(R8*1)
	VMOVUPD Y2, (R9)
	VMOVUPD Y3, (R9)(R8*1)
	ADDQ $4, BX
	JMP  iloop

jnext:
	ADDQ $4, DX
	JMP  jloop

mdone:
	VZEROUPPER
	RET
