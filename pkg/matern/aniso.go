package matern

import (
	"fmt"
	"math"
)

// Aniso is the 2D Matérn covariance with geometric anisotropy: its
// correlation falls off with the range Beta along a major axis at angle
// Angle and with the shorter range Beta/Ratio along the minor axis
// orthogonal to it. For two points with lag (dx, dy) = p_i - p_j,
//
//	u  =  cos(Angle) dx + sin(Angle) dy     (the lag along the major axis),
//	v  = -sin(Angle) dx + cos(Angle) dy     (the lag along the minor axis),
//	r' = sqrt(u^2 + (Ratio v)^2),
//	C(dx, dy) = Sigma2 M_Nu(r'/Beta),
//
// M_nu(x) = 2^(1-nu)/Gamma(nu) x^nu K_nu(x) the Matérn correlation (M_nu(0)
// = 1, no sqrt(2 nu) factor, as ExaGeoStat's Matérn): the lag is rotated
// by -Angle and its minor-axis component stretched by Ratio. The
// parameter vector theta is
//
//	theta[0] Sigma2  variance
//	theta[1] Beta    range along the major axis
//	theta[2] Nu      smoothness
//	theta[3] Angle   direction of the major axis, in radians counter-clockwise
//	                 from the x axis (the model has period pi in Angle)
//	theta[4] Ratio   major range / minor range, >= 1 (1: isotropic)
//
// With Ratio = 1 it is the isotropic Matérn (Theta) whatever the angle.
// It is defined for planar 2D points (Euclidean metric, Z nil) only: an
// angle has no meaning for great-circle distances or 3D locations.
type Aniso struct {
	Sigma2, Beta, Nu, Angle, Ratio float64
}

var anisoParams = [...]string{"sigma2", "beta", "nu", "angle", "ratio"}

// AnisoParamNames returns the names of the anisotropic Matérn's
// parameters in theta order: sigma2, beta, nu, angle, ratio.
func AnisoParamNames() []string { return append([]string(nil), anisoParams[:]...) }

// NewAnisoTheta returns the Aniso of theta (5 values in Aniso's order),
// checked by Validate.
func NewAnisoTheta(theta []float64) (Aniso, error) {
	if len(theta) != len(anisoParams) {
		return Aniso{}, fmt.Errorf("aniso-matern needs %d parameters (sigma2,beta,nu,angle,ratio), got %d", len(anisoParams), len(theta))
	}
	a := Aniso{theta[0], theta[1], theta[2], theta[3], theta[4]}
	return a, a.Validate()
}

// Validate reports a parameter outside the model's domain: Sigma2, Beta
// and Nu finite and > 0, Angle finite (any value: the model has period pi
// in it), Ratio finite and >= 1.
func (a Aniso) Validate() error {
	v := [...]float64{a.Sigma2, a.Beta, a.Nu}
	for i, x := range v {
		if !(x > 0) || math.IsInf(x, 1) {
			return fmt.Errorf("%s must be positive and finite, got %g", anisoParams[i], x)
		}
	}
	if math.IsNaN(a.Angle) || math.IsInf(a.Angle, 0) {
		return fmt.Errorf("angle must be finite, got %g", a.Angle)
	}
	if !(a.Ratio >= 1) || math.IsInf(a.Ratio, 1) {
		return fmt.Errorf("ratio (major/minor range) must be >= 1 and finite, got %g", a.Ratio)
	}
	return nil
}

// Scaled returns r' = sqrt(u^2 + (Ratio v)^2) of the lag (dx, dy) (see
// Aniso): the isotropic distance whose Matérn covariance is C(dx, dy).
func (a Aniso) Scaled(dx, dy float64) float64 {
	s, c := math.Sincos(a.Angle)
	return scaledLag(c, s, a.Ratio, dx, dy)
}

// scaledLag is Scaled with the angle's cosine c and sine s.
func scaledLag(c, s, ratio, dx, dy float64) float64 {
	u := c*dx + s*dy
	v := (c*dy - s*dx) * ratio
	return math.Sqrt(u*u + v*v)
}

