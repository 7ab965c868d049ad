package kerneltest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas"

	"github.com/exageostat/exageostat/pkg/kernels"
)

// gemmSizes are the (m, n, k) shapes of suiteDgemm; k = 0 reduces the
// product to C = beta C.
var gemmSizes = [][3]int{
	{1, 1, 1}, {2, 3, 4}, {7, 1, 33}, {1, 7, 5}, {7, 33, 64},
	{33, 7, 1}, {64, 64, 64}, {65, 17, 33}, {5, 4, 0},
}

func suiteDgemm(t *testing.T, impl kernels.Impl, tol float64) {
	rnd := newRand()
	product(func(ix []int) {
		sz := gemmSizes[ix[0]]
		testDgemm(t, impl, tol, transposes[ix[1]], transposes[ix[2]], sz[0], sz[1], sz[2], scalarPairs[ix[3]],
			ldExtras[ix[4]], rnd)
	}, len(gemmSizes), len(transposes), len(transposes), len(scalarPairs), len(ldExtras))
}

func testDgemm(t *testing.T, impl kernels.Impl, tol float64, tA, tB blas.Transpose, m, n, k int, sp scalarPair, extra int, rnd *rand.Rand) {
	t.Helper()
	what := fmt.Sprintf("Dgemm(%s, %s, m=%d, n=%d, k=%d, alpha=%v, beta=%v, ld+%d)",
		name(tA), name(tB), m, n, k, sp.alpha, sp.beta, extra)
	ar, ac := opDims(tA, m, k)
	a := randColMajor(ar, ac, extra, rnd)
	br, bc := opDims(tB, k, n)
	b := randColMajor(br, bc, 2*extra, rnd)
	c := randColMajor(m, n, 3*extra, rnd)
	if sp.beta == 0 {
		// C must not be read when beta is zero.
		for j := 0; j < n; j++ {
			for i := 0; i < m; i++ {
				c.set(i, j, math.NaN())
			}
		}
	}
	a0, b0, c0 := a.clone(), b.clone(), c.clone()

	want := make([]float64, len(c.data))
	scale := make([]float64, len(c.data))
	for j := 0; j < n; j++ {
		for i := 0; i < m; i++ {
			s, bound := sumBound(k, func(l int) float64 { return opAt(a, tA, i, l) * opAt(b, tB, l, j) })
			var bc float64
			if sp.beta != 0 {
				bc = sp.beta * c.at(i, j)
			}
			want[i+j*c.ld] = sp.alpha*s + bc
			scale[i+j*c.ld] = math.Abs(sp.alpha)*bound + math.Abs(bc)
		}
	}

	impl.Dgemm(tA, tB, m, n, k, sp.alpha, a.data, a.ld, b.data, b.ld, sp.beta, c.data, c.ld)

	checkUnchanged(t, what+": A", a.ld, a.data, a0.data)
	checkUnchanged(t, what+": B", b.ld, b.data, b0.data)
	checkResult(t, tol, what+": C", c.ld, c.data, c0.data, want, scale, c.inside)
}

// gemvSizes are the (m, n) shapes of suiteDgemv.
var gemvSizes = [][2]int{{1, 1}, {1, 7}, {7, 1}, {7, 33}, {33, 7}, {64, 64}, {65, 3}}

func suiteDgemv(t *testing.T, impl kernels.Impl, tol float64) {
	rnd := newRand()
	product(func(ix []int) {
		sz := gemvSizes[ix[0]]
		testDgemv(t, impl, tol, transposes[ix[1]], sz[0], sz[1], incs[ix[2]], incs[ix[3]], scalarPairs[ix[4]],
			ldExtras[ix[5]], rnd)
	}, len(gemvSizes), len(transposes), len(incs), len(incs), len(scalarPairs), len(ldExtras))
}

