package main

import (
	"fmt"
	"strings"
)

// leftSource returns solveLowerLeftAVX: the forward substitution of one
// to nine right-hand sides at once, left-looking (by panels of rows,
// each panel's accumulators in registers over the columns of L before
// it), so that a column step costs one load of L a vector, one broadcast
// a right-hand side and no store, where the right-looking steps (fstep)
// load and store every row they update. One code per number of
// right-hand sides: panels of 8 rows (two vectors; 4 rows above four
// right-hand sides), then one of 4, then the last 1 to 3 rows with
// masked loads and stores;
// within a panel its own triangle step by step in the registers (the
// pivot's lane broadcast, times 1/L[i,i], the rows below it updated,
// the pivot's lane set to w). Every row's sum runs in order of the
// columns with fused multiply-adds, as solveLowerGo's: the same values,
// bitwise.
func leftSource() string {
	var b strings.Builder
	b.WriteString(leftHead)
	for w := 1; w <= leftMaxQ; w++ {
		fmt.Fprintf(&b, "\tCMPQ BX, $%d\n\tJEQ  w%dpanel\n", w, w)
	}
	b.WriteString("\tJMP  ldone\n")
	for w := 1; w <= leftMaxQ; w++ {
		p := fmt.Sprintf("w%d", w)
		p8 := p + "p8"
		if w > 4 { // nine accumulators at most: panels of 4 rows
			p8 = p + "p4"
		}
		fmt.Fprintf(&b, leftDispatch, p, p8)
		if w <= 4 {
			panel(&b, p+"p8", w, 2, 0)
			fmt.Fprintf(&b, "\tJMP  %spanel\n", p)
		}
		panel(&b, p+"p4", w, 1, 0)
		fmt.Fprintf(&b, "\tJMP  %spanel\n", p)
		for tr := 1; tr <= 3; tr++ {
			panel(&b, fmt.Sprintf("%sm%d", p, tr), w, 1, tr)
			b.WriteString("\tJMP  ldone\n")
		}
	}
	b.WriteString(leftTail)
	return b.String()
}

// rhsAddr is the address of right-hand side c's entry at base (a
// register) plus off bytes: columns R8 bytes apart, R11 = 3 R8; from
// c = 4 on, from base + 4 R8 (BX for DI, AX for SI), the ninth at 8 R8.
func rhsAddr(off int, base string, c int) string {
	if c >= 4 {
		base = map[string]string{"DI": "BX", "SI": "AX"}[base]
		c -= 4
	}
	if c == 4 { // the ninth
		return fmt.Sprintf("%d(%s)(R8*4)", off, base)
	}
	idx := [4]string{"", "(R8*1)", "(R8*2)", "(R11*1)"}[c]
	return fmt.Sprintf("%d(%s)%s", off, base, idx)
}

// panel writes the panel at label name for nw right-hand sides: nv vectors of rows (masked: tr
// rows, 1 to 3, one vector loaded and stored under the mask in Y15),
// accumulator of vector v and right-hand side c in Y(nv c+v), L's vectors
// in Y9 and Y10, w in Y11, the update's result in Y12, 1/L[i,i] in Y13.
// DI = &b[i0, c0], R9 = &L[i0, 0], R10 = i0 on entry; it advances them.
func panel(b *strings.Builder, name string, nw, nv, tr int) {
	acc := func(v, c int) int { return nv*c + v }
	load := func(off int, base string, dst int) {
		if tr > 0 {
			fmt.Fprintf(b, "\tVMASKMOVPD %s, Y15, Y%d\n", base, dst)
			return
		}
		fmt.Fprintf(b, "\tVMOVUPD %d%s, Y%d\n", off, base, dst)
	}
	fmt.Fprintf(b, "%s:\n", name)
	if tr > 0 {
		fmt.Fprintf(b, "\tVMOVUPD lmask<>+%d(SB), Y15\n", 32*tr)
	}
	if nw > 4 {
		b.WriteString("\tLEAQ (DI)(R8*4), BX\n")
	}
	for c := 0; c < nw; c++ {
		for v := 0; v < nv; v++ {
			if tr > 0 {
				fmt.Fprintf(b, "\tVMASKMOVPD %s, Y15, Y%d\n", rhsAddr(0, "DI", c), acc(v, c))
			} else {
				fmt.Fprintf(b, "\tVMOVUPD %s, Y%d\n", rhsAddr(32*v, "DI", c), acc(v, c))
			}
		}
	}
	// The columns k < i0: acc -= b[k, c] L[i0:, k].
	fmt.Fprintf(b, "\tMOVQ R14, SI\n\tLEAQ (R14)(R8*4), AX\n\tMOVQ R10, CX\n\tTESTQ CX, CX\n\tJZ   %sdiag\n%sk:\n", name, name)
	for v := 0; v < nv; v++ {
		load(32*v, "(R9)", 9+v)
	}
	for c := 0; c < nw; c++ {
		fmt.Fprintf(b, "\tVBROADCASTSD %s, Y11\n", rhsAddr(0, "SI", c))
		for v := 0; v < nv; v++ {
			fmt.Fprintf(b, "\tVFNMADD231PD Y%d, Y11, Y%d\n", 9+v, acc(v, c))
		}
	}
	fmt.Fprintf(b, "\tADDQ $8, SI\n\tADDQ $8, AX\n\tADDQ R13, R9\n\tDECQ CX\n\tJNZ  %sk\n%sdiag:\n", name, name)
	// The panel's triangle: R9 = &L[i0, i0 + t] for step t.
	rows := 4 * nv
	if tr > 0 {
		rows = tr
	}
	for t := 0; t < rows; t++ {
		tv, tl := t/4, t%4
		fmt.Fprintf(b, "\tVMOVSD %d(R9), X13\n\tVDIVSD X13, X14, X13\n\tVBROADCASTSD X13, Y13\n", 8*t)
		for v := tv; v < nv; v++ {
			if v > tv || tl < 3 {
				load(32*v, "(R9)", 9+v)
			}
		}
		for c := 0; c < nw; c++ {
			a := acc(tv, c)
			if tl == 0 {
				fmt.Fprintf(b, "\tVBROADCASTSD X%d, Y11\n", a)
			} else {
				fmt.Fprintf(b, "\tVPERMPD $%d, Y%d, Y11\n", 0x55*tl, a)
			}
			b.WriteString("\tVMULPD Y13, Y11, Y11\n")
			if tl < 3 {
				// lanes > tl: acc - w L; lane tl: w; lanes < tl: acc.
				fmt.Fprintf(b, "\tVMOVAPD Y%d, Y12\n\tVFNMADD231PD Y%d, Y11, Y12\n", a, 9+tv)
				hi := 0xF &^ (1<<(tl+1) - 1)
				fmt.Fprintf(b, "\tVBLENDPD $%d, Y12, Y%d, Y%d\n", hi, a, a)
			}
			fmt.Fprintf(b, "\tVBLENDPD $%d, Y11, Y%d, Y%d\n", 1<<tl, a, a)
			for v := tv + 1; v < nv; v++ {
				fmt.Fprintf(b, "\tVFNMADD231PD Y%d, Y11, Y%d\n", 9+v, acc(v, c))
			}
		}
		b.WriteString("\tADDQ R13, R9\n")
	}
	for c := 0; c < nw; c++ {
		for v := 0; v < nv; v++ {
			if tr > 0 {
				fmt.Fprintf(b, "\tVMASKMOVPD Y%d, Y15, %s\n", acc(v, c), rhsAddr(0, "DI", c))
			} else {
				fmt.Fprintf(b, "\tVMOVUPD Y%d, %s\n", acc(v, c), rhsAddr(32*v, "DI", c))
			}
		}
	}
	// Next panel: i0 += rows; R9 = &L[i0, 0] again.
	fmt.Fprintf(b, "\tADDQ $%d, R10\n\tLEAQ (R12)(R10*8), R9\n\tADDQ $%d, DI\n", rows, 8*rows)
}

