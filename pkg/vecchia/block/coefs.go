package block

import (
	"fmt"

	"gonum.org/v1/gonum/blas"

	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/matern"
)

// Conditionals describes targets to be conditioned on sets of known
// points: target k is the Q points Target[k]*Q .. Target[k]*Q+Q-1 of Pts
// (Q values per location: 2 for the bivariate Matérn), and its
// conditioning set is the locations Sets[k*M : (k+1)*M] (-1 after the
// last), each of Q points likewise.
type Conditionals struct {
	Pts    matern.Points
	Q      int
	Target []int32
	Sets   []int32
	M      int
}

// Stride returns the values CondRun writes per target: the Q x (Q M)
// matrix B (column-major, leading dimension Q) and the Q x Q lower
// triangular L_t (column-major).
func (c *Conditionals) Stride() int { return c.Q*c.Q*c.M + c.Q*c.Q }

// CondWork returns the scratch words CondRun needs.
func (c *Conditionals) CondWork() int {
	u := c.Q * (c.M + 1)
	return 4*u + 2*u*u + 2*u
}

// CondRun writes, for targets k0 .. k1-1, the Gaussian conditional of the
// target's values y_t given its set's y_c under the covariance cov:
//
//	y_t | y_c ~ N(B y_c, L_t L_t^T),  B = Sigma_tc Sigma_cc^-1,  L_t L_t^T = Sigma_tt - B Sigma_ct,
//
// from one Cholesky factor of the covariance of (c, t), t last: its last
// Q rows are [A, L_t] with B = A L_cc^-1 (dtrsm). Row k of out (Stride
// values) holds B (for a set shorter than M, zeros after its end) and L_t.
// Then y_t = B y_c + L_t e with e standard normal draws y_t, and B y_c,
// diag(L_t L_t^T) are the kriging predictor and variance.
func CondRun(k kernels.Impl, cov Cov, c *Conditionals, k0, k1 int, work []float64, out []float64) error {
	q, m := c.Q, c.M
	stride := c.Stride()
	for t := k0; t < k1; t++ {
		set := c.Sets[t*m : (t+1)*m]
		nc := 0
		for nc < m && set[nc] >= 0 {
			nc++
		}
		u := q * (nc + 1)
		w := work
		take := func(n int) []float64 {
			v := w[:n:n]
			w = w[n:]
			return v
		}
		pts := matern.Points{X: take(u), Y: take(u)}
		if c.Pts.Z != nil {
			pts.Z = take(u)
		}
		if c.Pts.T != nil {
			pts.T = take(u)
		}
		s := take(u * u)
		scratch := take(u*u + 2*u)
		for i := 0; i <= nc; i++ {
			loc := c.Target[t]
			if i < nc {
				loc = set[i]
			}
			for v := 0; v < q; v++ {
				g, l := int(loc)*q+v, i*q+v
				pts.X[l], pts.Y[l] = c.Pts.X[g], c.Pts.Y[g]
				if pts.Z != nil {
					pts.Z[l] = c.Pts.Z[g]
				}
				if pts.T != nil {
					pts.T[l] = c.Pts.T[g]
				}
			}
		}
		cov.Fill(pts, u, s, nil, scratch)
		if info := k.Dpotrf(u, s, u); info != 0 {
			return &NotPosDefError{Block: t, Size: u, Point: int(c.Target[t])}
		}
		row := out[(t-k0)*stride : (t-k0+1)*stride]
		clear(row)
		nq := q * nc
		b := row[:q*q*m]
		for j := 0; j < nq; j++ { // A: the last q rows, the first nq columns
			for v := 0; v < q; v++ {
				b[v+j*q] = s[nq+v+j*u]
			}
		}
		if nq > 0 {
			k.Dtrsm(blas.Right, blas.Lower, blas.NoTrans, blas.NonUnit, q, nq, 1, s, u, b, q)
		}
		lt := row[q*q*m:]
		for j := 0; j < q; j++ {
			for v := j; v < q; v++ {
				lt[v+j*q] = s[nq+v+(nq+j)*u]
			}
		}
		if lt[0] <= 0 {
			return fmt.Errorf("vecchia: conditional variance of target %d is %g", t, lt[0])
		}
	}
	return nil
}
