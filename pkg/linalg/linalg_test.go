package linalg_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas"

	"github.com/exageostat/exageostat/pkg/linalg"
)

// The double-precision tile kernels are checked by the shared kernel suite
// (package kernels/kerneltest, run by package kernels' tests over All);
// the tests here check what only this package offers over All: the
// float32 BLAS, the factorisations of the low-rank compression and the
// argument checks.

func forEach(t *testing.T, f func(t *testing.T, b linalg.Backend)) {
	for _, b := range linalg.All() {
		t.Run(b.Name(), func(t *testing.T) { f(t, b) })
	}
}

func randMat(rnd *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = 2*rnd.Float64() - 1
	}
	return x
}

func single(x []float64) []float32 {
	y := make([]float32, len(x))
	for i, v := range x {
		y[i] = float32(v)
	}
	return y
}

// at returns element (i, j) of op(a) for the column-major a with leading
// dimension ld.
func at[T float32 | float64](a []T, ld int, t blas.Transpose, i, j int) float64 {
	if t != blas.NoTrans {
		i, j = j, i
	}
	return float64(a[i+j*ld])
}

// TestSgemm: C = alpha op(A) op(B) + beta C in float32 against the
// float64 products of the same float32 values, to float32 rounding (the
// bound 2^-24 k sum |terms| plus slack), with padding rows untouched.
func TestSgemm(t *testing.T) {
	forEach(t, func(t *testing.T, b linalg.Backend) {
		rnd := rand.New(rand.NewPCG(1, 2))
		for _, sz := range [][3]int{{7, 5, 3}, {40, 33, 64}, {1, 9, 17}} {
			for _, tA := range []blas.Transpose{blas.NoTrans, blas.Trans} {
				for _, tB := range []blas.Transpose{blas.NoTrans, blas.Trans} {
					m, n, k := sz[0], sz[1], sz[2]
					ar, ac, br, bc := m, k, k, n
					if tA == blas.Trans {
						ar, ac = k, m
					}
					if tB == blas.Trans {
						br, bc = n, k
					}
					lda, ldb, ldc := ar+1, br+2, m+3
					a := single(randMat(rnd, lda*ac))
					bb := single(randMat(rnd, ldb*bc))
					c := single(randMat(rnd, ldc*n))
					c0 := slices.Clone(c)
					const alpha, beta = -1.5, 0.5
					b.Sgemm(tA, tB, m, n, k, alpha, a, lda, bb, ldb, beta, c, ldc)
					for j := 0; j < n; j++ {
						for i := 0; i < ldc; i++ {
							got := float64(c[i+j*ldc])
							if i >= m {
								if got != float64(c0[i+j*ldc]) {
									t.Fatalf("Sgemm(%c%c, %v): padding (%d,%d) changed", tA, tB, sz, i, j)
								}
								continue
							}
							s, bound := 0.0, 0.0
							for l := 0; l < k; l++ {
								p := at(a, lda, tA, i, l) * at(bb, ldb, tB, l, j)
								s += p
								bound += math.Abs(p)
							}
							want := alpha*s + beta*float64(c0[i+j*ldc])
							tol := 0x1p-24 * float64(k+4) * (math.Abs(alpha)*bound + math.Abs(beta*float64(c0[i+j*ldc])))
							if d := math.Abs(got - want); !(d <= tol) {
								t.Fatalf("Sgemm(%c%c, %v): C(%d,%d) = %g, want %g (|diff| %.3g > %.3g)", tA, tB, sz, i, j, got, want, d, tol)
							}
						}
					}
				}
			}
		}
	})
}

// triangle returns a p x p float32 triangular matrix (leading dimension
// p) with diagonal entries in [2, 3) and off-diagonal ones of magnitude
// below 1/p (diagonally dominant), and 9 in the other triangle, which
// must not be read.
func triangle(rnd *rand.Rand, uplo blas.Uplo, p int) []float32 {
	a := make([]float32, p*p)
	for j := 0; j < p; j++ {
		for i := 0; i < p; i++ {
			switch {
			case i == j:
				a[i+j*p] = float32(2 + rnd.Float64())
			case (uplo == blas.Lower) == (i > j):
				a[i+j*p] = float32((2*rnd.Float64() - 1) / float64(p))
			default:
				a[i+j*p] = 9
			}
		}
	}
	return a
}