func testDgemv(t *testing.T, impl kernels.Impl, tol float64, tA blas.Transpose, m, n, incX, incY int, sp scalarPair, extra int, rnd *rand.Rand) {
	t.Helper()
	what := fmt.Sprintf("Dgemv(%s, m=%d, n=%d, alpha=%v, beta=%v, incX=%d, incY=%d, ld+%d)",
		name(tA), m, n, sp.alpha, sp.beta, incX, incY, extra)
	a := randColMajor(m, n, extra, rnd)
	lenY, lenX := opDims(tA, m, n)
	x := randStrided(lenX, incX, rnd)
	y := randStrided(lenY, incY, rnd)
	if sp.beta == 0 {
		// y must not be read when beta is zero.
		for i := 0; i < lenY; i++ {
			y.set(i, math.NaN())
		}
	}
	a0, x0, y0 := a.clone(), x.clone(), y.clone()

	want := make([]float64, len(y.data))
	scale := make([]float64, len(y.data))
	for i := 0; i < lenY; i++ {
		s, bound := sumBound(lenX, func(l int) float64 { return opAt(a, tA, i, l) * x.at(l) })
		var by float64
		if sp.beta != 0 {
			by = sp.beta * y.at(i)
		}
		want[i*incY] = sp.alpha*s + by
		scale[i*incY] = math.Abs(sp.alpha)*bound + math.Abs(by)
	}

	impl.Dgemv(tA, m, n, sp.alpha, a.data, a.ld, x.data, incX, sp.beta, y.data, incY)

	checkUnchanged(t, what+": A", a.ld, a.data, a0.data)
	checkUnchanged(t, what+": x", 0, x.data, x0.data)
	checkResult(t, tol, what+": y", 0, y.data, y0.data, want, scale, y.inside)
}

// syrkSizes are the (n, k) shapes of suiteDsyrk and suiteDsyrkBetaZero;
// k = 0 reduces the update to C = beta C.
var syrkSizes = [][2]int{{1, 1}, {1, 7}, {7, 1}, {7, 33}, {33, 7}, {64, 64}, {65, 17}, {4, 0}}

func suiteDsyrk(t *testing.T, impl kernels.Impl, tol float64) {
	rnd := newRand()
	product(func(ix []int) {
		sz := syrkSizes[ix[0]]
		sc := newSyrkCase(uplos[ix[1]], transposes[ix[2]], sz[0], sz[1], scalarPairs[ix[3]], ldExtras[ix[4]], false, rnd)
		sc.run(impl)
		sc.check(t, tol)
	}, len(syrkSizes), len(uplos), len(transposes), len(scalarPairs), len(ldExtras))
}

// suiteDsyrkBetaZero checks that with beta = 0 Dsyrk does not read C, as
// the reference BLAS specifies: the uplo triangle of C starts as NaN and
// must come out as alpha op(A) op(A)ᵀ. gonum v0.17.0's Dsyrk (the
// branch that the column-major Upper, NoTrans call reaches in its
// row-major view) scales C by beta = 0 instead of zeroing it, so a NaN
// survives there unless linalg's workaround clears C first: this test
// fails when that workaround goes.
func suiteDsyrkBetaZero(t *testing.T, impl kernels.Impl, tol float64) {
	for _, uplo := range uplos {
		for _, tA := range transposes {
			t.Run(name(uplo)+name(tA), func(t *testing.T) {
				rnd := newRand()
				for _, sz := range syrkSizes {
					sc := newSyrkCase(uplo, tA, sz[0], sz[1], scalarPair{1.5, 0}, 2, true, rnd)
					sc.run(impl)
					sc.check(t, tol)
				}
			})
		}
	}
}

// syrkCase is one Dsyrk call: its arguments, the operands as given and the
// reference result.
type syrkCase struct {
	what   string
	uplo   blas.Uplo
	tA     blas.Transpose
	n, k   int
	sp     scalarPair
	a, c   colMajor // operands passed to the kernel
	a0, c0 colMajor // copies of the operands as built
	want   []float64
	scale  []float64
}

