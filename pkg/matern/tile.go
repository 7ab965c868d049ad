package matern

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// FillTile writes the m x n column-major tile dst (leading dimension ld) of
// the covariance matrix between points row0 .. row0+m-1 of rows and
// points col0 .. col0+n-1 of cols:
//
//	dst[i + j*ld] = k.Cov(Distance(metric, rows, row0+i, cols, col0+j))
//	                + nugget   if diag and row0+i == col0+j,
//
// for 0 <= i < m, 0 <= j < n: the nugget tau2 goes on the diagonal of Sigma
// only (diag says whether rows and cols are the same point set, so that
// equal indices are the same location). Entries dst[i + j*ld] with i >= m
// are left alone. A PairKernel (space-time, bivariate) fills the tile
// itself (its Fill) and the nugget is added as above.
//
// Each column's distances are computed first (exactly as Distance does)
// and then turned into covariances by one CovRow call when k implements
// RowKernel (all kernels of this package do), else by k.Cov per entry.
// When diag is true, row0 == col0 and rows and cols are the same slices,
// the tile is symmetric: only its lower part is computed, the upper part
// is copied (the values are the same bit for bit).
// FillTile allocates nothing for Euclidean points and one m-vector for
// GreatCircle. It panics if ld < m, dst is too short, an index is out of
// range, or one point set is 3D and the other not.
func FillTile(k Kernel, nugget float64, metric Metric, rows Points, row0, m int, cols Points, col0, n int, diag bool, dst []float64, ld int) {
	if m <= 0 || n <= 0 {
		return
	}
	if ld < m {
		panic(fmt.Sprintf("matern: FillTile: ld = %d < m = %d", ld, m))
	}
	if len(dst) < (n-1)*ld+m {
		panic(fmt.Sprintf("matern: FillTile: len(dst) = %d < (n-1)*ld+m = %d", len(dst), (n-1)*ld+m))
	}
	if pk, ok := k.(PairKernel); ok {
		pk.Fill(metric, rows, row0, m, cols, col0, n, dst, ld)
		addNugget(nugget, row0, m, col0, n, diag, dst, ld)
		return
	}
	rk, _ := k.(RowKernel)
	eval := func(col []float64) {
		if rk != nil {
			rk.CovRow(col, col)
			return
		}
		for i, r := range col {
			col[i] = k.Cov(r)
		}
	}
	// A diagonal tile of a point set with itself is symmetric: compute
	// rows i >= j of column j and copy the rest from row j of the earlier
	// columns (the distance, hence the value, is the same bit for bit).
	sym := diag && row0 == col0 && sameData(rows.X, cols.X) && sameData(rows.Y, cols.Y) && sameData(rows.Z, cols.Z)
	first := func(j int) int {
		if sym && j < m {
			return j
		}
		return 0
	}
	mirror := func(j, lo int, col []float64) {
		for i := range col[:lo] {
			col[i] = dst[j+i*ld]
		}
	}
	switch metric {
	case Euclidean:
		if (rows.Z == nil) != (cols.Z == nil) {
			panic("matern: FillTile: one point set is 3D and the other 2D")
		}
		x := rows.X[row0 : row0+m]
		y := rows.Y[row0 : row0+m]
		cx := cols.X[col0 : col0+n]
		cy := cols.Y[col0 : col0+n]
		if rows.Z != nil {
			z := rows.Z[row0 : row0+m]
			cz := cols.Z[col0 : col0+n]
			for j := range n {
				col := dst[j*ld : j*ld+m]
				lo := first(j)
				xj, yj, zj := cx[j], cy[j], cz[j]
				for i := lo; i < m; i++ {
					dx, dy, dz := x[i]-xj, y[i]-yj, z[i]-zj
					col[i] = math.Sqrt(dx*dx + dy*dy + dz*dz)
				}
				eval(col[lo:])
				mirror(j, lo, col)
			}
			break
		}
		for j := range n {
			col := dst[j*ld : j*ld+m]
			lo := first(j)
			xj, yj := cx[j], cy[j]
			c, x, y := col[lo:], x[lo:len(col)], y[lo:len(col)]
			for i := range c {
				dx, dy := x[i]-xj, y[i]-yj
				c[i] = math.Sqrt(dx*dx + dy*dy)
			}
			eval(c)
			mirror(j, lo, col)
		}
	case GreatCircle:
		lon := rows.X[row0 : row0+m]
		lat := rows.Y[row0 : row0+m]
		c := make([]float64, m)
		for i, v := range lat {
			c[i] = cosDeg(v)
		}
		for j := range n {
			col := dst[j*ld : j*ld+m]
			lo := first(j)
			lonj, latj := cols.X[col0+j], cols.Y[col0+j]
			cj := cosDeg(latj)
			for i := lo; i < m; i++ {
				col[i] = haversine(lon[i], lat[i], c[i], lonj, latj, cj)
			}
			eval(col[lo:])
			mirror(j, lo, col)
		}
	default:
		panic(fmt.Sprintf("matern: unknown metric %d", int(metric)))
	}
	addNugget(nugget, row0, m, col0, n, diag, dst, ld)
}

// addNugget adds nugget to the entries of the tile on the diagonal of
// Sigma (row0+i == col0+j) when diag.
func addNugget(nugget float64, row0, m, col0, n int, diag bool, dst []float64, ld int) {
	if diag && nugget != 0 {
		for j := range n {
			if i := col0 + j - row0; i >= 0 && i < m {
				dst[i+j*ld] += nugget
			}
		}
	}
}

// sameData reports whether a and b are the same slice (or both nil).
func sameData(a, b []float64) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// EntriesPerSecond measures how many covariance entries per second
// FillTile produces with kernel k on one goroutine: it fills nb x nb tiles
// between two sets of nb points drawn uniformly in the unit square (a
// fixed seed, Euclidean distance) for at least the given number of
// seconds of wall-clock time (and at least once, after one untimed
// warm-up fill), and returns nb^2 times the number of fills divided by the
// time taken.
func EntriesPerSecond(k Kernel, nb int, seconds float64) float64 {
	nb = max(nb, 1)
	rng := rand.New(rand.NewPCG(20261101, 7))
	p := Points{X: make([]float64, 2*nb), Y: make([]float64, 2*nb)}
	for i := range p.X {
		p.X[i] = rng.Float64()
		p.Y[i] = rng.Float64()
	}
	dst := make([]float64, nb*nb)
	FillTile(k, 0, Euclidean, p, 0, nb, p, nb, nb, false, dst, nb)
	start := time.Now()
	for fills := 1; ; fills++ {
		FillTile(k, 0, Euclidean, p, 0, nb, p, nb, nb, false, dst, nb)
		if el := time.Since(start).Seconds(); el >= seconds {
			return float64(fills) * float64(nb) * float64(nb) / el
		}
	}
}