// TestStrsm: the solution X of op(A) X = alpha B (Left) or X op(A) =
// alpha B (Right) satisfies the equation in float64 to float32 rounding.
func TestStrsm(t *testing.T) {
	forEach(t, func(t *testing.T, b linalg.Backend) {
		rnd := rand.New(rand.NewPCG(3, 4))
		const m, n, alpha = 9, 12, 0.75
		for _, side := range []blas.Side{blas.Left, blas.Right} {
			for _, uplo := range []blas.Uplo{blas.Lower, blas.Upper} {
				for _, tA := range []blas.Transpose{blas.NoTrans, blas.Trans} {
					p := m
					if side == blas.Right {
						p = n
					}
					a := triangle(rnd, uplo, p)
					rhs := single(randMat(rnd, m*n))
					x := slices.Clone(rhs)
					b.Strsm(side, uplo, tA, blas.NonUnit, m, n, alpha, a, p, x, m)
					opA := func(i, j int) float64 {
						v := at(a, p, tA, i, j)
						if v == 9 { // the other triangle: zero
							return 0
						}
						return v
					}
					for j := 0; j < n; j++ {
						for i := 0; i < m; i++ {
							s, bound := 0.0, 0.0
							for l := 0; l < p; l++ {
								var q float64
								if side == blas.Left {
									q = opA(i, l) * float64(x[l+j*m])
								} else {
									q = float64(x[i+l*m]) * opA(l, j)
								}
								s += q
								bound += math.Abs(q)
							}
							want := alpha * float64(rhs[i+j*m])
							if d := math.Abs(s - want); d > 1e-5*(bound+math.Abs(want)) {
								t.Fatalf("Strsm(%c%c%c): residual (%d,%d) = %.3g", side, uplo, tA, i, j, d)
							}
						}
					}
				}
			}
		}
	})
}

// product returns the m x n column-major product of the m x k a and the
// k x n b (leading dimensions m and k).
func product(m, n, k int, a, b []float64) []float64 {
	c := make([]float64, m*n)
	for j := 0; j < n; j++ {
		for l := 0; l < k; l++ {
			for i := 0; i < m; i++ {
				c[i+j*m] += a[i+l*m] * b[l+j*k]
			}
		}
	}
	return c
}

// transpose returns the n x m transpose of the column-major m x n a.
func transpose(m, n int, a []float64) []float64 {
	t := make([]float64, m*n)
	for j := 0; j < n; j++ {
		for i := 0; i < m; i++ {
			t[j+i*n] = a[i+j*m]
		}
	}
	return t
}

// checkClose fails unless every element of got is within tol of want.
func checkClose(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	for i := range want {
		if d := math.Abs(got[i] - want[i]); !(d <= tol) {
			t.Fatalf("%s: element %d = %g, want %g (|diff| %.3g > %.3g)", what, i, got[i], want[i], d, tol)
		}
	}
}

// identity returns the n x n identity matrix.
func identity(n int) []float64 {
	e := make([]float64, n*n)
	for i := 0; i < n; i++ {
		e[i+i*n] = 1
	}
	return e
}

// eachShape calls f for each shape of the factorisation tests with a
// random m x n matrix.
func eachShape(seed uint64, f func(m, n int, a0 []float64)) {
	rnd := rand.New(rand.NewPCG(seed, seed+1))
	for _, sz := range [][2]int{{8, 5}, {5, 8}, {30, 30}, {4, 1}, {1, 4}} {
		f(sz[0], sz[1], randMat(rnd, sz[0]*sz[1]))
	}
}

// TestSVD: U diag(s) VT reproduces A, U and VT have orthonormal columns and
// rows, and s is non-negative and decreasing.
func TestSVD(t *testing.T) {
	forEach(t, func(t *testing.T, b linalg.Backend) {
		eachShape(5, func(m, n int, a0 []float64) {
			r := min(m, n)
			a := slices.Clone(a0)
			s, u, vt := make([]float64, r), make([]float64, m*r), make([]float64, r*n)
			if !b.SVD(m, n, a, s, u, vt) {
				t.Fatalf("SVD(%d x %d) did not converge", m, n)
			}
			what := fmt.Sprintf("SVD(%d x %d)", m, n)
			for i := range s {
				if s[i] < 0 || (i > 0 && s[i] > s[i-1]) {
					t.Fatalf("%s: singular values %v not decreasing and >= 0", what, s)
				}
			}
			us := slices.Clone(u)
			for j := 0; j < r; j++ {
				for i := 0; i < m; i++ {
					us[i+j*m] *= s[j]
				}
			}
			tol := 1e-13 * float64(m+n)
			checkClose(t, what+": U S VT", product(m, n, r, us, vt), a0, tol)
			checkClose(t, what+": UT U", product(r, r, m, transpose(m, r, u), u), identity(r), tol)
			checkClose(t, what+": VT V", product(r, r, n, vt, transpose(r, n, vt)), identity(r), tol)
		})
	})
}