// newSyrkCase builds a Dsyrk call with random operands. Only the uplo
// triangle of C is set, to NaN when nanC is true (only meaningful with
// beta = 0) and to random values otherwise; the other triangle holds
// sentinel and must be neither read nor written.
func newSyrkCase(uplo blas.Uplo, tA blas.Transpose, n, k int, sp scalarPair, extra int, nanC bool, rnd *rand.Rand) *syrkCase {
	sc := &syrkCase{
		what: fmt.Sprintf("Dsyrk(%s, %s, n=%d, k=%d, alpha=%v, beta=%v, ld+%d)",
			name(uplo), name(tA), n, k, sp.alpha, sp.beta, extra),
		uplo: uplo, tA: tA, n: n, k: k, sp: sp,
	}
	ar, ac := opDims(tA, n, k)
	sc.a = randColMajor(ar, ac, extra, rnd)
	sc.c = newColMajor(n, n, n+2*extra)
	for idx := range sc.c.data {
		if sc.inTriangle(idx) {
			if nanC {
				sc.c.data[idx] = math.NaN()
			} else {
				sc.c.data[idx] = uniform(rnd)
			}
		}
	}
	sc.a0, sc.c0 = sc.a.clone(), sc.c.clone()

	sc.want = make([]float64, len(sc.c.data))
	sc.scale = make([]float64, len(sc.c.data))
	for idx := range sc.c.data {
		if !sc.inTriangle(idx) {
			continue
		}
		i, j := idx%sc.c.ld, idx/sc.c.ld
		s, bound := sumBound(k, func(l int) float64 { return opAt(sc.a, tA, i, l) * opAt(sc.a, tA, j, l) })
		var bc float64
		if sp.beta != 0 {
			bc = sp.beta * sc.c.data[idx]
		}
		sc.want[idx] = sp.alpha*s + bc
		sc.scale[idx] = math.Abs(sp.alpha)*bound + math.Abs(bc)
	}
	return sc
}

// inTriangle reports whether the flat index idx of C lies in its uplo
// triangle.
func (sc *syrkCase) inTriangle(idx int) bool {
	i, j := idx%sc.c.ld, idx/sc.c.ld
	if i >= sc.n {
		return false
	}
	if sc.uplo == blas.Lower {
		return i >= j
	}
	return i <= j
}

// run calls impl.Dsyrk on the case's operands.
func (sc *syrkCase) run(impl kernels.Impl) {
	impl.Dsyrk(sc.uplo, sc.tA, sc.n, sc.k, sc.sp.alpha, sc.a.data, sc.a.ld, sc.sp.beta, sc.c.data, sc.c.ld)
}

// check verifies the operands after run: A unchanged, the uplo triangle of
// C equal to the reference and the rest of C untouched.
func (sc *syrkCase) check(t *testing.T, tol float64) {
	t.Helper()
	checkUnchanged(t, sc.what+": A", sc.a.ld, sc.a.data, sc.a0.data)
	checkResult(t, tol, sc.what+": C", sc.c.ld, sc.c.data, sc.c0.data, sc.want, sc.scale, sc.inTriangle)
}

// trsmSizes are the (m, n) shapes of suiteDtrsm.
var trsmSizes = [][2]int{{1, 1}, {1, 7}, {7, 1}, {7, 33}, {33, 7}, {64, 64}, {65, 17}}

// trsmAlphas are the alpha values of suiteDtrsm; alpha = 0 must zero B.
var trsmAlphas = []float64{1, -0.7, 2.3, 0}

// triCase is the arguments of one Dtrsm or Dtrmm call.
type triCase struct {
	side  blas.Side
	uplo  blas.Uplo
	tA    blas.Transpose
	diag  blas.Diag
	m, n  int
	alpha float64
	extra int
}

// triangularCases calls f with every combination of trsmSizes, sides,
// uplos, transposes, diags, trsmAlphas and extras (the leading dimensions'
// padding).
func triangularCases(f func(triCase), extras []int) {
	product(func(ix []int) {
		sz := trsmSizes[ix[0]]
		f(triCase{side: sides[ix[1]], uplo: uplos[ix[2]], tA: transposes[ix[3]], diag: diags[ix[4]],
			m: sz[0], n: sz[1], alpha: trsmAlphas[ix[5]], extra: extras[ix[6]]})
	}, len(trsmSizes), len(sides), len(uplos), len(transposes), len(diags), len(trsmAlphas), len(extras))
}

