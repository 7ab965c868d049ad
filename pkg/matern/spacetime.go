package matern

import (
	"fmt"
	"math"
)

// PairKernel is a covariance that is not a function of one spatial
// distance (a space-time or a multivariate covariance): it fills a tile
// itself from the two point sets. FillTile hands a PairKernel the whole
// tile and then adds the nugget on the diagonal as for any kernel; Cov(r)
// is the covariance of two values at spatial distance r and no other
// difference (time lag 0, the same variable), used for the variance Cov(0)
// and for semivariograms.
type PairKernel interface {
	Kernel
	// Fill sets dst[i + j*ld] to the covariance between point row0+i of
	// rows and point col0+j of cols, for 0 <= i < m, 0 <= j < n.
	Fill(metric Metric, rows Points, row0, m int, cols Points, col0, n int, dst []float64, ld int)
}

// SpaceTime is ExaGeoStat's univariate space-time Matérn covariance
// (kernel univariate_spacetime_matern_stationary, core_dcmg_spacetime_matern;
// Gneiting 2002, "Nonseparable, stationary covariance functions for
// space-time data", JASA 97, equation (16) with d = 2): for two points at
// spatial distance h and time lag u,
//
//	psi(u)  = |u|^(2 Alpha) / BetaT + 1,
//	C(h, u) = Sigma2 / psi(u)^(Sep + Delta) * M_Nu( (h / Beta) / psi(u)^(Sep/2) ),
//
// with M_nu(x) = 2^(1-nu)/Gamma(nu) x^nu K_nu(x) the Matérn correlation
// (M_nu(0) = 1), so C(0, 0) = Sigma2. The parameter vector is ExaGeoStat's
// theta in its order:
//
//	theta[0] Sigma2  variance
//	theta[1] Beta    range in space
//	theta[2] Nu      smoothness in space
//	theta[3] BetaT   range in time (Gneiting's a = 1/BetaT)
//	theta[4] Alpha   smoothness in time, 0 < Alpha <= 1
//	theta[5] Sep     space-time nonseparability, 0 <= Sep <= 1 (0: separable)
//	theta[6] Delta   auxiliary parameter in time, Delta >= 0
//
// Gneiting's exponent delta + beta d/2 is Delta + Sep for d = 2, as in
// ExaGeoStat. The points carry their time in Points.T (nil means time 0
// everywhere); h is Distance (Euclidean or great-circle) of the
// spatial coordinates.
type SpaceTime struct {
	Sigma2, Beta, Nu, BetaT, Alpha, Sep, Delta float64
}

// SpaceTimeParams are the names of SpaceTime's parameters in theta order.
var spaceTimeParams = [...]string{"sigma2", "beta", "nu", "beta_t", "alpha", "sep", "delta"}

// SpaceTimeParamNames returns the names of the space-time Matérn's
// parameters in theta order: sigma2, beta, nu, beta_t, alpha, sep, delta.
func SpaceTimeParamNames() []string { return append([]string(nil), spaceTimeParams[:]...) }

// NewSpaceTimeTheta returns the SpaceTime of ExaGeoStat's theta vector
// (7 values, in SpaceTime's order), checked by Validate.
func NewSpaceTimeTheta(theta []float64) (SpaceTime, error) {
	if len(theta) != len(spaceTimeParams) {
		return SpaceTime{}, fmt.Errorf("spacetime-matern needs %d parameters (sigma2,beta,nu,beta_t,alpha,sep,delta), got %d", len(spaceTimeParams), len(theta))
	}
	s := SpaceTime{theta[0], theta[1], theta[2], theta[3], theta[4], theta[5], theta[6]}
	return s, s.Validate()
}

// Validate reports a parameter outside the model's domain: Sigma2, Beta,
// Nu and BetaT must be finite and > 0, Alpha in (0, 1], Sep in [0, 1] and
// Delta finite and >= 0 (Gneiting's conditions for a valid covariance).
func (s SpaceTime) Validate() error {
	v := [...]float64{s.Sigma2, s.Beta, s.Nu, s.BetaT, s.Alpha, s.Sep, s.Delta}
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%s must be finite, got %g", spaceTimeParams[i], x)
		}
	}
	for i := range 4 {
		if !(v[i] > 0) {
			return fmt.Errorf("%s must be positive and finite, got %g", spaceTimeParams[i], v[i])
		}
	}
	if !(s.Alpha > 0 && s.Alpha <= 1) {
		return fmt.Errorf("alpha must be in (0, 1], got %g", s.Alpha)
	}
	if !(s.Sep >= 0 && s.Sep <= 1) {
		return fmt.Errorf("sep must be in [0, 1], got %g", s.Sep)
	}
	if !(s.Delta >= 0) {
		return fmt.Errorf("delta must be >= 0, got %g", s.Delta)
	}
	return nil
}

