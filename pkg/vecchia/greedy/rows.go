package greedy

import "github.com/exageostat/exageostat/pkg/matern"

// Rows gives the covariances a row's selection reads, a row of entries at
// a time: the target's covariances with its candidates, then each pick's
// covariances with the candidates not yet picked.
type Rows interface {
	// Var returns Var(y_i), the nugget included.
	Var(i int) float64
	// Row sets out[k] = Cov(y_{js[k]}, y_i) for k < len(js), the nugget
	// included where js[k] == i.
	Row(i int, js []int32, out []float64)
	// Fork returns Rows of the same covariance for another goroutine (a
	// Rows may keep scratch; Select forks one per worker thread).
	Fork() Rows
}

// Var returns cov(i, i).
func (cov Cov) Var(i int) float64 { return cov(i, i) }

// Row sets out[k] = cov(js[k], i), one call an entry.
func (cov Cov) Row(i int, js []int32, out []float64) {
	for k, j := range js {
		out[k] = cov(int(j), i)
	}
}

// Fork returns cov itself: a Cov must be safe for concurrent use.
func (cov Cov) Fork() Rows { return cov }

// KernelRows is the covariance K(x_i, x_j) + Nugget [i == j] of a kernel
// of package matern at points P (position i of the ordering is point i of
// P), a row at a time, with the same values, bitwise, as K.Cov at each
// matern.Distance (K's CovRow values). Planar Euclidean points and a
// kernel with CovRow: matern.CovIndexed (NewMatern's closed forms for
// nu = 1/2, 3/2, 5/2 gathered and evaluated eight at a time with
// AVX-512; its interpolant for any other nu and PowExp by one CovRow
// over the row's distances). Other points (3D, great-circle) and the
// anisotropic and space-time Matérn (PairKernels): the row's points
// gathered, then one matern.FillTile column (the kernel's CovRow, its
// own Fill, or Cov per entry). The bivariate Matérn, whose points'
// variables are their positions' parity, is not a KernelRows (give it as
// a Cov). Var(i) is K.Cov(0) + Nugget.
type KernelRows struct {
	K      matern.Kernel
	Nugget float64
	Metric matern.Metric
	P      matern.Points
	g      matern.Points // the gathered points (scratch)
	v0     float64       // K.Cov(0) + Nugget, set by Fork (v0ok)
	v0ok   bool
}

// Var returns K.Cov(0) + Nugget.
func (k *KernelRows) Var(int) float64 {
	if k.v0ok {
		return k.v0
	}
	return k.K.Cov(0) + k.Nugget
}

// Row sets out[t] = K(x_{js[t]}, x_i) (+ Nugget where js[t] == i).
func (k *KernelRows) Row(i int, js []int32, out []float64) {
	n := len(js)
	if n == 0 {
		return
	}
	if k.Metric == matern.Euclidean && k.P.Z == nil && matern.CovIndexed(k.K, k.P, i, js, out) {
		k.addNugget(i, js, out)
		return
	}
	gather := func(dst *[]float64, src []float64) {
		if src == nil {
			*dst = nil
			return
		}
		if cap(*dst) < n {
			*dst = make([]float64, n, max(n, 2*cap(*dst)))
		}
		d := (*dst)[:n]
		for t, j := range js {
			d[t] = src[j]
		}
		*dst = d
	}
	gather(&k.g.X, k.P.X)
	gather(&k.g.Y, k.P.Y)
	gather(&k.g.Z, k.P.Z)
	gather(&k.g.T, k.P.T)
	matern.FillTile(k.K, 0, k.Metric, k.g, 0, n, k.P, i, 1, false, out[:n], n)
	k.addNugget(i, js, out)
}

// addNugget adds Nugget to out[t] where js[t] == i.
func (k *KernelRows) addNugget(i int, js []int32, out []float64) {
	if k.Nugget != 0 {
		for t, j := range js {
			if int(j) == i {
				out[t] += k.Nugget
			}
		}
	}
}

// Fork returns a KernelRows of the same covariance with scratch of its own.
func (k *KernelRows) Fork() Rows {
	return &KernelRows{K: k.K, Nugget: k.Nugget, Metric: k.Metric, P: k.P, v0: k.K.Cov(0) + k.Nugget, v0ok: true}
}

// GradRows is the Matérn covariance of G (the Vecchia blocks' evaluator,
// matern.NewGrad, whose CovRow has AVX-512 code for any nu) plus Nugget
// [i == j] at the planar points P (Euclidean metric), a row at a time:
// the squared distances dx^2 + dy^2 gathered in Go, then one
// G.CovRowSquared. For nu other than 1/2, 3/2 and 5/2 it is about three
// times as fast as KernelRows' interpolant, but its values are G's (both
// within about 1e-14 relative of the exact covariance, not the same
// bits): where two candidates' scores agree to their last bits a pick
// may differ from KernelRows'. Var(i) is G's C(0) + Nugget.
type GradRows struct {
	G      *matern.Grad
	Nugget float64
	P      matern.Points
}

// Var returns G's C(0) + Nugget.
func (k *GradRows) Var(int) float64 {
	c, _, _ := k.G.AtZero()
	return c + k.Nugget
}

// Row sets out[t] = C(|x_{js[t]} - x_i|) (+ Nugget where js[t] == i).
func (k *GradRows) Row(i int, js []int32, out []float64) {
	out = out[:len(js)]
	x, y := k.P.X, k.P.Y[:len(k.P.X)]
	xi, yi := x[i], y[i]
	for t, j := range js {
		dx, dy := x[j]-xi, y[j]-yi
		out[t] = dx*dx + dy*dy
	}
	k.G.CovRowSquared(out, out)
	if k.Nugget != 0 {
		for t, j := range js {
			if int(j) == i {
				out[t] += k.Nugget
			}
		}
	}
}

// Fork returns k itself: a GradRows keeps no scratch (G is safe for
// concurrent use).
func (k *GradRows) Fork() Rows { return k }
