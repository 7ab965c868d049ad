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
// approximate factor L~, read tile by tile in its format (lfactor): the
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
	"github.com/exageostat/exageostat/pkg/runtime"
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
			ts.Dcmg(insert.At(m, j, -1, 3*mt-m), insert.Cov{K: k, Metric: p.Metric, Rows: p.Points, Row0: v.RowLayout.Offset(m),
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
	xw := ev.WhitenedCovariates()
	np := len(xw)
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
	rt, kern := ev.Runtime(), ev.Kernels()
	ts := insert.New(rt, kern)
	l, w := factorOf(ev), ev.Whitened()
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
		v := crossCov(ev, "V", k, sub, cw)
		solveLower(ts, l, v)
		// z2_hat(j) = sum_k V(k,j)^T w(k); ss(j) = column sums of V(:,j)^2,
		// each accumulated next to V(k,j) and travelling down the rows.
		pred := tile.NewVector(rt, "zhat", len(sub.X), cw, nil)
		sq := tile.NewVector(rt, "ss", len(sub.X), cw, nil)
		vx := make([]*tile.Vector, np) // Xw(:, c)^T V, per covariate c
		for c := range vx {
			vx[c] = tile.NewVector(rt, fmt.Sprintf("vx%d", c), len(sub.X), cw, nil)
		}
		columnProducts(ts, v, append([]*tile.Vector{w}, xw...), append([]*tile.Vector{pred}, vx...), sq)
		v.Invalidate()
		pred.Fetch()
		sq.Fetch()
		for _, x := range vx {
			x.Fetch()
		}
		if err := rt.Wait(); err != nil {
			return nil, err
		}
		zs, ss := pred.Values(), sq.Values()
		c0 := pointVar(k, p.Metric, sub, p.Tau2(theta)) // per point: each variable's own of bivariate data
		vxs := make([][]float64, np)
		for c, x := range vx {
			vxs[c] = x.Values()
			x.Invalidate()
		}
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
		pred.Invalidate()
		sq.Invalidate()
	}
	res.Seconds = time.Since(t0).Seconds()
	return res, nil
}

// lfactor is the Cholesky factor of an evaluator as the solves read it:
// the dense diagonal tiles of its tile.Sym, and the off-diagonal tiles in
// the format of the evaluator's computation (likelihood.Evaluator.FactorTile:
// dense for exact, U V^T for tlr, float32 off the band for mp, nil where
// dst dropped a tile). mul dispatches each tile product on that format
// (insert.FactorMul), so predictions, the Fisher information and MLOE/MMOM
// use the approximate factor of an approximate evaluator; for exact the
// tasks are the dense gemm of before.
type lfactor struct {
	*tile.Sym
	ev *likelihood.Evaluator
}

// factorOf returns the factor ev holds.
func factorOf(ev *likelihood.Evaluator) lfactor { return lfactor{Sym: ev.Factor(), ev: ev} }

// mul submits c = c + alpha op(L(m, n)) b (side Left) or c + alpha b
// op(L(m, n)) (side Right); nothing for a dropped tile.
func (l lfactor) mul(ts insert.Tasks, at insert.Place, side blas.Side, trans blas.Transpose, alpha float64, m, n int, b, c *runtime.Handle) {
	a := l.ev.FactorTile(m, n)
	if a == nil {
		return
	}
	cp, k := l.ev.Compressor()
	ts.FactorMul(at, cp, side, trans, alpha, a, b, c, k)
}

// flush tells the runtime that the factor tile (m, n) is read no more.
func (l lfactor) flush(rt *runtime.Runtime, m, n int) {
	if a := l.ev.FactorTile(m, n); a != nil {
		rt.Flush(a)
	}
}

// solveLower submits V = L^-1 V for the lower factor l and a tiled matrix v
// with l's row tiling (left-looking order of a tiled trsm), multiplying by
// the inverses of the diagonal blocks (dtrmm is about twice as fast as
// dtrsm on tiles). Each step's factor tiles and V's panel row are flushed
// after their last read.
func solveLower(ts insert.Tasks, l lfactor, v *tile.General) {
	mt, nt := v.RowLayout.NT, v.ColLayout.NT
	rt := ts.RT
	for kk := 0; kk < mt; kk++ {
		inv := l.DiagWork(kk)
		ts.Trtri(insert.At(kk, kk, kk, 2*(mt-kk)+1), l.Handle(kk, kk), inv, l.Offset(kk))
		for j := 0; j < nt; j++ {
			ts.Trmm(insert.At(kk, j, kk, 2*(mt-kk)), blas.Left, blas.NoTrans, inv, v.Handle(kk, j))
			for m := kk + 1; m < mt; m++ {
				l.mul(ts, insert.At(m, j, kk, 2*(mt-kk)-(m-kk)), blas.Left, blas.NoTrans,
					-1, m, kk, v.Handle(kk, j), v.Handle(m, j))
			}
			rt.Flush(v.Handle(kk, j))
		}
		rt.Invalidate(inv)
		for m := kk; m < mt; m++ {
			l.flush(rt, m, kk)
		}
	}
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

// columnProducts submits, for each column tile j of v and each vector
// xs[i] tiled like v's rows, outs[i](j) = sum_k V(k,j)^T xs[i](k) and,
// when sq is not nil, sq(j) = the column sums of squares of V(:,j): each
// accumulated next to V(k,j) on its owner, travelling down the row tiles
// in order k = 0, 1, ... (the same sums on any number of ranks).
func columnProducts(ts insert.Tasks, v *tile.General, xs, outs []*tile.Vector, sq *tile.Vector) {
	mt, nt := v.RowLayout.NT, v.ColLayout.NT
	for j := 0; j < nt; j++ {
		for kk := 0; kk < mt; kk++ {
			pl := insert.At(kk, j, -1, 0).On(v.Handle(kk, j).Owner())
			beta := 1.0
			if kk == 0 {
				beta = 0
			}
			for i, x := range xs {
				ts.Gemv(pl, blas.Trans, 1, v.Handle(kk, j), x.Handle(kk), beta, outs[i].Handle(j))
			}
			if sq != nil {
				ts.Colss(pl, v.Handle(kk, j), sq.Handle(j), kk == 0)
			}
		}
	}
}
