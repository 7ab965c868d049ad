package predict

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"

	"github.com/exageostat/exageostat/pkg/insert"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/solve"
	"github.com/exageostat/exageostat/pkg/tile"
)

// The computations below are tiled task graphs on the evaluator's runtime
// and tile distribution, like the likelihood: every rank of a distributed
// run calls them and gets the same result, and no rank holds more than its
// share of the tiles plus the replicas it reads.

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

// ErrNoEstimate is the error of FisherInfo when no parameter is free.
var ErrNoEstimate = errors.New("fisher: no estimated parameter (every parameter is fixed: lb = ub)")

// ErrSingularInfo is wrapped by the error of FisherInfo when the
// information matrix is not numerically positive definite or not finite:
// some parameter (or combination) is not identifiable from these data at
// theta, and has no finite standard error.
var ErrSingularInfo = errors.New("fisher: information matrix is singular (a parameter is not identifiable here)")

// FisherInfo computes the Fisher information of the free parameters (those
// with free[j] true) at theta for the locations of ev's problem (the
// problem's nugget included in Sigma; or, for a theta that carries the
// nugget (Model.HasTau2: 4 values for matern), tau2 = its last value, a
// parameter with dSigma/dtau2 = I):
//
//	I_jk = 1/2 tr(Sigma^-1 D_j Sigma^-1 D_k),  D_j = dSigma/dtheta_j,
//
// as 1/2 sum(A_j .* A_k) with A_j = L^-1 D_j L^-T, summed tile by tile in
// a fixed order. Each A_j is a full tiled matrix distributed like the
// factor (tile (m, n) with tile (max, min) of L): D_j is generated tile by
// tile, then solved from the left (L^-1 D_j) and from the right (. L^-T).
// D for sigma2 is exact, (Sigma - tau2 I)/sigma2; the others are
// fourth-order central differences (Richardson) with relative step 1e-3 of
// the fast covariance evaluator, accurate to about 1e-9 relative (see the
// tests). ev's factor is reused when it holds theta.
func FisherInfo(ev *likelihood.Evaluator, theta []float64, free []bool) (*Fisher, error) {
	p := ev.Problem()
	names := p.Model.ParamNamesFor(len(theta))
	f := &Fisher{}
	for j, ok := range free {
		if ok {
			f.Params = append(f.Params, names[j])
			f.Index = append(f.Index, j)
		}
	}
	if len(f.Index) == 0 {
		return nil, ErrNoEstimate
	}
	if _, err := factor(ev, theta); err != nil {
		return nil, err
	}
	rt := ev.Runtime()
	defer rt.Trim()
	ts := ev.Tasks()
	l := ev.Factor()
	n, nb, nt := l.N, l.NB, l.NT
	own := tile.SymOwner(l.Owner())
	scratch := rt.Register("fisher scratch", 0, runtime.Dense{M: nb, N: nb})
	as := make([]*tile.General, len(f.Index))
	defer func() {
		for _, a := range as {
			if a != nil {
				a.Invalidate()
			}
		}
		rt.Wait()
	}()
	for a, j := range f.Index {
		terms, err := derivTerms(p, theta, j, ev.RMax())
		if err != nil {
			return nil, err
		}
		d := tile.NewGeneral(rt, fmt.Sprintf("D%d", j), n, n, nb, nb, own)
		for m := 0; m < nt; m++ {
			for c := 0; c < nt; c++ {
				ts.Dderiv(insert.At(m, c, -1, 0), insert.Cov{Metric: p.Metric, Rows: p.Points, Row0: l.Offset(m),
					Cols: p.Points, Col0: l.Offset(c), Diag: m == c}, terms, d.Handle(m, c), scratch)
			}
		}
		solve.Trsm(ts, blas.Left, blas.NoTrans, l, d)
		solve.Trsm(ts, blas.Right, blas.Trans, l, d)
		as[a] = d
	}
	m := len(f.Index)
	f.Info = make([][]float64, m)
	sums := make([][]*solve.Scalars, m)
	for a := 0; a < m; a++ {
		f.Info[a] = make([]float64, m)
		sums[a] = make([]*solve.Scalars, m)
		for b := 0; b <= a; b++ {
			s := solve.NewScalars(rt, fmt.Sprintf("I%d%d", a, b), nt*nt, func(i int) int { return own(i%nt, i/nt) })
			for c := 0; c < nt; c++ {
				for r := 0; r < nt; r++ {
					ts.Tdot(insert.At(r, c, -1, 0), as[a].Handle(r, c), as[b].Handle(r, c), s.Handle(r+c*nt))
				}
			}
			s.Fetch()
			sums[a][b] = s
		}
	}
	if err := rt.Wait(); err != nil {
		return nil, err
	}
	info := mat.NewSymDense(m, nil)
	for a := 0; a < m; a++ {
		for b := 0; b <= a; b++ {
			v := 0.5 * sums[a][b].Sum()
			f.Info[a][b], f.Info[b][a] = v, v
			info.SetSym(a, b, v)
		}
	}
	for a := 0; a < m; a++ {
		for b := 0; b < m; b++ {
			if v := f.Info[a][b]; math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: I(%s, %s) = %v", ErrSingularInfo, f.Params[a], f.Params[b], v)
			}
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(info) {
		return nil, ErrSingularInfo
	}
	// A factorisation that succeeds on a nearly singular matrix still
	// gives meaningless variances: refuse a condition number beyond 1e15.
	if c := ch.Cond(); !(c < 1e15) {
		return nil, fmt.Errorf("%w: condition number %.3g", ErrSingularInfo, c)
	}
	var inv mat.SymDense
	if err := ch.InverseTo(&inv); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSingularInfo, err)
	}
	f.Cov = make([][]float64, m)
	for a := 0; a < m; a++ {
		f.Cov[a] = make([]float64, m)
		for b := 0; b < m; b++ {
			f.Cov[a][b] = inv.At(a, b)
		}
		se := math.Sqrt(inv.At(a, a))
		if math.IsNaN(se) || math.IsInf(se, 0) || se <= 0 {
			return nil, fmt.Errorf("%w: variance of %s = %v", ErrSingularInfo, f.Params[a], inv.At(a, a))
		}
		f.StdErr = append(f.StdErr, se)
	}
	return f, nil
}

