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
