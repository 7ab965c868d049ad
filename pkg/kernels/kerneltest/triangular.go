package kerneltest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"

	"github.com/exageostat/exageostat/pkg/kernels"
)

func suiteDtrmm(t *testing.T, impl kernels.Impl, tol float64) {
	rnd := newRand()
	triangularCases(func(c triCase) { testDtrmm(t, impl, tol, c, rnd) }, []int{3})
}

// testDtrmm checks B = alpha op(A) B or alpha B op(A) against a naive
// product with the dense triangular op(A).
func testDtrmm(t *testing.T, impl kernels.Impl, tol float64, c triCase, rnd *rand.Rand) {
	t.Helper()
	side, uplo, tA, diag, m, n, alpha, extra := c.side, c.uplo, c.tA, c.diag, c.m, c.n, c.alpha, c.extra
	what := fmt.Sprintf("Dtrmm(%s, %s, %s, %s, m=%d, n=%d, alpha=%v)",
		name(side), name(uplo), name(tA), name(diag), m, n, alpha)
	p := m
	if side == blas.Right {
		p = n
	}
	a := randTriangular(uplo, diag, p, extra, rnd)
	b := randColMajor(m, n, extra, rnd)
	a0, b0 := a.clone(), b.clone()
	opA, _ := opTriangular(uplo, tA, diag, a)
	want := make([]float64, len(b.data))
	scale := make([]float64, len(b.data))
	for j := 0; j < n; j++ {
		for i := 0; i < m; i++ {
			s, sa := sumBound(p, func(k int) float64 {
				if side == blas.Left {
					return opA[i+k*p] * b.at(k, j)
				}
				return b.at(i, k) * opA[k+j*p]
			})
			want[i+j*b.ld] = alpha * s
			scale[i+j*b.ld] = math.Abs(alpha) * sa
		}
	}
	impl.Dtrmm(side, uplo, tA, diag, m, n, alpha, a.data, a.ld, b.data, b.ld)
	checkUnchanged(t, what+": A", a.ld, a.data, a0.data)
	checkResult(t, tol, what+": B", b.ld, b.data, b0.data, want, scale, b.inside)
}

func suiteDtrtri(t *testing.T, impl kernels.Impl, tol float64) {
	rnd := newRand()
	for _, n := range []int{1, 2, 7, 33, 64, 65, 130} {
		for _, uplo := range uplos {
			for _, diag := range diags {
				what := fmt.Sprintf("Dtrtri(%s, %s, n=%d)", name(uplo), name(diag), n)
				a := randTriangular(uplo, diag, n, 2, rnd)
				a0 := a.clone()
				if info := impl.Dtrtri(uplo, diag, n, a.data, a.ld); info != 0 {
					t.Fatalf("%s: info %d", what, info)
				}
				checkInverse(t, what, uplo, diag, n, a0, a)
			}
		}
	}
	// A zero on the diagonal is reported.
	a := []float64{1, 0, 0, 0, 0, 0, 0, 0, 2}
	if info := impl.Dtrtri(blas.Lower, blas.NonUnit, 3, a, 3); info != 2 {
		t.Fatalf("singular: info %d, want 2", info)
	}
}

func suiteLowerInverse(t *testing.T, impl kernels.Impl, tol float64) {
	rnd := newRand()
	for _, n := range []int{1, 50, 96, 97, 200, 333} {
		a := randTriangular(blas.Lower, blas.NonUnit, n, 3, rnd)
		a0 := a.clone()
		if info := kernels.LowerInverse(impl, n, a.data, a.ld); info != 0 {
			t.Fatalf("n=%d: info %d", n, info)
		}
		checkInverse(t, fmt.Sprintf("LowerInverse(n=%d)", n), blas.Lower, blas.NonUnit, n, a0, a)
	}
	// A zero pivot in the second half is reported at its global order.
	n := 150
	a := randTriangular(blas.Lower, blas.NonUnit, n, 0, rnd)
	a.set(120, 120, 0)
	if info := kernels.LowerInverse(impl, n, a.data, a.ld); info != 121 {
		t.Fatalf("singular: info %d, want 121", info)
	}
}

// checkInverse asserts that the triangle of inv holds the inverse of the
// triangular matrix a (inv(A) A = I) and that nothing outside the triangle
// changed.
func checkInverse(t *testing.T, what string, uplo blas.Uplo, diag blas.Diag, n int, a, inv colMajor) {
	t.Helper()
	ta, ti := triangular(uplo, diag, a), triangular(uplo, diag, inv)
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			var s float64
			for k := 0; k < n; k++ {
				s += ti[i+k*n] * ta[k+j*n]
			}
			want := 0.0
			if i == j {
				want = 1
			}
			if math.Abs(s-want) > 1e-12*float64(n) {
				t.Fatalf("%s: (inv(A) A)(%d,%d) = %g", what, i, j, s)
			}
		}
	}
	for idx := range inv.data {
		i, j := idx%inv.ld, idx/inv.ld
		other := i >= n || (uplo == blas.Lower && i < j) || (uplo == blas.Upper && i > j) || (diag == blas.Unit && i == j)
		if other && math.Float64bits(inv.data[idx]) != math.Float64bits(a.data[idx]) {
			t.Fatalf("%s: element (%d,%d) outside the triangle changed", what, i, j)
		}
	}
}
