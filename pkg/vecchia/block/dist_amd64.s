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
	TESTQ R10, R10
	JNE  qcol

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

qcol: // the squares: a column's full groups of eight without masks, its last under one
	LEAQ 1(R9), AX              // i = j+1
	CMPQ AX, R8
	JGE  tdone
	VBROADCASTSD (SI)(R9*8), Z0
	VBROADCASTSD (DI)(R9*8), Z1
	LEAQ 8(AX), BX

qfull:
	CMPQ BX, R8
	JGT  qlast
	VMOVUPD (SI)(AX*8), Z2
	VSUBPD  Z0, Z2, Z2          // dx
	VMOVUPD (DI)(AX*8), Z3
	VSUBPD  Z1, Z3, Z3          // dy
	VMULPD  Z2, Z2, Z2
	VMULPD  Z3, Z3, Z3
	VADDPD  Z3, Z2, Z2
	VMOVUPD Z2, (R11)(AX*8)
	MOVQ BX, AX
	ADDQ $8, BX
	JMP  qfull

qlast:
	MOVQ R8, CX
	SUBQ AX, CX                 // rows left, fewer than 8
	JLE  qnext
	MOVL $1, BX
	SHLL CX, BX
	DECL BX
	KMOVW BX, K1
	VMOVUPD.Z (SI)(AX*8), K1, Z2
	VSUBPD  Z0, Z2, Z2
	VMOVUPD.Z (DI)(AX*8), K1, Z3
	VSUBPD  Z1, Z3, Z3
	VMULPD  Z2, Z2, Z2
	VMULPD  Z3, Z3, Z3
	VADDPD  Z3, Z2, Z2
	VMOVUPD Z2, K1, (R11)(AX*8)

qnext:
	MOVQ R8, CX
	SUBQ R9, CX
	SUBQ $2, CX
	LEAQ (R11)(CX*8), R11       // column j+1's base: n - j - 2 values on
	INCQ R9
	JMP  qcol

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

// The 8 x 8 transpose: Z0 .. Z7 (r_c: column i0+c of a tile's rows) into
// Z24 .. Z31 (out_k[c] = r_c[k]): pairs within 128-bit lanes, then the
// lanes by two rounds of VSHUFF64X2.
#define TR8 \
	VUNPCKLPD Z1, Z0, Z8 \
	VUNPCKHPD Z1, Z0, Z9 \
	VUNPCKLPD Z3, Z2, Z10 \
	VUNPCKHPD Z3, Z2, Z11 \
	VUNPCKLPD Z5, Z4, Z12 \
	VUNPCKHPD Z5, Z4, Z13 \
	VUNPCKLPD Z7, Z6, Z14 \
	VUNPCKHPD Z7, Z6, Z15 \
	VSHUFF64X2 $0x88, Z10, Z8, Z16 \
	VSHUFF64X2 $0xdd, Z10, Z8, Z17 \
	VSHUFF64X2 $0x88, Z11, Z9, Z18 \
	VSHUFF64X2 $0xdd, Z11, Z9, Z19 \
	VSHUFF64X2 $0x88, Z14, Z12, Z20 \
	VSHUFF64X2 $0xdd, Z14, Z12, Z21 \
	VSHUFF64X2 $0x88, Z15, Z13, Z22 \
	VSHUFF64X2 $0xdd, Z15, Z13, Z23 \
	VSHUFF64X2 $0x88, Z20, Z16, Z24 \
	VSHUFF64X2 $0x88, Z22, Z18, Z25 \
	VSHUFF64X2 $0x88, Z21, Z17, Z26 \
	VSHUFF64X2 $0x88, Z23, Z19, Z27 \
	VSHUFF64X2 $0xdd, Z20, Z16, Z28 \
	VSHUFF64X2 $0xdd, Z22, Z18, Z29 \
	VSHUFF64X2 $0xdd, Z21, Z17, Z30 \
	VSHUFF64X2 $0xdd, Z23, Z19, Z31

// func mirrorZ(n int, a *float64)
// mirror's copies with AVX-512: for each block of 8 columns j0.. (the
// last under a mask of its rows), the 8 x 8 tiles above the diagonal
// (rows i0 < j0) from the lower triangle's (columns i0..i0+7 at rows
// j0..), transposed in registers (TR8), then the diagonal tile's strict
// upper triangle under masks; it reads and writes nothing outside the n x
// n matrix, nor the lower triangle.
TEXT ·mirrorZ(SB), NOSPLIT, $0-16
	MOVQ n+0(FP), R8
	MOVQ a+8(FP), SI
	MOVQ R8, R9
	SHLQ $3, R9                 // a column, in bytes
	LEAQ (R9)(R9*2), R12        // three
	XORQ DX, DX                 // j0

zj:
	CMPQ DX, R8
	JGE  zdone
	MOVQ R8, CX
	SUBQ DX, CX                 // n - j0: the block's columns and rows, 8 at most
	MOVL $255, BX
	CMPQ CX, $8
	JGE  zjm
	MOVL $1, BX
	SHLL CX, BX
	DECL BX

