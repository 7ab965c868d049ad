package matern

import (
	"fmt"
	"math"
)

// Bivariate is ExaGeoStat's parsimonious bivariate Matérn covariance
// (kernel bivariate_matern_parsimonious, core_dcmg_bivariate_parsimonious;
// Gneiting, Kleiber and Schlather 2010, "Matérn cross-covariance functions
// for multivariate random fields", JASA 105): two variables observed at
// the same locations, with a common range and, at distance h,
//
//	C_11(h) = Sigma2_1 M_Nu1(h/Beta),
//	C_22(h) = Sigma2_2 M_Nu2(h/Beta),
//	C_12(h) = C_21(h) = Rho * b(Nu1, Nu2) * sqrt(Sigma2_1 Sigma2_2) M_Nu12(h/Beta),
//
// with M_nu(x) = 2^(1-nu)/Gamma(nu) x^nu K_nu(x) the Matérn correlation,
// Nu12 = (Nu1 + Nu2)/2 and
//
//	b(Nu1, Nu2) = sqrt(Gamma(Nu1+1) Gamma(Nu2+1) / (Gamma(Nu1) Gamma(Nu2))) * Gamma(Nu12)/Gamma(Nu12+1)
//	            = sqrt(Nu1 Nu2) / Nu12 (<= 1),
//
// the largest colocated correlation for which the model is valid in the
// plane (Gneiting et al., Theorem 3 with d = 2). ExaGeoStat scales its rho
// by b, as here, so the model is a valid covariance exactly when
// |Rho| <= 1; the colocated correlation of the two variables is Rho * b.
// The parameter vector is ExaGeoStat's theta in its order:
//
//	theta[0] Sigma2_1, theta[1] Sigma2_2, theta[2] Beta, theta[3] Nu1, theta[4] Nu2, theta[5] Rho.
//
// The 2N x 2N covariance of the N locations is laid out as ExaGeoStat's:
// interleaved per location, row 2i the first variable at location i and
// row 2i+1 the second. A Bivariate kernel therefore reads its point sets
// as such interleaved lists: point k of a set is location k/2 (points 2i
// and 2i+1 hold the same coordinates, see Interleave) and variable k mod 2,
// counted from the start of the set.
type Bivariate struct {
	Sigma2_1, Sigma2_2, Beta, Nu1, Nu2, Rho float64
}

var bivariateParams = [...]string{"sigma2_1", "sigma2_2", "beta", "nu1", "nu2", "rho"}

// BivariateParamNames returns the names of the parameters in theta order:
// sigma2_1, sigma2_2, beta, nu1, nu2, rho.
func BivariateParamNames() []string { return append([]string(nil), bivariateParams[:]...) }

// NewBivariateTheta returns the Bivariate of ExaGeoStat's theta vector (6
// values in Bivariate's order), checked by Validate.
func NewBivariateTheta(theta []float64) (Bivariate, error) {
	if len(theta) != len(bivariateParams) {
		return Bivariate{}, fmt.Errorf("bivariate-matern needs %d parameters (sigma2_1,sigma2_2,beta,nu1,nu2,rho), got %d", len(bivariateParams), len(theta))
	}
	b := Bivariate{theta[0], theta[1], theta[2], theta[3], theta[4], theta[5]}
	return b, b.Validate()
}

// Bound returns b(Nu1, Nu2) = sqrt(Nu1 Nu2)/Nu12, the largest colocated
// correlation of a valid parsimonious model in the plane (computed from
// the Gamma functions of its definition, in log space).
func (b Bivariate) Bound() float64 {
	nu12 := 0.5 * (b.Nu1 + b.Nu2)
	lg := func(x float64) float64 { v, _ := math.Lgamma(x); return v }
	return math.Exp(0.5*(lg(b.Nu1+1)+lg(b.Nu2+1)-lg(b.Nu1)-lg(b.Nu2)) + lg(nu12) - lg(nu12+1))
}

// Validate reports a parameter outside the model's domain: Sigma2_1,
// Sigma2_2, Beta, Nu1, Nu2 finite and > 0, and |Rho| <= 1 (the
// admissible range, Rho * Bound() being the colocated correlation).
func (b Bivariate) Validate() error {
	v := [...]float64{b.Sigma2_1, b.Sigma2_2, b.Beta, b.Nu1, b.Nu2}
	for i, x := range v {
		if !(x > 0) || math.IsInf(x, 1) {
			return fmt.Errorf("%s must be positive and finite, got %g", bivariateParams[i], x)
		}
	}
	if !(math.Abs(b.Rho) <= 1) {
		return fmt.Errorf("rho = %g is outside [-1, 1]: the parsimonious bivariate Matérn is a covariance only for |rho| <= 1 (ExaGeoStat's rho is scaled by the bound sqrt(Gamma(nu1+1) Gamma(nu2+1)/(Gamma(nu1) Gamma(nu2))) Gamma(nu12)/Gamma(nu12+1) = %.6g of Gneiting et al., so the colocated correlation rho*%.6g must lie within +-%.6g)",
			b.Rho, b.Bound(), b.Bound(), b.Bound())
	}
	return nil
}

