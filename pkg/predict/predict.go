// Package predict krigs a Gaussian field at new locations: simple kriging
// with zero mean (universal kriging with a mean model: KrigeUniversal). For observed locations X1 with values z1 and new locations
// X2, with Sigma11 = L L^T, w = L^-1 z1 and V = L^-1 Sigma12,
//
//	z2_hat = Sigma21 Sigma11^-1 z1 = V^T w,
//	var_i  = C(0) + tau2 - (Sigma21 Sigma11^-1 Sigma12)_ii = C(0) + tau2 - ||V(:, i)||^2,
//
// the variance of a new observation at X2_i given z1 (tau2 is the nugget;
// drop it for the latent field). Everything runs as tile tasks on the
// likelihood evaluator's runtime and tile distribution: generation of the
// cross-covariance tiles of Sigma12 (tile row m on the owner of L(m,m)),
// the triangular solve V = L^-1 Sigma12 (trmm and gemm per tile, reusing
// the evaluator's Cholesky factor when it holds theta), and per column
// tile of X2 the products V^T w and the column sums of squares, summed
// next to the tiles of V.
//
// With an approximate evaluator (likelihood.Approx: tlr, mp, dst) L is its
// approximate factor L~, read tile by tile in its class (package solve): the
// kriging, the Fisher information, MLOE/MMOM, leave-one-out and the
// conditional draws are those of Sigma~ = L~ L~^T, while the
// cross-covariance Sigma12 and the derivative matrices stay exact.
//
// The package also computes the uncertainty of the estimates, with the same
// tiled building blocks: the Fisher information of theta and the MLOE/MMOM
// criteria (fisher.go).
package predict

import (
	"fmt"
	"math"
	"slices"
	"time"

	"gonum.org/v1/gonum/blas"

	"github.com/exageostat/exageostat/pkg/insert"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/solve"
	"github.com/exageostat/exageostat/pkg/tile"
)

// colTile is the width of the column tiles of the cross-covariance.
const colTile = 1024

// batchBytes bounds the cross-covariance tiles one batch of prediction
// columns holds, summed over the ranks; larger requests run in batches.
const batchBytes = 512 << 20

// Result holds predictions at new locations, in their given order.
type Result struct {
	Z        []float64 // kriging predictor
	Var      []float64 // prediction variance (of a new observation: includes the nugget)
	Seconds  float64   // wall time of the prediction DAG (cross-covariance, solve, products)
	Factored bool      // whether the Cholesky factor had to be computed
}

// Krige predicts at the points at from the observations of ev's problem with
// parameters theta. If ev's tiles do not hold the factor for theta, one
// likelihood evaluation computes it first. Every rank of a distributed
// runtime calls it and gets the whole result. A problem with a mean model
// (covariates) needs KrigeUniversal.
func Krige(ev *likelihood.Evaluator, theta []float64, at matern.Points) (*Result, error) {
	if len(ev.Problem().Covariates) > 0 {
		return nil, fmt.Errorf("predict: the problem has a mean model: use universal kriging with the covariates at the new locations")
	}
	return krige(ev, theta, at, nil, colTile)
}

// KrigeUniversal predicts at the points at with the mean X b of ev's
// problem (Problem.Covariates) estimated by GLS from the observations at
// theta, b_hat = (X^T Sigma^-1 X)^-1 X^T Sigma^-1 z; x0 holds the
// covariates at the new locations (one column per covariate, as many as
// the problem's). With V = L^-1 Sigma12, w = L^-1 z, Xw = L^-1 X and
// d_i = x0_i - Xw^T V(:, i),
//
//	z2_hat_i = x0_i^T b_hat + V(:, i)^T (w - Xw b_hat),
//	var_i    = C(0) + tau2 - ||V(:, i)||^2 + d_i^T (X^T Sigma^-1 X)^-1 d_i,
//
// the universal-kriging predictor and its variance, which includes the
// uncertainty of b_hat. The products Xw^T V are tasks beside V^T w.
func KrigeUniversal(ev *likelihood.Evaluator, theta []float64, at matern.Points, x0 [][]float64) (*Result, error) {
	p := len(ev.Problem().Covariates)
	if len(x0) != p {
		return nil, fmt.Errorf("predict: %d covariates at the new locations for a mean of %d", len(x0), p)
	}
	for _, c := range x0 {
		if len(c) != len(at.X) {
			return nil, fmt.Errorf("predict: %d covariate values for %d new locations", len(c), len(at.X))
		}
	}
	return krige(ev, theta, at, x0, colTile)
}

