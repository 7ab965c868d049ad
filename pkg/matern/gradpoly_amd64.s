//go:build amd64 && !purego

#include "textflag.h"

DATA polyOne<>+0(SB)/8, $1.0
GLOBL polyOne<>(SB), RODATA|NOPTR, $8

DATA mantMask<>+0(SB)/8, $0x000fffffffffffff
DATA mantMask<>+8(SB)/8, $0x000fffffffffffff
DATA mantMask<>+16(SB)/8, $0x000fffffffffffff
DATA mantMask<>+24(SB)/8, $0x000fffffffffffff
GLOBL mantMask<>(SB), RODATA|NOPTR, $32

DATA low32<>+0(SB)/8, $0xffffffff
DATA low32<>+8(SB)/8, $0xffffffff
DATA low32<>+16(SB)/8, $0xffffffff
DATA low32<>+24(SB)/8, $0xffffffff
GLOBL low32<>(SB), RODATA|NOPTR, $32

DATA ihwExp<>+0(SB)/8, $2099
GLOBL ihwExp<>(SB), RODATA|NOPTR, $8

DATA octBit4<>+0(SB)/8, $16
GLOBL octBit4<>(SB), RODATA|NOPTR, $8

DATA cbLo<>+0(SB)/8, $0
DATA cbLo<>+8(SB)/8, $1
DATA cbLo<>+16(SB)/8, $8
DATA cbLo<>+24(SB)/8, $9
DATA cbLo<>+32(SB)/8, $4
DATA cbLo<>+40(SB)/8, $5
DATA cbLo<>+48(SB)/8, $12
DATA cbLo<>+56(SB)/8, $13
GLOBL cbLo<>(SB), RODATA|NOPTR, $64

DATA cbHi<>+0(SB)/8, $2
DATA cbHi<>+8(SB)/8, $3
DATA cbHi<>+16(SB)/8, $10
DATA cbHi<>+24(SB)/8, $11
DATA cbHi<>+32(SB)/8, $6
DATA cbHi<>+40(SB)/8, $7
DATA cbHi<>+48(SB)/8, $14
DATA cbHi<>+56(SB)/8, $15
GLOBL cbHi<>(SB), RODATA|NOPTR, $64

// One function's polynomial, its coefficients at DI+o0 .. DI+o3+31: Y3 holds s = t^4 in
// every lane, Y4 (1, t, t^2, t^3); the four lanes' t^k P_k(s) into acc.
#define POLY(o0, o1, o2, o3, acc) \
	VMOVUPD o3(DI), acc \
	VFMADD213PD o2(DI), Y3, acc \
	VFMADD213PD o1(DI), Y3, acc \
	VFMADD213PD o0(DI), Y3, acc \
	VMULPD Y4, acc, acc

// One entry's polynomial in the vertical pass, its coefficients at
// R+o0 .. R+o3+31: s (that entry's) in every lane of sv, its powers
// (1, t, t^2, t^3) in pw; the four lanes' t^k P_k(s) into acc (the
// operations of POLY, in the same order).
#define POLYE(R, sv, o0, o1, o2, o3, pw, acc) \
	VMOVUPD o3(R), acc \
	VFMADD213PD o2(R), sv, acc \
	VFMADD213PD o1(R), sv, acc \
	VFMADD213PD o0(R), sv, acc \
	VMULPD pw, acc, acc

// One entry's four polynomials P_k(s) in the vertical pass (POLYE
// without the product by t^k, which p2z takes after a transpose).
#define POLYP(R, sv, o0, o1, o2, o3, acc) \
	VMOVUPD o3(R), acc \
	VFMADD213PD o2(R), sv, acc \
	VFMADD213PD o1(R), sv, acc \
	VFMADD213PD o0(R), sv, acc

// The four entries' t^k P_k(s) in Y4, Y5, Y6, Y7 summed as POLY's caller
// sums one entry's, into Y5: (q0+q1) + (q2+q3) each.
#define SUM4 \
	VHADDPD Y5, Y4, Y4 \
	VHADDPD Y7, Y6, Y6 \
	VPERM2F128 $0x20, Y6, Y4, Y5 \
	VPERM2F128 $0x31, Y6, Y4, Y7 \
	VADDPD Y7, Y5, Y5

// One function's polynomials for the four entries of the vertical pass
// (coefficients at BX, CX, DX, DI plus o0 .. o3+31; s in Y3, their powers
// in Y0, Y1, Y2, Y9), into Y5 (SUM4).
#define POLY4(o0, o1, o2, o3) \
	VPERMPD $0x00, Y3, Y8 \
	POLYE(BX, Y8, o0, o1, o2, o3, Y0, Y4) \
	VPERMPD $0x55, Y3, Y8 \
	POLYE(CX, Y8, o0, o1, o2, o3, Y1, Y5) \
	VPERMPD $0xaa, Y3, Y8 \
	POLYE(DX, Y8, o0, o1, o2, o3, Y2, Y6) \
	VPERMPD $0xff, Y3, Y8 \
	POLYE(DI, Y8, o0, o1, o2, o3, Y9, Y7) \
	SUM4