zjm:
	KMOVW BX, K1                // the rows j0.. inside the matrix
	XORQ R10, R10               // i0

zi:
	CMPQ R10, DX
	JGE  zdiag
	MOVQ R10, AX
	IMULQ R8, AX
	ADDQ DX, AX
	LEAQ (SI)(AX*8), DI         // &a[j0 + i0 n]
	LEAQ (DI)(R9*4), R11
	VMOVUPD.Z (DI), K1, Z0
	VMOVUPD.Z (DI)(R9*1), K1, Z1
	VMOVUPD.Z (DI)(R9*2), K1, Z2
	VMOVUPD.Z (DI)(R12*1), K1, Z3
	VMOVUPD.Z (R11), K1, Z4
	VMOVUPD.Z (R11)(R9*1), K1, Z5
	VMOVUPD.Z (R11)(R9*2), K1, Z6
	VMOVUPD.Z (R11)(R12*1), K1, Z7
	TR8
	MOVQ DX, AX
	IMULQ R8, AX
	ADDQ R10, AX
	LEAQ (SI)(AX*8), DI         // &a[i0 + j0 n]
	LEAQ (DI)(R9*4), R11
	VMOVUPD Z24, (DI)           // column j0, rows i0..i0+7
	CMPQ CX, $1
	JLE  znext
	VMOVUPD Z25, (DI)(R9*1)
	CMPQ CX, $2
	JLE  znext
	VMOVUPD Z26, (DI)(R9*2)
	CMPQ CX, $3
	JLE  znext
	VMOVUPD Z27, (DI)(R12*1)
	CMPQ CX, $4
	JLE  znext
	VMOVUPD Z28, (R11)
	CMPQ CX, $5
	JLE  znext
	VMOVUPD Z29, (R11)(R9*1)
	CMPQ CX, $6
	JLE  znext
	VMOVUPD Z30, (R11)(R9*2)
	CMPQ CX, $7
	JLE  znext
	VMOVUPD Z31, (R11)(R12*1)

znext:
	ADDQ $8, R10
	JMP  zi

zdiag: // i0 = j0: the columns j0..j0+min(8, n-j0)-1 (the others zero), the strict upper triangle stored
	MOVQ DX, AX
	IMULQ R8, AX
	ADDQ DX, AX
	LEAQ (SI)(AX*8), DI         // &a[j0 + j0 n]
	LEAQ (DI)(R9*4), R11
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	VPXORQ Z4, Z4, Z4
	VPXORQ Z5, Z5, Z5
	VPXORQ Z6, Z6, Z6
	VPXORQ Z7, Z7, Z7
	VMOVUPD.Z (DI), K1, Z0
	CMPQ CX, $1
	JLE  zdt
	VMOVUPD.Z (DI)(R9*1), K1, Z1
	CMPQ CX, $2
	JLE  zdt
	VMOVUPD.Z (DI)(R9*2), K1, Z2
	CMPQ CX, $3
	JLE  zdt
	VMOVUPD.Z (DI)(R12*1), K1, Z3
	CMPQ CX, $4
	JLE  zdt
	VMOVUPD.Z (R11), K1, Z4
	CMPQ CX, $5
	JLE  zdt
	VMOVUPD.Z (R11)(R9*1), K1, Z5
	CMPQ CX, $6
	JLE  zdt
	VMOVUPD.Z (R11)(R9*2), K1, Z6
	CMPQ CX, $7
	JLE  zdt
	VMOVUPD.Z (R11)(R12*1), K1, Z7

zdt: // column j0+k gets rows j0..j0+k-1 (mask 2^k - 1), for k < n - j0
	TR8
	CMPQ CX, $1
	JLE  zjnext
	MOVL $1, BX
	KMOVW BX, K2
	VMOVUPD Z25, K2, (DI)(R9*1)
	CMPQ CX, $2
	JLE  zjnext
	MOVL $3, BX
	KMOVW BX, K2
	VMOVUPD Z26, K2, (DI)(R9*2)
	CMPQ CX, $3
	JLE  zjnext
	MOVL $7, BX
	KMOVW BX, K2
	VMOVUPD Z27, K2, (DI)(R12*1)
	CMPQ CX, $4
	JLE  zjnext
	MOVL $15, BX
	KMOVW BX, K2
	VMOVUPD Z28, K2, (R11)
	CMPQ CX, $5
	JLE  zjnext
	MOVL $31, BX
	KMOVW BX, K2
	VMOVUPD Z29, K2, (R11)(R9*1)
	CMPQ CX, $6
	JLE  zjnext
	MOVL $63, BX
	KMOVW BX, K2
	VMOVUPD Z30, K2, (R11)(R9*2)
	CMPQ CX, $7
	JLE  zjnext
	MOVL $127, BX
	KMOVW BX, K2
	VMOVUPD Z31, K2, (R11)(R12*1)

zjnext:
	ADDQ $8, DX
	JMP  zj

zdone:
	VZEROUPPER
	RET
