package block

import (
	"math"

	"github.com/exageostat/exageostat/pkg/matern"
)

// KernelCov is the covariance of a kernel (any of package matern's, a
// PairKernel included) plus Nugget on the diagonal, without derivatives:
// matern.FillTile of the block with itself.
type KernelCov struct {
	K      matern.Kernel
	Nugget float64
	Metric matern.Metric
}

// Fill writes the covariance matrix (its lower triangle only for planar
// points and a kernel that evaluates rows: the distances four at a time,
// the covariances by one CovRow per column, no mirror: the same values
// as matern.FillTile's, bitwise); d must be empty.
func (c KernelCov) Fill(p matern.Points, n int, s []float64, d [][]float64, _ []float64) {
	rk, ok := c.K.(matern.RowKernel)
	if !ok || c.Metric != matern.Euclidean || p.Z != nil {
		matern.FillTile(c.K, c.Nugget, c.Metric, p, 0, n, p, 0, n, true, s, n)
		return
	}
	if _, pair := c.K.(matern.PairKernel); pair {
		matern.FillTile(c.K, c.Nugget, c.Metric, p, 0, n, p, 0, n, true, s, n)
		return
	}
	for j := 0; j < n; j++ {
		col := s[j*n+j : (j+1)*n]
		dist2(p.X[j:n], p.Y[j:n], p.X[j], p.Y[j], col)
		rk.CovRow(col, col)
		col[0] += c.Nugget
	}
}

// MaternCov is the Matérn covariance sigma2 rho_nu(r/beta) + Nugget on the
// diagonal with its derivatives in beta (Beta) and nu (Nu), in that order,
// from one matern.Grad (which must have been built with the derivative in
// nu when Nu is set). Without either, Fill evaluates the covariance
// alone (Grad.CovRow: one polynomial an entry).
type MaternCov struct {
	G        *matern.Grad
	Nugget   float64
	Metric   matern.Metric
	Beta, Nu bool
}

// Fill writes the covariance matrix and the derivatives asked for;
// work must hold 2n values (n(n-1)/2 for planar points).
func (c MaternCov) Fill(p matern.Points, n int, s []float64, d [][]float64, work []float64) {
	if c.Metric == matern.Euclidean && p.Z == nil {
		c.fillPacked(p, n, s, d, work)
		return
	}
	db, dn := work[:n], work[n:2*n]
	fillLower(c.Metric, p, n, s, d, c.Nugget, func(j int, col []float64) {
		if !c.Beta && !c.Nu {
			c.G.CovRow(col, col)
			return
		}
		m := len(col)
		bcol, ncol := db[:m], dn[:m]
		g := 0
		if c.Beta {
			bcol = d[g][j*n+j : (j+1)*n]
			g++
		}
		if c.Nu {
			ncol = d[g][j*n+j : (j+1)*n]
		}
		c.G.Row(col, col, bcol, ncol)
	})
}

// fillPacked is Fill for planar points: the distances below the
// diagonal, column after column, packed into the first n(n-1)/2 values
// of s (distTri: one call), then one CovRow or Row call over all of them
// (its groups of four never cut short by a column's end: the columns are
// short), the derivatives packed into d (or work when not asked for),
// then each column moved to its place and the diagonal's C(0), dC(0) =
// 0, set (unpack). The same values, bitwise, as one call per column.
// Where the evaluator takes square roots in its vector code
// (Grad.SqrtInVec: a CPU whose square root is slow), the distances go in
// squared (distTriSq, Grad.CovRowSquared, Grad.RowSquared), their square
// roots then overlapping the locate's other work: the same values.
func (c MaternCov) fillPacked(p matern.Points, n int, s []float64, d [][]float64, work []float64) {
	np := n * (n - 1) / 2
	sq := c.G.SqrtInVec()
	if sq {
		distTriSq(p.X[:n], p.Y[:n], s[:np])
	} else {
		distTri(p.X[:n], p.Y[:n], s[:np])
	}
	c0, d0, n0 := c.G.AtZero() // the diagonal (r = 0 evaluated as the columns' first entry was)
	if !c.Beta && !c.Nu {
		if sq {
			c.G.CovRowSquared(s[:np], s[:np])
		} else {
			c.G.CovRow(s[:np], s[:np])
		}
		unpack(n, s, c0+c.Nugget)
		return
	}
	bp, dp := work[:np], work[:np] // not both needed: the one not asked for
	g := 0
	if c.Beta {
		bp = d[g][:np]
		g++
	}
	if c.Nu {
		dp = d[g][:np]
	}
	if sq {
		c.G.RowSquared(s[:np], s[:np], bp, dp)
	} else {
		c.G.Row(s[:np], s[:np], bp, dp)
	}
	unpack(n, s, c0+c.Nugget)
	diag := [2]float64{d0, n0}
	g = 0
	for k, on := range [2]bool{c.Beta, c.Nu} {
		if on {
			unpack(n, d[g], diag[k])
			mirror(n, d[g])
			g++
		}
	}
}