const leftHead = `
// func solveLowerLeftAVX(n, q int, l *float64, ld int, b *float64, ldb int)
// solveLowerGo for q = 1 to 9 right-hand sides (BX), left-looking by
// panels of rows (leftSource): R12 = l, R13 = ld bytes, R14 = b, R8 =
// ldb bytes, R11 = 3 ldb bytes, DX = n, R10 = i0 the panel's first row.
TEXT ·solveLowerLeftAVX(SB), NOSPLIT, $0-48
	MOVQ n+0(FP), DX
	MOVQ q+8(FP), BX
	MOVQ l+16(FP), R12
	MOVQ ld+24(FP), R13
	SHLQ $3, R13
	MOVQ b+32(FP), R14
	MOVQ ldb+40(FP), R8
	SHLQ $3, R8
	LEAQ (R8)(R8*2), R11
	MOVQ $0x3FF0000000000000, AX
	MOVQ AX, X14
	XORQ R10, R10
	MOVQ R12, R9
	MOVQ R14, DI
`

// leftMaxQ is the most right-hand sides of one solveLowerLeftAVX call:
// nine accumulators of one vector each (or four of two), L's vector,
// w, the update, 1/L[i,i], 1 and the mask in the other seven registers.
const leftMaxQ = 9

// leftDispatch picks the next panel of the right-hand sides' count %[1]s.
const leftDispatch = `%[1]spanel:
	MOVQ DX, AX
	SUBQ R10, AX
	CMPQ AX, $8
	JGE  %[2]s
	CMPQ AX, $4
	JGE  %[1]sp4
	CMPQ AX, $1
	JEQ  %[1]sm1
	CMPQ AX, $2
	JEQ  %[1]sm2
	CMPQ AX, $3
	JEQ  %[1]sm3
	JMP  ldone
`

const leftTail = `ldone:
	VZEROUPPER
	RET

// lmask: at 32 tr, the mask of a panel's first tr rows.
DATA lmask<>+0(SB)/8, $0
DATA lmask<>+8(SB)/8, $0
DATA lmask<>+16(SB)/8, $0
DATA lmask<>+24(SB)/8, $0
DATA lmask<>+32(SB)/8, $-1
DATA lmask<>+40(SB)/8, $0
DATA lmask<>+48(SB)/8, $0
DATA lmask<>+56(SB)/8, $0
DATA lmask<>+64(SB)/8, $-1
DATA lmask<>+72(SB)/8, $-1
DATA lmask<>+80(SB)/8, $0
DATA lmask<>+88(SB)/8, $0
DATA lmask<>+96(SB)/8, $-1
DATA lmask<>+104(SB)/8, $-1
DATA lmask<>+112(SB)/8, $-1
DATA lmask<>+120(SB)/8, $0
GLOBL lmask<>(SB), RODATA|NOPTR, $128
`
