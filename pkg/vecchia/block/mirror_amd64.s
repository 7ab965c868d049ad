//go:build amd64 && !purego

#include "textflag.h"

// func mirrorAVX(nt, n int, a *float64)
// For the column tiles j0 = 4, 8, .., 4(nt-1) and the row tiles i0 < j0:
// a[i0:i0+4, j0+s] = a[j0+s, i0:i0+4] for s < 4 (column-major, leading
// dimension n): four columns of the lower triangle loaded (rows
// j0..j0+3), transposed in registers, stored as four columns of the upper
// one.
TEXT ·mirrorAVX(SB), NOSPLIT, $0-24
	MOVQ nt+0(FP), CX
	MOVQ n+8(FP), R8
	SHLQ $3, R8            // column stride in bytes
	MOVQ a+16(FP), DI
	LEAQ (R8)(R8*2), R9    // 3 columns
	MOVQ $1, DX            // column tile number

ctile:
	CMPQ DX, CX
	JGE  done
	// SI: &a[j0, 0] (row j0 of column 0), BX: &a[0, j0] (column j0).
	MOVQ DX, AX
	SHLQ $5, AX            // 8 * j0
	LEAQ (DI)(AX*1), SI
	MOVQ DX, BX
	SHLQ $2, BX
	IMULQ R8, BX
	ADDQ DI, BX
	MOVQ DX, R10           // row tiles left

rtile:
	VMOVUPD (SI), Y0
	VMOVUPD (SI)(R8*1), Y1
	VMOVUPD (SI)(R8*2), Y2
	VMOVUPD (SI)(R9*1), Y3
	VUNPCKLPD Y1, Y0, Y4
	VUNPCKHPD Y1, Y0, Y5
	VUNPCKLPD Y3, Y2, Y6
	VUNPCKHPD Y3, Y2, Y7
	VPERM2F128 $0x20, Y6, Y4, Y0
	VPERM2F128 $0x20, Y7, Y5, Y1
	VPERM2F128 $0x31, Y6, Y4, Y2
	VPERM2F128 $0x31, Y7, Y5, Y3
	VMOVUPD Y0, (BX)
	VMOVUPD Y1, (BX)(R8*1)
	VMOVUPD Y2, (BX)(R8*2)
	VMOVUPD Y3, (BX)(R9*1)
	LEAQ (SI)(R8*4), SI    // four columns on
	ADDQ $32, BX           // four rows on
	DECQ R10
	JNZ  rtile
	INCQ DX
	JMP  ctile

done:
	VZEROUPPER
	RET
