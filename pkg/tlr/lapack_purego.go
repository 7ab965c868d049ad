//go:build !cgo || purego

package tlr

// DefaultLAPACK returns the fastest LAPACK compiled in: gonum's in a pure-Go
// build.
func DefaultLAPACK() LAPACK { return Gonum{} }

// AllLAPACK returns every LAPACK compiled in, the default first.
func AllLAPACK() []LAPACK { return []LAPACK{Gonum{}} }
