package likelihood

import (
	"fmt"

	"gonum.org/v1/gonum/blas"

	"github.com/exageostat/exageostat/pkg/cholesky"
	"github.com/exageostat/exageostat/pkg/insert"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/tile"
)

// Simulate returns z = L e, a draw of the zero-mean Gaussian field with
// covariance Sigma(theta) = L L^T at p's locations, for the given standard
// normal vector e (len(e) = number of locations, the same on every rank).
// p.Obs is ignored. It runs as tile tasks with the tiles distributed by o
// (o.NB is the tile size): generation, Cholesky, and
//
//	z(m) = sum_{c<m} L(m,c) e(c) + tril(L(m,m)) e(m),
//
// each product on the owner of L(m,c), the partial sum z(m) travelling
// from one owner to the next in c order (so no factor tile moves and the
// sum is the same on any distribution). z is returned on rank root, or on
// every rank when root < 0 (nil elsewhere). The tiles are released before
// it returns.
//
// With an approximate computation (o.Approx) L is that computation's
// factor (FactorTile: TLR's U V^T tiles, memory growing with the ranks;
// MP's float32 tiles; DST without the dropped tiles), and the sum runs
//
//	z(m) = tril(L(m,m)) e(m) + sum_{c<m} L(m,c) e(c),
//
// diagonal first, then c in increasing order (lr-gemv U (V^T e(c)),
// s-gemv in float64), so z is a draw of N(0, L L^T) with L L^T the
// approximation of Sigma.
func Simulate(p Problem, theta []float64, e []float64, rt *runtime.Runtime, o Options, root int) ([]float64, error) {
	nb := o.NB
	n := len(p.Points.X)
	if len(e) != n {
		return nil, fmt.Errorf("simulate: %d normal variates for %d locations", len(e), n)
	}
	p.Obs = make([]float64, n)
	o.KeepTrace = false
	ev, err := NewWith(p, rt, o)
	if err != nil {
		return nil, err
	}
	defer rt.Trim()
	defer ev.Release()
	k, err := p.Model.Kernel(theta, ev.rmax)
	if err != nil {
		return nil, err
	}
	s := ev.sigma
	if ev.ax != nil {
		ev.submitApproxGeneration(k, p.Tau2(theta))
		ev.submitApproxCholesky()
	} else {
		ev.submitGeneration(k, p.Tau2(theta))
		cholesky.Submit(s, ev.kern)
	}
	ts := insert.New(rt, ev.kern)
	diag := func(m int) int { return s.Handle(m, m).Owner() }
	z := tile.NewVector(rt, "zsim", n, nb, diag)
	es := make([]*runtime.Handle, s.NT)
	for c := range es {
		es[c] = rt.RegisterReplicated(fmt.Sprintf("e(%d)", c), diag(c), e[s.Offset(c):s.Offset(c)+s.Rows(c)])
	}
	for m := 0; m < s.NT && ev.ax != nil; m++ {
		ts.Trmv(insert.At(m, -1, -1, 0), s.Handle(m, m), es[m], z.Handle(m), true)
		for c := 0; c < m; c++ {
			h := ev.FactorTile(m, c)
			if h == nil {
				continue
			}
			at := insert.At(m, c, -1, 0).On(h.Owner())
			switch h.Format().(type) {
			case runtime.Dense:
				ts.Gemv(at, blas.NoTrans, 1, h, es[c], 1, z.Handle(m))
			case runtime.LowRank:
				ts.GemvLR(at, ev.ax.cp, blas.NoTrans, 1, h, es[c], z.Handle(m), ev.ax.kEst)
			case runtime.Single:
				ts.SGemv(at, 1, h, es[c], z.Handle(m))
			}
		}
	}
	for m := 0; m < s.NT && ev.ax == nil; m++ {
		for c := 0; c < m; c++ {
			beta := 1.0
			if c == 0 {
				beta = 0
			}
			ts.Gemv(insert.At(m, c, -1, 0).On(s.Handle(m, c).Owner()), blas.NoTrans, 1, s.Handle(m, c), es[c], beta, z.Handle(m))
		}
		ts.Trmv(insert.At(m, -1, -1, 0), s.Handle(m, m), es[m], z.Handle(m), m == 0)
	}
	if root < 0 {
		z.Fetch()
	} else {
		z.FetchOn(root)
	}
	if err := rt.Wait(); err != nil {
		if cholesky.IsNotPosDef(err) {
			return nil, fmt.Errorf("%w for theta %v: %v (add a nugget, or use a smaller range or smoothness)", ErrNotPosDef, theta, err)
		}
		return nil, err
	}
	var out []float64
	if root < 0 || root == rt.Rank() {
		out = z.Values()
	}
	z.Invalidate()
	return out, nil
}
