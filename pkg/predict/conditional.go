package predict

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/solve"
	"github.com/exageostat/exageostat/pkg/tile"
)

// Draws are conditional simulations at new locations (ConditionalDraws).
type Draws struct {
	Result             // the kriging mean and variance
	Z      [][]float64 // Z[d][i]: draw d at location i (rank 0; nil on the others)
}

// ConditionalDraws draws k realisations at the points at of the field
// given ev's observations at theta (seeded by seed): with L the Cholesky
// factor of Sigma11, V = L^-1 Sigma12 and w = L^-1 z,
//
//	mean = V^T w,   C = Sigma22 - V^T V,   draw = mean + L_C e,  e ~ N(0, I),
//
// L_C the Cholesky factor of the conditional covariance C. Sigma22 is the
// latent field's covariance, or a new observation's (nugget tau2 on its
// diagonal) when observation is true. V, the prediction V^T w and the
// products V(:, a)^T V(:, b) are tile tasks (the products' tiles live on
// rank 0); rank 0 then factors the n2 x n2 matrix C and draws. If C is
// only semi-definite (new locations on data locations without a nugget),
// 1e-10 times its mean diagonal is added before factoring.
//
// A problem with a mean model (covariates) needs ConditionalDrawsUniversal.
func ConditionalDraws(ev *likelihood.Evaluator, theta []float64, at matern.Points, k int, seed uint64, observation bool) (*Draws, error) {
	if len(ev.Problem().Covariates) > 0 {
		return nil, fmt.Errorf("conditional simulation: the problem has a mean model: give the covariates at the new locations (ConditionalDrawsUniversal)")
	}
	return ConditionalDrawsUniversal(ev, theta, at, nil, k, seed, observation)
}

// ConditionalDrawsUniversal is ConditionalDraws for a field with the mean
// X b of ev's covariates (x0[c][i]: covariate c at new location i), b
// unknown and estimated by GLS: the draws follow universal kriging's
// predictive distribution, whose mean and covariance (with Xw = L^-1 X,
// b_hat the GLS estimate, A = X^T Sigma^-1 X and D = x0^T - Xw^T V, p x n2)
// are
//
//	mean = x0^T b_hat + V^T (w - Xw b_hat),
//	C    = Sigma22 - V^T V + D^T A^-1 D,
//
// the last term the uncertainty of the estimated mean (as KrigeUniversal's
// variance). With x0 nil it is ConditionalDraws.
func ConditionalDrawsUniversal(ev *likelihood.Evaluator, theta []float64, at matern.Points, x0 [][]float64, k int, seed uint64, observation bool) (*Draws, error) {
	p := ev.Problem()
	if len(x0) != len(p.Covariates) {
		return nil, fmt.Errorf("conditional simulation: %d covariates at the new locations for a mean of %d", len(x0), len(p.Covariates))
	}
	for _, c := range x0 {
		if len(c) != len(at.X) {
			return nil, fmt.Errorf("conditional simulation: %d covariate values for %d new locations", len(c), len(at.X))
		}
	}
	if p.Model == likelihood.BivariateMatern {
		return nil, fmt.Errorf("conditional simulation: not for the bivariate model yet")
	}
	n2 := len(at.X)
	if n2 == 0 || k < 1 {
		return nil, fmt.Errorf("conditional simulation: %d locations, %d draws", n2, k)
	}
	out := &Draws{}
	var err error
	if out.Factored, err = factor(ev, theta); err != nil {
		return nil, err
	}
	rmax := math.Max(ev.RMax(), crossMax(p.Metric, p.Points, at))
	kern, err := p.Model.Kernel(theta, rmax)
	if err != nil {
		return nil, err
	}
	rt, ts := ev.Runtime(), ev.Tasks()
	t0 := time.Now()
	cw := min(n2, max(ev.NB(), colTile))
	vv := tile.NewGeneral(rt, "VtV", n2, n2, cw, cw, func(int, int) int { return 0 })
	cr, err := whitenCross(ev, "V", kern, at, cw, false, func(v *tile.General) { solve.Gram(ts, v, vv) })
	if err != nil {
		return nil, err
	}
	nt := vv.ColLayout.NT
	out.Result.Z = cr.zw
	// The mean's part: D = x0^T - Xw^T V; mean += D^T b_hat.
	beta, bcov := ev.GLS()
	dm := make([][]float64, len(cr.xw)) // dm[c][i] = D(c, i)
	for c, vals := range cr.xw {
		dm[c] = make([]float64, n2)
		for i := range n2 {
			dm[c][i] = x0[c][i] - vals[i]
			out.Result.Z[i] += dm[c][i] * beta[c]
		}
	}
	tau2 := 0.0
	if observation {
		tau2 = p.Tau2(theta)
	}
	out.Result.Var = make([]float64, n2) // rank 0's below; zeros elsewhere (only rank 0 writes)
	if rt.Rank() == 0 {
		// C = Sigma22 - V^T V, lower triangle, column-major n2 x n2.
		c := make([]float64, n2*n2)
		matern.FillTile(kern, tau2, p.Metric, at, 0, n2, at, 0, n2, true, c, n2)
		for a := 0; a < nt; a++ {
			for b := 0; b <= a; b++ {
				t := vv.Tile(a, b)
				ra, rb := vv.RowLayout.Rows(a), vv.ColLayout.Rows(b)
				for j := 0; j < rb; j++ {
					for i := 0; i < ra; i++ {
						c[(a*cw+i)+(b*cw+j)*n2] -= t[i+j*ra]
					}
				}
			}
		}
		// + D^T A^-1 D, the estimated mean's uncertainty (lower triangle).
		if len(dm) > 0 {
			for j := range n2 {
				for i := j; i < n2; i++ {
					var s float64
					for a := range dm {
						for b := range dm {
							s += dm[a][i] * bcov[a][b] * dm[b][j]
						}
					}
					c[i+j*n2] += s
				}
			}
		}
		mean := 0.0
		for i := range n2 {
			out.Result.Var[i] = math.Max(c[i+i*n2], 0)
			mean += c[i+i*n2] / float64(n2)
		}
		chol := append([]float64(nil), c...)
		if ev.Kernels().Dpotrf(n2, chol, n2) != 0 {
			copy(chol, c)
			for i := range n2 {
				chol[i+i*n2] += 1e-10 * mean
			}
			if ev.Kernels().Dpotrf(n2, chol, n2) != 0 {
				return nil, fmt.Errorf("conditional simulation: the conditional covariance is not positive semi-definite (numerically)")
			}
		}
		rng := rand.New(rand.NewPCG(seed, 0x5eed))
		e := make([]float64, n2)
		for range k {
			for i := range e {
				e[i] = rng.NormFloat64()
			}
			d := append([]float64(nil), out.Result.Z...)
			for j := 0; j < n2; j++ { // d += L e, L lower, column-major
				for i := j; i < n2; i++ {
					d[i] += chol[i+j*n2] * e[j]
				}
			}
			out.Z = append(out.Z, d)
		}
	}
	vv.Invalidate()
	out.Seconds = time.Since(t0).Seconds()
	return out, nil
}
