package kernels_test

import (
	"slices"
	"testing"

	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/kernels/kerneltest"
)

func TestImplementations(t *testing.T) {
	impls := kernels.All()
	var names []string
	for _, impl := range impls {
		names = append(names, impl.Name())
	}
	if want := wantImplNames(); !slices.Equal(names, want) {
		t.Fatalf("All() names = %q, want %q", names, want)
	}
	if got, want := kernels.Default().Name(), impls[0].Name(); got != want {
		t.Errorf("Default() is %q, want the first of All(), %q", got, want)
	}
	if kernels.DefaultThreads().CoreName() == "" {
		t.Error("DefaultThreads().CoreName() is empty")
	}
}

// TestSuite runs the shared kernel suite over every library compiled in:
// OpenBLAS through cgo and gonum (both in a cgo build, gonum alone with
// -tags purego).
func TestSuite(t *testing.T) {
	for _, impl := range kernels.All() {
		t.Run(impl.Name(), func(t *testing.T) { kerneltest.Run(t, impl, kerneltest.Options{}) })
	}
}
