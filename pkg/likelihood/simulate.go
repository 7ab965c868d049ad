package likelihood

import (
	"fmt"

	"github.com/exageostat/exageostat/pkg/cholesky"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/solve"
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
// factor (TLR's U V^T tiles, memory growing with the ranks; MP's float32
// tiles; DST without the dropped tiles; solve.Trmv takes each product in
// its tile's class: lr-gemv U (V^T e(c)), s-gemv in float64), so z is a
// draw of N(0, L L^T) with L L^T the approximation of Sigma.
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
	ts := ev.tasks()
	ev.submitGeneration(ts, k, p.Tau2(theta))
	cholesky.SubmitWith(ts, s, ev.choleskyOptions())
	diag := func(m int) int { return s.Handle(m, m).Owner() }
	z := tile.NewVector(rt, "zsim", n, nb, diag)
	es := make([]*runtime.Handle, s.NT)
	for c := range es {
		es[c] = rt.RegisterReplicated(fmt.Sprintf("e(%d)", c), diag(c), e[s.Offset(c):s.Offset(c)+s.Rows(c)])
	}
	solve.Trmv(ts, s, es, z)
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