// One function's polynomials for the four entries of the vertical pass
// (coefficients at BX, CX, DX, DI plus o0 .. o3+31; their s broadcast in
// Y20 .. Y23; t, t^2, t^3 of the four in Y0, Y1, Y2) into Y4: each
// entry's P_0 .. P_3 in a register, transposed to a register per k, the
// products t^k P_k and their sum (q0+q1) + (q2+q3) taken for the four
// entries at once (1 P_0 is P_0: that product is left out). Each entry
// sees the operations of POLY4, so the same values bitwise, with fewer
// shuffles (no powers per entry, no horizontal adds).
#define POLY4T(o0, o1, o2, o3) \
	POLYP(BX, Y20, o0, o1, o2, o3, Y4) \
	POLYP(CX, Y21, o0, o1, o2, o3, Y5) \
	POLYP(DX, Y22, o0, o1, o2, o3, Y6) \
	POLYP(DI, Y23, o0, o1, o2, o3, Y7) \
	VUNPCKLPD Y5, Y4, Y8 \
	VUNPCKHPD Y5, Y4, Y9 \
	VUNPCKLPD Y7, Y6, Y13 \
	VUNPCKHPD Y7, Y6, Y15 \
	VPERM2F128 $0x20, Y13, Y8, Y4 \
	VPERM2F128 $0x31, Y13, Y8, Y6 \
	VPERM2F128 $0x20, Y15, Y9, Y5 \
	VPERM2F128 $0x31, Y15, Y9, Y7 \
	VMULPD  Y0, Y5, Y5 \
	VMULPD  Y1, Y6, Y6 \
	VMULPD  Y2, Y7, Y7 \
	VADDPD  Y5, Y4, Y4 \
	VADDPD  Y7, Y6, Y6 \
	VADDPD  Y6, Y4, Y4

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

// func rowAVX2(r, c, db, dn []float64, ib, lo, hi float64, eb int, octs *octave, mid, ihw, coef *float64, stride int, slow *uint8, oct32 *[32]octave, from, ahead int) int
// locate and the polynomials (rowGo, bitwise) in one call over at most
// rowChunk entries: for each r[i] with x = r[i] ib in [lo, hi), its piece
// p (octave bits>>52 - eb, then first + mantissa >> shift), t = (x -
// mid[p]) ihw[p] and the polynomials at coef + p stride bytes: C's into
// c[i], dC/dbeta's into db[i] unless db is empty, dC/dnu's into dn[i]
// unless dn is empty; the others listed in slow (their index) with their
// x in c[i]. Returns how many.
//
// Four entries at a time over the first len(r) - len(r) mod 4, in two
// passes (short chains of dependent instructions, so that the processor
// overlaps many groups): the first (p1) locates: x, the pieces (their
// octaves' entries loaded lane by lane: cheaper here than VPGATHERQQ) and
// t (from x's bits: x - lo and w a power of 2 are exact, so t = (x - lo)
// 2/w - 1 is exactly the one-entry code's (x - mid) ihw) in vector
// lanes, the coefficients' addresses and t into the frame (an entry
// outside the range located at lo, its x kept in t's place); the second
// (p2) evaluates t's powers in vector lanes and each entry's polynomials
// as the one-entry code does (POLY4), so that both give the same values
// bitwise, then lists the entries outside the range (fix). The last
// len(r) mod 4 one at a time (rone).
//
// Frame: 0-511 the addresses, 512-1023 t, 1024-1039 the groups' masks,
// 1040-1071 a group's s, 1072-1167 its t, t^2, t^3 (p2z).
// With oct32 not nil (the octave table padded to 32 entries, the CPU
// with AVX-512), the first pass locates eight entries at a time in zmm
// registers (p1w: the octaves' entries by two table permutes held in
// registers, not loaded lane by lane), the same operations lane by lane,
// so the same values bitwise. Square roots (correctly rounded) of squared
// distances, written in place (AVX-512 only): r[from:] holds squares,
// rooted as they are read (the first pass, the last entries one at a
// time); and the ahead entries after r (the next call's, at most
// len(r) - len(r) mod 4) the second pass roots, four beside each of its
// groups, in the shadow of the polynomials. from = len(r), ahead = 0:
// no square root.
TEXT ·rowAVX2(SB), $1168-208
	MOVQ r_base+0(FP), SI
	MOVQ c_base+24(FP), R11
	MOVQ db_base+48(FP), R15
	VBROADCASTSD ib+96(FP), Y10
	VBROADCASTSD lo+104(FP), Y11
	VBROADCASTSD hi+112(FP), Y12
	VPBROADCASTQ eb+120(FP), Y13
	VPBROADCASTQ stride+160(FP), Y15
	MOVQ eb+120(FP), R8
	MOVQ octs+128(FP), R9
	MOVQ mid+136(FP), R12
	MOVQ ihw+144(FP), R13
	MOVQ stride+160(FP), R10
	VBROADCASTSD polyOne<>(SB), Y14
	XORQ AX, AX
	XORQ R14, R14
	MOVQ oct32+176(FP), DX
	TESTQ DX, DX
	JNE  p1wide

p1:
	MOVQ r_len+8(FP), BX
	ANDQ $-4, BX
	CMPQ AX, BX
	JGE  p2start
	VMOVUPD (SI)(AX*8), Y0
	MOVQ from+184(FP), BX
	SUBQ AX, BX                 // from - i
	CMPQ BX, $4
	JGE  p1x                    // the group holds distances
	MOVL $15, DX
	TESTQ BX, BX
	JLE  p1sq
	MOVQ BX, CX
	SHLL CX, DX                 // the lanes from on
	ANDL $15, DX

