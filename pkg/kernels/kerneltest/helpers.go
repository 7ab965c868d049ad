package kerneltest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
)

// sentinel fills every element a kernel must neither read nor write: the
// padding rows between m and the leading dimension, the unreferenced
// triangle, the stored diagonal of a unit triangular matrix and the gaps of
// a strided vector. It lies outside [-1, 1), where random data lives, so a
// kernel that reads it produces a visibly wrong result, and it is finite, so
// a kernel that writes over it (even with beta = 1) changes its bits.
const sentinel = -1234.5678

// maxReported is the number of mismatches reported per checked array before
// the rest are only counted.
const maxReported = 3

// newRand returns the fixed-seed generator of one test. Every
// implementation gets a fresh one, so all of them see the same data.
func newRand() *rand.Rand { return rand.New(rand.NewPCG(0x5eed, 0xe8a6e0)) }

// uniform returns a random number in [-1, 1).
func uniform(rnd *rand.Rand) float64 { return 2*rnd.Float64() - 1 }

// Enumerations of the gonum blas arguments each kernel accepts. ConjTrans
// is a valid Transpose and means Trans for real matrices.
var (
	transposes = []blas.Transpose{blas.NoTrans, blas.Trans, blas.ConjTrans}
	uplos      = []blas.Uplo{blas.Lower, blas.Upper}
	sides      = []blas.Side{blas.Left, blas.Right}
	diags      = []blas.Diag{blas.NonUnit, blas.Unit}
)

// ldExtras are the amounts by which leading dimensions exceed the row count.
var ldExtras = []int{0, 3}

// incs are the vector increments tested.
var incs = []int{1, 2}

// scalarPair is one (alpha, beta) combination.
type scalarPair struct{ alpha, beta float64 }

// scalarPairs covers beta = 0, beta = 1, alpha = 0 and values other than 0
// and 1. With beta = 0 the reference BLAS does not read the output, so
// suiteDgemm and suiteDgemv fill it with NaN then (suiteDsyrkBetaZero does the
// same for Dsyrk; Dgeadd, which is not a BLAS routine, gets finite values).
var scalarPairs = []scalarPair{
	{1, 0},
	{-0.7, 1},
	{2.3, -1.5},
	{0, 0.5},
	{1.5, 0},
}

// name returns a gonum blas enumeration as its Fortran character ('N',
// 'T', 'C', 'L', 'U', 'R'), for messages.
func name[T ~byte](x T) string { return string(rune(x)) }

// colMajor is a rows x cols column-major matrix with leading dimension ld,
// held in the shortest slice that stores it, ld*(cols-1)+rows elements, so
// that an implementation demanding a longer slice fails its own length
// checks.
type colMajor struct {
	rows, cols, ld int
	data           []float64
}

// newColMajor returns a rows x cols matrix whose elements, padding
// included, all hold sentinel.
func newColMajor(rows, cols, ld int) colMajor {
	if ld < max(1, rows) {
		panic("newColMajor: leading dimension too small")
	}
	size := 0
	if cols > 0 {
		size = ld*(cols-1) + rows
	}
	data := make([]float64, size)
	for i := range data {
		data[i] = sentinel
	}
	return colMajor{rows: rows, cols: cols, ld: ld, data: data}
}

// randColMajor returns a rows x cols matrix of uniform [-1, 1) values with
// leading dimension max(1, rows)+extra and sentinel padding.
func randColMajor(rows, cols, extra int, rnd *rand.Rand) colMajor {
	a := newColMajor(rows, cols, max(1, rows)+extra)
	for j := 0; j < cols; j++ {
		for i := 0; i < rows; i++ {
			a.set(i, j, uniform(rnd))
		}
	}
	return a
}

func (a colMajor) at(i, j int) float64     { return a.data[i+j*a.ld] }
func (a colMajor) set(i, j int, v float64) { a.data[i+j*a.ld] = v }

// inside reports whether the flat index idx is an element of the matrix
// rather than padding.
func (a colMajor) inside(idx int) bool { return idx%a.ld < a.rows }

// clone returns a deep copy of a.
func (a colMajor) clone() colMajor {
	a.data = append([]float64(nil), a.data...)
	return a
}

