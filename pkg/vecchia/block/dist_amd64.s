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

// func distTriAVX512(x, y []float64, out *float64, sq int)
// The distances below the diagonal of the len(x) points, packed (distTri),
// eight at a time in zmm registers (the same operations as dist2AVX,
// lane by lane), a column's last group under a mask; with sq not 0 their
// squares, the square root left out (distTriSq).
TEXT ·distTriAVX512(SB), NOSPLIT, $0-64
	MOVQ x_base+0(FP), SI
	MOVQ y_base+24(FP), DI
	MOVQ x_len+8(FP), R8        // n
	MOVQ out+48(FP), R11
	MOVQ sq+56(FP), R10
	SUBQ $8, R11                // out - (j+1) values for j = 0: column j's entry i at (R11)(i*8)
	XORQ R9, R9                 // j

tcol:
	LEAQ 1(R9), AX              // i = j+1
	CMPQ AX, R8
	JGE  tdone
	VBROADCASTSD (SI)(R9*8), Z0
	VBROADCASTSD (DI)(R9*8), Z1

tgrp:
	MOVQ R8, CX
	SUBQ AX, CX                 // rows left
	JLE  tnext
	KXNORW K1, K1, K1
	CMPQ CX, $8
	JGE  tload
	MOVL $1, BX
	SHLL CX, BX
	DECL BX
	KMOVW BX, K1

tload:
	VMOVUPD.Z (SI)(AX*8), K1, Z2
	VSUBPD  Z0, Z2, Z2          // dx
	VMOVUPD.Z (DI)(AX*8), K1, Z3
	VSUBPD  Z1, Z3, Z3          // dy
	VMULPD  Z2, Z2, Z2
	VMULPD  Z3, Z3, Z3
	VADDPD  Z3, Z2, Z2
	TESTQ   R10, R10
	JNE     tstore
	VSQRTPD Z2, Z2

tstore:
	VMOVUPD Z2, K1, (R11)(AX*8)
	ADDQ $8, AX
	JMP  tgrp

tnext:
	MOVQ R8, CX
	SUBQ R9, CX
	SUBQ $2, CX
	LEAQ (R11)(CX*8), R11       // column j+1's base: n - j - 2 values on
	INCQ R9
	JMP  tcol

tdone:
	VZEROUPPER
	RET

// func unpackAVX512(n int, a *float64)
// unpack's moves (the packed columns to their places below the diagonal),
// each column from its end eight values at a time (a column's place lies
// after its packed values, so a group is loaded before any store reaches
// it), the first group under a mask; not the diagonal.
TEXT ·unpackAVX512(SB), NOSPLIT, $0-16
	MOVQ n+0(FP), R8
	MOVQ a+8(FP), SI
	MOVQ R8, R9
	DECQ R9                     // j = n-1

ucol:
	TESTQ R9, R9
	JL   udone
	MOVQ R8, CX
	SUBQ R9, CX
	DECQ CX                     // m = n-1-j values
	JLE  unext
	MOVQ R9, AX
	IMULQ R8, AX
	LEAQ 1(AX)(R9*1), AX        // j n + j + 1: the place
	LEAQ (SI)(AX*8), DI
	MOVQ R9, AX
	DECQ AX
	IMULQ R9, AX
	SHRQ $1, AX                 // j (j-1) / 2
	MOVQ R8, BX
	DECQ BX
	IMULQ R9, BX
	SUBQ AX, BX                 // j (n-1) - j (j-1)/2: the packed start
	LEAQ (SI)(BX*8), BX

ugrp:
	CMPQ CX, $8
	JL   ulast
	SUBQ $8, CX
	VMOVUPD (BX)(CX*8), Z0
	VMOVUPD Z0, (DI)(CX*8)
	JMP  ugrp

ulast:
	TESTQ CX, CX
	JE   unext
	MOVL $1, AX
	SHLL CX, AX
	DECL AX
	KMOVW AX, K1
	VMOVUPD.Z (BX), K1, Z0
	VMOVUPD Z0, K1, (DI)

unext:
	DECQ R9
	JMP  ucol

udone:
	VZEROUPPER
	RET