p1sq:
	KMOVW DX, K4
	VSQRTPD Y0, K4, Y0          // r from its square
	VMOVUPD Y0, K4, (SI)(AX*8)

p1x:
	VMULPD  Y10, Y0, Y0         // x = r ib
	VCMPPD  $0x1d, Y11, Y0, Y1  // x >= lo (false for NaN)
	VCMPPD  $0x11, Y12, Y0, Y2  // x < hi
	VANDPD  Y2, Y1, Y1
	VMOVMSKPD Y1, BX
	MOVQ AX, CX
	SHRQ $2, CX
	MOVB BX, 1024(SP)(CX*1)     // the group's mask
	VBLENDVPD Y1, Y0, Y11, Y9   // x, or lo outside the range
	VPSRLQ  $52, Y9, Y2         // the exponent fields (x > 0)
	VPSUBQ  Y13, Y2, Y8         // the octaves
	VMOVQ   X8, BX              // their first piece | shift << 32, four loads
	VPEXTRQ $1, X8, CX
	VEXTRACTI128 $1, Y8, X8
	VMOVQ   X8, DX
	VPEXTRQ $1, X8, DI
	VMOVQ   (R9)(BX*8), X3
	VPINSRQ $1, (R9)(CX*8), X3, X3
	VMOVQ   (R9)(DX*8), X4
	VPINSRQ $1, (R9)(DI*8), X4, X4
	VINSERTI128 $1, X4, Y3, Y3
	VPSRLQ  $32, Y3, Y4         // shift
	VPAND   low32<>(SB), Y3, Y3
	VPAND   mantMask<>(SB), Y9, Y5
	VPSRLVQ Y4, Y5, Y5
	VPADDQ  Y3, Y5, Y5          // p
	VPMULUDQ Y15, Y5, Y5        // p stride
	VPBROADCASTQ coef+152(FP), Y8
	VPADDQ  Y8, Y5, Y5
	VMOVDQU Y5, 0(SP)(AX*8)     // the coefficients' addresses
	VPCMPEQQ Y3, Y3, Y3
	VPSLLVQ Y4, Y3, Y6
	VPAND   Y6, Y9, Y6          // the piece's start lo: x's bits below shift cleared
	VSUBPD  Y6, Y9, Y6          // x - lo, exactly
	VPBROADCASTQ ihwExp<>(SB), Y7
	VPSUBQ  Y2, Y7, Y7
	VPSUBQ  Y4, Y7, Y7
	VPSLLQ  $52, Y7, Y7         // ihw = 2/w = 2^(1076 - exponent - shift)
	VMULPD  Y7, Y6, Y6          // (x - lo) ihw in [0, 2), exactly
	VSUBPD  Y14, Y6, Y6         // t = (x - mid) ihw, exactly (the same bits)
	VBLENDVPD Y1, Y6, Y0, Y6    // t, or x outside the range
	VMOVUPD Y6, 512(SP)(AX*8)
	ADDQ $4, AX
	JMP  p1

p1wide:
	VMOVDQU64 0(DX), Z20        // the octave table, 32 entries
	VMOVDQU64 64(DX), Z21
	VMOVDQU64 128(DX), Z22
	VMOVDQU64 192(DX), Z23
	VPBROADCASTQ low32<>(SB), Z24
	VPBROADCASTQ mantMask<>(SB), Z25
	VPBROADCASTQ ihwExp<>(SB), Z26
	VPTERNLOGQ $0xff, Z27, Z27, Z27 // all ones
	VPBROADCASTQ coef+152(FP), Z28
	VPBROADCASTQ octBit4<>(SB), Z29
	VBROADCASTSD ib+96(FP), Z10
	VBROADCASTSD lo+104(FP), Z11
	VBROADCASTSD hi+112(FP), Z12
	VPBROADCASTQ eb+120(FP), Z13
	VPBROADCASTQ stride+160(FP), Z15
	VBROADCASTSD polyOne<>(SB), Z14
	MOVQ r_len+8(FP), R8
	ANDQ $-4, R8                // the entries p2 evaluates

	KXNORW K3, K3, K3           // all lanes, but the last four alone in the last group

p1w:
	CMPQ AX, R8
	JGE  p2start
	LEAQ 8(AX), BX
	CMPQ BX, R8
	JG   p1wpart
	VMOVUPD (SI)(AX*8), Z0      // no mask: a masked load costs a vector operation more
	JMP  p1wload

p1wpart:
	MOVL $15, BX
	KMOVW BX, K3
	VMOVUPD.Z (SI)(AX*8), K3, Z0

p1wload:
	MOVQ from+184(FP), BX
	SUBQ AX, BX                 // from - i
	CMPQ BX, $8
	JGE  p1wx                   // the group holds distances
	KMOVW K3, K4
	TESTQ BX, BX
	JLE  p1wsq
	MOVQ BX, CX
	MOVL $-1, DX
	SHLL CX, DX                 // the lanes from on
	KMOVW DX, K4
	KANDW K3, K4, K4

p1wsq:
	VSQRTPD Z0, K4, Z0          // r from its square
	VMOVUPD Z0, K4, (SI)(AX*8)