// factor makes sure ev holds the Cholesky factor of Sigma(theta).
func factor(ev *likelihood.Evaluator, theta []float64) (bool, error) {
	if cur := ev.Current(); cur != nil && slices.Equal(cur, theta) {
		return false, nil
	}
	_, _, err := ev.LogLik(theta)
	return true, err
}

// crossCov registers the n1 x n2 tiled cross-covariance with ev's row
// tiling (tile row m on the owner of L(m,m)) and column tiles of width cw,
// and submits the generation of its tiles K(X1, at).
func crossCov(ev *likelihood.Evaluator, name string, k matern.Kernel, at matern.Points, cw int) *tile.General {
	p, l := ev.Problem(), ev.Factor()
	rt := ev.Runtime()
	own := l.Owner()
	v := tile.NewGeneral(rt, name, l.N, len(at.X), l.NB, cw, func(m, j int) int { return own(m, m) })
	ts := insert.New(rt, ev.Kernels())
	mt, nt := v.RowLayout.NT, v.ColLayout.NT
	for m := 0; m < mt; m++ {
		for j := 0; j < nt; j++ {
			ts.Dcmg(insert.At(m, j, -1, insert.GenPriority(mt, m, m)), insert.Cov{K: k, Metric: p.Metric, Rows: p.Points, Row0: v.RowLayout.Offset(m),
				Cols: at, Col0: v.ColLayout.Offset(j)}, v.Handle(m, j))
		}
	}
	return v
}

// krige is KrigeUniversal (Krige with x0 nil) with column tiles of width
// max(nb, colWidth).
func krige(ev *likelihood.Evaluator, theta []float64, at matern.Points, x0 [][]float64, colWidth int) (*Result, error) {
	res := &Result{}
	var err error
	if res.Factored, err = factor(ev, theta); err != nil {
		return nil, err
	}
	beta, bcov := ev.GLS()
	np := len(ev.WhitenedCovariates())
	p := ev.Problem()
	n2 := len(at.X)
	if n2 == 0 {
		return nil, fmt.Errorf("predict: no new locations")
	}
	if (p.Points.T != nil) != (at.T != nil) || (p.Points.Z != nil) != (at.Z != nil) {
		return nil, fmt.Errorf("predict: the observed and the new locations must both have times (t) or not, and both a third coordinate or not")
	}
	rmax := math.Max(ev.RMax(), crossMax(p.Metric, p.Points, at))
	k, err := p.Model.Kernel(theta, rmax)
	if err != nil {
		return nil, err
	}
	l := ev.Factor()
	n1 := l.N
	t0 := time.Now()
	// Wide column tiles make the solve's gemm tasks efficient; the row
	// tiles (the factor's) give the parallelism.
	cw := min(n2, max(l.NB, colWidth))
	if p.Model == likelihood.BivariateMatern && cw%2 == 1 && cw < n2 {
		cw++ // even batches: a batch starts with a location's first variable
	}
	// Batches of columns bound the memory of V.
	per := max(cw, batchBytes/(8*max(n1, 1))/cw*cw)
	res.Z, res.Var = make([]float64, 0, n2), make([]float64, 0, n2)
	for b0 := 0; b0 < n2; b0 += per {
		sub := matern.Points{X: at.X[b0:min(n2, b0+per)], Y: at.Y[b0:min(n2, b0+per)]}
		if at.Z != nil {
			sub.Z = at.Z[b0:min(n2, b0+per)]
		}
		if at.T != nil {
			sub.T = at.T[b0:min(n2, b0+per)]
		}
		cr, err := whitenCross(ev, "V", k, sub, cw, true, nil)
		if err != nil {
			return nil, err
		}
		zs, ss, vxs := cr.zw, cr.ss, cr.xw
		c0 := pointVar(k, p.Metric, sub, p.Tau2(theta)) // per point: each variable's own of bivariate data
		d := make([]float64, np)
		for i := range zs {
			z, vr := zs[i], c0[i]-ss[i]
			for c := 0; c < np; c++ {
				d[c] = x0[c][b0+i] - vxs[c][i]
				z += d[c] * beta[c] // x0^T b + V^T w - (Xw^T V)^T b
			}
			for a := 0; a < np; a++ {
				for b := 0; b < np; b++ {
					vr += d[a] * bcov[a][b] * d[b]
				}
			}
			res.Z = append(res.Z, z)
			res.Var = append(res.Var, math.Max(vr, 0))
		}
	}
	res.Seconds = time.Since(t0).Seconds()
	return res, nil
}

