package main

import (
	"fmt"
	"strings"
)

// upperShape is one solveUpperTZ kernel: at most vec vectors of 8 rows
// (n <= 8 vec) and q right-hand sides a call, registers: L's row a vector
// at a time in Z0 and Z1 (alternately), the lane's index in Z2, 1/L[j,j]
// in Z3, the q w's from Z4, then the right-hand sides, vec vectors each,
// up to Z31.
type upperShape struct{ vec, q int }

// upperShapes are the kernels: n <= 48 with 4 right-hand sides a call,
// n <= 64 with 3, n <= 96 with 2.
var upperShapes = []upperShape{{6, 4}, {8, 3}, {12, 2}}

func (s upperShape) name() string      { return fmt.Sprintf("solveUpperTZ%d", s.vec) }
func (s upperShape) label() string     { return fmt.Sprintf("u%d", s.vec) }
func (s upperShape) idx() int          { return 2 }
func (s upperShape) inv() int          { return 3 }
func (s upperShape) w(c int) int       { return 4 + c }
func (s upperShape) bReg(c, v int) int { return 32 - s.q*s.vec + s.vec*c + v }

// upperZSource returns trsmz_amd64.s: the kernels solveUpperTZ6, 8 and
// 12, solveUpperTGo with AVX-512 for n <= 8 vec rows and up to q
// right-hand sides (upperShapes), the right-hand sides held in registers
// from the first step to the last. Step j (vector v = j/8, lane l = j
// mod 8) is written out once per j and number of right-hand sides:
// 1/L[j,j] by a scalar division, broadcast; per column w = (lane l of
// its vector v) * (1/L[j,j]), stored at b[j] (its final value); then row
// j of L (L[j, 0:j], stride ld) a vector at a time by a scalar load and
// masked broadcasts (the last vector's lanes below l only, the rest zero
// or stale), each vector's rows above j less w L[j, i] by fused
// multiply-adds for every column. The lanes at or past l of vector v are dead by then
// (their values are already stored), so that vector needs no mask. The
// chain from one pivot to the next is a permute, a product and a fused
// multiply-add.
func upperZSource() string {
	var b strings.Builder
	b.WriteString(upperZHead)
	for l := 0; l < 8; l++ {
		for k := 0; k < 8; k++ {
			fmt.Fprintf(&b, "DATA laneIdx<>+%d(SB)/8, $%d\n", 64*l+8*k, l)
		}
	}
	b.WriteString("GLOBL laneIdx<>(SB), RODATA|NOPTR, $512\n")
	for _, s := range upperShapes {
		fmt.Fprintf(&b, upperZEntry, s.name(), s.vec, s.q, s.vec*8)
		p := s.label()
		for q := 1; q < s.q; q++ {
			fmt.Fprintf(&b, "\tCMPQ BX, $%d\n\tJEQ  %sq%d\n", q, p, q)
		}
		fmt.Fprintf(&b, "\tJMP  %sq%d\n", p, s.q)
		for q := 1; q <= s.q; q++ {
			s.columns(&b, q)
		}
		fmt.Fprintf(&b, "%sdone:\n\tVZEROUPPER\n\tRET\n", p)
	}
	return b.String()
}

// columns writes the code for q right-hand sides: the loads by the
// number of vectors, the dispatch to step n-1, the steps 8 vec - 1..0.
func (s upperShape) columns(b *strings.Builder, q int) {
	p := fmt.Sprintf("%sq%d", s.label(), q)
	fmt.Fprintf(b, "%s:\n", p)
	for nv := 1; nv < s.vec; nv++ {
		fmt.Fprintf(b, "\tCMPQ CX, $%d\n\tJEQ  %sn%d\n", nv, p, nv)
	}
	fmt.Fprintf(b, "\tJMP  %sn%d\n", p, s.vec)
	for nv := 1; nv <= s.vec; nv++ {
		fmt.Fprintf(b, "%sn%d:\n", p, nv)
		for c := 0; c < q; c++ {
			base := "(SI)"
			switch c {
			case 1, 2:
				base = fmt.Sprintf("(SI)(R8*%d)", c)
			case 3:
				base = "(SI)(R11*1)"
			}
			for v := 0; v < nv-1; v++ {
				fmt.Fprintf(b, "\tVMOVUPD %d%s, Z%d\n", 64*v, base, s.bReg(c, v))
			}
			fmt.Fprintf(b, "\tVMOVUPD.Z %d%s, K1, Z%d\n", 64*(nv-1), base, s.bReg(c, nv-1))
		}
		fmt.Fprintf(b, "\tJMP  %sgo\n", p)
	}
	fmt.Fprintf(b, "%sgo:\n", p)
	for t := 1; t < 8; t++ {
		fmt.Fprintf(b, "\tMOVQ $%d, AX\n\tKMOVW AX, K%d\n", 1<<t, t)
	}
	dispatch(b, p+"s", 0, 8*s.vec-1)
	for j := 8*s.vec - 1; j >= 0; j-- {
		s.step(b, p, q, j)
	}
	fmt.Fprintf(b, "\tJMP  %sdone\n", s.label())
}

