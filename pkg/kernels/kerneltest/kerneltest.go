// Package kerneltest is the shared kernel suite: every tile kernel of a
// kernels.Impl checked against a naive column-major reference computed
// here, independently of the code under test, in gonum's testlapack
// layout (one suite function per kernel runs a table of shapes and
// arguments; one test function checks a single call).
//
// Each check fills what a kernel must neither read nor write (padding
// rows, the other triangle, a unit diagonal, the gaps of strided vectors,
// C with beta = 0) with a sentinel or NaN, and asserts the results to a
// relative tolerance scaled by the magnitude of the terms that formed the
// reference value.
//
// The suite runs over every library of package linalg (OpenBLAS through
// cgo, gonum in pure Go: package kernels' tests), over the host emulation
// of a GPU's kernels.Device (package gpu's tests, in make test) and over
// the CUDA device (package cuda's tests, on a GPU machine), the last two
// through gpu.Staged, which moves each call's tiles to the device and
// back.
package kerneltest

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/exageostat/exageostat/pkg/kernels"
)

// The kernels of the suite, for Options.Only.
const (
	Gemm          = "gemm"
	Gemv          = "gemv"
	Syrk          = "syrk"
	SyrkBetaZero  = "syrk-beta0"
	Trsm          = "trsm"
	Trmm          = "trmm"
	Trsv          = "trsv"
	Potrf         = "potrf"
	PotrfInfo     = "potrf-info"
	Trtri         = "trtri"
	LowerInverse  = "lowerinverse"
	Geadd         = "geadd"
	Dot           = "dot"
	ZeroSize      = "zero-size"
	defaultTol    = 1e-12
	defaultRelTol = 1e-10
)

// Device returns the kernels a device runs (those of kernels.Device:
// potrf with its not-positive-definite report, trsm, trmm, syrk, gemm,
// gemv) and the empty calls.
func Device() []string {
	return []string{Gemm, Gemv, Syrk, SyrkBetaZero, Trsm, Trmm, Potrf, PotrfInfo, ZeroSize}
}

// Options select and tune a run of the suite.
type Options struct {
	// Tol is the relative tolerance of each check, scaled by its error
	// bound (0: 1e-12).
	Tol float64
	// Only lists the kernels to check (nil: all of them).
	Only []string
	// Large, if positive, adds a Dpotrf of that order (a device's tile
	// size) checked as max|L - L_ref| / max|L_ref| <= LargeTol (0: 1e-10),
	// and the report of a matrix of that order that is not positive
	// definite, to the potrf and potrf-info kernels.
	Large    int
	LargeTol float64
}

// suiteFunc checks one kernel of impl to the relative tolerance tol.
type suiteFunc func(t *testing.T, impl kernels.Impl, tol float64)

func suites() map[string]suiteFunc {
	return map[string]suiteFunc{
		Gemm: suiteDgemm, Gemv: suiteDgemv, Syrk: suiteDsyrk, SyrkBetaZero: suiteDsyrkBetaZero,
		Trsm: suiteDtrsm, Trmm: suiteDtrmm, Trsv: suiteDtrsv, Potrf: suiteDpotrf, PotrfInfo: suiteDpotrfInfo,
		Trtri: suiteDtrtri, LowerInverse: suiteLowerInverse, Geadd: suiteDgeadd, Dot: suiteDdot,
		ZeroSize: suiteZeroSize,
	}
}

// Run checks impl's kernels, one subtest each.
func Run(t *testing.T, impl kernels.Impl, o Options) {
	t.Helper()
	if o.Tol == 0 {
		o.Tol = defaultTol
	}
	if o.LargeTol == 0 {
		o.LargeTol = defaultRelTol
	}
	all := suites()
	names := o.Only
	if names == nil {
		for name := range all {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		f, ok := all[name]
		if !ok {
			t.Fatalf("kerneltest: no kernel %q in the suite", name)
		}
		t.Run(name, func(t *testing.T) {
			f(t, impl, o.Tol)
			if o.Large > 0 && name == Potrf {
				largePotrf(t, impl, o.Large, o.LargeTol)
			}
			if o.Large > 0 && name == PotrfInfo {
				largePotrfInfo(t, impl, o.Large)
			}
		})
	}
}

// diagDominant returns an n x n symmetric matrix (leading dimension n,
// the lower triangle set, the strict upper triangle sentinel) with
// off-diagonal entries uniform in [-1, 1) and n on the diagonal: by
// Gershgorin its eigenvalues lie in (1, 2n), so it is positive definite
// and well conditioned, and it costs O(n^2) to make at a device's tile
// size.
func diagDominant(n int) colMajor {
	rnd := newRand()
	a := newColMajor(n, n, n)
	for j := 0; j < n; j++ {
		a.set(j, j, float64(n))
		for i := j + 1; i < n; i++ {
			a.set(i, j, uniform(rnd))
		}
	}
	return a
}

// largePotrf checks one Dpotrf of order n to the relative tolerance rel:
// max|L - L_ref| / max|L_ref| over the lower triangle, L_ref the
// suite's own Cholesky; the strict upper triangle stays untouched.
func largePotrf(t *testing.T, impl kernels.Impl, n int, rel float64) {
	what := fmt.Sprintf("Dpotrf(n=%d)", n)
	a := diagDominant(n)
	a0 := a.clone()
	ref := cholesky(a0)
	if info := impl.Dpotrf(n, a.data, n); info != 0 {
		t.Fatalf("%s: info = %d for a positive definite matrix, want 0", what, info)
	}
	lower := lowerInside(a)
	checkUntouched(t, what, n, a.data, a0.data, lower)
	var d, m float64
	for idx, v := range a.data {
		if lower(idx) {
			d = max(d, math.Abs(v-ref[idx]))
			m = max(m, math.Abs(ref[idx]))
		}
	}
	if !(d <= rel*m) {
		t.Errorf("%s: max|L - L_ref| / max|L_ref| = %.3g, want <= %g", what, d/m, rel)
	}
}

// largePotrfInfo checks that Dpotrf of order n reports the leading minor
// of order n/3, made negative, as the first that is not positive.
func largePotrfInfo(t *testing.T, impl kernels.Impl, n int) {
	j := max(1, n/3)
	a := diagDominant(n)
	a.set(j-1, j-1, -1)
	if info := impl.Dpotrf(n, a.data, n); info != j {
		t.Errorf("Dpotrf(n=%d) with a negative diagonal at order %d: info = %d, want %d", n, j, info, j)
	}
}
