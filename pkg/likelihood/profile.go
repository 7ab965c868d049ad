package likelihood

import "math"

// ProfileSigma2 maximises the log-likelihood over the variance alone. For
// Sigma = sigma2 (R + r I), with R a correlation matrix (sigma2 = 1) and r
// = tau2/sigma2 the nugget-to-variance ratio (0 without a nugget), an
// evaluation at (1, beta, nu[, r]) gives logDet = log|R + r I| and quad =
// z^T (R + r I)^-1 z, and for any sigma2
//
//	l(sigma2) = -quad/(2 sigma2) - (n/2) log sigma2 - logDet/2 - (n/2) log(2 pi),
//
// which is unimodal in sigma2 with its maximum at sigma2_hat = quad/n.
// ProfileSigma2 returns the maximiser within [lo, hi] (sigma2_hat clamped
// to it) and l there: the full log-likelihood at (sigma2, beta, nu[, r
// sigma2]), from one factorisation of R + r I.
func ProfileSigma2(n int, logDet, quad, lo, hi float64) (sigma2, l float64) {
	fn := float64(n)
	sigma2 = math.Min(math.Max(quad/fn, lo), hi)
	l = -0.5*quad/sigma2 - 0.5*fn*math.Log(sigma2) - 0.5*logDet - 0.5*fn*math.Log(2*math.Pi)
	return sigma2, l
}

// Profile maximises l (or l_R) over the variance alone for an evaluation
// st made at sigma2 = 1, Sigma = R + r I, of p's problem: with m = n
// (m = n - p for REML, p covariates), sigma2_hat = quad/m, clamped to [lo,
// hi], where quad is the residual's r^T (R + r I)^-1 r; l is the full l
// there, l(sigma2) = fromParts(logDet, quad, logDetXSX, sigma2) (the GLS
// estimate of the mean does not depend on sigma2, its covariance is
// sigma2 st.BetaCov). Without covariates it is ProfileSigma2.
func (p Problem) Profile(st Stats, lo, hi float64) (sigma2, l float64) {
	k := len(p.Covariates)
	if k == 0 {
		return ProfileSigma2(len(p.Obs), st.LogDet, st.Quad, lo, hi)
	}
	m := float64(len(p.Obs))
	if p.REML {
		m -= float64(k)
	}
	sigma2 = math.Min(math.Max(st.Quad/m, lo), hi)
	return sigma2, p.fromParts(st.LogDet, st.Quad, st.LogDetXSX, sigma2)
}
