package predict

import (
	"fmt"
	"math"
	"time"

	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
)

// LOO holds leave-one-out cross-validation of a problem's observations, in
// the problem's point order.
type LOO struct {
	// Residual[i] = z_i - E[z_i | z_-i] = (Sigma^-1 z)_i / (Sigma^-1)_ii.
	Residual []float64
	// Var[i] = Var[z_i | z_-i] = 1 / (Sigma^-1)_ii (a new observation's:
	// the nugget included).
	Var     []float64
	Seconds float64
}

// LeaveOneOut computes every observation's leave-one-out residual and
// variance at theta from one Cholesky factor L of Sigma, in closed form
// (Dubrule 1983): with V = L^-1 (the solve of the identity, in column
// batches like a prediction's cross-covariance) and w = L^-1 z,
//
//	(Sigma^-1)_ii = ||V(:, i)||^2,   (Sigma^-1 z)_i = V(:, i)^T w,
//
// the column sums of squares and the column dots of V's tiles as tasks:
// O(N^3/3) flops like the factorisation, instead of N factorisations.
//
// With a mean model X b (Problem.Covariates) the prediction of z_i is the
// universal-kriging one from the others, the coefficients re-estimated by
// GLS without point i (as each fold of a K-fold cross-validation does).
// Its residual and variance are those of the projection
// P = Sigma^-1 - Sigma^-1 X (X^T Sigma^-1 X)^-1 X^T Sigma^-1 (Dubrule
// 1983): e_i = (P z)_i / P_ii and Var_i = 1 / P_ii, with q_i = (Sigma^-1 X)_i
// = V(:, i)^T L^-1 X and b_hat the full-data GLS estimate,
//
//	(P z)_i = (Sigma^-1 z)_i - q_i^T b_hat,   P_ii = (Sigma^-1)_ii - q_i^T (X^T Sigma^-1 X)^-1 q_i,
//
// the products V^T L^-1 X as tasks beside V^T w.
// Every rank calls it and gets the whole result.
func LeaveOneOut(ev *likelihood.Evaluator, theta []float64) (*LOO, error) {
	p := ev.Problem()
	if p.Model == likelihood.BivariateMatern {
		return nil, fmt.Errorf("leave-one-out: not for the bivariate model yet")
	}
	if _, err := factor(ev, theta); err != nil {
		return nil, err
	}
	beta, bcov := ev.GLS()
	np := len(ev.WhitenedCovariates())
	n := ev.N()
	// The "points" of the identity's columns are their indices.
	idx := matern.Points{X: make([]float64, n), Y: make([]float64, n)}
	for i := range idx.X {
		idx.X[i] = float64(i)
	}
	t0 := time.Now()
	cw := min(n, ev.NB())
	per := max(cw, batchBytes/(8*max(n, 1))/cw*cw)
	out := &LOO{Residual: make([]float64, 0, n), Var: make([]float64, 0, n)}
	for b0 := 0; b0 < n; b0 += per {
		sub := matern.Points{X: idx.X[b0:min(n, b0+per)], Y: idx.Y[b0:min(n, b0+per)]}
		cr, err := whitenCross(ev, "Linv", unitColumns{}, sub, cw, true, nil)
		if err != nil {
			return nil, err
		}
		q := cr.xw // (Sigma^-1 X)(:, c) on these points
		for i, d := range cr.ss {
			pz := cr.zw[i]
			for a := 0; a < np; a++ {
				pz -= q[a][i] * beta[a]
				for b := 0; b < np; b++ {
					d -= q[a][i] * bcov[a][b] * q[b][i]
				}
			}
			out.Residual = append(out.Residual, pz/d)
			out.Var = append(out.Var, 1/d)
		}
	}
	out.Seconds = time.Since(t0).Seconds()
	return out, nil
}

// unitColumns is the identity as a covariance for crossCov: the entry
// of row r and column c is 1 when r is the index the column's point
// carries in its X (LeaveOneOut's index points), else 0.
type unitColumns struct{}

// Cov is never called: crossCov fills tiles through Fill.
func (unitColumns) Cov(float64) float64 { return math.NaN() }

// Fill sets dst[i + j*ld] = 1 if row0 + i is cols.X[col0 + j], else 0.
func (unitColumns) Fill(_ matern.Metric, _ matern.Points, row0, m int, cols matern.Points, col0, n int, dst []float64, ld int) {
	for j := 0; j < n; j++ {
		c := int(cols.X[col0+j])
		for i := 0; i < m; i++ {
			dst[i+j*ld] = 0
			if row0+i == c {
				dst[i+j*ld] = 1
			}
		}
	}
}
