//go:build amd64 && !purego

#include "textflag.h"

// func dist2AVX(x, y []float64, x0, y0 float64, out []float64)
TEXT ·dist2AVX(SB), NOSPLIT, $0-88
	MOVQ x_base+0(FP), SI
	MOVQ y_base+24(FP), DI
	MOVQ out_base+64(FP), DX
	MOVQ out_len+72(FP), CX
	VBROADCASTSD x0+48(FP), Y0
	VBROADCASTSD y0+56(FP), Y1
	XORQ AX, AX

loop4:
	LEAQ 4(AX), BX
	CMPQ BX, CX
	JGT  tail
	VMOVUPD (SI)(AX*8), Y2
	VSUBPD  Y0, Y2, Y2          // dx
	VMOVUPD (DI)(AX*8), Y3
	VSUBPD  Y1, Y3, Y3          // dy
	VMULPD  Y2, Y2, Y2
	VMULPD  Y3, Y3, Y3
	VADDPD  Y3, Y2, Y2
	VSQRTPD Y2, Y2
	VMOVUPD Y2, (DX)(AX*8)
	MOVQ    BX, AX
	JMP     loop4

tail:
	CMPQ AX, CX
	JGE  done
	VMOVSD (SI)(AX*8), X2
	VSUBSD X0, X2, X2
	VMOVSD (DI)(AX*8), X3
	VSUBSD X1, X3, X3
	VMULSD X2, X2, X2
	VMULSD X3, X3, X3
	VADDSD X3, X2, X2
	VSQRTSD X2, X2, X2
	VMOVSD X2, (DX)(AX*8)
	INCQ   AX
	JMP    tail

done:
	VZEROUPPER
	RET
