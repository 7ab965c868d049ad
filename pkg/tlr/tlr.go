// Package tlr holds the tile low-rank (TLR) kernels of seed 002 (HiCMA's
// TLR Cholesky): the compression of a dense tile A ~ U V^T, and the
// triangular solve, symmetric update and general update of the Cholesky
// on tiles held as U V^T (runtime.LowRank buffers).
//
// Accuracy is absolute per tile, as in HiCMA: a tile A is replaced by the
// U V^T of smallest rank k with ||A - U V^T||_F <= acc, whatever the norm
// of A. A covariance matrix's off-diagonal tiles decay with the distance
// between their point sets: with an absolute threshold the far tiles, all
// of whose entries are small, get rank 0 or 1, and the error of the whole
// matrix stays below acc times the number of tiles, which bounds the
// perturbation of the log-likelihood through ||Sigma^-1|| directly. A
// relative threshold would keep the far tiles to the same relative
// precision as the near ones, at a rank that buys nothing.
//
// A tile that needs a rank above its format's MaxRank stays dense in the
// same buffer when the format can hold it (runtime.LowRank.HoldsDense);
// otherwise the kernel returns a *RankError.
package tlr

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"

	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/runtime"
)

// Method is a compression algorithm.
type Method int

// The compression algorithms; the zero value is the default, ACA, the
// cheapest on the measurements of BenchmarkCompress.
const (
	// ACA is the adaptive cross approximation with partial pivoting,
	// certified by one residual dgemm and recompressed (QR + small SVD):
	// O((m+n) k^2 + m n k) flops, the only one of the three whose cost
	// falls with the rank (see aca). Past rank min(m,n)/3 (a tile next to
	// the diagonal) it hands the tile to RRQR, which is cheaper there.
	ACA Method = iota
	// SVD is the truncated singular value decomposition (LAPACK dgesdd):
	// the optimal rank for the accuracy, about 22 min(m,n)^2 max(m,n) flops
	// whatever the rank.
	SVD
	// RRQR is the rank-revealing QR with column pivoting (LAPACK dgeqp3)
	// A P = Q R truncated where the trailing block of R has Frobenius norm
	// <= acc: U = Q(:, :k), V = P R(:k, :)^T; 4 m n^2 - 4/3 n^3 flops, at
	// a rank a little above the SVD's.
	RRQR
)