p1wx:
	VMULPD  Z10, Z0, Z0         // x = r ib
	VCMPPD  $0x1d, Z11, Z0, K1  // x >= lo (false for NaN)
	VCMPPD  $0x11, Z12, Z0, K1, K1 // and x < hi
	KMOVW   K1, BX
	MOVQ AX, CX
	SHRQ $2, CX
	MOVQ BX, DX
	ANDQ $15, DX
	MOVB DX, 1024(SP)(CX*1)     // the two groups' masks (four bits each: p2fix compares with 15)
	SHRQ $4, BX
	MOVB BX, 1025(SP)(CX*1)
	VBLENDMPD Z0, Z11, K1, Z9   // x, or lo outside the range
	VPSRLQ  $52, Z9, Z2         // the exponent fields (x > 0)
	VPSUBQ  Z13, Z2, Z8         // the octaves
	VMOVDQA64 Z8, Z3
	VPERMI2Q Z21, Z20, Z3       // their first piece | shift << 32: entries 0-15
	VMOVDQA64 Z8, Z4
	VPERMI2Q Z23, Z22, Z4       // 16-31
	VPTESTMQ Z29, Z8, K2
	VMOVDQA64 Z4, K2, Z3
	VPSRLQ  $32, Z3, Z4         // shift
	VPANDQ  Z24, Z3, Z3
	VPANDQ  Z25, Z9, Z5
	VPSRLVQ Z4, Z5, Z5
	VPADDQ  Z3, Z5, Z5          // p
	VPMULUDQ Z15, Z5, Z5        // p stride
	VPADDQ  Z28, Z5, Z5
	VMOVDQU64 Z5, 0(SP)(AX*8)   // the coefficients' addresses
	VPSLLVQ Z4, Z27, Z6
	VPANDQ  Z6, Z9, Z6          // the piece's start lo: x's bits below shift cleared
	VSUBPD  Z6, Z9, Z6          // x - lo, exactly
	VPSUBQ  Z2, Z26, Z7
	VPSUBQ  Z4, Z7, Z7
	VPSLLQ  $52, Z7, Z7         // ihw = 2/w
	VMULPD  Z7, Z6, Z6          // (x - lo) ihw in [0, 2), exactly
	VSUBPD  Z14, Z6, Z6         // t = (x - mid) ihw, exactly
	VBLENDMPD Z6, Z0, K1, Z6    // t, or x outside the range
	VMOVUPD Z6, 512(SP)(AX*8)
	ADDQ $8, AX
	JMP  p1w

p2start:
	MOVQ eb+120(FP), R8
	XORQ AX, AX

p2:
	MOVQ r_len+8(FP), BX
	ANDQ $-4, BX
	CMPQ AX, BX
	JGE  rtail
	MOVQ 0(SP)(AX*8), BX
	MOVQ 8(SP)(AX*8), CX
	MOVQ 16(SP)(AX*8), DX
	MOVQ 24(SP)(AX*8), DI
	VMOVUPD 512(SP)(AX*8), Y0   // t
	VMULPD  Y0, Y0, Y1          // t^2
	VMULPD  Y1, Y0, Y2          // t^3
	VMULPD  Y1, Y1, Y3          // s = t^4
	CMPQ db_len+56(FP), $0
	JEQ  p2pw
	CMPQ oct32+176(FP), $0
	JNE  p2z

p2pw: // each entry's powers (1, t, t^2, t^3)
	VUNPCKLPD Y0, Y14, Y4       // (1, t0, 1, t2)
	VUNPCKHPD Y0, Y14, Y5       // (1, t1, 1, t3)
	VUNPCKLPD Y2, Y1, Y6        // (t0^2, t0^3, t2^2, t2^3)
	VUNPCKHPD Y2, Y1, Y7        // (t1^2, t1^3, t3^2, t3^3)
	VPERM2F128 $0x20, Y6, Y4, Y0 // entry 0's (1, t, t^2, t^3)
	VPERM2F128 $0x31, Y6, Y4, Y2 // entry 2's
	VPERM2F128 $0x20, Y7, Y5, Y1 // entry 1's
	VPERM2F128 $0x31, Y7, Y5, Y9 // entry 3's
	CMPQ db_len+56(FP), $0
	JEQ  p2c
	POLY4(0, 64, 128, 192)
	VMOVUPD Y5, (R11)(AX*8)
	POLY4(32, 96, 160, 224)
	VMOVUPD Y5, (R15)(AX*8)
	CMPQ dn_len+80(FP), $0
	JEQ  p2fix
	POLY4(256, 288, 320, 352)
	MOVQ dn_base+72(FP), DX
	VMOVUPD Y5, (DX)(AX*8)
	JMP  p2fix

p2c: // C alone
	POLY4(0, 64, 128, 192)
	VMOVUPD Y5, (R11)(AX*8)
	JMP  p2fix