func suiteDtrsm(t *testing.T, impl kernels.Impl, tol float64) {
	rnd := newRand()
	triangularCases(func(c triCase) { testDtrsm(t, impl, tol, c, rnd) }, ldExtras)
}

func testDtrsm(t *testing.T, impl kernels.Impl, tol float64, c triCase, rnd *rand.Rand) {
	t.Helper()
	side, uplo, tA, diag, m, n, alpha, extra := c.side, c.uplo, c.tA, c.diag, c.m, c.n, c.alpha, c.extra
	what := fmt.Sprintf("Dtrsm(%s, %s, %s, %s, m=%d, n=%d, alpha=%v, ld+%d)",
		name(side), name(uplo), name(tA), name(diag), m, n, alpha, extra)
	p := m
	if side == blas.Right {
		p = n
	}
	a := randTriangular(uplo, diag, p, extra, rnd)
	b := randColMajor(m, n, 2*extra, rnd)
	a0, b0 := a.clone(), b.clone()

	opA, lower := opTriangular(uplo, tA, diag, a)
	want := make([]float64, len(b.data))
	rhs := make([]float64, p)
	if side == blas.Left {
		// op(A) X = alpha B, one column of B at a time.
		for j := 0; j < n; j++ {
			for i := range rhs {
				rhs[i] = alpha * b.at(i, j)
			}
			solveTriangular(p, opA, lower, rhs)
			for i, v := range rhs {
				want[i+j*b.ld] = v
			}
		}
	} else {
		// X op(A) = alpha B is op(A)ᵀ Xᵀ = alpha Bᵀ, one row of B at a time.
		opAT := transposeSquare(p, opA)
		for i := 0; i < m; i++ {
			for j := range rhs {
				rhs[j] = alpha * b.at(i, j)
			}
			solveTriangular(p, opAT, !lower, rhs)
			for j, v := range rhs {
				want[i+j*b.ld] = v
			}
		}
	}
	// op(A) is diagonally dominant by at least 1/2, so the solution is
	// accurate to a small multiple of the order times its largest entry.
	scale := fill(len(want), float64(p)*maxAbs(want, b.inside))

	impl.Dtrsm(side, uplo, tA, diag, m, n, alpha, a.data, a.ld, b.data, b.ld)

	checkUnchanged(t, what+": A", a.ld, a.data, a0.data)
	checkResult(t, tol, what+": B", b.ld, b.data, b0.data, want, scale, b.inside)
}

// trsvSizes are the orders of suiteDtrsv.
var trsvSizes = []int{1, 2, 7, 33, 64, 65}

func suiteDtrsv(t *testing.T, impl kernels.Impl, tol float64) {
	rnd := newRand()
	product(func(ix []int) {
		testDtrsv(t, impl, tol, uplos[ix[1]], transposes[ix[2]], diags[ix[3]], trsvSizes[ix[0]], incs[ix[4]],
			ldExtras[ix[5]], rnd)
	}, len(trsvSizes), len(uplos), len(transposes), len(diags), len(incs), len(ldExtras))
}

func testDtrsv(t *testing.T, impl kernels.Impl, tol float64, uplo blas.Uplo, tA blas.Transpose, diag blas.Diag, n, incX, extra int, rnd *rand.Rand) {
	t.Helper()
	what := fmt.Sprintf("Dtrsv(%s, %s, %s, n=%d, incX=%d, ld+%d)",
		name(uplo), name(tA), name(diag), n, incX, extra)
	a := randTriangular(uplo, diag, n, extra, rnd)
	x := randStrided(n, incX, rnd)
	a0, x0 := a.clone(), x.clone()

	opA, lower := opTriangular(uplo, tA, diag, a)
	sol := make([]float64, n)
	for i := range sol {
		sol[i] = x.at(i)
	}
	solveTriangular(n, opA, lower, sol)
	want := make([]float64, len(x.data))
	for i, v := range sol {
		want[i*incX] = v
	}
	scale := fill(len(want), float64(n)*maxAbs(want, x.inside))

	impl.Dtrsv(uplo, tA, diag, n, a.data, a.ld, x.data, incX)

	checkUnchanged(t, what+": A", a.ld, a.data, a0.data)
	checkResult(t, tol, what+": x", 0, x.data, x0.data, want, scale, x.inside)
}