// derivTerms returns dSigma/dtheta_j (no nugget) as a linear combination of
// covariances: Sigma/sigma2 for sigma2, the identity for tau2 (the last
// value of a theta that carries it), otherwise the fourth-order central difference
// (8 (C(+h) - C(-h)) - (C(+2h) - C(-2h))) / (12 h), or a one-sided one of
// the same order where a central step leaves the model's domain
// (diffRules).
func derivTerms(p likelihood.Problem, theta []float64, j int, rmax float64) ([]insert.Term, error) {
	if p.Model.HasTau2(len(theta)) && j == len(theta)-1 {
		return []insert.Term{{Weight: 1}}, nil // K nil: the identity
	}
	if j == 0 && (p.Model == likelihood.Matern || p.Model == likelihood.PowExp || p.Model == likelihood.SpaceTimeMatern || p.Model == likelihood.AnisoMatern) {
		k, err := p.Model.Kernel(theta, rmax)
		if err != nil {
			return nil, err
		}
		return []insert.Term{{K: k, Weight: 1 / theta[0]}}, nil
	}
	h := derivStep * math.Abs(theta[j])
	if h == 0 { // a parameter at 0 (an angle, a correlation): an absolute step
		h = derivStep
	}
	var err error
	for _, rule := range diffRules() {
		var terms []insert.Term
		for _, s := range rule {
			th := append([]float64(nil), theta...)
			th[j] += s.step * h
			var k matern.Kernel
			if k, err = p.Model.Kernel(th, rmax); err != nil {
				break
			}
			terms = append(terms, insert.Term{K: k, Weight: s.w / (12 * h)})
		}
		if err == nil {
			return terms, nil
		}
	}
	return nil, fmt.Errorf("fisher: derivative in %s: %v", p.Model.ParamNames()[j], err)
}

