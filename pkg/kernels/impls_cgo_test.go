//go:build cgo && !purego

package kernels_test

// wantImplNames returns the names All must list in this build: OpenBLAS,
// the default, then gonum.
func wantImplNames() []string { return []string{"openblas", "gonum"} }