p2z: // AVX-512: C's and dC/dbeta's P_k together, a zmm an entry (their runs of four side by side), then POLY4T's transpose and products
	VMOVUPD Y3, 1040(SP)
	VMOVUPD Y0, 1072(SP)
	VMOVUPD Y1, 1104(SP)
	VMOVUPD Y2, 1136(SP)
	VBROADCASTSD 1040(SP), Z20  // each entry's s
	VBROADCASTSD 1048(SP), Z21
	VBROADCASTSD 1056(SP), Z22
	VBROADCASTSD 1064(SP), Z23
	POLYP(BX, Z20, 0, 64, 128, 192, Z24)
	POLYP(CX, Z21, 0, 64, 128, 192, Z25)
	POLYP(DX, Z22, 0, 64, 128, 192, Z26)
	POLYP(DI, Z23, 0, 64, 128, 192, Z27)
	VUNPCKLPD Z25, Z24, Z4      // P_0, P_2 of entries 0, 1 (C's, then dC/dbeta's)
	VUNPCKHPD Z25, Z24, Z5      // P_1, P_3
	VUNPCKLPD Z27, Z26, Z6      // entries 2, 3
	VUNPCKHPD Z27, Z26, Z7
	VMOVDQU64 cbLo<>(SB), Z28
	VPERMI2PD Z6, Z4, Z28       // P_0 of entries 0-3, C's then dC/dbeta's
	VMOVDQU64 cbHi<>(SB), Z29
	VPERMI2PD Z6, Z4, Z29       // P_2
	VMOVDQU64 cbLo<>(SB), Z30
	VPERMI2PD Z7, Z5, Z30       // P_1
	VMOVDQU64 cbHi<>(SB), Z31
	VPERMI2PD Z7, Z5, Z31       // P_3
	VBROADCASTF64X4 1072(SP), Z4 // t of entries 0-3, twice
	VMULPD  Z4, Z30, Z30        // q1 = t P_1
	VBROADCASTF64X4 1104(SP), Z5
	VMULPD  Z5, Z29, Z29        // q2 = t^2 P_2
	VBROADCASTF64X4 1136(SP), Z6
	VMULPD  Z6, Z31, Z31        // q3 = t^3 P_3
	VADDPD  Z30, Z28, Z28       // q0 + q1
	VADDPD  Z31, Z29, Z29       // q2 + q3
	VADDPD  Z29, Z28, Z28
	VMOVUPD Y28, (R11)(AX*8)
	VEXTRACTF64X4 $1, Z28, (R15)(AX*8)
	CMPQ dn_len+80(FP), $0
	JEQ  p2fix
	POLY4T(256, 288, 320, 352)
	MOVQ dn_base+72(FP), DX
	VMOVUPD Y4, (DX)(AX*8)

p2fix:
	MOVQ AX, BX
	SHRQ $2, BX
	MOVBQZX 1024(SP)(BX*1), BX
	CMPQ BX, $15
	JNE  fix

p2next:
	MOVQ ahead+192(FP), BX
	SUBQ AX, BX                 // the next call's entries at i.. to root
	JLE  p2adv
	CMPQ BX, $4
	JGE  p2sq4
	MOVQ BX, CX
	MOVL $1, DX
	SHLL CX, DX
	DECL DX
	KMOVW DX, K2
	MOVQ r_base+0(FP), BX
	MOVQ r_len+8(FP), CX
	LEAQ (BX)(CX*8), BX         // the next call's r
	VMOVUPD.Z (BX)(AX*8), K2, Y8
	VSQRTPD Y8, Y8
	VMOVUPD Y8, K2, (BX)(AX*8)
	JMP  p2adv

p2sq4: // all four: no mask
	MOVQ r_base+0(FP), BX
	MOVQ r_len+8(FP), CX
	LEAQ (BX)(CX*8), BX
	VMOVUPD (BX)(AX*8), Y8
	VSQRTPD Y8, Y8
	VMOVUPD Y8, (BX)(AX*8)

p2adv:
	ADDQ $4, AX
	JMP  p2

fix: // the group's entries outside the range: x into c, listed in slow
	XORQ CX, CX

fixlane:
	BTQ  CX, BX
	JCS  fixnext
	LEAQ (AX)(CX*1), DX
	VMOVSD 512(SP)(DX*8), X0
	VMOVSD X0, (R11)(DX*8)
	MOVQ slow+168(FP), DI
	MOVB DX, (DI)(R14*1)
	INCQ R14

fixnext:
	INCQ CX
	CMPQ CX, $4
	JLT  fixlane
	JMP  p2next

rtail:
	CMPQ AX, r_len+8(FP)
	JGE  rdone

rone:
	VMOVSD (SI)(AX*8), X0
	CMPQ AX, from+184(FP)
	JLT  ronex
	VSQRTSD X0, X0, X0          // r from its square
	VMOVSD X0, (SI)(AX*8)

ronex:
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
	POLY(0, 64, 128, 192, Y6)
	CMPQ db_len+56(FP), $0
	JNE  rdb
	VHADDPD Y6, Y6, Y8
	VEXTRACTF128 $1, Y8, X9
	VADDSD  X9, X8, X8
	VMOVSD  X8, (R11)(AX*8)
	INCQ AX
	JMP  rtail

rdb:
	POLY(32, 96, 160, 224, Y7)
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
	JMP  rtail

rslow:
	MOVQ slow+168(FP), DX
	MOVB AX, (DX)(R14*1)
	VMOVSD X0, (R11)(AX*8)      // x into c
	INCQ R14
	INCQ AX
	JMP  rtail

rdone:
	MOVQ R14, ret+200(FP)
	VZEROUPPER
	RET