// opAt returns element (i, j) of op(a).
func opAt(a colMajor, t blas.Transpose, i, j int) float64 {
	if t == blas.NoTrans {
		return a.at(i, j)
	}
	return a.at(j, i)
}

// opDims returns the shape (rows, cols) of the matrix a whose op(a) is
// rows x cols.
func opDims(t blas.Transpose, rows, cols int) (int, int) {
	if t == blas.NoTrans {
		return rows, cols
	}
	return cols, rows
}

// strided is a vector of n elements stored with increment inc in the
// shortest slice that holds it; the gaps hold sentinel.
type strided struct {
	n, inc int
	data   []float64
}

// randStrided returns a strided vector of uniform [-1, 1) values.
func randStrided(n, inc int, rnd *rand.Rand) strided {
	size := 0
	if n > 0 {
		size = 1 + (n-1)*inc
	}
	v := strided{n: n, inc: inc, data: make([]float64, size)}
	for i := range v.data {
		v.data[i] = sentinel
	}
	for i := 0; i < n; i++ {
		v.set(i, uniform(rnd))
	}
	return v
}

func (v strided) at(i int) float64     { return v.data[i*v.inc] }
func (v strided) set(i int, x float64) { v.data[i*v.inc] = x }

// inside reports whether the flat index idx is an element of the vector
// rather than a gap.
func (v strided) inside(idx int) bool { return idx%v.inc == 0 }

// clone returns a deep copy of v.
func (v strided) clone() strided {
	v.data = append([]float64(nil), v.data...)
	return v
}

// checkResult verifies one array a kernel wrote. Where out(idx) holds,
// got[idx] must agree with want[idx] to within tol*scale[idx], the
// relative tolerance tol scaled by the magnitude of the terms that formed
// the reference value (a running error bound for sums, the order times
// the largest entry for triangular solves) (a NaN never
// agrees); everywhere else got must still hold orig, bit for bit. ld, when
// positive, turns flat indices into (row, column) in the messages.
func checkResult(t *testing.T, tol float64, what string, ld int, got, orig, want, scale []float64, out func(idx int) bool) {
	t.Helper()
	checkUntouched(t, what, ld, got, orig, out)
	bad := 0
	for idx, g := range got {
		if !out(idx) {
			continue
		}
		if diff := math.Abs(g - want[idx]); !(diff <= tol*scale[idx]) {
			bad++
			if bad <= maxReported {
				t.Errorf("%s: %s: got %v, want %v (|diff| %.3g > %.3g)",
					what, position(ld, idx), g, want[idx], diff, tol*scale[idx])
			}
		}
	}
	if bad > maxReported {
		t.Errorf("%s: %d wrong values in all", what, bad)
	}
}

// checkUntouched verifies that got still holds orig, bit for bit, at every
// index where written(idx) does not hold.
func checkUntouched(t *testing.T, what string, ld int, got, orig []float64, written func(idx int) bool) {
	t.Helper()
	if len(got) != len(orig) {
		t.Fatalf("%s: length changed from %d to %d", what, len(orig), len(got))
	}
	bad := 0
	for idx, g := range got {
		if written(idx) || math.Float64bits(g) == math.Float64bits(orig[idx]) {
			continue
		}
		bad++
		if bad <= maxReported {
			t.Errorf("%s: %s: must stay untouched, changed from %v to %v", what, position(ld, idx), orig[idx], g)
		}
	}
	if bad > maxReported {
		t.Errorf("%s: %d elements changed in all", what, bad)
	}
}

// checkUnchanged verifies that a kernel left an input array bit for bit as
// it was.
func checkUnchanged(t *testing.T, what string, ld int, got, orig []float64) {
	t.Helper()
	checkUntouched(t, what, ld, got, orig, func(int) bool { return false })
}

// position formats the flat index idx as (row, column) when ld is positive
// and as a vector index otherwise.
func position(ld, idx int) string {
	if ld > 0 {
		return fmt.Sprintf("(%d, %d)", idx%ld, idx/ld)
	}
	return fmt.Sprintf("[%d]", idx)
}