// TestQR: Q R reproduces A, Q has orthonormal columns and R is upper
// triangular with exact zeros below the diagonal.
func TestQR(t *testing.T) {
	forEach(t, func(t *testing.T, b linalg.Backend) {
		eachShape(7, func(m, n int, a0 []float64) {
			if m < n {
				return
			}
			q, r := slices.Clone(a0), slices.Repeat([]float64{7}, n*n)
			b.QR(m, n, q, r)
			what := fmt.Sprintf("QR(%d x %d)", m, n)
			for j := 0; j < n; j++ {
				for i := j + 1; i < n; i++ {
					if r[i+j*n] != 0 {
						t.Fatalf("%s: R(%d,%d) = %g below the diagonal", what, i, j, r[i+j*n])
					}
				}
			}
			tol := 1e-13 * float64(m+n)
			checkClose(t, what+": Q R", product(m, n, n, q, r), a0, tol)
			checkClose(t, what+": QT Q", product(n, n, m, transpose(m, n, q), q), identity(n), tol)
		})
	})
}

// TestQRCP: the pivoted QR (QRCP, then FormQ on its reflectors) gives a
// permutation jpvt, an R whose diagonal decreases in magnitude, and
// Q R = A P.
func TestQRCP(t *testing.T) {
	forEach(t, func(t *testing.T, b linalg.Backend) {
		eachShape(9, func(m, n int, a0 []float64) {
			k := min(m, n)
			a := slices.Clone(a0)
			jpvt, tau := make([]int, n), make([]float64, k)
			b.QRCP(m, n, a, jpvt, tau)
			what := fmt.Sprintf("QRCP(%d x %d)", m, n)
			for i, c := range slices.Sorted(slices.Values(jpvt)) {
				if c != i {
					t.Fatalf("%s: jpvt %v is not a permutation", what, jpvt)
				}
			}
			r := make([]float64, k*n)
			for j := 0; j < n; j++ {
				for i := 0; i <= min(j, k-1); i++ {
					r[i+j*k] = a[i+j*m]
				}
			}
			for i := 1; i < k; i++ {
				if math.Abs(r[i+i*k]) > math.Abs(r[i-1+(i-1)*k])*(1+1e-12) {
					t.Fatalf("%s: |R(%d,%d)| increases", what, i, i)
				}
			}
			q := slices.Clone(a[:m*k])
			b.FormQ(m, k, q, tau)
			ap := make([]float64, m*n)
			for j, c := range jpvt {
				copy(ap[j*m:(j+1)*m], a0[c*m:(c+1)*m])
			}
			tol := 1e-13 * float64(m+n)
			checkClose(t, what+": Q R against A P", product(m, n, k, q, r), ap, tol)
			checkClose(t, what+": QT Q", product(k, k, m, transpose(m, k, q), q), identity(k), tol)
		})
	})
}