// fillLower writes the lower triangle of the n x n matrix s and the
// derivatives d column by column: the distances from point j to points
// j..n-1 into s's column j below the diagonal, which col turns into
// covariances (and writes the derivatives' column j), then mirrors the
// derivatives (dSigma multiplies C whole) and adds the nugget.
func fillLower(metric matern.Metric, p matern.Points, n int, s []float64, d [][]float64, nugget float64, col func(j int, col []float64)) {
	for j := 0; j < n; j++ {
		c := s[j*n+j : (j+1)*n]
		distances(metric, p, j, c)
		col(j, c)
	}
	for _, m := range d {
		mirror(n, m)
	}
	for i := 0; i < n; i++ {
		s[i+i*n] += nugget
	}
}

// PowExpCov is the powered exponential sigma2 exp(-r^delta/beta) + Nugget
// on the diagonal with its derivatives in beta and delta (Beta, Delta, in
// that order): dC/dbeta = C r^delta / beta^2, dC/ddelta = -C r^delta
// log(r) / beta (0 at r = 0).
type PowExpCov struct {
	K           matern.PowExp
	Nugget      float64
	Metric      matern.Metric
	Beta, Delta bool
}

// Fill writes the covariance matrix and the derivatives asked for.
func (c PowExpCov) Fill(p matern.Points, n int, s []float64, d [][]float64, _ []float64) {
	sg, b, dl := c.K.Sigma2, c.K.Beta, c.K.Delta
	fillLower(c.Metric, p, n, s, d, c.Nugget, func(j int, col []float64) {
		for i, r := range col {
			var rd, lr float64
			if r > 0 {
				lr = math.Log(r)
				rd = math.Exp(dl * lr)
			}
			cv := sg * math.Exp(-rd/b)
			col[i] = cv
			g := 0
			if c.Beta {
				d[g][j*n+j+i] = cv * rd / (b * b)
				g++
			}
			if c.Delta {
				d[g][j*n+j+i] = -cv * rd * lr / b
			}
		}
	})
}

// Term is one kernel of a linear combination: Weight times the kernel's
// covariance matrix.
type Term struct {
	K      matern.Kernel
	Weight float64
}

// DiffCov is a kernel's covariance plus Nugget on the diagonal with
// derivatives that are linear combinations of kernels (Derivs[g] for the
// g-th Generated parameter): finite differences of the kernel in a
// parameter, for the kernels without derivatives of their own
// (anisotropic, space-time, bivariate Matérn).
type DiffCov struct {
	KernelCov
	Derivs [][]Term
}

// Fill writes the covariance matrix and the derivatives; work must hold
// n*n values.
func (c DiffCov) Fill(p matern.Points, n int, s []float64, d [][]float64, work []float64) {
	c.KernelCov.Fill(p, n, s, nil, nil)
	tmp := work[:n*n]
	for g, terms := range c.Derivs {
		clear(d[g][:n*n])
		for _, t := range terms {
			matern.FillTile(t.K, 0, c.Metric, p, 0, n, p, 0, n, true, tmp, n)
			for i, v := range tmp {
				d[g][i] += t.Weight * v
			}
		}
	}
}

// distances writes into col the distances from point j to points j..n-1
// (col has n-j entries).
func distances(metric matern.Metric, p matern.Points, j int, col []float64) {
	if metric != matern.Euclidean {
		for i := range col {
			col[i] = matern.Distance(metric, p, j+i, p, j)
		}
		return
	}
	n := j + len(col)
	x, y := p.X[j:n], p.Y[j:n]
	xj, yj := p.X[j], p.Y[j]
	if p.Z != nil {
		z, zj := p.Z[j:n], p.Z[j]
		for i := range col {
			dx, dy, dz := x[i]-xj, y[i]-yj, z[i]-zj
			col[i] = math.Sqrt(dx*dx + dy*dy + dz*dz)
		}
		return
	}
	dist2(x, y, xj, yj, col)
}

// mirror copies the lower triangle of the n x n matrix a into its upper
// triangle: in tiles of 8 x 8 transposed in vector registers where the
// CPU has AVX-512 (mirrorZ: the edges and the diagonal's tiles under
// masks), else in tiles of 4 x 4 (the rows read four at a time, each
// column written in runs of four; the full tiles off the diagonal
// transposed in vector registers where the CPU has AVX, mirrorTiles).
func mirror(n int, a []float64) { mirrorBy(n, a, true) }

// mirrorBy is mirror, by AVX-512's 8 x 8 tiles (mirrorFull) when z is set
// and the CPU has them, else by AVX's 4 x 4 tiles (mirrorTiles) and Go:
// the same copies.
func mirrorBy(n int, a []float64, z bool) {
	if mirrorFull(n, a, z) {
		return
	}
	const t = 4
	vec := mirrorTiles(n, a)
	for j0 := 0; j0 < n; j0 += t {
		j1 := min(j0+t, n)
		// Columns j0..j1-1 above the diagonal tile, from rows j0..j1-1.
		i := 0
		if vec && j1-j0 == t {
			i = j0 // mirrorTiles copied them
		}
		for ; i+t <= j0; i += t {
			for j := j0; j < j1; j++ {
				dst := a[i+j*n : i+j*n+t]
				dst[0], dst[1], dst[2], dst[3] = a[j+i*n], a[j+(i+1)*n], a[j+(i+2)*n], a[j+(i+3)*n]
			}
		}
		for j := j0 + 1; j < j1; j++ { // the diagonal tile
			for k := j0; k < j; k++ {
				a[k+j*n] = a[j+k*n]
			}
		}
	}
}
