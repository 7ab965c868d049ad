//go:build amd64 && !purego

#include "textflag.h"

// func solveStepAVX(m, q int, d float64, piv, rows *float64, ldb int, col *float64)
TEXT ·solveStepAVX(SB), NOSPLIT, $0-56
	MOVQ m+0(FP), DX
	MOVQ q+8(FP), CX
	VMOVSD d+16(FP), X14
	MOVQ piv+24(FP), SI
	MOVQ rows+32(FP), DI
	MOVQ ldb+40(FP), R8
	SHLQ $3, R8
	MOVQ col+48(FP), R9

cols:
	VMOVSD  (SI), X15
	VDIVSD  X14, X15, X15
	VMOVSD  X15, (SI)
	VBROADCASTSD X15, Y15
	MOVQ DI, R10
	MOVQ R9, R11
	MOVQ DX, AX

vec8:
	CMPQ AX, $8
	JLT  vec4
	VMOVUPD (R10), Y0
	VMOVUPD 32(R10), Y1
	VFNMADD231PD (R11), Y15, Y0
	VFNMADD231PD 32(R11), Y15, Y1
	VMOVUPD Y0, (R10)
	VMOVUPD Y1, 32(R10)
	ADDQ $64, R10
	ADDQ $64, R11
	SUBQ $8, AX
	JMP  vec8

vec4:
	CMPQ AX, $4
	JLT  tail
	VMOVUPD (R10), Y0
	VFNMADD231PD (R11), Y15, Y0
	VMOVUPD Y0, (R10)
	ADDQ $32, R10
	ADDQ $32, R11
	SUBQ $4, AX

tail:
	TESTQ AX, AX
	JZ    nextcol
	VMOVSD (R10), X0
	VFNMADD231SD (R11), X15, X0
	VMOVSD X0, (R10)
	ADDQ $8, R10
	ADDQ $8, R11
	DECQ AX
	JMP  tail

nextcol:
	ADDQ R8, SI
	ADDQ R8, DI
	DECQ CX
	JNZ  cols
	VZEROUPPER
	RET