DATA fiftyTwo<>+0(SB)/8, $52
GLOBL fiftyTwo<>(SB), RODATA|NOPTR, $8

DATA two<>+0(SB)/8, $2.0
GLOBL two<>(SB), RODATA|NOPTR, $8

DATA three<>+0(SB)/8, $3.0
GLOBL three<>(SB), RODATA|NOPTR, $8

// One coefficient of eight entries from the window (the index in Z9):
// its first eight pieces in tab, the next eight in memory at m, by the
// two-table permute, into dst.
#define PERMW(m, tab, dst) \
	VMOVDQA64 Z9, dst \
	VPERMI2PD m, tab, dst

// Four rows' coefficients (rows at P, P + R10, P + 2 R10, P + R13 = 3 R10;
// their first eight pieces in t0 .. t3) into d0 .. d3.
#define WIN4(P, t0, t1, t2, t3, d0, d1, d2, d3) \
	PERMW(64(P), t0, d0) \
	PERMW(64(P)(R10*1), t1, d1) \
	PERMW(64(P)(R10*2), t2, d2) \
	PERMW(64(P)(R13*1), t3, d3)

// The four polynomials' Horner steps (POLY's fused multiply-adds, in
// its order) from the coefficients in a0..a3 into the accumulators Z2..Z5
// (s in Z8).
#define HORNER4(a0, a1, a2, a3) \
	VFMADD213PD a0, Z8, Z2 \
	VFMADD213PD a1, Z8, Z3 \
	VFMADD213PD a2, Z8, Z4 \
	VFMADD213PD a3, Z8, Z5

// The products t^k P_k(s) (t in Z6, t^2 in Z1, t^3 in Z7) summed as
// POLY's caller sums them, (q0+q1) + (q2+q3), into Z2.
#define QSUM \
	VMULPD  Z6, Z3, Z3 \
	VMULPD  Z1, Z4, Z4 \
	VMULPD  Z7, Z5, Z5 \
	VADDPD  Z3, Z2, Z2 \
	VADDPD  Z5, Z4, Z4 \
	VADDPD  Z4, Z2, Z2

// func covRowAVX512(r, c []float64, ib, lo, hi float64, eb int, oct32 *[32]octave, coefT *float64, rowStride int, slow, redo *int32, from, ahead int) (ns, nr, done int)
// C alone (Row's c, bitwise) for len(r) <= covChunk entries, eight a
// zmm, in two passes. The first locates as rowAVX2's p1w (x, the piece
// p, t: t into the frame, x in its place outside the pieces' range, p
// and the range mask beside it) and finds the largest piece in range.
// The second evaluates C lane by lane with the coefficients of a window
// of the sixteen pieces up to it: row k of the transposed table (a_k of
// every piece, rowStride bytes a row), the window's first eight pieces
// in registers (Z16 .. Z31), the next eight read from memory by the
// two-table permute (VPERMI2PD), one a coefficient for eight entries
// (a pair's distance in a block is spread like r dr, so sixteen pieces,
// eight octaves, hold nearly all; a lane below the window is listed in
// redo, c not written). Each lane: the four polynomials in s = t^4 by
// Horner with POLY's fused multiply-adds in its order, the products t^k
// P_k(s) summed as (q0+q1) + (q2+q3): the same operations as rowAVX2,
// so the same values bitwise. The entries outside the range: x into c,
// their index listed in slow. Returns how many of each and how many
// entries it did: all, or fewer where a list would pass 16 (it stops
// before that group of eight). Square roots (VSQRTPD, correctly
// rounded) for squared distances: r[from:] holds squares, whose roots
// the first pass takes as it reads them and writes back over r; and the
// ahead entries after r (the next call's, squares) the second pass roots
// in place, a group of eight beside each of its own groups of eight (the
// first done of them: where it stops early, min(done, ahead)), where the
// square roots (a unit of their own, slow on Intel's CPUs) run in the
// shadow of the polynomials. from = len(r), ahead = 0: no square root.
//
// Frame: 0-2047 t (or x), 2048-4095 p, 4096-4127 the groups' masks,
// 4128 DI while the lists are written.
TEXT ·covRowAVX512(SB), $4136-160
	MOVQ r_base+0(FP), SI
	MOVQ r_len+8(FP), R8
	MOVQ c_base+24(FP), R11
	MOVQ oct32+80(FP), DX
	MOVQ coefT+88(FP), R9
	MOVQ rowStride+96(FP), R10
	MOVQ from+120(FP), R15
	LEAQ (R10)(R10*2), R13      // 3 rows
	XORQ R14, R14
	XORQ AX, AX
	VMOVDQU64 0(DX), Z20        // the octave table, 32 entries
	VMOVDQU64 64(DX), Z21
	VMOVDQU64 128(DX), Z22
	VMOVDQU64 192(DX), Z23
	VPBROADCASTQ low32<>(SB), Z24
	VPBROADCASTQ mantMask<>(SB), Z25
	VPBROADCASTQ ihwExp<>(SB), Z26
	VPTERNLOGQ $0xff, Z27, Z27, Z27 // all ones
	VPBROADCASTQ octBit4<>(SB), Z29
	VBROADCASTSD ib+48(FP), Z10
	VBROADCASTSD lo+56(FP), Z11
	VBROADCASTSD hi+64(FP), Z12
	VPBROADCASTQ eb+72(FP), Z13
	VBROADCASTSD polyOne<>(SB), Z14
	VPBROADCASTQ fiftyTwo<>(SB), Z15
	VBROADCASTSD two<>(SB), Z17
	VBROADCASTSD three<>(SB), Z18
	VMOVDQA64 Z27, Z28          // the largest piece in range: -1 for none

	MOVL $255, DX
	KMOVW DX, K3                // all eight lanes, but in the last group

