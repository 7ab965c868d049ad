//go:build amd64 && !purego

package block

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
