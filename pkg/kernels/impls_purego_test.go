//go:build !cgo || purego

package kernels

// wantImplNames returns the names All must list in this build: gonum
// alone.
func wantImplNames() []string { return []string{"gonum"} }
