package block

import "math"

// gram42Go sets out[2i+j] to dotLanes(n, x_i, y_j), the 4 x 2 inner
// products of x_0..x_3 and y_0, y_1 over their first n rows.
func gram42Go(n int, x *[4][]float64, y *[2][]float64, out *[8]float64) {
	for i := range 4 {
		for j := range 2 {
			out[2*i+j] = dotLanes(n, x[i], y[j])
		}
	}
}

// dotLanes returns sum_{q<n} x[q] y[q] as a vector of four lanes sums
// it: lane l accumulates the rows q = l mod 4 in order with fused
// multiply-adds (the rows past n of the last chunk of four add 0 * 0),
// then (l0 + l2) + (l1 + l3). Four independent chains, not one.
func dotLanes(n int, x, y []float64) float64 {
	x, y = x[:n], y[:n]
	var s [4]float64
	n4 := n &^ 3
	for q := 0; q < n4; q += 4 {
		s[0] = math.FMA(x[q], y[q], s[0])
		s[1] = math.FMA(x[q+1], y[q+1], s[1])
		s[2] = math.FMA(x[q+2], y[q+2], s[2])
		s[3] = math.FMA(x[q+3], y[q+3], s[3])
	}
	if n4 < n {
		for l := range 4 {
			var a, b float64
			if n4+l < n {
				a, b = x[n4+l], y[n4+l]
			}
			s[l] = math.FMA(a, b, s[l])
		}
	}
	return (s[0] + s[2]) + (s[1] + s[3])
}

// gram4Pairs sets out[6i+j] to x_i . y_j over the first n rows for i < 4
// and j < p (p <= 6) by gram42, two y's a call: dotLanes's sums.
func gram4Pairs(n int, x *[4][]float64, y *[6][]float64, p int, out *[24]float64) {
	var o [8]float64
	for j := 0; j < p; j += 2 {
		j1 := min(j+1, p-1)
		gram42(n, x, &[2][]float64{y[j], y[j1]}, &o)
		for i := range 4 {
			out[6*i+j], out[6*i+j1] = o[2*i], o[2*i+1]
		}
	}
}
