// Package mixed holds the float32 tile kernels of the mixed-precision
// Cholesky (tiles off the band of the diagonal in single precision): the
// BLAS-3 calls in float32 (package linalg's Sgemm and Strsm) and the
// conversions at the band's edge. All matrices are column-major with
// leading dimension equal to their number of rows.
package mixed

import "github.com/exageostat/exageostat/pkg/linalg"

// Impl is the float32 BLAS calls of the mixed-precision kernels
// (linalg.Single).
type Impl interface {
	// Name identifies the implementation.
	Name() string
	linalg.Single
}

// Default returns the fastest implementation compiled in (linalg.Default).
func Default() Impl { return linalg.Default() }

// ToSingle rounds the m x n float64 matrix src (leading dimension m) into
// dst.
func ToSingle(m, n int, src []float64, dst []float32) {
	for i, v := range src[:m*n] {
		dst[i] = float32(v)
	}
}

// ToDouble widens the m x n float32 matrix src into dst.
func ToDouble(m, n int, src []float32, dst []float64) {
	for i, v := range src[:m*n] {
		dst[i] = float64(v)
	}
}

// LowerToSingle rounds the lower triangle of the n x n src into dst and
// zeroes dst's strict upper triangle.
func LowerToSingle(n int, src []float64, dst []float32) {
	for j := 0; j < n; j++ {
		for i := 0; i < j; i++ {
			dst[i+j*n] = 0
		}
		for i := j; i < n; i++ {
			dst[i+j*n] = float32(src[i+j*n])
		}
	}
}

// Gemv computes y = y + alpha A x for the m x n float32 A, in float64
// (each product and sum in double precision).
func Gemv(m, n int, alpha float64, a []float32, x, y []float64) {
	for j := 0; j < n; j++ {
		s := alpha * x[j]
		if s == 0 {
			continue
		}
		col := a[j*m : (j+1)*m]
		for i, v := range col {
			y[i] += float64(v) * s
		}
	}
}
