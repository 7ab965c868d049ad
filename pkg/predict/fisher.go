package predict

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"

	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
)

// Dense computations below work on full column-major n x n matrices with
// the BLAS library using `threads` threads: they are O(n^3) like one
// factorisation each and run once after a fit.

// fill writes Sigma(i, j) = k(d(p_i, q_j)) (+ nugget on the diagonal when
// diag) into the column-major len(p) x len(q) matrix a, using threads
// goroutines over column blocks.
func fill(a []float64, k matern.Kernel, nugget float64, metric matern.Metric, p, q matern.Points, diag bool, threads int) {
	n1, n2 := len(p.X), len(q.X)
	var wg sync.WaitGroup
	const blk = 64
	for t := 0; t < threads; t++ {
		wg.Add(1)
		go func(t int) {
			defer wg.Done()
			for c0 := t * blk; c0 < n2; c0 += threads * blk {
				cols := min(blk, n2-c0)
				matern.FillTile(k, nugget, metric, p, 0, n1, q, c0, cols, diag, a[c0*n1:], n1)
			}
		}(t)
	}
	wg.Wait()
}

// potrf factors the full matrix a in place (lower) with threads BLAS threads.
func potrf(a []float64, n, threads int) error {
	ctl := kernels.DefaultThreads()
	ctl.SetThreads(threads)
	defer ctl.SetThreads(1)
	if info := kernels.Default().Dpotrf(n, a, n); info != 0 {
		return fmt.Errorf("%w: leading minor of order %d", likelihood.ErrNotPosDef, info)
	}
	return nil
}

// Fisher is the Fisher information of the estimated parameters and what
// follows from it.
type Fisher struct {
	Params []string    // names of the estimated (free) parameters
	Index  []int       // their positions in theta
	Info   [][]float64 // I_jk = 1/2 tr(Sigma^-1 dSigma/dtheta_j Sigma^-1 dSigma/dtheta_k)
	Cov    [][]float64 // I^-1, the asymptotic covariance of the estimates
	StdErr []float64   // sqrt(diag(I^-1))
}

// derivStep is the relative step of the numerical derivatives.
const derivStep = 1e-3

