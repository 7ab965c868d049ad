package tlr

import (
	"math"

	"gonum.org/v1/gonum/blas"

	"github.com/exageostat/exageostat/pkg/runtime"
)

// aca compresses the dense m x n tile a (kept intact) by adaptive cross
// approximation with partial pivoting (Bebendorf 2000): step k takes the
// residual row i of A - sum_l u_l v_l^T, its largest entry j, and the
// residual column j, adding the cross u_k v_k^T (v_k = row / pivot, u_k =
// column), and moves to the largest entry of u_k in a row not yet used. It
// stops when ||u_k|| ||v_k|| <= tol/4; the residual A - U V^T is then
// formed exactly (one dgemm, 2 m n k flops) and, while its Frobenius norm
// exceeds tol, the crosses go on from its largest entry (full pivoting).
// So the result is certified: ||A - U V^T||_F <= tol. It returns U (m x k)
// and V (n x k), column-major, or k > limit when the rank passes limit.
func (c Compressor) aca(m, n int, a []float64, tol float64, limit int) (u, v []float64, k int) {
	u = make([]float64, 0, m*min(limit+1, 64))
	v = make([]float64, 0, n*min(limit+1, 64))
	usedRow := make([]bool, m)
	row := make([]float64, n)
	col := make([]float64, m)
	res := make([]float64, m*n)
	i := 0
	stop := tol / 4
	for k <= limit {
		// Residual row i: A(i,:) - U(i,:) V^T.
		for j := 0; j < n; j++ {
			row[j] = a[i+j*m]
		}
		if k > 0 {
			c.K.Dgemv(blas.NoTrans, n, k, -1, v, n, u[i:], m, 1, row, 1)
		}
		usedRow[i] = true
		jp, best := 0, 0.0
		for j, x := range row {
			if ax := math.Abs(x); ax > best {
				jp, best = j, ax
			}
		}
		converged := false
		if best == 0 {
			converged = true
		} else {
			piv := row[jp]
			for p := 0; p < m; p++ {
				col[p] = a[p+jp*m]
			}
			if k > 0 {
				c.K.Dgemv(blas.NoTrans, m, k, -1, u, m, v[jp:], n, 1, col, 1)
			}
			for j := range row {
				row[j] /= piv
			}
			u = append(u, col...)
			v = append(v, row...)
			k++
			converged = norm2(col)*norm2(row) <= stop
			// Next row: the largest entry of the new column among unused rows.
			ip, bi := -1, -1.0
			for p, x := range col {
				if !usedRow[p] && math.Abs(x) > bi {
					ip, bi = p, math.Abs(x)
				}
			}
			if ip < 0 {
				converged = true
			} else {
				i = ip
			}
		}
		if !converged {
			continue
		}
		// Certify: form the residual exactly.
		copy(res, a[:m*n])
		if k > 0 {
			c.K.Dgemm(blas.NoTrans, blas.Trans, m, n, k, -1, u, m, v, n, 1, res, m)
		}
		if frob(res) <= tol {
			return u, v, k
		}
		// Restart from the largest residual entry.
		ip, bi := 0, -1.0
		for q, x := range res {
			if math.Abs(x) > bi {
				ip, bi = q%m, math.Abs(x)
			}
		}
		i = ip
		for p := range usedRow {
			usedRow[p] = false
		}
		stop /= 4
	}
	return u, v, k
}

func norm2(x []float64) float64 { return frob(x) }