// CovST returns C(h, u), evaluated directly (Matern with BesselK): the
// reference of the fast kernel that NewSpaceTime builds.
func (s SpaceTime) CovST(h, u float64) float64 {
	psi := math.Pow(math.Abs(u), 2*s.Alpha)/s.BetaT + 1
	x := (math.Abs(h) / s.Beta) / math.Pow(psi, s.Sep/2)
	return s.Sigma2 / math.Pow(psi, s.Sep+s.Delta) * newDirect(s.Nu).corr(x)
}

// Cov returns C(r, 0), the spatial covariance at time lag 0.
func (s SpaceTime) Cov(r float64) float64 { return s.CovST(r, 0) }

// Fill evaluates the tile directly (CovST per entry): see PairKernel.
func (s SpaceTime) Fill(metric Metric, rows Points, row0, m int, cols Points, col0, n int, dst []float64, ld int) {
	for j := range n {
		for i := range m {
			dst[i+j*ld] = s.CovST(Distance(metric, rows, row0+i, cols, col0+j), timeLag(rows, row0+i, cols, col0+j))
		}
	}
}

// timeLag returns |T_i - T_j| (0 when the points have no times).
func timeLag(p Points, i int, q Points, j int) float64 {
	if p.T == nil || q.T == nil {
		return 0
	}
	return math.Abs(p.T[i] - q.T[j])
}

// spaceTimeKernel is the fast SpaceTime: the Matérn correlation comes from
// NewMatern's interpolant (sigma2 = 1, beta = 1, so that its argument is
// x itself), and psi(u)^(-Sep/2), psi(u)^-(Sep+Delta) are computed once per
// distinct time lag in a column run.
type spaceTimeKernel struct {
	s    SpaceTime
	corr Kernel // M_Nu(x), x up to rmax/Beta
}

// NewSpaceTime returns a fast evaluator of s for spatial distances up to
// rmax (relative error below 1e-12 against CovST, like NewMatern): the
// returned kernel is a PairKernel, safe for concurrent use.
func NewSpaceTime(s SpaceTime, rmax float64) (PairKernel, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	c, err := NewMatern(Theta{Sigma2: 1, Beta: 1, Nu: s.Nu}, rmax/s.Beta)
	if err != nil {
		return nil, err
	}
	return &spaceTimeKernel{s: s, corr: c}, nil
}

func (k *spaceTimeKernel) Cov(r float64) float64 {
	return k.s.Sigma2 * k.corr.Cov(math.Abs(r)/k.s.Beta)
}

// Fill writes the tile column by column: x = (h/Beta)/psi^(Sep/2) into the
// column, one CovRow of the correlation, then the factor
// Sigma2/psi^(Sep+Delta).
func (k *spaceTimeKernel) Fill(metric Metric, rows Points, row0, m int, cols Points, col0, n int, dst []float64, ld int) {
	s := k.s
	scale := make([]float64, m)
	rk, _ := k.corr.(RowKernel)
	lastU, lastShrink, lastScale := math.NaN(), 0.0, 0.0
	plane := metric == Euclidean && rows.Z == nil && cols.Z == nil
	timed := rows.T != nil && cols.T != nil
	for j := range n {
		col := dst[j*ld : j*ld+m]
		for i := range m {
			u := 0.0
			if timed {
				u = math.Abs(rows.T[row0+i] - cols.T[col0+j])
			}
			if u != lastU {
				psi := math.Pow(u, 2*s.Alpha)/s.BetaT + 1
				lastU, lastShrink, lastScale = u, math.Pow(psi, s.Sep/2), s.Sigma2/math.Pow(psi, s.Sep+s.Delta)
			}
			var h float64
			if plane { // Distance's Euclidean 2D formula, inlined
				dx, dy := rows.X[row0+i]-cols.X[col0+j], rows.Y[row0+i]-cols.Y[col0+j]
				h = math.Sqrt(dx*dx + dy*dy)
			} else {
				h = Distance(metric, rows, row0+i, cols, col0+j)
			}
			col[i] = (h / s.Beta) / lastShrink
			scale[i] = lastScale
		}
		if rk != nil {
			rk.CovRow(col, col)
		} else {
			for i, x := range col {
				col[i] = k.corr.Cov(x)
			}
		}
		for i := range col {
			col[i] *= scale[i]
		}
	}
}
