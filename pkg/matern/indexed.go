package matern

import "math"

// CovIndexed sets out[t] to k's covariance between point js[t] and point
// i of the planar points p (Euclidean metric, p.Z nil), for t <
// len(js), and reports true; it reports false, out untouched, for a
// PairKernel or a kernel without CovRow. Each entry is CovRow's value at
// the distance sqrt(dx^2 + dy^2), dx = p.X[js[t]] - p.X[i] (as Distance
// and FillTile compute it): bitwise FillTile's column of the points js
// against point i, without the nugget. NewMatern's closed forms (nu =
// 1/2, 3/2, 5/2) gather, measure and evaluate eight entries at a time
// where the CPU has AVX-512 (the same operations, each rounded as in Go:
// the same values); any other kernel takes the distances in Go and one
// CovRow. It panics if an index is out of range.
func CovIndexed(k Kernel, p Points, i int, js []int32, out []float64) bool {
	if _, ok := k.(PairKernel); ok {
		return false
	}
	rk, ok := k.(RowKernel)
	if !ok {
		return false
	}
	out = out[:len(js)]
	x, y := p.X, p.Y[:len(p.X)]
	xi, yi := x[i], y[i]
	if closedIndexed(k, x, y, xi, yi, js, out) {
		return true
	}
	for t, j := range js {
		dx, dy := x[j]-xi, y[j]-yi
		out[t] = math.Sqrt(dx*dx + dy*dy)
	}
	rk.CovRow(out, out)
	return true
}

// closedForm returns the form (1, 3, 5 for nu = 1/2, 3/2, 5/2), sigma2
// and 1/beta of one of NewMatern's closed forms; form 0 for any other
// kernel.
func closedForm(k Kernel) (form int, sigma2, invBeta float64) {
	switch c := k.(type) {
	case *expKernel:
		return 1, c.sigma2, c.invBeta
	case *matern32:
		return 3, c.sigma2, c.invBeta
	case *matern52:
		return 5, c.sigma2, c.invBeta
	}
	return 0, 0, 0
}