// compressACA is Compress for the ACA method: a cross approximation to
// accuracy Acc/2, then the recompression of its factors (QR of U and of V,
// SVD of R_u R_v^T, truncation at Acc/2), so that the rank is near the
// SVD's and ||A - U V^T||_F <= Acc. It reports false, a intact, when the
// rank passes max(16, min(m,n)/3): RRQR is then cheaper.
func (c Compressor) compressACA(f runtime.LowRank, a, buf []float64) (int, error, bool) {
	m, n := f.M, f.N
	limit := max(16, min(m, n)/3)
	u, v, k := c.aca(m, n, a, c.Acc/2, limit)
	if k > limit || k >= min(m, n) {
		return 0, nil, false
	}
	if k == 0 {
		f.Factors(buf, 0)
		return 0, nil, true
	}
	r, err := c.recompress(f, u, v, k, c.Acc/2, buf)
	if err != nil {
		return r, err, true
	}
	if r < 0 { // above MaxRank after recompression
		r, err = c.dense(f, a, buf, -r)
	}
	return r, err, true
}

// dense stores a dense in buf, or reports the rank k as too high.
func (c Compressor) dense(f runtime.LowRank, a, buf []float64, k int) (int, error) {
	if !f.HoldsDense() {
		return k, &RankError{Rank: k, MaxRank: f.MaxRank, Format: f}
	}
	copy(f.SetDense(buf), a[:f.M*f.N])
	return -1, nil
}

// recompress writes into buf the truncation at accuracy tol of us vs^T
// (us m x kk, vs n x kk, both destroyed): QR of each, SVD of R_u R_v^T.
// It returns the rank, or minus the rank when it is above MaxRank (buf
// untouched).
func (c Compressor) recompress(f runtime.LowRank, us, vs []float64, kk int, tol float64, buf []float64) (int, error) {
	q, err := c.core(f.M, f.N, kk, us, vs, tol)
	if err != nil {
		return 0, err
	}
	if q.r > f.MaxRank {
		return -q.r, nil
	}
	u, v := f.Factors(buf, q.r)
	c.factors(q, q.r, u, v)
	return q.r, nil
}

// recompression is the SVD of the core of a product of stacked factors:
// with us = Q_u R_u (m x kk) and vs = Q_v R_v (n x kk), R_u R_v^T =
// X S Y^T (x kk x kk, yt = Y^T), and r the smallest rank whose Frobenius
// error, the root of the sum of the squared singular values from r on, is
// at most the accuracy asked.
type recompression struct {
	m, n, kk, r int
	us, vs      []float64 // Q_u, Q_v
	s, x, yt    []float64
}

// core factors us (m x kk) and vs (n x kk) in place, their Q factors
// replacing them, and returns the SVD of R_u R_v^T truncated at tol.
func (c Compressor) core(m, n, kk int, us, vs []float64, tol float64) (recompression, error) {
	ru := make([]float64, kk*kk)
	rv := make([]float64, kk*kk)
	c.L.QR(m, kk, us, ru)
	c.L.QR(n, kk, vs, rv)
	c.K.Dtrmm(blas.Right, blas.Upper, blas.Trans, blas.NonUnit, kk, kk, 1, rv, kk, ru, kk)
	q := recompression{m: m, n: n, kk: kk, us: us, vs: vs,
		s: make([]float64, kk), x: make([]float64, kk*kk), yt: make([]float64, kk*kk)}
	if !c.L.SVD(kk, kk, ru, q.s, q.x, q.yt) {
		return q, errNoConvergence(kk)
	}
	q.r = svRank(q.s, tol)
	return q, nil
}

// factors writes the rank-r factors U = Q_u X_r S_r (u, m x r) and V =
// Q_v Y_r (v, n x r) of q; X's first r columns are scaled by S in place.
func (c Compressor) factors(q recompression, r int, u, v []float64) {
	m, n, kk := q.m, q.n, q.kk
	for j := 0; j < r; j++ {
		for i := 0; i < kk; i++ {
			q.x[i+j*kk] *= q.s[j]
		}
	}
	c.K.Dgemm(blas.NoTrans, blas.NoTrans, m, r, kk, 1, q.us, m, q.x, kk, 0, u, m)
	c.K.Dgemm(blas.NoTrans, blas.Trans, n, r, kk, 1, q.vs, n, q.yt, kk, 0, v, n)
}