// String returns the method's name: "aca", "svd" or "rrqr".
func (m Method) String() string {
	if m >= 0 && int(m) < len(methodNames) {
		return methodNames[m]
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// methodNames are the Methods' names, by value.
var methodNames = [...]string{ACA: "aca", SVD: "svd", RRQR: "rrqr"}

// RankError reports a tile that needs a rank above its format's MaxRank
// and cannot be held dense in its buffer.
type RankError struct {
	Rank, MaxRank int
	Format        runtime.LowRank
}

func (e *RankError) Error() string {
	return fmt.Sprintf("tile needs rank %d above the maximum rank %d (%v); raise --max-rank", e.Rank, e.MaxRank, e.Format)
}

// Compressor compresses tiles and runs the TLR kernels.
type Compressor struct {
	L      LAPACK
	K      kernels.Impl
	Method Method
	Acc    float64 // absolute Frobenius accuracy per tile
}

// New returns the compressor of the default kernels at accuracy acc.
func New(m Method, acc float64) Compressor {
	return Compressor{L: DefaultLAPACK(), K: kernels.Default(), Method: m, Acc: acc}
}

// view is a tile held in a LowRank buffer: dense d (k < 0), or U V^T.
type view struct {
	m, n, k int
	d, u, v []float64
}

func read(f runtime.LowRank, buf []float64) view {
	if f.IsDense(buf) {
		return view{m: f.M, n: f.N, k: -1, d: buf[1 : 1+f.M*f.N]}
	}
	// Slices of the factors without writing the rank: readers run
	// concurrently.
	k := f.Rank(buf)
	return view{m: f.M, n: f.N, k: k, u: buf[1 : 1+f.M*k], v: buf[1+f.M*k : 1+(f.M+f.N)*k]}
}

// Rank returns the rank of the tile in buf, or -1 when it is dense.
func Rank(f runtime.LowRank, buf []float64) int { return f.Rank(buf) }

// tailRank returns the smallest k such that sum_{i >= k} sq[i] <= acc^2.
func tailRank(sq []float64, acc float64) int {
	t := 0.0
	lim := acc * acc
	k := len(sq)
	for k > 0 && t+sq[k-1] <= lim {
		t += sq[k-1]
		k--
	}
	return k
}

// svRank returns the smallest k such that sum_{i >= k} s_i^2 <= acc^2:
// the rank at which an SVD with singular values s (decreasing) is
// truncated to Frobenius accuracy acc.
func svRank(s []float64, acc float64) int {
	sq := make([]float64, len(s))
	for i, x := range s {
		sq[i] = x * x
	}
	return tailRank(sq, acc)
}

// Compress writes into buf (format f) the approximation U V^T of the dense
// M x N column-major tile a to the accuracy c.Acc, or a itself (dense)
// when it needs a rank above f.MaxRank. a is destroyed. It returns the
// rank (-1 for a dense tile).
func (c Compressor) Compress(f runtime.LowRank, a, buf []float64) (int, error) {
	m, n := f.M, f.N
	r := min(m, n)
	if r == 0 {
		f.Factors(buf, 0)
		return 0, nil
	}
	if c.Method == ACA {
		if k, err, ok := c.compressACA(f, a, buf); ok {
			return k, err
		}
		c.Method = RRQR // a is intact
	}
	keep := make([]float64, m*n)
	copy(keep, a[:m*n])
	var k int
	switch c.Method {
	case RRQR:
		jpvt := make([]int, n)
		tau := make([]float64, r)
		c.L.QRCP(m, n, a, jpvt, tau)
		sq := make([]float64, r)
		for i := 0; i < r; i++ {
			for j := i; j < n; j++ {
				x := a[i+j*m]
				sq[i] += x * x
			}
		}
		k = tailRank(sq, c.Acc)
		if k > f.MaxRank {
			break
		}
		u, v := f.Factors(buf, k)
		for i := 0; i < k; i++ {
			for j := 0; j < n; j++ {
				x := 0.0
				if j >= i {
					x = a[i+j*m]
				}
				v[jpvt[j]+i*n] = x
			}
		}
		c.L.FormQ(m, k, a[:m*k], tau[:k])
		copy(u, a[:m*k])
		return k, nil
	default:
		s := make([]float64, r)
		uu := make([]float64, m*r)
		vt := make([]float64, r*n)
		if !c.L.SVD(m, n, a, s, uu, vt) {
			return 0, fmt.Errorf("tlr: SVD of a %dx%d tile did not converge", m, n)
		}
		k = svRank(s, c.Acc)
		if k > f.MaxRank {
			break
		}
		u, v := f.Factors(buf, k)
		for i := 0; i < k; i++ {
			for p := 0; p < m; p++ {
				u[p+i*m] = uu[p+i*m] * s[i]
			}
			for j := 0; j < n; j++ {
				v[j+i*n] = vt[i+j*r]
			}
		}
		return k, nil
	}
	if !f.HoldsDense() {
		return k, &RankError{Rank: k, MaxRank: f.MaxRank, Format: f}
	}
	copy(f.SetDense(buf), keep)
	return -1, nil
}

// Expand writes the M x N tile held in buf into the dense column-major d.
func (c Compressor) Expand(f runtime.LowRank, buf, d []float64) {
	t := read(f, buf)
	if t.k < 0 {
		copy(d[:f.M*f.N], t.d)
		return
	}
	if t.k == 0 {
		clear(d[:f.M*f.N])
		return
	}
	c.K.Dgemm(blas.NoTrans, blas.Trans, f.M, f.N, t.k, 1, t.u, f.M, t.v, f.N, 0, d, f.M)
}

// Trsm overwrites the tile A in buf with A L^-T, L the N x N lower
// triangular factor l (leading dimension N): for A = U V^T this is
// U (L^-1 V)^T, a solve with the N x k factor V only.
func (c Compressor) Trsm(f runtime.LowRank, l, buf []float64) {
	t := read(f, buf)
	if t.k < 0 {
		c.K.Dtrsm(blas.Right, blas.Lower, blas.Trans, blas.NonUnit, f.M, f.N, 1, l, f.N, t.d, f.M)
		return
	}
	c.K.Dtrsm(blas.Left, blas.Lower, blas.NoTrans, blas.NonUnit, f.N, t.k, 1, l, f.N, t.v, f.N)
}

// Syrk updates the lower triangle of the dense M x M tile cd with
// cd - A A^T for the tile A in buf: for A = U V^T, cd - U (V^T V) U^T.
func (c Compressor) Syrk(f runtime.LowRank, buf, cd []float64) {
	t := read(f, buf)
	m := f.M
	if t.k < 0 {
		c.K.Dsyrk(blas.Lower, blas.NoTrans, m, f.N, -1, t.d, m, 1, cd, m)
		return
	}
	k := t.k
	if k == 0 {
		return
	}
	g := make([]float64, k*k+m*k)
	c.K.Dgemm(blas.Trans, blas.NoTrans, k, k, f.N, 1, t.v, f.N, t.v, f.N, 0, g, k)
	w := g[k*k:]
	c.K.Dgemm(blas.NoTrans, blas.NoTrans, m, k, k, 1, t.u, m, g, k, 0, w, m)
	c.K.Dgemm(blas.NoTrans, blas.Trans, m, m, k, -1, w, m, t.u, m, 1, cd, m)
}

// product returns A B^T for the tiles A (M x K) and B (N x K) as a dense
// M x N tile (d != nil) or as pu pv^T (pu M x r, pv N x r).
func (c Compressor) product(a, b view) (d, pu, pv []float64, r int) {
	m, n := a.m, b.m
	switch {
	case a.k < 0 && b.k < 0:
		d = make([]float64, m*n)
		c.K.Dgemm(blas.NoTrans, blas.Trans, m, n, a.n, 1, a.d, m, b.d, n, 0, d, m)
		return d, nil, nil, 0
	case a.k < 0: // Da Vb Ub^T
		pu = make([]float64, m*b.k)
		c.K.Dgemm(blas.NoTrans, blas.NoTrans, m, b.k, a.n, 1, a.d, m, b.v, b.n, 0, pu, m)
		return nil, pu, b.u, b.k
	case b.k < 0: // Ua (Db Va)^T
		pv = make([]float64, n*a.k)
		c.K.Dgemm(blas.NoTrans, blas.NoTrans, n, a.k, b.n, 1, b.d, n, a.v, a.n, 0, pv, n)
		return nil, a.u, pv, a.k
	}
	if a.k == 0 || b.k == 0 {
		return nil, nil, nil, 0
	}
	g := make([]float64, a.k*b.k) // Va^T Vb
	c.K.Dgemm(blas.Trans, blas.NoTrans, a.k, b.k, a.n, 1, a.v, a.n, b.v, b.n, 0, g, a.k)
	if a.k <= b.k { // Ua (Ub G^T)^T
		pv = make([]float64, n*a.k)
		c.K.Dgemm(blas.NoTrans, blas.Trans, n, a.k, b.k, 1, b.u, n, g, a.k, 0, pv, n)
		return nil, a.u, pv, a.k
	}
	pu = make([]float64, m*b.k) // (Ua G) Ub^T
	c.K.Dgemm(blas.NoTrans, blas.NoTrans, m, b.k, a.k, 1, a.u, m, g, a.k, 0, pu, m)
	return nil, pu, b.u, b.k
}

// Gemm updates the tile C in cbuf (format fc, M x N) with C - A B^T for
// the tiles A in abuf (fa, M x K) and B in bbuf (fb, N x K). A low-rank C
// is recompressed: with the product P = pU pV^T, the stacked factors
// [Uc, -pU] and [Vc, pV] are factored Q_u R_u and Q_v R_v, the small
// R_u R_v^T = X S Y^T, and C = (Q_u X_r S_r)(Q_v Y_r)^T with r the
// smallest rank of Frobenius error <= Acc. It returns C's new rank (-1:
// dense).
func (c Compressor) Gemm(fa runtime.LowRank, abuf []float64, fb runtime.LowRank, bbuf []float64,
	fc runtime.LowRank, cbuf []float64) (int, error) {
	a, b, t := read(fa, abuf), read(fb, bbuf), read(fc, cbuf)
	if t.k < 0 { // dense C
		c.subProduct(a, b, t.d)
		return -1, nil
	}
	m, n := fc.M, fc.N
	d, pu, pv, kp := c.product(a, b)
	if d == nil && kp == 0 {
		return t.k, nil
	}
	kk := t.k + kp
	if d != nil || kk >= min(m, n) {
		// Densify C - P and compress it afresh.
		full := make([]float64, m*n)
		c.Expand(fc, cbuf, full)
		if d != nil {
			c.K.Dgeadd(m, n, -1, d, m, 1, full, m)
		} else {
			c.K.Dgemm(blas.NoTrans, blas.Trans, m, n, kp, -1, pu, m, pv, n, 1, full, m)
		}
		return c.Compress(fc, full, cbuf)
	}
	us := make([]float64, m*kk)
	vs := make([]float64, n*kk)
	copy(us, t.u)
	copy(vs, t.v)
	for i, x := range pu[:m*kp] {
		us[m*t.k+i] = -x
	}
	copy(vs[n*t.k:], pv[:n*kp])
	q, err := c.core(m, n, kk, us, vs, c.Acc)
	if err != nil {
		return 0, err
	}
	if q.r <= fc.MaxRank {
		u, v := fc.Factors(cbuf, q.r)
		c.factors(q, q.r, u, v)
		return q.r, nil
	}
	if !fc.HoldsDense() {
		return q.r, &RankError{Rank: q.r, MaxRank: fc.MaxRank, Format: fc}
	}
	// C = (Q_u X S)(Q_v Y)^T at full rank.
	xs := make([]float64, m*kk)
	ys := make([]float64, n*kk)
	c.factors(q, kk, xs, ys)
	c.K.Dgemm(blas.NoTrans, blas.Trans, m, n, kk, 1, xs, m, ys, n, 0, fc.SetDense(cbuf), m)
	return -1, nil
}

// GemmDense updates the dense M x N column-major tile cd (leading
// dimension M) with cd - A B^T for the tiles A in abuf (fa, M x K) and B
// in bbuf (fb, N x K): Gemm's update of a C held dense, for a C stored
// in float64 (or widened from float32) whose operands are low-rank.
func (c Compressor) GemmDense(fa runtime.LowRank, abuf []float64, fb runtime.LowRank, bbuf []float64, cd []float64) {
	c.subProduct(read(fa, abuf), read(fb, bbuf), cd)
}

// subProduct sets the dense cd = cd - A B^T.
func (c Compressor) subProduct(a, b view, cd []float64) {
	m, n := a.m, b.m
	d, pu, pv, kp := c.product(a, b)
	if d != nil {
		c.K.Dgeadd(m, n, -1, d, m, 1, cd, m)
	} else if kp > 0 {
		c.K.Dgemm(blas.NoTrans, blas.Trans, m, n, kp, -1, pu, m, pv, n, 1, cd, m)
	}
}

// Gemv computes y = y + alpha A x (trans NoTrans; x of N, y of M) or
// y = y + alpha A^T x (Trans; x of M, y of N) for the tile A in buf: for
// A = U V^T, U (V^T x) or V (U^T x).
func (c Compressor) Gemv(f runtime.LowRank, trans blas.Transpose, alpha float64, buf, x, y []float64) {
	t := read(f, buf)
	if t.k < 0 {
		c.K.Dgemv(trans, f.M, f.N, alpha, t.d, f.M, x, 1, 1, y, 1)
		return
	}
	if t.k == 0 {
		return
	}
	w := make([]float64, t.k)
	if trans == blas.NoTrans {
		c.K.Dgemv(blas.Trans, f.N, t.k, 1, t.v, f.N, x, 1, 0, w, 1)
		c.K.Dgemv(blas.NoTrans, f.M, t.k, alpha, t.u, f.M, w, 1, 1, y, 1)
		return
	}
	c.K.Dgemv(blas.Trans, f.M, t.k, 1, t.u, f.M, x, 1, 0, w, 1)
	c.K.Dgemv(blas.NoTrans, f.N, t.k, alpha, t.v, f.N, w, 1, 1, y, 1)
}

// Flop counts of seed 002 (section III-B) for an nb x nb tile of rank k.

// TrsmFlops returns nb^2 k, the triangular solve on the nb x k factor V.
func TrsmFlops(nb, k float64) float64 { return nb * nb * k }

// SyrkFlops returns 2 nb^2 k + 4 nb k^2 (LR-syrk).
func SyrkFlops(nb, k float64) float64 { return 2*nb*nb*k + 4*nb*k*k }

// GemmFlops returns 36 nb k^2 (LR-gemm with recompression).
func GemmFlops(nb, k float64) float64 { return 36 * nb * k * k }

// CompressFlops returns the flops of compressing an m x n tile (m >= n)
// by the method: 22 m n^2 for the SVD (dgesdd, a rough count), 4 m n^2 -
// 4/3 n^3 for the column-pivoted QR.
func CompressFlops(meth Method, m, n float64) float64 {
	if m < n {
		m, n = n, m
	}
	switch meth {
	case RRQR:
		return 4*m*n*n - 4.0/3*n*n*n
	case ACA: // at rank n/16: the residual check 2 m n k dominates
		return m * n * n / 8
	}
	return 22 * m * n * n
}

// frob returns the Frobenius norm of x.
func frob(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v * v
	}
	return math.Sqrt(s)
}

func errNoConvergence(k int) error {
	return fmt.Errorf("tlr: SVD of a %dx%d recompression core did not converge", k, k)
}

// Mul computes, for the M x N tile A in buf and a dense column-major
// operand B with r right-hand sides,
//
//	side Left:  C = C + alpha op(A) B   (B op(A)'s columns x r, C op(A)'s rows x r),
//	side Right: C = C + alpha B op(A)   (B r x op(A)'s rows, C r x op(A)'s columns),
//
// with op(A) = A or A^T by trans, ldb and ldc the leading dimensions. For
// A = U V^T the product goes through the rank: U (V^T B), V (U^T B),
// (B U) V^T or (B V) U^T, 2 (M + N) k r flops instead of 2 M N r; a dense
// A is one dgemm, a rank-0 A changes nothing. It is the tile step of a
// triangular solve or product with a TLR factor and a dense matrix.
func (c Compressor) Mul(f runtime.LowRank, buf []float64, side blas.Side, trans blas.Transpose, alpha float64,
	b []float64, ldb, r int, cm []float64, ldc int) {
	t := read(f, buf)
	if r == 0 {
		return
	}
	rows, cols := f.M, f.N // of op(A)
	if trans == blas.Trans {
		rows, cols = cols, rows
	}
	if t.k < 0 {
		if side == blas.Left {
			c.K.Dgemm(trans, blas.NoTrans, rows, r, cols, alpha, t.d, f.M, b, ldb, 1, cm, ldc)
		} else {
			c.K.Dgemm(blas.NoTrans, trans, r, cols, rows, alpha, b, ldb, t.d, f.M, 1, cm, ldc)
		}
		return
	}
	k := t.k
	if k == 0 {
		return
	}
	// op(A) = P Q^T with P rows x k, Q cols x k.
	p, q := t.u, t.v
	ldp, ldq := f.M, f.N
	if trans == blas.Trans {
		p, q, ldp, ldq = q, p, ldq, ldp
	}
	w := make([]float64, k*r)
	if side == blas.Left { // C += alpha P (Q^T B)
		c.K.Dgemm(blas.Trans, blas.NoTrans, k, r, cols, 1, q, ldq, b, ldb, 0, w, k)
		c.K.Dgemm(blas.NoTrans, blas.NoTrans, rows, r, k, alpha, p, ldp, w, k, 1, cm, ldc)
		return
	}
	// C += alpha (B P) Q^T
	c.K.Dgemm(blas.NoTrans, blas.NoTrans, r, k, rows, 1, b, ldb, p, ldp, 0, w, r)
	c.K.Dgemm(blas.NoTrans, blas.Trans, r, cols, k, alpha, w, r, q, ldq, 1, cm, ldc)
}

// MulFlops returns the flops of Mul on an m x n tile of rank k (k < 0:
// dense) with r right-hand sides.
func MulFlops(m, n, k, r float64) float64 {
	if k < 0 {
		return 2 * m * n * r
	}
	return 2 * (m + n) * k * r
}