// CovLag returns C(dx, dy), evaluated directly (Matern with BesselK): the
// reference of the fast kernel that NewAniso builds.
func (a Aniso) CovLag(dx, dy float64) float64 {
	return a.Sigma2 * newDirect(a.Nu).corr(a.Scaled(dx, dy)/a.Beta)
}

// CovDir returns the covariance at distance r in the direction phi
// (radians counter-clockwise from the x axis): C(r cos phi, r sin phi).
// Along the major axis (phi = Angle) it is Sigma2 M_Nu(r/Beta), along the
// minor axis Sigma2 M_Nu(Ratio r/Beta).
func (a Aniso) CovDir(r, phi float64) float64 {
	s, c := math.Sincos(phi)
	return a.CovLag(r*c, r*s)
}

// Cov returns the covariance at distance r along the major axis,
// Sigma2 M_Nu(r/Beta) (Cov(0) = Sigma2, the variance).
func (a Aniso) Cov(r float64) float64 { return a.Sigma2 * newDirect(a.Nu).corr(math.Abs(r)/a.Beta) }

// Fill evaluates the tile directly (CovLag per entry): see PairKernel. It
// panics unless metric is Euclidean and both point sets are 2D.
func (a Aniso) Fill(metric Metric, rows Points, row0, m int, cols Points, col0, n int, dst []float64, ld int) {
	checkPlane(metric, rows, cols)
	for j := range n {
		for i := range m {
			dst[i+j*ld] = a.CovLag(rows.X[row0+i]-cols.X[col0+j], rows.Y[row0+i]-cols.Y[col0+j])
		}
	}
}

// checkPlane panics unless the metric is Euclidean and both sets are 2D
// (the likelihood and the commands refuse other inputs before).
func checkPlane(metric Metric, rows, cols Points) {
	if metric != Euclidean || rows.Z != nil || cols.Z != nil {
		panic("matern: the anisotropic Matérn needs planar 2D points (Euclidean metric, no Z)")
	}
}

// anisoKernel is the fast Aniso: r' per entry (scaledLag), turned into
// covariances by one CovRow per column of NewMatern's interpolant.
type anisoKernel struct {
	a    Aniso
	c, s float64
	cov  Kernel // Sigma2 M_Nu(r/Beta), r up to Ratio * rmax
}

// NewAniso returns a fast evaluator of a for lags up to rmax long
// (relative error below 1e-12 against CovLag, like NewMatern; r' is at
// most Ratio * rmax): a PairKernel, safe for concurrent use. Its tiles
// are symmetric bit for bit (r' of -lag equals r' of lag exactly).
func NewAniso(a Aniso, rmax float64) (PairKernel, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	k, err := NewMatern(Theta{Sigma2: a.Sigma2, Beta: a.Beta, Nu: a.Nu}, rmax*a.Ratio)
	if err != nil {
		return nil, err
	}
	s, c := math.Sincos(a.Angle)
	return &anisoKernel{a: a, c: c, s: s, cov: k}, nil
}

func (k *anisoKernel) Cov(r float64) float64 { return k.cov.Cov(r) }

// Fill writes each column's r' (scaledLag) and turns it into covariances
// by one CovRow.
func (k *anisoKernel) Fill(metric Metric, rows Points, row0, m int, cols Points, col0, n int, dst []float64, ld int) {
	checkPlane(metric, rows, cols)
	rk, _ := k.cov.(RowKernel)
	x, y := rows.X[row0:row0+m], rows.Y[row0:row0+m]
	for j := range n {
		col := dst[j*ld : j*ld+m]
		xj, yj := cols.X[col0+j], cols.Y[col0+j]
		for i := range col {
			col[i] = scaledLag(k.c, k.s, k.a.Ratio, x[i]-xj, y[i]-yj)
		}
		if rk != nil {
			rk.CovRow(col, col)
		} else {
			for i, r := range col {
				col[i] = k.cov.Cov(r)
			}
		}
	}
}