// diffRules are the fourth-order finite differences of derivTerms (steps
// in units of h, weights over 12 h): central, then one-sided backward and
// forward for a parameter at the edge of its domain (a space-time alpha
// or sep at 1).
func diffRules() [3][]struct{ step, w float64 } {
	return [3][]struct{ step, w float64 }{
		{{1, 8}, {-1, -8}, {2, -1}, {-2, 1}},
		{{0, 25}, {-1, -48}, {-2, 36}, {-3, -16}, {-4, 3}},
		{{0, -25}, {1, 48}, {2, -36}, {3, 16}, {4, -3}},
	}
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

// MLOEMMOM computes Efficiency for the observed locations of ev's problem
// (nugget included) and prediction locations at, as tile task graphs.
// With Sigma_0 = L0 L0^T and Sigma_a = La La^T (ev's factor, reused when
// it holds thetaEst), c0 and ca the cross-covariances of a location s0,
// and Va = La^-1 ca, U0 = L0^-1 c0, Wa0 = La^-1 c0, Ua = La^-T Va:
//
//	E0[(Z - zhat_0)^2] = C0(0) - ||U0||^2,
//	E0[(Z - zhat_a)^2] = C0(0) - 2 Va.Wa0 + ||L0^T Ua||^2,
//	Ea[(Z - zhat_a)^2] = Ca(0) - ||Va||^2,
//
// (C(0) includes the nugget) column by column of the tiled n1 x n2
// matrices.
func MLOEMMOM(ev *likelihood.Evaluator, at matern.Points, thetaTrue, thetaEst []float64) (*Efficiency, error) {
	p := ev.Problem()
	n2 := len(at.X)
	if n2 == 0 {
		return nil, errors.New("MLOE/MMOM: no prediction locations")
	}
	rmax := math.Max(ev.RMax(), crossMax(p.Metric, p.Points, at))
	k0, err := p.Model.Kernel(thetaTrue, rmax)
	if err != nil {
		return nil, fmt.Errorf("true theta: %v", err)
	}
	ka, err := p.Model.Kernel(thetaEst, rmax)
	if err != nil {
		return nil, fmt.Errorf("estimated theta: %v", err)
	}
	if _, err := factor(ev, thetaEst); err != nil {
		return nil, fmt.Errorf("estimated theta: %w", err)
	}
	rt := ev.Runtime()
	defer rt.Trim()
	ev0, err := likelihood.NewWith(p, rt, ev.Options())
	if err != nil {
		return nil, err
	}
	defer ev0.Release()
	if _, _, err := ev0.LogLik(thetaTrue); err != nil {
		return nil, fmt.Errorf("true theta: %w", err)
	}
	ts, ts0 := ev.Tasks(), ev0.Tasks()
	la, l0 := ev.Factor(), ev0.Factor()
	cw := min(n2, max(la.NB, colTile))
	va := crossCov(ev, "Va", ka, at, cw)
	wa0 := crossCov(ev, "Wa0", k0, at, cw)
	u0 := crossCov(ev, "U0", k0, at, cw)
	defer func() {
		va.Invalidate()
		wa0.Invalidate()
		u0.Invalidate()
		rt.Wait()
	}()
	solve.Trsm(ts, blas.Left, blas.NoTrans, la, va)
	solve.Trsm(ts, blas.Left, blas.NoTrans, la, wa0)
	solve.Trsm(ts0, blas.Left, blas.NoTrans, l0, u0)
	ssa := tile.NewVector(rt, "ssa", n2, cw, nil) // ||Va||^2
	ss0 := tile.NewVector(rt, "ss0", n2, cw, nil) // ||U0||^2
	dot := tile.NewVector(rt, "dot", n2, cw, nil) // Va . Wa0
	ssy := tile.NewVector(rt, "ssy", n2, cw, nil) // ||L0^T Ua||^2
	solve.ColumnProducts(ts, va, nil, nil, ssa)
	solve.ColumnProducts(ts, u0, nil, nil, ss0)
	solve.ColumnDots(ts, va, wa0, dot)
	solve.Trsm(ts, blas.Left, blas.Trans, la, va)  // Ua
	solve.Trmm(ts0, blas.Left, blas.Trans, l0, va) // L0^T Ua
	solve.ColumnProducts(ts, va, nil, nil, ssy)
	for _, v := range []*tile.Vector{ssa, ss0, dot, ssy} {
		v.Fetch()
	}
	if err := rt.Wait(); err != nil {
		return nil, err
	}
	sa, s0, d, sy := ssa.Values(), ss0.Values(), dot.Values(), ssy.Values()
	for _, v := range []*tile.Vector{ssa, ss0, dot, ssy} {
		v.Invalidate()
	}
	cz0, cza := k0.Cov(0)+p.Tau2(thetaTrue), ka.Cov(0)+p.Tau2(thetaEst)
	var e Efficiency
	for j := 0; j < n2; j++ {
		mse0 := cz0 - s0[j]
		msea0 := cz0 - 2*d[j] + sy[j]
		mseaa := cza - sa[j]
		e.MLOE += msea0/mse0 - 1
		e.MMOM += mseaa/msea0 - 1
	}
	e.MLOE /= float64(n2)
	e.MMOM /= float64(n2)
	return &e, nil
}

// FisherNeed returns, for each of ranks ranks, the bytes FisherInfo with
// params free parameters adds to the likelihood's (MemoryNeed): the tiles
// of params full n x n matrices the rank owns (distributed like the
// factor), plus one tile column of replicas.
func FisherNeed(n int, o likelihood.Options, params, ranks int) []int64 {
	l := tile.NewLayout(n, o.NB)
	own := tile.SymOwner(o.Owner)
	out := make([]int64, ranks)
	for m := 0; m < l.NT; m++ {
		for c := 0; c < l.NT; c++ {
			out[min(max(own(m, c), 0), ranks-1)] += int64(8*params*l.Rows(m)*l.Rows(c)) + 8
		}
	}
	for r := range out {
		out[r] += int64(8 * l.NT * o.NB * o.NB)
	}
	return out
}

// KrigeNeed returns, for each of ranks ranks, the bytes Krige at n2 new
// locations adds to the likelihood's (MemoryNeed): the rank's rows of one
// batch of the cross-covariance V (at most batchBytes over all ranks), the
// predictions, and one tile column of replicas. MLOEMMOM needs three such
// batches at once plus a second likelihood's tiles.
func KrigeNeed(n1, n2 int, o likelihood.Options, ranks int) []int64 {
	l := tile.NewLayout(n1, o.NB)
	own := o.Owner
	if own == nil {
		own = tile.Local
	}
	cw := min(n2, max(o.NB, colTile))
	per := min(n2, max(cw, batchBytes/(8*max(n1, 1))/cw*cw))
	out := make([]int64, ranks)
	for m := 0; m < l.NT; m++ {
		out[min(max(own(m, m), 0), ranks-1)] += int64(8 * l.Rows(m) * per)
	}
	for r := range out {
		out[r] += int64(16*n2) + int64(8*l.NT*o.NB*cw)
	}
	return out
}