cl:
	MOVQ R8, BX
	SUBQ AX, BX
	JLE  cl2
	CMPQ BX, $8
	JL   clpart
	VMOVUPD (SI)(AX*8), Z0      // no mask: a masked load costs a vector operation more
	JMP  clload

clpart: // the last len - i lanes
	MOVQ BX, CX
	MOVL $1, DX
	SHLL CX, DX
	DECL DX
	KMOVW DX, K3
	VMOVUPD.Z (SI)(AX*8), K3, Z0

clload:
	MOVQ R15, BX
	SUBQ AX, BX                 // from - i
	JLE  clsqall
	CMPQ BX, $8
	JGE  clx                    // the group holds distances
	MOVQ BX, CX
	MOVL $-1, BX
	SHLL CX, BX                 // the lanes from on
	KMOVW BX, K4
	KANDW K3, K4, K4
	KORTESTW K4, K4
	JEQ  clx
	JMP  clsq

clsqall:
	KMOVW K3, K4

clsq:
	VSQRTPD Z0, K4, Z0          // r from its square
	VMOVUPD Z0, K4, (SI)(AX*8)

clx:
	VMULPD  Z10, Z0, Z0         // x = r ib
	VCMPPD  $0x1d, Z11, Z0, K3, K1 // x >= lo (false for NaN), a lane of r
	VCMPPD  $0x11, Z12, Z0, K1, K1 // and x < hi
	KMOVW   K1, BX
	MOVQ AX, CX
	SHRQ $3, CX
	MOVB BX, 4096(SP)(CX*1)
	VPSRLQ  $52, Z0, Z2         // the exponent fields (x > 0; the lanes outside the range are not used)
	VPSUBQ  Z13, Z2, Z8         // the octaves
	VMOVDQA64 Z8, Z3
	VPERMI2Q Z21, Z20, Z3       // their first piece | shift << 32: entries 0-15
	VMOVDQA64 Z8, Z4
	VPERMI2Q Z23, Z22, Z4       // 16-31
	VPTESTMQ Z29, Z8, K2
	VMOVDQA64 Z4, K2, Z3
	VPSRLQ  $32, Z3, Z4         // shift
	VPANDQ  Z24, Z3, Z3
	VPANDQ  Z25, Z0, Z5
	VPSRLVQ Z4, Z5, Z5
	VPADDQ  Z3, Z5, Z5          // p
	VMOVDQU64 Z5, 2048(SP)(AX*8)
	VPMAXSQ Z5, Z28, K1, Z28
	VPSLLVQ Z4, Z27, Z6
	VPANDNQ Z0, Z6, Z7          // x's bits below shift: x - lo, the piece's start
	VPSUBQ  Z4, Z15, Z8
	VPSLLVQ Z8, Z7, Z7
	VPORQ   Z14, Z7, Z7         // u = 1 + (x - lo)/w in [1, 2), exactly
	VFMSUB213PD Z18, Z17, Z7    // t = 2u - 3 = (x - lo) 2/w - 1 rounded once, as (x - mid) ihw
	VBLENDMPD Z7, Z0, K1, Z6    // t, or x outside the range
	VMOVUPD Z6, 0(SP)(AX*8)
	ADDQ $8, AX
	JMP  cl

cl2: // the window: the sixteen pieces up to the largest in range
	VSHUFI64X2 $0x4e, Z28, Z28, Z0
	VPMAXSQ Z0, Z28, Z28
	VSHUFI64X2 $0xb1, Z28, Z28, Z0
	VPMAXSQ Z0, Z28, Z28
	VPSHUFD $0x4e, Z28, Z0
	VPMAXSQ Z0, Z28, Z28
	VMOVQ   X28, BX
	SUBQ $15, BX
	JGE  clwin
	XORQ BX, BX

clwin:
	VPBROADCASTQ BX, Z10        // the window's first piece
	LEAQ (R9)(BX*8), DI         // rows 0-3 of the window (its first eight pieces; the next eight 64 bytes on)
	LEAQ (DI)(R10*4), SI        // 4-7
	LEAQ (DI)(R10*8), R12       // 8-11
	LEAQ (R12)(R10*4), R15      // 12-15
	VMOVUPD (DI), Z16           // a_0 .. a_15 of the window's first eight pieces
	VMOVUPD (DI)(R10*1), Z17
	VMOVUPD (DI)(R10*2), Z18
	VMOVUPD (DI)(R13*1), Z19
	VMOVUPD (SI), Z20
	VMOVUPD (SI)(R10*1), Z21
	VMOVUPD (SI)(R10*2), Z22
	VMOVUPD (SI)(R13*1), Z23
	VMOVUPD (R12), Z24
	VMOVUPD (R12)(R10*1), Z25
	VMOVUPD (R12)(R10*2), Z26
	VMOVUPD (R12)(R13*1), Z27
	VMOVUPD (R15), Z28
	VMOVUPD (R15)(R10*1), Z29
	VMOVUPD (R15)(R10*2), Z30
	VMOVUPD (R15)(R13*1), Z31
	VPXORQ  Z15, Z15, Z15
	XORQ R9, R9                 // the lanes below the window, listed
	XORQ AX, AX

