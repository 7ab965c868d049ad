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

// Entry AX's t (at R9) into X0 and its powers (TPOWERS); the piece's
// coefficients at DI = SI + 8 off[AX] (off at R8).
#define POWERS \
	MOVLQSX (R8)(AX*4), DX \
	LEAQ    (SI)(DX*8), DI \
	VMOVSD  (R9)(AX*8), X0 \
	TPOWERS

// func polyRowAVX2(coef []float64, off []int32, t []float64, c, db, dn []float64)
TEXT ·polyRowAVX2(SB), NOSPLIT, $0-144
	MOVQ coef_base+0(FP), SI
	MOVQ off_base+24(FP), R8
	MOVQ off_len+32(FP), CX
	MOVQ t_base+48(FP), R9
	MOVQ c_base+72(FP), R11
	MOVQ db_base+96(FP), R12
	MOVQ dn_base+120(FP), R13
	MOVQ dn_len+128(FP), R10
	VMOVSD polyOne<>(SB), X14
	XORQ AX, AX

loop:
	CMPQ AX, CX
	JGE  done
	POWERS
	POLY(0, 32, 64, 96, Y6)
	POLY(128, 160, 192, 224, Y7)
	VHADDPD Y7, Y6, Y8          // (c0+c1, b0+b1, c2+c3, b2+b3)
	VEXTRACTF128 $1, Y8, X9
	VADDPD  X9, X8, X8
	VMOVSD  X8, (R11)(AX*8)
	VMOVHPD X8, (R12)(AX*8)
	TESTQ   R10, R10
	JZ      next
	POLY(256, 288, 320, 352, Y10)
	VHADDPD Y10, Y10, Y11       // (n0+n1, ., n2+n3, .)
	VEXTRACTF128 $1, Y11, X12
	VADDPD  X12, X11, X11
	VMOVSD  X11, (R13)(AX*8)

next:
	INCQ AX
	JMP  loop

done:
	VZEROUPPER
	RET

// func covRowAVX2(r, c []float64, ib, lo, hi float64, eb int, octs *octave, mid, ihw, coef *float64, stride int, slow *uint8, xs *float64) int
// locate and polyRowCGo (bitwise) in one pass over at most rowChunk entries: for
// each r[i] with x = r[i] ib in [lo, hi), its piece p (octave bits>>52 -
// eb, then first + mantissa >> shift), t = (x - mid[p]) ihw[p] and C's
// polynomial at coef + p stride bytes into c[i]; the others listed in
// slow (their index) and xs (their x), as locate does. Returns how many.
TEXT ·covRowAVX2(SB), NOSPLIT, $0-144
	MOVQ r_base+0(FP), SI
	MOVQ c_base+24(FP), R11
	VMOVSD ib+48(FP), X10
	VMOVSD lo+56(FP), X11
	VMOVSD hi+64(FP), X12
	MOVQ eb+72(FP), R8
	MOVQ octs+80(FP), R9
	MOVQ mid+88(FP), R12
	MOVQ ihw+96(FP), R13
	MOVQ stride+112(FP), R10
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
	MOVQ coef+104(FP), DI
	ADDQ BX, DI
	TPOWERS
	POLY(0, 32, 64, 96, Y6)
	VHADDPD Y6, Y6, Y8
	VEXTRACTF128 $1, Y8, X9
	VADDSD  X9, X8, X8
	VMOVSD  X8, (R11)(AX*8)
	INCQ AX
	JMP  rloop

rslow:
	MOVQ slow+120(FP), DX
	MOVB AX, (DX)(R14*1)
	MOVQ xs+128(FP), DX
	VMOVSD X0, (DX)(AX*8)
	INCQ R14
	INCQ AX
	JMP  rloop

rdone:
	MOVQ R14, ret+136(FP)
	VZEROUPPER
	RET
