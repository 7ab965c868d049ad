// Package kernels holds the sequential tile kernels: BLAS and LAPACK
// operations on one column-major tile, run by one runtime worker.
//
// All matrices are column-major: element (i, j) of an m x n matrix a with
// leading dimension lda (lda >= max(1, m)) is a[i+j*lda]. The operations
// follow the reference BLAS/LAPACK definitions; op(X) is X or X^T.
//
// Impl is the kernels on host memory: package linalg's libraries
// (OpenBLAS through cgo, gonum in pure Go) implement it, with their
// argument checks. Device is the same operations on a device's memory, by
// address (package gpu's kernel set, over CUDA or its host emulation).
// Default returns the fastest library compiled in; the shared kernel suite
// (kerneltest) checks every one, and the device kernels.
package kernels

import "github.com/exageostat/exageostat/pkg/linalg"

// Impl is one implementation of the tile kernels on host memory: the
// double-precision BLAS, geadd, and the Cholesky's LAPACK, as package
// linalg states them.
type Impl interface {
	// Name identifies the implementation ("openblas", "gonum", "cuda").
	Name() string
	linalg.BLAS
	linalg.Cholesky
}

// Threads controls and reports the threading of the BLAS library behind an
// implementation. Tile kernels must run single-threaded (one task per
// worker); reference computations (whole-matrix LAPACK) may use several.
type Threads interface {
	// SetThreads sets the number of threads the library uses inside one call.
	SetThreads(n int)
	// CoreName names the CPU kernels the library selected (OpenBLAS'
	// openblas_get_corename, e.g. "Cooperlake", "Haswell").
	CoreName() string
}

// Default returns the fastest implementation compiled into this binary
// (linalg.Default).
func Default() Impl { return linalg.Default() }

// All returns every implementation compiled into this binary, the default
// first (linalg.All). The shared kernel suite runs over all of them.
func All() []Impl {
	var out []Impl
	for _, b := range linalg.All() {
		out = append(out, b)
	}
	return out
}

// DefaultThreads returns the threading control of the default
// implementation.
func DefaultThreads() Threads { return linalg.Default() }