c2:
	MOVQ R8, BX
	SUBQ AX, BX
	JLE  cdone
	MOVL $255, DX
	CMPQ BX, $8
	JGE  c2load
	MOVQ BX, CX
	MOVL $1, DX
	SHLL CX, DX
	DECL DX

c2load:
	KMOVW DX, K3
	MOVQ AX, CX
	SHRQ $3, CX
	MOVBQZX 4096(SP)(CX*1), CX
	KMOVW CX, K1                // the lanes in range
	VMOVUPD 0(SP)(AX*8), Z6     // t
	VMOVDQU64 2048(SP)(AX*8), Z9
	VPSUBQ  Z10, Z9, Z9         // the index in the window
	VPCMPQ  $5, Z15, Z9, K1, K5 // the lanes in range and in the window
	VMULPD  Z6, Z6, Z1          // t^2
	VMULPD  Z6, Z1, Z7          // t^3
	VMULPD  Z1, Z1, Z8          // s = t^4
	WIN4(R15, Z28, Z29, Z30, Z31, Z2, Z3, Z4, Z5) // a_12 .. a_15
	WIN4(R12, Z24, Z25, Z26, Z27, Z11, Z12, Z13, Z14)
	HORNER4(Z11, Z12, Z13, Z14)
	WIN4(SI, Z20, Z21, Z22, Z23, Z11, Z12, Z13, Z14)
	HORNER4(Z11, Z12, Z13, Z14)
	WIN4(DI, Z16, Z17, Z18, Z19, Z11, Z12, Z13, Z14)
	HORNER4(Z11, Z12, Z13, Z14)
	QSUM
	KANDNW  K1, K5, K4          // the lanes in range below the window
	VMOVAPD Z6, Z0
	VMOVAPD Z2, K5, Z0          // C, x outside the range
	KANDNW  K3, K1, K6          // the lanes of r outside the range
	KORTESTW K4, K6
	JNE  clists

c2store:
	VMOVUPD Z0, K3, (R11)(AX*8)
	MOVQ ahead+128(FP), BX
	SUBQ AX, BX                 // the next call's entries at i.. to root
	JLE  c2next
	CMPQ BX, $8
	JGE  c2sq8
	MOVQ BX, CX
	MOVL $1, DX
	SHLL CX, DX
	DECL DX
	KMOVW DX, K2
	KSHIFTRW $4, K2, K6
	MOVQ r_base+0(FP), BX
	LEAQ (BX)(R8*8), BX         // the next call's r (R8 = len(r) here)
	VMOVUPD.Z (BX)(AX*8), K2, Y1
	VMOVUPD.Z 32(BX)(AX*8), K6, Y3
	VSQRTPD Y1, Y1              // two ymm: more of them a cycle than zmm on Intel's
	VSQRTPD Y3, Y3
	VMOVUPD Y1, K2, (BX)(AX*8)
	VMOVUPD Y3, K6, 32(BX)(AX*8)
	JMP  c2next

c2sq8: // all eight: no masks
	MOVQ r_base+0(FP), BX
	LEAQ (BX)(R8*8), BX
	VMOVUPD (BX)(AX*8), Y1
	VMOVUPD 32(BX)(AX*8), Y3
	VSQRTPD Y1, Y1
	VSQRTPD Y3, Y3
	VMOVUPD Y1, (BX)(AX*8)
	VMOVUPD Y3, 32(BX)(AX*8)

c2next:
	ADDQ $8, AX
	JMP  c2

clists: // rare: list the lanes outside the range in slow, those below the window in redo
	KMOVW   K6, BX
	POPCNTQ BX, CX
	ADDQ R14, CX
	CMPQ CX, $16
	JGT  cfull
	KMOVW   K4, DX
	POPCNTQ DX, CX
	ADDQ R9, CX
	CMPQ CX, $16
	JGT  cfull
	KANDNW  K3, K4, K3          // c not written below the window
	MOVQ DI, 4128(SP)           // (rows 0-3 of the window)
	MOVQ slow+104(FP), DI
	TESTQ BX, BX
	JEQ  credo

cslow:
	BSFQ BX, CX
	ADDQ AX, CX
	MOVL CX, (DI)(R14*4)
	INCQ R14
	LEAQ -1(BX), CX
	ANDQ CX, BX
	JNE  cslow

credo:
	MOVQ redo+112(FP), DI
	TESTQ DX, DX
	JEQ  credone

credo1:
	BSFQ DX, CX
	ADDQ AX, CX
	MOVL CX, (DI)(R9*4)
	INCQ R9
	LEAQ -1(DX), CX
	ANDQ CX, DX
	JNE  credo1

credone:
	MOVQ 4128(SP), DI
	JMP  c2store

cfull: // a list would overflow: stop before this group
	MOVQ AX, R8

cdone:
	MOVQ R14, ns+136(FP)
	MOVQ R9, nr+144(FP)
	MOVQ R8, done+152(FP)
	VZEROUPPER
	RET