// potrfSizes are the orders of suiteDpotrf and suiteDpotrfInfo; those above
// 64 take gonum's blocked path and OpenBLAS' recursive one.
var potrfSizes = []int{1, 2, 3, 7, 16, 33, 64, 65, 100, 150}

// randSPD returns the n x n symmetric positive definite matrix B Bᵀ + n I,
// B uniform in [-1, 1), with leading dimension n+extra. Only the lower
// triangle is set; the strict upper triangle and the padding hold sentinel.
// Its eigenvalues lie in [n, n + ||B||²], so it is well conditioned.
func randSPD(n, extra int, rnd *rand.Rand) colMajor {
	b := randColMajor(n, n, 0, rnd)
	a := newColMajor(n, n, n+extra)
	for j := 0; j < n; j++ {
		for i := j; i < n; i++ {
			var s float64
			for l := 0; l < n; l++ {
				s += b.at(i, l) * b.at(j, l)
			}
			if i == j {
				s += float64(n)
			}
			a.set(i, j, s)
		}
	}
	return a
}

// cholesky returns the lower Cholesky factor of the symmetric positive
// definite matrix whose lower triangle a holds, as a dense n x n
// column-major matrix with leading dimension n, computed row by row
// (Cholesky–Banachiewicz).
func cholesky(a colMajor) []float64 {
	n := a.rows
	l := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			s := a.at(i, j)
			for k := 0; k < j; k++ {
				s -= l[i+k*n] * l[j+k*n]
			}
			if i == j {
				l[i+i*n] = math.Sqrt(s)
			} else {
				l[i+j*n] = s / l[j+j*n]
			}
		}
	}
	return l
}

// lowerInside returns a predicate reporting whether a flat index of a lies
// in its lower triangle, diagonal included.
func lowerInside(a colMajor) func(idx int) bool {
	return func(idx int) bool {
		i, j := idx%a.ld, idx/a.ld
		return i < a.rows && i >= j
	}
}

func suiteDpotrf(t *testing.T, impl kernels.Impl, tol float64) {
	rnd := newRand()
	for _, n := range potrfSizes {
		for _, extra := range ldExtras {
			testDpotrf(t, impl, tol, n, extra, rnd)
		}
	}
}

func testDpotrf(t *testing.T, impl kernels.Impl, tol float64, n, extra int, rnd *rand.Rand) {
	t.Helper()
	what := fmt.Sprintf("Dpotrf(n=%d, ld+%d)", n, extra)
	a := randSPD(n, extra, rnd)
	a0 := a.clone()
	lower := lowerInside(a)

	ref := cholesky(a0)
	want := make([]float64, len(a.data))
	scale := make([]float64, len(a.data))
	for j := 0; j < n; j++ {
		for i := j; i < n; i++ {
			want[i+j*a.ld] = ref[i+j*n]
			scale[i+j*a.ld] = float64(n) * math.Sqrt(a0.at(i, i))
		}
	}

	if info := impl.Dpotrf(n, a.data, a.ld); info != 0 {
		t.Fatalf("%s: info = %d for a positive definite matrix, want 0", what, info)
	}

	// L agrees with the reference factor, and the strict upper triangle
	// and the padding are untouched.
	checkResult(t, tol, what+": L", a.ld, a.data, a0.data, want, scale, lower)

	// L Lᵀ reproduces A, element by element, to within tol times the
	// error bound sum_k |L(i,k)| |L(j,k)|.
	prod := a0.clone().data
	bound := make([]float64, len(a.data))
	for j := 0; j < n; j++ {
		for i := j; i < n; i++ {
			prod[i+j*a.ld], bound[i+j*a.ld] = sumBound(j+1, func(k int) float64 { return a.at(i, k) * a.at(j, k) })
		}
	}
	checkResult(t, tol, what+": L Lᵀ against A", a.ld, prod, a0.data, a0.data, bound, lower)
}

