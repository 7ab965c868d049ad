package variogram

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// OLSResiduals returns the residuals r = z - X b of the ordinary least
// squares fit b = argmin ||z - X b||_2 of z on the columns cols of X (the
// design of the mean, with its intercept column; none: r = z), computed by
// a QR factorisation of X. These are the values gstat's variogram(z ~
// covariates) bins. It returns b too, and an error when X has fewer rows
// than columns, a column of another length or a non-finite value, or is
// rank deficient (a column nearly a combination of the others: the
// reciprocal condition number of R below 1e-12).
func OLSResiduals(z []float64, cols [][]float64) (r, b []float64, err error) {
	n, p := len(z), len(cols)
	r = append([]float64(nil), z...)
	if p == 0 {
		return r, nil, nil
	}
	if n < p {
		return nil, nil, fmt.Errorf("variogram: %d observations for %d mean coefficients", n, p)
	}
	x := mat.NewDense(n, p, nil)
	for j, c := range cols {
		if len(c) != n {
			return nil, nil, fmt.Errorf("variogram: mean column %d has %d values for %d observations", j+1, len(c), n)
		}
		for i, v := range c {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, nil, fmt.Errorf("variogram: mean column %d, row %d: %g", j+1, i+1, v)
			}
			x.Set(i, j, v)
		}
	}
	var qr mat.QR
	qr.Factorize(x)
	if c := qr.Cond(); !(c < 1e12) {
		return nil, nil, fmt.Errorf("variogram: the mean's columns are (nearly) linearly dependent (condition number %.3g)", c)
	}
	var beta mat.Dense
	if err := qr.SolveTo(&beta, false, mat.NewDense(n, 1, append([]float64(nil), z...))); err != nil {
		return nil, nil, fmt.Errorf("variogram: least squares: %v", err)
	}
	b = make([]float64, p)
	for j := range b {
		b[j] = beta.At(j, 0)
	}
	return Residuals(z, cols, b), b, nil
}

// Residuals returns z - X b, X's columns cols (len(b) of them, each of
// len(z) values): the residuals of a mean with the coefficients b (GLS
// ones from a fit, or OLSResiduals').
func Residuals(z []float64, cols [][]float64, b []float64) []float64 {
	r := append([]float64(nil), z...)
	for j, c := range cols {
		for i, v := range c {
			r[i] -= v * b[j]
		}
	}
	return r
}
