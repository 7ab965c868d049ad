package matern

// The names of each covariance model's parameters, in theta order, are
// stated here once (with AnisoParamNames, SpaceTimeParamNames and
// BivariateParamNames beside their kernels): the configuration schema,
// the likelihood's models and the results all read them from here.

// MaternParamNames returns the names of the Matérn covariance's
// parameters in theta order: sigma2 (variance), beta (range), nu
// (smoothness).
func MaternParamNames() []string { return []string{"sigma2", "beta", "nu"} }

// PowExpParamNames returns the names of the powered exponential
// covariance's parameters in theta order: sigma2, beta, delta (the power,
// 0 < delta <= 2).
func PowExpParamNames() []string { return []string{"sigma2", "beta", "delta"} }