// CovPair returns C_ab(h) for variables a, b in {0, 1} (0 the first),
// evaluated directly (Matern with BesselK).
func (b Bivariate) CovPair(va, vb int, h float64) float64 {
	x := math.Abs(h) / b.Beta
	switch {
	case va == 0 && vb == 0:
		return b.Sigma2_1 * newDirect(b.Nu1).corr(x)
	case va == 1 && vb == 1:
		return b.Sigma2_2 * newDirect(b.Nu2).corr(x)
	}
	return b.Rho * b.Bound() * math.Sqrt(b.Sigma2_1*b.Sigma2_2) * newDirect(0.5*(b.Nu1+b.Nu2)).corr(x)
}

// Cov returns C_11(r), the first variable's covariance.
func (b Bivariate) Cov(r float64) float64 { return b.CovPair(0, 0, r) }

// Fill evaluates the tile directly (CovPair per entry), point k of a set
// being variable k mod 2: see PairKernel.
func (b Bivariate) Fill(metric Metric, rows Points, row0, m int, cols Points, col0, n int, dst []float64, ld int) {
	for j := range n {
		for i := range m {
			h := Distance(metric, rows, row0+i, cols, col0+j)
			dst[i+j*ld] = b.CovPair((row0+i)&1, (col0+j)&1, h)
		}
	}
}

// bivariateKernel is the fast Bivariate: three NewMatern interpolants of
// the correlations (sigma2 = 1, beta = 1, so that their argument is x =
// h/Beta itself) and the three scale factors.
type bivariateKernel struct {
	b     Bivariate
	corr  [3]Kernel  // M_Nu1, M_Nu12, M_Nu2
	scale [3]float64 // Sigma2_1, Rho b sqrt(Sigma2_1 Sigma2_2), Sigma2_2
}

// NewBivariate returns a fast evaluator of b for distances up to rmax
// (relative error below 1e-12 against CovPair, like NewMatern): a
// PairKernel, safe for concurrent use.
func NewBivariate(b Bivariate, rmax float64) (PairKernel, error) {
	if err := b.Validate(); err != nil {
		return nil, err
	}
	k := &bivariateKernel{b: b, scale: [3]float64{b.Sigma2_1, b.Rho * b.Bound() * math.Sqrt(b.Sigma2_1*b.Sigma2_2), b.Sigma2_2}}
	for i, nu := range [3]float64{b.Nu1, 0.5 * (b.Nu1 + b.Nu2), b.Nu2} {
		c, err := NewMatern(Theta{Sigma2: 1, Beta: 1, Nu: nu}, rmax/b.Beta)
		if err != nil {
			return nil, err
		}
		k.corr[i] = c
	}
	return k, nil
}

func (k *bivariateKernel) Cov(r float64) float64 {
	return k.scale[0] * k.corr[0].Cov(math.Abs(r)/k.b.Beta)
}

// Fill writes entry (i, j) as scale[a+b] * M(h/Beta) for the variables a
// = (row0+i) mod 2 and b = (col0+j) mod 2: for each column, the rows of
// each variable are gathered into a buffer, turned into correlations by one
// CovRow, and scaled back into place.
func (k *bivariateKernel) Fill(metric Metric, rows Points, row0, m int, cols Points, col0, n int, dst []float64, ld int) {
	plane := metric == Euclidean && rows.Z == nil && cols.Z == nil
	buf := make([]float64, (m+1)/2)
	for j := range n {
		vb := (col0 + j) & 1
		col := dst[j*ld : j*ld+m]
		xj, yj := cols.X[col0+j], cols.Y[col0+j]
		for va := range 2 {
			first := (va - row0&1 + 2) % 2 // the first row i with (row0+i) mod 2 = va
			b := buf[:0]
			for i := first; i < m; i += 2 {
				var h float64
				if plane { // Distance's Euclidean 2D formula, inlined
					dx, dy := rows.X[row0+i]-xj, rows.Y[row0+i]-yj
					h = math.Sqrt(dx*dx + dy*dy)
				} else {
					h = Distance(metric, rows, row0+i, cols, col0+j)
				}
				b = append(b, h/k.b.Beta)
			}
			c := va + vb
			if rk, ok := k.corr[c].(RowKernel); ok {
				rk.CovRow(b, b)
			} else {
				for t, x := range b {
					b[t] = k.corr[c].Cov(x)
				}
			}
			for t, i := 0, first; i < m; t, i = t+1, i+2 {
				col[i] = k.scale[c] * b[t]
			}
		}
	}
}

// Interleave returns the point set of a bivariate problem from N
// locations: 2N points, points 2i and 2i+1 both at location i (Z and T
// likewise when not nil).
func Interleave(p Points) Points {
	dup := func(v []float64) []float64 {
		if v == nil {
			return nil
		}
		out := make([]float64, 2*len(v))
		for i, x := range v {
			out[2*i], out[2*i+1] = x, x
		}
		return out
	}
	return Points{X: dup(p.X), Y: dup(p.Y), Z: dup(p.Z), T: dup(p.T)}
}
