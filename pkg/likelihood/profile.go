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
