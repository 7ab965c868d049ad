//go:build amd64 && !purego

#include "textflag.h"

// func closedRowZ(d2 *float64, n int, s, ib float64, form int, out *float64, c *[13]float64, tab *[64]float64) int
// out[t] = the closed form (form 1, 3, 5) at x = sqrt(d2[t]) ib for t <
// n, eight a chunk (the last under K1; out may be d2): expNeg's steps in
// its order (k = int64(x*64/ln2 + 0.5) truncated, kf = float64(k), t =
// (x - kf hi) - kf lo, its polynomial, the table's 2^-(k mod 64)/64 by
// four two-register permutes and two blends (a gather is slow where the
// CPU's microcode guards it), the exponent 1023 - (k >> 6)), tab + tab*q
// written as tab - tab*(-q) (the same rounding: q is a negation), then
// the form's factor as polyExpRow computes it. No fused multiply-adds.
// Returns the mask of the lanes (of any chunk) with !(x <= 708).
TEXT ·closedRowZ(SB), NOSPLIT, $0-72
	MOVQ d2+0(FP), SI
	MOVQ n+8(FP), CX
	VBROADCASTSD s+16(FP), Z26
	VBROADCASTSD ib+24(FP), Z27
	MOVQ form+32(FP), R10
	MOVQ out+40(FP), R11
	MOVQ c+48(FP), AX
	MOVQ tab+56(FP), R9
	VBROADCASTSD 0(AX), Z17  // 64/ln 2
	VBROADCASTSD 8(AX), Z18  // 0.5
	VBROADCASTSD 16(AX), Z19 // ln2/64 high
	VBROADCASTSD 24(AX), Z20 // ln2/64 low
	VBROADCASTSD 32(AX), Z21 // 1/6
	VBROADCASTSD 40(AX), Z22 // 1/120
	VBROADCASTSD 48(AX), Z23 // 1/720
	VBROADCASTSD 56(AX), Z24 // 1/24
	VBROADCASTSD 64(AX), Z25 // 708
	VBROADCASTSD 72(AX), Z28 // 1/3
	VBROADCASTSD 80(AX), Z29 // 1
	VPBROADCASTQ 88(AX), Z30 // int64 63
	VPBROADCASTQ 96(AX), Z31 // int64 1023
	VMOVUPD 0(R9), Z9
	VMOVUPD 64(R9), Z10
	VMOVUPD 128(R9), Z11
	VMOVUPD 192(R9), Z12
	VMOVUPD 256(R9), Z13
	VMOVUPD 320(R9), Z14
	VMOVUPD 384(R9), Z15
	VMOVUPD 448(R9), Z16
	KXORW K7, K7, K7

loop:
	CMPQ CX, $0
	JLE  done
	MOVQ $0xff, BX
	CMPQ CX, $8
	JGE  full
	MOVQ $1, BX
	SHLQ CX, BX
	DECQ BX

full:
	KMOVW BX, K1
	VMOVUPD.Z (SI), K1, Z0
	VSQRTPD Z0, Z0                // r
	VMULPD Z27, Z0, Z1            // x = r ib
	VCMPPD $0x12, Z25, Z1, K1, K4 // x <= 708 (false for NaN)
	KANDNW K1, K4, K5
	KORW K5, K7, K7
	VMULPD Z17, Z1, Z2
	VADDPD Z18, Z2, Z2
	VCVTTPD2QQ Z2, Z2             // k
	VCVTQQ2PD Z2, Z3              // kf
	VMULPD Z19, Z3, Z4
	VSUBPD Z4, Z1, Z4
	VMULPD Z20, Z3, Z5
	VSUBPD Z5, Z4, Z4             // t
	VMULPD Z4, Z4, Z5             // t2
	VMULPD Z21, Z4, Z6
	VSUBPD Z6, Z18, Z6            // 1/2 - t/6
	VMULPD Z22, Z4, Z7
	VSUBPD Z7, Z24, Z7            // 1/24 - t/120
	VMULPD Z23, Z5, Z8
	VADDPD Z8, Z7, Z7             // + t2/720
	VMULPD Z7, Z5, Z7
	VADDPD Z7, Z6, Z6
	VMULPD Z6, Z5, Z6
	VSUBPD Z6, Z4, Z6             // -q
	VPANDQ Z30, Z2, Z3            // j = k mod 64
	VMOVDQA64 Z3, Z4
	VPERMI2PD Z10, Z9, Z4         // table[j mod 16]
	VMOVDQA64 Z3, Z5
	VPERMI2PD Z12, Z11, Z5        // table[16 + j mod 16]
	VMOVDQA64 Z3, Z7
	VPERMI2PD Z14, Z13, Z7        // table[32 + j mod 16]
	VMOVDQA64 Z3, Z8
	VPERMI2PD Z16, Z15, Z8        // table[48 + j mod 16]
	VPSLLQ $59, Z3, Z0
	VPMOVQ2M Z0, K2               // bit 4 of j
	VPSLLQ $58, Z3, Z0
	VPMOVQ2M Z0, K3               // bit 5 of j
	VBLENDMPD Z5, Z4, K2, Z4
	VBLENDMPD Z8, Z7, K2, Z7
	VBLENDMPD Z7, Z4, K3, Z4      // table[j]
	VMULPD Z6, Z4, Z5
	VSUBPD Z5, Z4, Z5             // tab + tab q
	VPSRAQ $6, Z2, Z3
	VPSUBQ Z3, Z31, Z3
	VPSLLQ $52, Z3, Z3            // 2^-floor(k/64)
	VMULPD Z3, Z5, Z5             // exp(-x)
	CMPQ R10, $1
	JEQ  form1
	CMPQ R10, $3
	JEQ  form3
	VADDPD Z29, Z1, Z0            // 1 + x
	VMULPD Z1, Z1, Z3
	VMULPD Z28, Z3, Z3
	VADDPD Z3, Z0, Z0             // + x*x/3
	VMULPD Z0, Z26, Z0
	VMULPD Z5, Z0, Z0
	JMP  store

form3:
	VADDPD Z29, Z1, Z0 // 1 + x
	VMULPD Z0, Z26, Z0
	VMULPD Z5, Z0, Z0
	JMP  store

form1:
	VMULPD Z26, Z5, Z0

store:
	VMOVUPD Z0, K1, (R11)
	ADDQ $64, SI
	ADDQ $64, R11
	SUBQ $8, CX
	JMP  loop

done:
	KMOVW K7, AX
	MOVQ AX, ret+64(FP)
	VZEROUPPER
	RET