// TestChecks: each call a caller must never make panics, before the
// library sees it, with one message naming the routine and the argument,
// the same for every library.
func TestChecks(t *testing.T) {
	f := func(n int) []float64 { return make([]float64, n) }
	s := func(n int) []float32 { return make([]float32, n) }
	const N, T = blas.NoTrans, blas.Trans
	cases := []struct {
		want string
		call func(b linalg.Backend)
	}{
		{"gemm: lda = 2 < max(1, 3)", func(b linalg.Backend) { b.Dgemm(N, N, 3, 2, 4, 1, f(12), 2, f(8), 4, 0, f(6), 3) }},
		{"gemm: ldb = 1 < max(1, 2)", func(b linalg.Backend) { b.Dgemm(T, T, 3, 2, 4, 1, f(12), 4, f(8), 1, 0, f(6), 3) }},
		{"gemm: len(C) = 5 < 6", func(b linalg.Backend) { b.Dgemm(N, N, 3, 2, 4, 1, f(12), 3, f(8), 4, 0, f(5), 3) }},
		{"gemm: len(A) = 11 < 12", func(b linalg.Backend) { b.Dgemm(N, N, 3, 2, 4, 1, f(11), 3, f(8), 4, 0, f(6), 3) }},
		{"gemm: tA = 'X' is not NoTrans", func(b linalg.Backend) { b.Dgemm('X', N, 3, 2, 4, 1, f(12), 3, f(8), 4, 0, f(6), 3) }},
		{"gemm: m = -1 < 0", func(b linalg.Backend) { b.Dgemm(N, N, -1, 2, 4, 1, f(12), 3, f(8), 4, 0, f(6), 3) }},
		{"syrk: uplo = 'A' is not Lower or Upper", func(b linalg.Backend) { b.Dsyrk(blas.All, N, 2, 2, 1, f(4), 2, 0, f(4), 2) }},
		{"syrk: lda = 2 < max(1, 3)", func(b linalg.Backend) { b.Dsyrk(blas.Lower, T, 2, 3, 1, f(6), 2, 0, f(4), 2) }},
		{"syrk: len(C) = 3 < 4", func(b linalg.Backend) { b.Dsyrk(blas.Lower, N, 2, 2, 1, f(4), 2, 0, f(3), 2) }},
		{"trsm: side = 'X' is not Left or Right", func(b linalg.Backend) {
			b.Dtrsm('X', blas.Lower, N, blas.NonUnit, 2, 2, 1, f(4), 2, f(4), 2)
		}},
		{"trsm: lda = 2 < max(1, 3)", func(b linalg.Backend) {
			b.Dtrsm(blas.Right, blas.Lower, N, blas.NonUnit, 2, 3, 1, f(9), 2, f(6), 2)
		}},
		{"trsm: len(B) = 5 < 6", func(b linalg.Backend) {
			b.Dtrsm(blas.Left, blas.Lower, N, blas.NonUnit, 2, 3, 1, f(4), 2, f(5), 2)
		}},
		{"trmm: diag = 'X' is not NonUnit or Unit", func(b linalg.Backend) {
			b.Dtrmm(blas.Left, blas.Lower, N, 'X', 2, 2, 1, f(4), 2, f(4), 2)
		}},
		{"trmm: ldb = 1 < max(1, 2)", func(b linalg.Backend) {
			b.Dtrmm(blas.Left, blas.Upper, T, blas.Unit, 2, 2, 1, f(4), 2, f(4), 1)
		}},
		{"gemv: incX = 0", func(b linalg.Backend) { b.Dgemv(N, 2, 2, 1, f(4), 2, f(2), 0, 0, f(2), 1) }},
		{"gemv: len(x) = 2 < 3", func(b linalg.Backend) { b.Dgemv(T, 3, 2, 1, f(6), 3, f(2), 1, 0, f(2), 1) }},
		{"gemv: len(y) = 2 < 3", func(b linalg.Backend) { b.Dgemv(N, 3, 2, 1, f(6), 3, f(3), 2, 0, f(2), 1) }},
		{"trsv: len(x) = 4 < 5", func(b linalg.Backend) { b.Dtrsv(blas.Lower, N, blas.NonUnit, 3, f(9), 3, f(4), 2) }},
		{"trsv: lda = 2 < max(1, 3)", func(b linalg.Backend) { b.Dtrsv(blas.Upper, T, blas.Unit, 3, f(9), 2, f(3), 1) }},
		{"dot: n = -2 < 0", func(b linalg.Backend) { b.Ddot(-2, f(2), 1, f(2), 1) }},
		{"dot: len(y) = 2 < 3", func(b linalg.Backend) { b.Ddot(3, f(3), 1, f(2), 1) }},
		{"geadd: ldb = 1 < max(1, 2)", func(b linalg.Backend) { b.Dgeadd(2, 2, 1, f(4), 2, 1, f(4), 1) }},
		{"potrf: lda = 2 < max(1, 3)", func(b linalg.Backend) { b.Dpotrf(3, f(9), 2) }},
		{"potrf: len(A) = 8 < 9", func(b linalg.Backend) { b.Dpotrf(3, f(8), 3) }},
		{"trtri: len(A) = 3 < 4", func(b linalg.Backend) { b.Dtrtri(blas.Lower, blas.NonUnit, 2, f(3), 2) }},
		{"trtri: uplo = 'A' is not", func(b linalg.Backend) { b.Dtrtri(blas.All, blas.NonUnit, 2, f(4), 2) }},
		{"sgemm: len(B) = 7 < 8", func(b linalg.Backend) { b.Sgemm(N, N, 3, 2, 4, 1, s(12), 3, s(7), 4, 0, s(6), 3) }},
		{"strsm: uplo = 'A' is not", func(b linalg.Backend) {
			b.Strsm(blas.Left, blas.All, N, blas.NonUnit, 2, 2, 1, s(4), 2, s(4), 2)
		}},
		{"svd: len(VT) = 3 < 4", func(b linalg.Backend) { b.SVD(3, 2, f(6), f(2), f(6), f(3)) }},
		{"qr: m = 2 < n = 3", func(b linalg.Backend) { b.QR(2, 3, f(6), f(9)) }},
		{"qrcp: len(jpvt) = 2 < 3", func(b linalg.Backend) { b.QRCP(4, 3, f(12), make([]int, 2), f(3)) }},
		{"formq: len(tau) = 1 < 2", func(b linalg.Backend) { b.FormQ(4, 2, f(8), f(1)) }},
	}
	forEach(t, func(t *testing.T, b linalg.Backend) {
		for _, c := range cases {
			msg := func() (msg string) {
				defer func() { msg = fmt.Sprint(recover()) }()
				c.call(b)
				return "no panic"
			}()
			if !strings.HasPrefix(msg, "linalg: ") || !strings.Contains(msg, c.want) {
				t.Errorf("panic %q, want one containing %q", msg, c.want)
			}
		}
	})
}
