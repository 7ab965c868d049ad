// Package matern evaluates the covariance functions of exageostat's
// Gaussian-process models and fills covariance matrix tiles with them
// (ExaGeoStat's "dcmg" kernel).
//
// The Matérn covariance follows ExaGeoStat's parameterisation
// theta = (sigma2, beta, nu):
//
//	C(r) = sigma2 * 2^(1-nu)/Gamma(nu) * (r/beta)^nu * K_nu(r/beta),  C(0) = sigma2,
//
// where K_nu is the modified Bessel function of the second kind (BesselK,
// pure Go). Matern evaluates C directly; NewMatern builds, once per theta,
// an evaluator that is about 50 times faster at general nu (piecewise
// polynomial interpolation, relative error below 1e-12) and uses the
// closed forms at nu = 1/2, 3/2, 5/2. FillTile writes an m x n
// column-major tile of Sigma from two point sets, with the nugget on the
// diagonal of Sigma only; Distance gives Euclidean (2D, 3D) and
// great-circle (haversine, km) distances.
//
// Everything here is safe for concurrent use: kernels are immutable after
// construction and the package has no mutable state.
//
// Every nu > 0 is accepted: from nu = 25 on (NuLarge), K_nu and the
// Matérn correlation come from the uniform asymptotic expansion for large
// order, in log space, at a cost independent of nu.
//
// The reference values in testdata come from testdata/gen_besselk.py and,
// for nu >= 25, testdata/gen_largenu.py (mpmath, 40 digits).
package matern