// crossProducts are the reductions of V = L^-1 K(X1, pts) for a batch of
// new locations pts against the whitened data: zw = V^T w, xw[c] =
// V^T L^-1 X(:, c) per covariate, and ss, the column sums of squares of V
// (when asked for).
type crossProducts struct {
	zw, ss []float64
	xw     [][]float64
}

// whitenCross submits the generation of the cross-covariance K(X1, pts)
// of kernel k in column tiles of width cw (crossCov), the solve
// V = L^-1 K through ev's factor (solve.Trsm), V's column products with
// the whitened observations and covariates and, with sq, its column sums
// of squares (solve.ColumnProducts), then more(V) (other tasks that read
// V, may be nil); it drops V, waits and returns the products on every
// rank.
func whitenCross(ev *likelihood.Evaluator, name string, k matern.Kernel, pts matern.Points, cw int, sq bool, more func(v *tile.General)) (*crossProducts, error) {
	rt, ts := ev.Runtime(), ev.Tasks()
	n := len(pts.X)
	v := crossCov(ev, name, k, pts, cw)
	solve.Trsm(ts, blas.Left, blas.NoTrans, ev.Factor(), v)
	xs := append([]*tile.Vector{ev.Whitened()}, ev.WhitenedCovariates()...)
	outs := make([]*tile.Vector, len(xs))
	for i := range outs {
		outs[i] = tile.NewVector(rt, fmt.Sprintf("%s'x%d", name, i), n, cw, nil)
	}
	var ss *tile.Vector
	if sq {
		ss = tile.NewVector(rt, name+" ss", n, cw, nil)
	}
	solve.ColumnProducts(ts, v, xs, outs, ss)
	if more != nil {
		more(v)
	}
	v.Invalidate()
	if ss != nil {
		outs = append(outs, ss)
	}
	for _, o := range outs {
		o.Fetch()
	}
	err := rt.Wait()
	cp := &crossProducts{zw: outs[0].Values()}
	for i := 1; i < len(xs); i++ {
		cp.xw = append(cp.xw, outs[i].Values())
	}
	if ss != nil {
		cp.ss = ss.Values()
	}
	for _, o := range outs {
		o.Invalidate()
	}
	return cp, err
}

// crossMax bounds the distances between two point sets.
func crossMax(m matern.Metric, a, b matern.Points) float64 {
	all := matern.Points{X: append(slices.Clone(a.X), b.X...), Y: append(slices.Clone(a.Y), b.Y...)}
	if a.Z != nil && b.Z != nil {
		all.Z = append(slices.Clone(a.Z), b.Z...)
	}
	return matern.MaxDistance(m, all)
}

// Score compares predictions with the held-out truth: the mean squared
// prediction error mean((z - zhat)^2) and the share of z inside the 95 %
// prediction intervals zhat +- 1.959964 sqrt(var).
func Score(z, zhat, variance []float64) (mspe, coverage float64) {
	for i := range z {
		d := z[i] - zhat[i]
		mspe += d * d
		if math.Abs(d) <= 1.959963984540054*math.Sqrt(variance[i]) {
			coverage++
		}
	}
	n := float64(len(z))
	return mspe / n, coverage / n
}
