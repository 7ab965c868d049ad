//go:build !cgo || purego

package kernels_test

// wantImplNames returns the names All must list in this build: gonum
// alone.
func wantImplNames() []string { return []string{"gonum"} }
