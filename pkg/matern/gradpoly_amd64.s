//go:build amd64 && !purego

#include "textflag.h"

DATA polyOne<>+0(SB)/8, $1.0
GLOBL polyOne<>(SB), RODATA|NOPTR, $8

// One function's polynomial, its coefficients at DI+o0 .. DI+o3+31: Y3 holds s = t^4 in
// every lane, Y4 (1, t, t^2, t^3); the four lanes' t^k P_k(s) into acc.
#define POLY(o0, o1, o2, o3, acc) \
	VMOVUPD o3(DI), acc \
	VFMADD213PD o2(DI), Y3, acc \
	VFMADD213PD o1(DI), Y3, acc \
	VFMADD213PD o0(DI), Y3, acc \
	VMULPD Y4, acc, acc

// The powers of t in X0 (X14 = 1): Y3 = s = t^4 in every lane,
// Y4 = (1, t, t^2, t^3).
#define TPOWERS \
	VMULSD  X0, X0, X1 \
	VMULSD  X0, X1, X2 \
	VMULSD  X1, X1, X3 \
	VBROADCASTSD X3, Y3 \
	VUNPCKLPD X0, X14, X4 \
	VUNPCKLPD X2, X1, X5 \
	VINSERTF128 $1, X5, Y4, Y4

// func rowAVX2(r, c, db, dn []float64, ib, lo, hi float64, eb int, octs *octave, mid, ihw, coef *float64, stride int, slow *uint8) int
// locate and the polynomials (rowGo, bitwise) in one pass over at most
// rowChunk entries: for each r[i] with x = r[i] ib in [lo, hi), its piece
// p (octave bits>>52 - eb, then first + mantissa >> shift), t = (x -
// mid[p]) ihw[p] and the polynomials at coef + p stride bytes: C's into
// c[i], dC/dbeta's into db[i] unless db is empty, dC/dnu's into dn[i]
// unless dn is empty; the others listed in slow (their index) with their
// x in c[i]. Returns how many.
TEXT ·rowAVX2(SB), NOSPLIT, $0-184
	MOVQ r_base+0(FP), SI
	MOVQ c_base+24(FP), R11
	MOVQ db_base+48(FP), R15
	VMOVSD ib+96(FP), X10
	VMOVSD lo+104(FP), X11
	VMOVSD hi+112(FP), X12
	MOVQ eb+120(FP), R8
	MOVQ octs+128(FP), R9
	MOVQ mid+136(FP), R12
	MOVQ ihw+144(FP), R13
	MOVQ stride+160(FP), R10
	VMOVSD polyOne<>(SB), X14
	XORQ AX, AX
	XORQ R14, R14

rloop:
	CMPQ AX, r_len+8(FP)
	JGE  rdone
	VMOVSD (SI)(AX*8), X0
	VMULSD X10, X0, X0          // x = r ib
	VUCOMISD X11, X0
	JCS  rslow                  // x < lo
	JPS  rslow                  // NaN
	VUCOMISD X12, X0
	JCC  rslow                  // x >= hi
	VMOVQ X0, BX
	MOVQ BX, DX
	SHRQ $52, DX
	SUBQ R8, DX
	MOVLQSX (R9)(DX*8), DI      // the octave's first piece
	MOVL 4(R9)(DX*8), CX        // its shift
	SHLQ $12, BX
	SHRQ $12, BX                // the mantissa bits
	SHRQ CX, BX
	ADDQ DI, BX                 // p
	VSUBSD (R12)(BX*8), X0, X0
	VMULSD (R13)(BX*8), X0, X0  // t = (x - mid) ihw
	IMULQ R10, BX
	MOVQ coef+152(FP), DI
	ADDQ BX, DI
	TPOWERS
	POLY(0, 32, 64, 96, Y6)
	CMPQ db_len+56(FP), $0
	JNE  rdb
	VHADDPD Y6, Y6, Y8
	VEXTRACTF128 $1, Y8, X9
	VADDSD  X9, X8, X8
	VMOVSD  X8, (R11)(AX*8)
	INCQ AX
	JMP  rloop

rdb:
	POLY(128, 160, 192, 224, Y7)
	VHADDPD Y7, Y6, Y8          // (c0+c1, b0+b1, c2+c3, b2+b3)
	VEXTRACTF128 $1, Y8, X9
	VADDPD  X9, X8, X8
	VMOVSD  X8, (R11)(AX*8)
	VMOVHPD X8, (R15)(AX*8)
	CMPQ dn_len+80(FP), $0
	JEQ  rnext
	POLY(256, 288, 320, 352, Y6)
	VHADDPD Y6, Y6, Y8          // (n0+n1, ., n2+n3, .)
	VEXTRACTF128 $1, Y8, X9
	VADDSD  X9, X8, X8
	MOVQ dn_base+72(FP), DX
	VMOVSD  X8, (DX)(AX*8)

rnext:
	INCQ AX
	JMP  rloop

rslow:
	MOVQ slow+168(FP), DX
	MOVB AX, (DX)(R14*1)
	VMOVSD X0, (R11)(AX*8)      // x into c
	INCQ R14
	INCQ AX
	JMP  rloop

rdone:
	MOVQ R14, ret+176(FP)
	VZEROUPPER
	RET