// dispatch writes a binary search on DX = n-1 over [lo, hi] that jumps to
// p+"j".
func dispatch(b *strings.Builder, p string, lo, hi int) {
	if lo == hi {
		fmt.Fprintf(b, "\tJMP  %s%d\n", p, lo)
		return
	}
	mid := (lo + hi + 1) / 2
	lab := fmt.Sprintf("%sd%d_%d", p, mid, hi)
	fmt.Fprintf(b, "\tCMPQ DX, $%d\n\tJGE  %s\n", mid, lab)
	dispatch(b, p, lo, mid-1)
	fmt.Fprintf(b, "%s:\n", lab)
	dispatch(b, p, mid, hi)
}

// step writes step j for q right-hand sides (labels prefixed p).
func (s upperShape) step(b *strings.Builder, p string, q, j int) {
	v, l := j/8, j%8
	fmt.Fprintf(b, "%ss%d:\n", p, j)
	// 1/L[j,j], broadcast; lane l's index; the w's, stored.
	fmt.Fprintf(b, "\tVMOVQ R9, X%[1]d\n\tVDIVSD (R12), X%[1]d, X%[1]d\n\tVBROADCASTSD X%[1]d, Z%[1]d\n", s.inv())
	fmt.Fprintf(b, "\tVMOVUPD laneIdx<>+%d(SB), Z%d\n", 64*l, s.idx())
	for c := 0; c < q; c++ {
		w := s.w(c)
		fmt.Fprintf(b, "\tVPERMPD Z%d, Z%d, Z%d\n\tVMULPD Z%d, Z%d, Z%d\n", s.bReg(c, v), s.idx(), w, s.inv(), w, w)
		dst := "(R14)"
		switch c {
		case 1, 2:
			dst = fmt.Sprintf("(R14)(R8*%d)", c)
		case 3:
			dst = "(R14)(R11*1)"
		}
		fmt.Fprintf(b, "\tVMOVSD X%d, %s\n", w, dst)
	}
	// Row j of L a vector at a time (0..v-1 whole, v's lanes below l):
	// lane 0 by a load that zeroes the rest, lane t by a broadcast under
	// the mask of lane t (K t); then the columns' fused multiply-adds.
	b.WriteString("\tMOVQ R15, R10\n")
	for u := 0; u <= v; u++ {
		nl := 8
		if u == v {
			nl = l
		}
		if nl == 0 {
			break
		}
		r := u % 2
		for t := 0; t < nl; t++ {
			src := "(R10)"
			switch t % 4 {
			case 1:
				src = "(R10)(R13*1)"
			case 2:
				src = "(R10)(R13*2)"
			case 3:
				src = "(R10)(DI*1)"
			}
			if t == 0 {
				fmt.Fprintf(b, "\tVMOVSD %s, X%d\n", src, r)
			} else {
				fmt.Fprintf(b, "\tVBROADCASTSD %s, K%d, Z%d\n", src, t, r)
			}
			if t%4 == 3 && (u < v || t < nl-1) {
				b.WriteString("\tLEAQ (R10)(R13*4), R10\n")
			}
		}
		for c := 0; c < q; c++ {
			fmt.Fprintf(b, "\tVFNMADD231PD Z%d, Z%d, Z%d\n", r, s.w(c), s.bReg(c, u))
		}
	}
	b.WriteString("\tSUBQ $8, R15\n\tSUBQ R13, R12\n\tSUBQ $8, R12\n\tSUBQ $8, R14\n")
}

const upperZHead = `//go:build amd64 && !purego

// Code generated by internal/asmgen -kind trsmz; DO NOT EDIT.

#include "textflag.h"

`

// upperZEntry is a kernel's entry (name, vectors, right-hand sides,
// rows): R15 = &L[j, 0], R12 = &L[j, j], R14 = &b[j] (column 0), R13 =
// ld bytes, DI = 3 ld bytes, R8 = ldb bytes, R11 = 3 ldb bytes, R9 = 1.0, DX = n-1, CX = the
// vectors, K1 = the last vector's rows while b is loaded, then K t =
// lane t.
const upperZEntry = `
// func %[1]s(n, q int, l *float64, ld int, b *float64, ldb int)
// solveUpperTGo with AVX-512 for 1 <= n <= %[4]d and 1 <= q <= %[3]d
// (upperZSource; %[2]d vectors of 8 rows).
TEXT ·%[1]s(SB), NOSPLIT, $0-48
	MOVQ n+0(FP), DX
	MOVQ q+8(FP), BX
	MOVQ l+16(FP), R15
	MOVQ ld+24(FP), R13
	SHLQ $3, R13
	MOVQ b+32(FP), SI
	MOVQ ldb+40(FP), R8
	SHLQ $3, R8
	MOVQ $0x3FF0000000000000, R9
	DECQ DX
	MOVQ DX, CX
	ANDQ $7, CX
	INCQ CX
	MOVQ $1, AX
	SHLQ CX, AX
	DECQ AX
	KMOVW AX, K1
	MOVQ DX, CX
	SHRQ $3, CX
	INCQ CX
	LEAQ (R15)(DX*8), R15
	MOVQ DX, AX
	IMULQ R13, AX
	LEAQ (R15)(AX*1), R12
	LEAQ (SI)(DX*8), R14
	LEAQ (R13)(R13*2), DI
	LEAQ (R8)(R8*2), R11
`