// triangular returns the p x p triangular matrix a as a dense column-major
// p x p matrix with leading dimension p: the uplo triangle of a, zeros in
// the other one and ones on the diagonal when diag is Unit. Neither the
// unreferenced triangle nor, for Unit, the stored diagonal is read.
func triangular(uplo blas.Uplo, diag blas.Diag, a colMajor) []float64 {
	p := a.rows
	d := make([]float64, p*p)
	for j := 0; j < p; j++ {
		for i := 0; i < p; i++ {
			switch {
			case i == j && diag == blas.Unit:
				d[i+j*p] = 1
			case uplo == blas.Lower && i >= j, uplo == blas.Upper && i <= j:
				d[i+j*p] = a.at(i, j)
			}
		}
	}
	return d
}

// opTriangular returns op(A) of the p x p triangular a as a dense p x p
// matrix (triangular's, transposed for Trans and ConjTrans) and whether it
// is lower triangular.
func opTriangular(uplo blas.Uplo, tA blas.Transpose, diag blas.Diag, a colMajor) ([]float64, bool) {
	opA := triangular(uplo, diag, a)
	if tA == blas.NoTrans {
		return opA, uplo == blas.Lower
	}
	return transposeSquare(a.rows, opA), uplo != blas.Lower
}

// sumBound returns sum_{l<k} term(l) and the bound sum_{l<k} |term(l)| on
// the rounding error it scales.
func sumBound(k int, term func(l int) float64) (s, bound float64) {
	for l := 0; l < k; l++ {
		p := term(l)
		s += p
		bound += math.Abs(p)
	}
	return s, bound
}

// transposeSquare returns the transpose of the dense p x p matrix d.
func transposeSquare(p int, d []float64) []float64 {
	dt := make([]float64, p*p)
	for j := 0; j < p; j++ {
		for i := 0; i < p; i++ {
			dt[j+i*p] = d[i+j*p]
		}
	}
	return dt
}

// solveTriangular overwrites x with the solution of T x = x for the dense
// p x p triangular matrix t (lower or upper), by forward or back
// substitution.
func solveTriangular(p int, t []float64, lower bool, x []float64) {
	if lower {
		for i := 0; i < p; i++ {
			s := x[i]
			for k := 0; k < i; k++ {
				s -= t[i+k*p] * x[k]
			}
			x[i] = s / t[i+i*p]
		}
		return
	}
	for i := p - 1; i >= 0; i-- {
		s := x[i]
		for k := i + 1; k < p; k++ {
			s -= t[i+k*p] * x[k]
		}
		x[i] = s / t[i+i*p]
	}
}

// randTriangular returns a p x p triangular matrix (leading dimension
// p+extra) whose uplo triangle is well conditioned: diagonal entries of
// magnitude in [1, 2) with random signs and off-diagonal entries in
// [-1/(2p), 1/(2p)), so that every row and column is diagonally dominant
// by at least 1/2. The other triangle, the padding and, for a unit
// triangular matrix, the diagonal hold sentinel.
func randTriangular(uplo blas.Uplo, diag blas.Diag, p, extra int, rnd *rand.Rand) colMajor {
	a := newColMajor(p, p, max(1, p)+extra)
	for j := 0; j < p; j++ {
		for i := 0; i < p; i++ {
			switch {
			case i == j:
				if diag == blas.NonUnit {
					v := 1 + rnd.Float64()
					if rnd.IntN(2) == 0 {
						v = -v
					}
					a.set(i, i, v)
				}
			case uplo == blas.Lower && i > j, uplo == blas.Upper && i < j:
				a.set(i, j, uniform(rnd)/float64(2*p))
			}
		}
	}
	return a
}

// maxAbs returns the largest magnitude among the elements of x selected by
// keep.
func maxAbs(x []float64, keep func(idx int) bool) float64 {
	m := 0.0
	for i, v := range x {
		if keep(i) {
			m = math.Max(m, math.Abs(v))
		}
	}
	return m
}

// fill returns a slice of n copies of v.
func fill(n int, v float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// product calls f once for each combination of indices ix[k] <
// sizes[k], the last varying fastest, as nested loops over the sets would
// (f must not keep ix).
func product(f func(ix []int), sizes ...int) {
	for _, s := range sizes {
		if s == 0 {
			return
		}
	}
	ix := make([]int, len(sizes))
	for {
		f(ix)
		k := len(ix) - 1
		for ; k >= 0; k-- {
			if ix[k]++; ix[k] < sizes[k] {
				break
			}
			ix[k] = 0
		}
		if k < 0 {
			return
		}
	}
}