// FisherInfo computes the Fisher information of the free parameters (those
// with free[j] true) at theta for the locations of problem p (nugget
// included in Sigma, not estimated):
//
//	I_jk = 1/2 tr(Sigma^-1 D_j Sigma^-1 D_k),  D_j = dSigma/dtheta_j,
//
// as 1/2 sum(A_j .* A_k) with A_j = L^-1 D_j L^-T. D for sigma2 is exact,
// (Sigma - tau2 I)/sigma2; the others are fourth-order central differences
// (Richardson) with relative step 1e-3 of the fast covariance evaluator,
// accurate to about 1e-9 relative (see the tests).
func FisherInfo(p likelihood.Problem, theta []float64, free []bool, threads int) (*Fisher, error) {
	n := len(p.Points.X)
	names := p.Model.ParamNames()
	rmax := matern.MaxDistance(p.Metric, p.Points)
	k, err := p.Model.Kernel(theta, rmax)
	if err != nil {
		return nil, err
	}
	f := &Fisher{}
	for j, ok := range free {
		if ok {
			f.Params = append(f.Params, names[j])
			f.Index = append(f.Index, j)
		}
	}
	if len(f.Index) == 0 {
		return nil, errors.New("fisher: no estimated parameter")
	}
	l := make([]float64, n*n)
	fill(l, k, p.Nugget, p.Metric, p.Points, p.Points, true, threads)
	if err := potrf(l, n, threads); err != nil {
		return nil, err
	}
	kern, ctl := kernels.Default(), kernels.DefaultThreads()
	as := make([][]float64, len(f.Index))
	for a, j := range f.Index {
		d := make([]float64, n*n)
		if j == 0 && (p.Model == likelihood.Matern || p.Model == likelihood.PowExp) {
			fill(d, k, 0, p.Metric, p.Points, p.Points, false, threads)
			for i := range d {
				d[i] /= theta[0]
			}
		} else if err := derivative(d, p, theta, j, rmax, threads); err != nil {
			return nil, err
		}
		// A = L^-1 D L^-T.
		ctl.SetThreads(threads)
		kern.Dtrsm(blas.Left, blas.Lower, blas.NoTrans, blas.NonUnit, n, n, 1, l, n, d, n)
		kern.Dtrsm(blas.Right, blas.Lower, blas.Trans, blas.NonUnit, n, n, 1, l, n, d, n)
		ctl.SetThreads(1)
		as[a] = d
	}
	m := len(f.Index)
	info := mat.NewSymDense(m, nil)
	f.Info = make([][]float64, m)
	for a := 0; a < m; a++ {
		f.Info[a] = make([]float64, m)
	}
	for a := 0; a < m; a++ {
		for b := 0; b <= a; b++ {
			v := 0.5 * kern.Ddot(n*n, as[a], 1, as[b], 1)
			f.Info[a][b], f.Info[b][a] = v, v
			info.SetSym(a, b, v)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(info) {
		return nil, errors.New("fisher: information matrix is singular (a parameter is not identifiable here)")
	}
	var inv mat.SymDense
	if err := ch.InverseTo(&inv); err != nil {
		return nil, err
	}
	f.Cov = make([][]float64, m)
	for a := 0; a < m; a++ {
		f.Cov[a] = make([]float64, m)
		for b := 0; b < m; b++ {
			f.Cov[a][b] = inv.At(a, b)
		}
		f.StdErr = append(f.StdErr, math.Sqrt(inv.At(a, a)))
	}
	return f, nil
}

// derivative writes dSigma/dtheta_j (no nugget) into d by the fourth-order
// central difference (8 (f(+h) - f(-h)) - (f(+2h) - f(-2h))) / (12 h).
func derivative(d []float64, p likelihood.Problem, theta []float64, j int, rmax float64, threads int) error {
	n := len(p.Points.X)
	h := derivStep * theta[j]
	tmp := make([]float64, n*n)
	for _, s := range []struct{ step, w float64 }{{1, 8}, {-1, -8}, {2, -1}, {-2, 1}} {
		th := append([]float64(nil), theta...)
		th[j] += s.step * h
		k, err := p.Model.Kernel(th, rmax)
		if err != nil {
			return fmt.Errorf("fisher: derivative in %s: %v", p.Model.ParamNames()[j], err)
		}
		fill(tmp, k, 0, p.Metric, p.Points, p.Points, false, threads)
		for i := range d {
			d[i] += s.w * tmp[i]
		}
	}
	for i := range d {
		d[i] /= 12 * h
	}
	return nil
}

// Efficiency is the MLOE/MMOM assessment of predicting with estimated rather
// than true parameters (Hong et al.): at each prediction location s0, with
// the kriging predictor built from theta_a (estimated) or theta_0 (true),
//
//	LOE(s0) = E0[(Z(s0) - zhat_a)^2] / E0[(Z(s0) - zhat_0)^2] - 1,
//	MOM(s0) = Ea[(Z(s0) - zhat_a)^2] / E0[(Z(s0) - zhat_a)^2] - 1,
//
// where E0 and Ea are expectations under the true and estimated models;
// MLOE and MMOM are their means over the prediction locations.
type Efficiency struct {
	MLOE, MMOM float64
}

// MLOEMMOM computes Efficiency for observed locations p (nugget included)
// and prediction locations at.
func MLOEMMOM(p likelihood.Problem, at matern.Points, thetaTrue, thetaEst []float64, threads int) (*Efficiency, error) {
	n1, n2 := len(p.Points.X), len(at.X)
	rmax := math.Max(matern.MaxDistance(p.Metric, p.Points), crossMax(p.Metric, p.Points, at))
	k0, err := p.Model.Kernel(thetaTrue, rmax)
	if err != nil {
		return nil, fmt.Errorf("true theta: %v", err)
	}
	ka, err := p.Model.Kernel(thetaEst, rmax)
	if err != nil {
		return nil, fmt.Errorf("estimated theta: %v", err)
	}
	kern, ctl := kernels.Default(), kernels.DefaultThreads()
	s0 := make([]float64, n1*n1) // full Sigma0, kept
	fill(s0, k0, p.Nugget, p.Metric, p.Points, p.Points, true, threads)
	l0 := append([]float64(nil), s0...)
	la := make([]float64, n1*n1)
	fill(la, ka, p.Nugget, p.Metric, p.Points, p.Points, true, threads)
	if err := potrf(l0, n1, threads); err != nil {
		return nil, fmt.Errorf("true theta: %w", err)
	}
	if err := potrf(la, n1, threads); err != nil {
		return nil, fmt.Errorf("estimated theta: %w", err)
	}
	c0 := make([]float64, n1*n2)
	fill(c0, k0, 0, p.Metric, p.Points, at, false, threads)
	ca := make([]float64, n1*n2)
	fill(ca, ka, 0, p.Metric, p.Points, at, false, threads)
	ua := append([]float64(nil), ca...) // Sigma_a^-1 c_a
	u0 := append([]float64(nil), c0...) // L0^-1 c0
	sua := make([]float64, n1*n2)       // Sigma0 Sigma_a^-1 c_a
	ctl.SetThreads(threads)
	kern.Dtrsm(blas.Left, blas.Lower, blas.NoTrans, blas.NonUnit, n1, n2, 1, la, n1, ua, n1)
	kern.Dtrsm(blas.Left, blas.Lower, blas.Trans, blas.NonUnit, n1, n2, 1, la, n1, ua, n1)
	kern.Dtrsm(blas.Left, blas.Lower, blas.NoTrans, blas.NonUnit, n1, n2, 1, l0, n1, u0, n1)
	kern.Dgemm(blas.NoTrans, blas.NoTrans, n1, n2, n1, 1, s0, n1, ua, n1, 0, sua, n1)
	ctl.SetThreads(1)
	var e Efficiency
	cz0, cza := k0.Cov(0)+p.Nugget, ka.Cov(0)+p.Nugget
	for j := 0; j < n2; j++ {
		col := func(x []float64) []float64 { return x[j*n1 : (j+1)*n1] }
		mse0 := cz0 - kern.Ddot(n1, col(u0), 1, col(u0), 1)
		msea0 := cz0 - 2*kern.Ddot(n1, col(ua), 1, col(c0), 1) + kern.Ddot(n1, col(ua), 1, col(sua), 1)
		mseaa := cza - kern.Ddot(n1, col(ua), 1, col(ca), 1)
		e.MLOE += msea0/mse0 - 1
		e.MMOM += mseaa/msea0 - 1
	}
	e.MLOE /= float64(n2)
	e.MMOM /= float64(n2)
	return &e, nil
}