// potrfFailures are the ways suiteDpotrfInfo makes the leading minor of
// order j the first that is not positive, all by changing A(j-1, j-1)
// alone, which leaves the minors of order below j positive.
var potrfFailures = []struct {
	name string
	// diagonal returns the new A(j-1, j-1), given its squared distance
	// sumSq = sum_{k<j-1} L(j-1,k)² from the minor of order j-1 (the
	// value at which the minor of order j would be exactly singular) and
	// the order n; ok is false where the construction does not apply.
	diagonal func(sumSq float64, j, n int) (v float64, ok bool)
}{
	{"negative diagonal", func(_ float64, _, n int) (float64, bool) { return -float64(n), true }},
	{"zero diagonal", func(float64, int, int) (float64, bool) { return 0, true }},
	{"positive diagonal, negative pivot", func(sumSq float64, j, _ int) (float64, bool) {
		// The diagonal stays positive, the pivot is -sumSq/2 < 0.
		return sumSq / 2, j >= 2
	}},
}

// failingOrders returns the orders j of the first non-positive minor that
// suiteDpotrfInfo tries for an n x n matrix: 1, 2, n/2, n-1 and n.
func failingOrders(n int) []int {
	var js []int
	for _, j := range []int{1, 2, n / 2, n - 1, n} {
		if j >= 1 && j <= n && !slices.Contains(js, j) {
			js = append(js, j)
		}
	}
	return js
}

func suiteDpotrfInfo(t *testing.T, impl kernels.Impl, tol float64) {
	rnd := newRand()
	for _, n := range potrfSizes {
		for _, j := range failingOrders(n) {
			for _, f := range potrfFailures {
				a := randSPD(n, 2, rnd)
				l := cholesky(a)
				var sumSq float64
				for k := 0; k < j-1; k++ {
					sumSq += l[j-1+k*n] * l[j-1+k*n]
				}
				v, ok := f.diagonal(sumSq, j, n)
				if !ok {
					continue
				}
				a.set(j-1, j-1, v)
				a0 := a.clone()
				what := fmt.Sprintf("Dpotrf(n=%d) with %s at order %d", n, f.name, j)

				if info := impl.Dpotrf(n, a.data, a.ld); info != j {
					t.Errorf("%s: info = %d, want %d", what, info, j)
				}
				// Whatever the factorization left in the lower
				// triangle, the rest must be untouched.
				checkUntouched(t, what, a.ld, a.data, a0.data, lowerInside(a))
			}
		}
	}
}

// geaddSizes are the (m, n) shapes of suiteDgeadd.
var geaddSizes = [][2]int{{1, 1}, {1, 7}, {7, 1}, {7, 33}, {33, 7}, {64, 64}, {65, 3}}

func suiteDgeadd(t *testing.T, impl kernels.Impl, tol float64) {
	rnd := newRand()
	for _, sz := range geaddSizes {
		for _, sp := range scalarPairs {
			for _, extra := range ldExtras {
				testDgeadd(t, impl, tol, sz[0], sz[1], sp, extra, rnd)
			}
		}
	}
}

func testDgeadd(t *testing.T, impl kernels.Impl, tol float64, m, n int, sp scalarPair, extra int, rnd *rand.Rand) {
	t.Helper()
	what := fmt.Sprintf("Dgeadd(m=%d, n=%d, alpha=%v, beta=%v, ld+%d)", m, n, sp.alpha, sp.beta, extra)
	a := randColMajor(m, n, extra, rnd)
	b := randColMajor(m, n, 2*extra, rnd)
	a0, b0 := a.clone(), b.clone()

	want := make([]float64, len(b.data))
	scale := make([]float64, len(b.data))
	for j := 0; j < n; j++ {
		for i := 0; i < m; i++ {
			x, y := sp.alpha*a.at(i, j), sp.beta*b.at(i, j)
			want[i+j*b.ld] = x + y
			scale[i+j*b.ld] = math.Abs(x) + math.Abs(y)
		}
	}

	impl.Dgeadd(m, n, sp.alpha, a.data, a.ld, sp.beta, b.data, b.ld)

	checkUnchanged(t, what+": A", a.ld, a.data, a0.data)
	checkResult(t, tol, what+": B", b.ld, b.data, b0.data, want, scale, b.inside)
}

