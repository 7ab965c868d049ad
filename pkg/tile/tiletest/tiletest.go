// Package tiletest builds tiled matrices of every tile class for the
// tests of the tile algorithms (packages cholesky and solve): a smooth
// covariance generated in the tiles' classes, and its tiles read back as
// one dense matrix.
package tiletest

import (
	"fmt"
	"math/rand/v2"

	"github.com/exageostat/exageostat/pkg/insert"
	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/tile"
	"github.com/exageostat/exageostat/pkg/tlr"
)

// Mixed is an N x N covariance matrix, a Gaussian kernel exp(-r^2/Beta)
// of N points evenly spaced on [0, 1) plus Tau2 on the diagonal (smooth,
// so its off-diagonal tiles compress; well conditioned), tiled by NB, and
// a class for each lower off-diagonal tile.
type Mixed struct {
	N, NB int
	Tau2  float64
	Class func(m, c int) tile.Class
	pts   matern.Points
	k     matern.Kernel
}

// NewMixed returns the matrix of n points with tile size nb, nugget tau2
// and the class pick(rng, m, c) for each lower off-diagonal tile (m, c),
// drawn in row order from a generator seeded by seed.
func NewMixed(n, nb int, tau2 float64, seed uint64, pick func(rng *rand.Rand, m, c int) tile.Class) Mixed {
	rng := rand.New(rand.NewPCG(seed, 25))
	p := Mixed{N: n, NB: nb, Tau2: tau2, pts: matern.Points{X: make([]float64, n), Y: make([]float64, n)},
		k: matern.PowExp{Sigma2: 1, Beta: 0.05, Delta: 2}}
	for i := range p.pts.X {
		p.pts.X[i] = float64(i) / float64(n)
	}
	nt := tile.NewLayout(n, nb).NT
	cl := make([]tile.Class, nt*nt)
	for m := 0; m < nt; m++ {
		for c := 0; c < m; c++ {
			cl[m*nt+c] = pick(rng, m, c)
		}
	}
	p.Class = func(m, c int) tile.Class { return cl[m*nt+c] }
	return p
}

// AnyClass picks any of the four classes.
func AnyClass(rng *rand.Rand, _, _ int) tile.Class { return tile.Class(rng.IntN(4)) }

// Dense returns the whole matrix, column-major.
func (p Mixed) Dense() []float64 {
	a := make([]float64, p.N*p.N)
	matern.FillTile(p.k, p.Tau2, matern.Euclidean, p.pts, 0, p.N, p.pts, 0, p.N, true, a, p.N)
	return a
}

// Build registers the tiled matrix in its classes on rt (tiles owned by
// owner, nil: rank 0; maximum rank NB/2), submits the generation of its
// tiles in their formats (dcmg, lr-dcmg compressed at the accuracy acc,
// s-dcmg rounded) and returns it with the inserter of its tasks.
func (p Mixed) Build(rt *runtime.Runtime, acc float64, owner tile.OwnerFunc) (*tile.Sym, insert.Tasks) {
	maxRank := max(1, p.NB/2)
	s := tile.NewSymClasses(rt, p.N, p.NB, owner, tile.Classes{Of: p.Class, MaxRank: maxRank})
	ts := insert.New(rt, kernels.Default())
	ts.LR = insert.LowRank{Compressor: tlr.Compressor{L: tlr.DefaultLAPACK(), K: ts.K, Method: tlr.ACA, Acc: acc}, Rank: 4,
		Scratch:   rt.Register("scratch", 0, runtime.Dense{M: p.NB, N: p.NB}),
		LRScratch: rt.Register("lr-scratch", 0, runtime.LowRank{M: p.NB, N: p.NB, MaxRank: maxRank})}
	for m := 0; m < s.NT; m++ {
		for c := 0; c <= m; c++ {
			cv := insert.Cov{K: p.k, Nugget: p.Tau2, Rows: p.pts, Row0: s.Offset(m), Cols: p.pts, Col0: s.Offset(c), Diag: m == c}
			if h := s.Handle(m, c); h != nil {
				ts.Generate(insert.At(m, c, -1, 0), cv, h)
			}
		}
	}
	return s, ts
}

// Lower returns the lower triangle of the tiled matrix s as this rank
// holds it after Wait, column-major: low-rank tiles expanded with cp,
// float32 ones widened, dropped ones zero.
func Lower(s *tile.Sym, cp tlr.Compressor) ([]float64, error) {
	n := s.N
	out := make([]float64, n*n)
	for m := 0; m < s.NT; m++ {
		for c := 0; c <= m; c++ {
			h := s.Handle(m, c)
			if h == nil {
				continue
			}
			rows, cols := s.Rows(m), s.Rows(c)
			buf := s.Runtime().Local(h)
			if buf == nil {
				return nil, fmt.Errorf("tiletest: tile (%d,%d) is not held here", m, c)
			}
			d := make([]float64, rows*cols)
			switch f := h.Format().(type) {
			case runtime.Dense:
				copy(d, buf)
			case runtime.LowRank:
				cp.Expand(f, buf, d)
			case runtime.Single:
				for i, v := range f.Values(buf) {
					d[i] = float64(v)
				}
			}
			for j := 0; j < cols; j++ {
				for i := 0; i < rows; i++ {
					if m != c || i >= j {
						out[(s.Offset(m)+i)+(s.Offset(c)+j)*n] = d[i+j*rows]
					}
				}
			}
		}
	}
	return out, nil
}
