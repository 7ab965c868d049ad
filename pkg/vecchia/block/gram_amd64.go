//go:build amd64 && !purego

package block

//go:generate go run ./internal/asmgen -kind gramz -o gramz_amd64.s

import "golang.org/x/sys/cpu"

// hasGramZ reports whether gram4 can use gram4Z (AVX-512 with 256-bit
// registers 16-31).
var hasGramZ = cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL

// gram42 is gram42Go with AVX2 where the CPU has it (the same values,
// bitwise): out[2i+j] = x_i . y_j over the first n rows.
func gram42(n int, x *[4][]float64, y *[2][]float64, out *[8]float64) {
	if !useVec || n == 0 {
		gram42Go(n, x, y, out)
		return
	}
	x0, x1, x2, x3 := x[0][:n], x[1][:n], x[2][:n], x[3][:n]
	y0, y1 := y[0][:n], y[1][:n]
	gram42AVX(n, &x0[0], &x1[0], &x2[0], &x3[0], &y0[0], &y1[0], &out[0])
}

//go:noescape
func gram42AVX(n int, x0, x1, x2, x3, y0, y1 *float64, out *float64)

// gram4 sets out[6i+j] = x_i . y_j over the first n rows for i < 4 and
// j < p (1 to 6), gram42's sums (bitwise): with AVX-512 in one pass
// (gram4Z: each chunk of the x's loaded once for all the y's), else
// gram4Pairs.
func gram4(n int, x *[4][]float64, y *[6][]float64, p int, out *[24]float64) {
	if !hasGramZ || !useVec || n == 0 || p < 1 || p > 6 {
		gram4Pairs(n, x, y, p, out)
		return
	}
	var xp [4]*float64
	var yp [6]*float64
	for i := range xp {
		xp[i] = &x[i][:n][0]
	}
	for j := range p {
		yp[j] = &y[j][:n][0]
	}
	gram4Z(n, &xp, &yp, p, out)
}

// gram4Z is gram4 for 1 <= p <= 6 (lengths checked by gram4).
//
//go:noescape
func gram4Z(n int, x *[4]*float64, y *[6]*float64, p int, out *[24]float64)
