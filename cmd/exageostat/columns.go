package main

// kernelsHelp describes the --kernel values.
const kernelsHelp = "covariance: matern, powexp, spacetime-matern, bivariate-matern or aniso-matern (see --help)"

// dataColumnsHelp is the part of fit's and predict's --help about the
// columns of a data file and the space-time kernel.
const dataColumnsHelp = `

Columns of a data file: the coordinates x,y (or lon,lat), the observation
(z, value or obs), a time t or time, covariates named by --mean; a third
coordinate only with --coords X,Y,Z (3D Euclidean distances, planar x,y
only), e.g. --coords x,y,depth for a file x,y,depth,value. Prediction
locations (--at) have the same columns as the data (their observation
column, if any, is not read). See "Columns by role" below.

Space-time (--kernel spacetime-matern, data with a t column): ExaGeoStat's
univariate_spacetime_matern_stationary (Gneiting 2002, eq. 16 with d = 2),
theta = (sigma2, beta, nu, beta_t, alpha, sep, delta) in its order: for
spatial distance h and time lag u, psi = |u|^(2 alpha)/beta_t + 1 and
C(h, u) = sigma2 / psi^(sep+delta) * M_nu((h/beta) / psi^(sep/2)), M_nu the
Matérn correlation; 0 < alpha <= 1, 0 < sep <= 1 (default upper bounds 1).
Without data, --times K simulates N/K sites observed at times 1..K.

Bivariate (--kernel bivariate-matern, data x,y,z1,z2): ExaGeoStat's
bivariate_matern_parsimonious (Gneiting, Kleiber and Schlather 2010),
theta = (sigma2_1, sigma2_2, beta, nu1, nu2, rho) in its order:
C_ii(h) = sigma2_i M_nu_i(h/beta), C_12(h) = rho b sqrt(sigma2_1 sigma2_2)
M_nu12(h/beta), nu12 = (nu1+nu2)/2, b = sqrt(nu1 nu2)/nu12 (Gneiting et al.'s
bound in the plane, by which ExaGeoStat scales rho): valid for |rho| <= 1,
the default bounds of rho are [-1, 1] (searched linearly). The 2N x 2N
covariance is interleaved per location as ExaGeoStat's. fit needs data
(no --holdout, --plot); predict co-kriges both variables at each new
location and writes x,y,z1_hat,z1_variance,z2_hat,z2_variance.

Anisotropic (--kernel aniso-matern, planar x,y data, Euclidean distances
only: lon,lat data are refused, project them first): the 2D Matérn with
geometric anisotropy, theta = (sigma2, beta, nu, angle, ratio). The lag
(dx, dy) is rotated into the ellipse's axes, u = cos(angle) dx + sin(angle)
dy along the major axis and v = -sin(angle) dx + cos(angle) dy across it,
and C = sigma2 M_nu(sqrt(u^2 + (ratio v)^2) / beta): beta is the range along
the major axis, beta/ratio along the minor one. angle is in radians,
counter-clockwise from the x axis (period pi; default bounds [0, pi], any
bounds within [-pi, 2 pi] accepted, the estimate reported in [0, pi)); ratio
>= 1 is the major over the minor range (default bounds [1, 10]). The nugget
is fixed (--nugget), or estimated with 6 bounds: theta = (sigma2, beta, nu,
angle, ratio, tau2). --plot draws the semivariogram by direction (pairs
within 22.5 degrees of the major and of the minor axis, with the fitted
model in each). gstat's vgm(sigma2, "Mat", beta, tau2, kappa = nu, anis =
c(p, s)) is the same model with p the major axis's azimuth in degrees
clockwise from north (the +y axis) and s the minor over the major range:
p = (90 - angle 180/pi) mod 180, s = 1/ratio; back, angle = (90 - p) pi/180
(mod pi), ratio = 1/s (gstat's anis = c(30, 0.5) is angle = pi/3, ratio =
2). fit prints that vgm (gstat_vgm and gstat_anis in the JSON). Example:
  exageostat fit --data aniso.csv --kernel aniso-matern --stderr --plot figs`

// simulateColumnsHelp is the part of simulate's --help about space-time
// data.
const simulateColumnsHelp = `

Space-time (--kernel spacetime-matern, theta = sigma2,beta,nu,beta_t,alpha,
sep,delta, see fit --help): --times K draws N/K sites, each observed at the
times 1..K, and writes x,y,t,z. Bivariate (--kernel bivariate-matern,
theta = sigma2_1,sigma2_2,beta,nu1,nu2,rho, |rho| <= 1, see fit --help):
two variables at each location, written x,y,z1,z2. Anisotropic (--kernel
aniso-matern, theta = sigma2,beta,nu,angle,ratio, angle in radians from the
x axis, ratio >= 1, a 6th value the nugget, see fit --help), e.g. --theta
1,0.1,0.5,0.5,3.`
