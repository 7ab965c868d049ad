//go:build amd64 && !purego

#include "textflag.h"

// func colSubZ(col, f *float64, stride, t int, gt *float64, mask uint32)
// gt[j] -= col[s*stride+j] * f[s*stride] for s = 0..t-1 in order, j < 32
// under mask (bits 0-7: Z0, 8-15: Z1, 16-23: Z2, 24-31: Z3): each
// product rounded, then each difference (VMULPD, VSUBPD: no fused
// multiply-add), as the Go loop computes them. Masked lanes are neither
// read nor written.
TEXT ·colSubZ(SB), NOSPLIT, $0-44
	MOVQ col+0(FP), SI
	MOVQ f+8(FP), DI
	MOVQ stride+16(FP), DX
	SHLQ $3, DX
	MOVQ t+24(FP), CX
	MOVQ gt+32(FP), R8
	MOVL mask+40(FP), AX
	KMOVW AX, K1
	SHRL $8, AX
	KMOVW AX, K2
	SHRL $8, AX
	KMOVW AX, K3
	SHRL $8, AX
	KMOVW AX, K4
	VMOVUPD.Z 0(R8), K1, Z0
	VMOVUPD.Z 64(R8), K2, Z1
	VMOVUPD.Z 128(R8), K3, Z2
	VMOVUPD.Z 192(R8), K4, Z3
loop:
	VBROADCASTSD (DI), Z8
	VMOVUPD.Z 0(SI), K1, Z4
	VMOVUPD.Z 64(SI), K2, Z5
	VMOVUPD.Z 128(SI), K3, Z6
	VMOVUPD.Z 192(SI), K4, Z7
	VMULPD Z8, Z4, Z4
	VMULPD Z8, Z5, Z5
	VMULPD Z8, Z6, Z6
	VMULPD Z8, Z7, Z7
	VSUBPD Z4, Z0, Z0
	VSUBPD Z5, Z1, Z1
	VSUBPD Z6, Z2, Z2
	VSUBPD Z7, Z3, Z3
	ADDQ DX, SI
	ADDQ DX, DI
	DECQ CX
	JNZ  loop
	VMOVUPD Z0, K1, 0(R8)
	VMOVUPD Z1, K2, 64(R8)
	VMOVUPD Z2, K3, 128(R8)
	VMOVUPD Z3, K4, 192(R8)
	VZEROUPPER
	RET

// func tailZ(gt, resid, cv *float64, mask *uint8, n int, sq, gi float64, best *[8]float64, idx *[8]int64, iota *[8]int64)
// Over the candidates j < n of mask's bits (byte j/8, bit j mod 8), eight
// a chunk: gt[j] /= sq, resid[j] -= gt[j]*gt[j], cv[j] -= gt[j]*gi (each
// product and difference rounded, as the Go loop), then where resid[j] >
// 0 the score s = cv[j]*cv[j]/resid[j]: lane l of best and idx keeps the
// largest score of the candidates j = l mod 8 and its earliest j (s >
// best: strict; false for NaN). best and idx hold the start (-Inf, -1).
TEXT ·tailZ(SB), NOSPLIT, $0-80
	MOVQ gt+0(FP), SI
	MOVQ resid+8(FP), DI
	MOVQ cv+16(FP), R8
	MOVQ mask+24(FP), R9
	MOVQ n+32(FP), CX
	VBROADCASTSD sq+40(FP), Z20
	VBROADCASTSD gi+48(FP), Z21
	MOVQ best+56(FP), R10
	MOVQ idx+64(FP), R11
	MOVQ iota+72(FP), AX
	VMOVUPD (R10), Z22
	VMOVDQU64 (R11), Z23
	VMOVDQU64 (AX), Z24
	MOVQ $8, AX
	VPBROADCASTQ AX, Z25
	VPXORQ Z26, Z26, Z26

tloop:
	CMPQ CX, $0
	JLE  tdone
	MOVBQZX (R9), AX
	KMOVW AX, K1
	VMOVUPD.Z (SI), K1, Z0
	VDIVPD Z20, Z0, Z0              // g = gt / sq
	VMOVUPD Z0, K1, (SI)
	VMOVUPD.Z (DI), K1, Z1
	VMULPD Z0, Z0, Z2
	VSUBPD Z2, Z1, Z1               // resid - g g
	VMOVUPD Z1, K1, (DI)
	VMOVUPD.Z (R8), K1, Z3
	VMULPD Z21, Z0, Z2
	VSUBPD Z2, Z3, Z3               // cv - g gi
	VMOVUPD Z3, K1, (R8)
	VCMPPD $0x1e, Z26, Z1, K1, K2   // resid > 0
	VMULPD Z3, Z3, Z4
	VDIVPD Z1, Z4, Z4               // cv cv / resid
	VCMPPD $0x1e, Z22, Z4, K2, K3   // > the lane's best
	VMOVAPD Z4, K3, Z22
	VMOVDQA64 Z24, K3, Z23
	VPADDQ Z25, Z24, Z24
	ADDQ $64, SI
	ADDQ $64, DI
	ADDQ $64, R8
	INCQ R9
	SUBQ $8, CX
	JMP  tloop

tdone:
	VMOVUPD Z22, (R10)
	VMOVDQU64 Z23, (R11)
	VZEROUPPER
	RET
