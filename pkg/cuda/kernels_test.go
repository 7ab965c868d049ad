//go:build cuda

// These tests need a CUDA device: gorgonia.org/cu exits the test binary in
// its init without one. Run them on a GPU machine (scripts/gpu-checks.sh).
package cuda

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/exageostat/exageostat/pkg/gpu"
	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/kernels/kerneltest"
)

// nb is the tile size of the checks: a GPU's tiles are this size.
const nb = 960

// openDevice opens GPU 0 as a runtime device with tiles of n and a
// region of bytes.
func openDevice(t testing.TB, n int, bytes int64) *gpu.Device {
	t.Helper()
	drv, err := NewDriver(0)
	if err != nil {
		t.Fatal(err)
	}
	d, err := gpu.Open(drv, n, bytes)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	return d
}

// TestSuite runs the shared kernel suite over the one kernel set on the
// GPU (the kernels fit --gpus runs on resident tiles), each call's tiles
// staged to the device and back: every device kernel against the suite's
// own reference to 1e-12 relative to its error bound, and Dpotrf at
// nb = 960 to 1e-10 relative with its not-positive-definite report.
func TestSuite(t *testing.T) {
	s := gpu.NewStaged(openDevice(t, nb, 1<<30), kernels.Default())
	defer s.Close()
	kerneltest.Run(t, s, kerneltest.Options{Only: kerneltest.Device(), Tol: 1e-12, Large: nb, LargeTol: 1e-10})
}

// BenchmarkPotrfWhole times one whole-matrix cusolverDnDpotrf at
// n = 32768 (8 GiB; transfers excluded; EXAGEOSTAT_POTRF_N sets n) through the kernel set, the anchor
// of `bench cholesky --gpus 1`, and reports GFLOP/s (n^3/3 flops).
func BenchmarkPotrfWhole(b *testing.B) {
	n := 32768
	if v, err := strconv.Atoi(os.Getenv("EXAGEOSTAT_POTRF_N")); err == nil && v > 0 {
		n = v // scripts/gpu-checks.sh's GPU_CHECKS_N
	}
	d := openDevice(b, n, int64(n)*int64(n)*8+1<<30)
	k := d.Kernels().(kernels.Device)
	r := rand.New(rand.NewPCG(11, 12))
	a := make([]float64, n*n)
	for j := 0; j < n; j++ { // diagonally dominant SPD: a_ij = u_ij + u_ji, a_jj = n
		for i := j + 1; i < n; i++ {
			v := r.Float64() - 0.5
			a[i+j*n], a[j+i*n] = v, v
		}
		a[j+j*n] = float64(n)
	}
	buf, err := d.Alloc(n * n)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if err := d.ToDevice(buf, a); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if info, err := k.Dpotrf(n, buf.Ptr, n); err != nil || info != 0 {
			b.Fatalf("info %d, %v", info, err)
		}
	}
	b.ReportMetric(float64(n)*float64(n)*float64(n)/3/(b.Elapsed().Seconds()/float64(b.N))/1e9, "GFLOP/s")
}
