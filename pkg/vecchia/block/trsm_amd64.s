//go:build amd64 && !purego

#include "textflag.h"

// The columns' loop runs one step of the substitutions over the q columns: for each
// column, w = (SI) * X14, (SI) = w, then the m = DX rows from DI get
// -= w col[i] (col from R9), eight rows, then four, then one at a time;
// SI and DI advance by the leading dimension R8. It uses AX, CX, R10,
// R11, X0, X1, X15 and Y15, Y0, Y1.
// (The columns' loop, COLS below, is written out in both functions.)

// func solveLowerAVX(n, q int, l *float64, ld int, b *float64, ldb int)
// solveLowerGo: for j = 0..n-1, inv = 1/L[j,j], then COLS with the pivot
// b[j,.], the m = n-1-j rows below it and L[j+1:n, j].
TEXT ·solveLowerAVX(SB), NOSPLIT, $0-48
	MOVQ n+0(FP), DX
	MOVQ q+8(FP), BX
	MOVQ l+16(FP), R12
	MOVQ ld+24(FP), R13
	SHLQ $3, R13
	ADDQ $8, R13
	MOVQ b+32(FP), R14
	MOVQ ldb+40(FP), R8
	SHLQ $3, R8
	MOVQ $0x3FF0000000000000, AX
	MOVQ AX, X13
	DECQ DX

fstep:
	VMOVSD (R12), X14
	VDIVSD X14, X13, X14
	MOVQ R14, SI
	LEAQ 8(R14), DI
	LEAQ 8(R12), R9
	MOVQ BX, CX
fcols:
	VMOVSD  (SI), X15
	VMULSD  X14, X15, X15
	VMOVSD  X15, (SI)
	VBROADCASTSD X15, Y15
	MOVQ DI, R10
	MOVQ R9, R11
	MOVQ DX, AX
fvec8:
	CMPQ AX, $8
	JLT  fvec4
	VMOVUPD (R10), Y0
	VMOVUPD 32(R10), Y1
	VFNMADD231PD (R11), Y15, Y0
	VFNMADD231PD 32(R11), Y15, Y1
	VMOVUPD Y0, (R10)
	VMOVUPD Y1, 32(R10)
	ADDQ $64, R10
	ADDQ $64, R11
	SUBQ $8, AX
	JMP  fvec8
fvec4:
	CMPQ AX, $4
	JLT  ftail
	VMOVUPD (R10), Y0
	VFNMADD231PD (R11), Y15, Y0
	VMOVUPD Y0, (R10)
	ADDQ $32, R10
	ADDQ $32, R11
	SUBQ $4, AX
ftail:
	TESTQ AX, AX
	JZ    fnextcol
	VMOVSD (R10), X0
	VFNMADD231SD (R11), X15, X0
	VMOVSD X0, (R10)
	ADDQ $8, R10
	ADDQ $8, R11
	DECQ AX
	JMP  ftail
fnextcol:
	ADDQ R8, SI
	ADDQ R8, DI
	DECQ CX
	JNZ  fcols
	ADDQ R13, R12
	ADDQ $8, R14
	DECQ DX
	JGE  fstep
	VZEROUPPER
	RET

// func solveUpperTAVX(n, q int, l *float64, ld int, b *float64, ldb int)
// solveUpperTGo: for j = n-1..0, inv = 1/L[j,j], then COLS with the
// pivot b[j,.], the m = j rows above it and L[j, 0:j] (column j of the
// mirrored upper triangle).
TEXT ·solveUpperTAVX(SB), NOSPLIT, $0-48
	MOVQ n+0(FP), DX
	MOVQ q+8(FP), BX
	MOVQ l+16(FP), R15
	MOVQ ld+24(FP), R13
	SHLQ $3, R13
	MOVQ b+32(FP), R14
	MOVQ ldb+40(FP), R8
	SHLQ $3, R8
	MOVQ $0x3FF0000000000000, AX
	MOVQ AX, X13
	DECQ DX
	// R15 = &L[0, n-1] (column n-1), R12 = &L[n-1, n-1], R14 = &b[n-1].
	MOVQ DX, AX
	IMULQ R13, AX
	ADDQ AX, R15
	LEAQ (R15)(DX*8), R12
	LEAQ (R14)(DX*8), R14

bstep:
	VMOVSD (R12), X14
	VDIVSD X14, X13, X14
	MOVQ R14, SI
	MOVQ DX, AX
	SHLQ $3, AX
	MOVQ R14, DI
	SUBQ AX, DI
	MOVQ R15, R9
	MOVQ BX, CX
bcols:
	VMOVSD  (SI), X15
	VMULSD  X14, X15, X15
	VMOVSD  X15, (SI)
	VBROADCASTSD X15, Y15
	MOVQ DI, R10
	MOVQ R9, R11
	MOVQ DX, AX
bvec8:
	CMPQ AX, $8
	JLT  bvec4
	VMOVUPD (R10), Y0
	VMOVUPD 32(R10), Y1
	VFNMADD231PD (R11), Y15, Y0
	VFNMADD231PD 32(R11), Y15, Y1
	VMOVUPD Y0, (R10)
	VMOVUPD Y1, 32(R10)
	ADDQ $64, R10
	ADDQ $64, R11
	SUBQ $8, AX
	JMP  bvec8
bvec4:
	CMPQ AX, $4
	JLT  btail
	VMOVUPD (R10), Y0
	VFNMADD231PD (R11), Y15, Y0
	VMOVUPD Y0, (R10)
	ADDQ $32, R10
	ADDQ $32, R11
	SUBQ $4, AX
btail:
	TESTQ AX, AX
	JZ    bnextcol
	VMOVSD (R10), X0
	VFNMADD231SD (R11), X15, X0
	VMOVSD X0, (R10)
	ADDQ $8, R10
	ADDQ $8, R11
	DECQ AX
	JMP  btail
bnextcol:
	ADDQ R8, SI
	ADDQ R8, DI
	DECQ CX
	JNZ  bcols
	SUBQ R13, R12
	SUBQ $8, R12
	SUBQ R13, R15
	SUBQ $8, R14
	DECQ DX
	JGE  bstep
	VZEROUPPER
	RET
