package predict

import "github.com/exageostat/exageostat/pkg/matern"

// pointVar returns the variance C(x_j, x_j) + nugget of each point of at:
// k.Cov(0) + nugget, or for a PairKernel (bivariate: the variance of the
// point's variable) its value at (j, j).
func pointVar(k matern.Kernel, metric matern.Metric, at matern.Points, nugget float64) []float64 {
	out := make([]float64, len(at.X))
	pk, ok := k.(matern.PairKernel)
	c0 := k.Cov(0) + nugget
	for j := range out {
		if !ok {
			out[j] = c0
			continue
		}
		var v [1]float64
		pk.Fill(metric, at, j, 1, at, j, 1, v[:], 1)
		out[j] = v[0] + nugget
	}
	return out
}
