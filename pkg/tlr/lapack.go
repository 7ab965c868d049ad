package tlr

import "github.com/exageostat/exageostat/pkg/linalg"

// LAPACK is the orthogonal factorisations the compression and the
// recompression need (linalg.Orthogonal: SVD, QR, column-pivoted QR), on
// column-major matrices with leading dimension equal to their number of
// rows, as package linalg's libraries provide them.
type LAPACK interface {
	// Name identifies the implementation.
	Name() string
	linalg.Orthogonal
}

// DefaultLAPACK returns the fastest LAPACK compiled in (linalg.Default).
func DefaultLAPACK() LAPACK { return linalg.Default() }