// dotSizes are the lengths of suiteDdot.
var dotSizes = []int{0, 1, 2, 7, 33, 64, 65, 1000}

func suiteDdot(t *testing.T, impl kernels.Impl, tol float64) {
	rnd := newRand()
	for _, n := range dotSizes {
		for _, incX := range incs {
			for _, incY := range incs {
				what := fmt.Sprintf("Ddot(n=%d, incX=%d, incY=%d)", n, incX, incY)
				x := randStrided(n, incX, rnd)
				y := randStrided(n, incY, rnd)
				x0, y0 := x.clone(), y.clone()
				want, bound := sumBound(n, func(i int) float64 { return x.at(i) * y.at(i) })

				got := impl.Ddot(n, x.data, incX, y.data, incY)

				if diff := math.Abs(got - want); !(diff <= tol*bound) {
					t.Errorf("%s = %v, want %v (|diff| %.3g > %.3g)", what, got, want, diff, tol*bound)
				}
				checkUnchanged(t, what+": x", 0, x.data, x0.data)
				checkUnchanged(t, what+": y", 0, y.data, y0.data)
			}
		}
	}
}

// suiteZeroSize checks that every kernel accepts empty operands, as the
// reference BLAS does, and then leaves its output alone.
func suiteZeroSize(t *testing.T, impl kernels.Impl, tol float64) {
	if info := impl.Dpotrf(0, nil, 1); info != 0 {
		t.Errorf("Dpotrf(n=0) info = %d, want 0", info)
	}
	impl.Dtrsm(blas.Left, blas.Lower, blas.NoTrans, blas.NonUnit, 0, 3, 1, nil, 1, nil, 1)
	impl.Dtrsm(blas.Right, blas.Upper, blas.Trans, blas.Unit, 3, 0, 1, nil, 1, nil, 3)
	impl.Dsyrk(blas.Lower, blas.NoTrans, 0, 3, 1, nil, 1, 0, nil, 1)
	impl.Dgemm(blas.NoTrans, blas.NoTrans, 0, 3, 2, 1, nil, 1, []float64{1, 2, 3, 4, 5, 6}, 2, 0, nil, 1)
	// A 0 x 3 matrix with leading dimension 1 occupies (3-1)*1+0 = 2
	// elements by the BLAS length rule; none of them is referenced.
	a, b := []float64{sentinel, sentinel}, []float64{sentinel, sentinel}
	impl.Dgeadd(0, 3, 1, a, 1, 1, b, 1)
	if !slices.Equal(b, []float64{sentinel, sentinel}) {
		t.Errorf("Dgeadd(m=0) changed B to %v", b)
	}
	impl.Dgeadd(3, 0, 1, nil, 3, 1, nil, 3)
	impl.Dtrsv(blas.Upper, blas.NoTrans, blas.NonUnit, 0, nil, 1, nil, 1)

	// With m = 0 Dgemv returns at once, as the reference BLAS does:
	// y stays untouched even though beta is not one.
	y := []float64{1, 2, 3}
	impl.Dgemv(blas.Trans, 0, 3, 1, nil, 1, nil, 1, 0.5, y, 1)
	if want := []float64{1, 2, 3}; !slices.Equal(y, want) {
		t.Errorf("Dgemv(m=0) changed y to %v, want %v", y, want)
	}
	if got := impl.Ddot(0, nil, 1, nil, 1); got != 0 {
		t.Errorf("Ddot(n=0) = %v, want 0", got)
	}
}
