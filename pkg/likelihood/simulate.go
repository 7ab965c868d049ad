package likelihood

import (
	"fmt"

	"gonum.org/v1/gonum/blas"

	"github.com/exageostat/exageostat/pkg/cholesky"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/tile"
)

// Simulate returns z = L e, a draw of the zero-mean Gaussian field with
// covariance Sigma(theta) = L L^T at p's locations, for the given standard
// normal vector e (len(e) = number of locations). p.Obs is ignored. It runs as
// tile tasks: generation, Cholesky, and z(m) = sum_{k<=m} L(m,k) e(k), with
// the tiles distributed by o (o.NB is the tile size).
func Simulate(p Problem, theta []float64, e []float64, rt *runtime.Runtime, o Options) ([]float64, error) {
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
	k, err := p.Model.Kernel(theta, ev.rmax)
	if err != nil {
		return nil, err
	}
	ev.submitGeneration(k)
	s := ev.sigma
	cholesky.Submit(rt, s, ev.kern)
	// z(m) = sum_{c<=m} L(m,c) e(c) on the owner of L(m,m); then every rank
	// gets all of z.
	z := tile.NewVector("zsim", n, nb, func(m int) int { return s.Handle(m, m).Owner() })
	for m := 0; m < s.NT; m++ {
		zm := z.Tile(m)
		acc := make([]runtime.Access, 0, m+2)
		acc = append(acc, runtime.Access{H: z.Handle(m), Mode: runtime.W})
		for c := 0; c <= m; c++ {
			acc = append(acc, runtime.Access{H: s.Handle(m, c), Mode: runtime.R})
		}
		rt.Submit(runtime.Task{Kind: "trmv", Tile: [3]int{m, -1, -1}, Access: acc, Run: func(runtime.Context) error {
			mb := s.Rows(m)
			clear(zm)
			for c := 0; c < m; c++ {
				ec := e[s.Offset(c) : s.Offset(c)+s.Rows(c)]
				ev.kern.Dgemv(blas.NoTrans, mb, s.Rows(c), 1, s.Tile(m, c), mb, ec, 1, 1, zm, 1)
			}
			// Lower-triangular diagonal tile.
			lmm, em := s.Tile(m, m), e[s.Offset(m):s.Offset(m)+mb]
			for j := 0; j < mb; j++ {
				for i := j; i < mb; i++ {
					zm[i] += lmm[i+j*mb] * em[j]
				}
			}
			return nil
		}})
		rt.Fetch(z.Handle(m))
	}
	if err := rt.Wait(); err != nil {
		if cholesky.IsNotPosDef(err) {
			return nil, fmt.Errorf("%w for theta %v: %v (add a nugget, or use a smaller range or smoothness)", ErrNotPosDef, theta, err)
		}
		return nil, err
	}
	return append([]float64(nil), z.Data()...), nil
}
