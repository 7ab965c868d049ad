package bench

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas"

	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/perfmodel"
)

func TestCalibrateSmall(t *testing.T) {
	kernels.DefaultThreads().SetThreads(1)
	var lines []string
	c, err := Calibrate(CalibrateOptions{NB: 48, Reps: 3, Nu: 0.73, Progress: func(s string) { lines = append(lines, s) }})
	if err != nil {
		t.Fatal(err)
	}
	kinds := config.TaskKinds()
	if len(c.Kinds) != len(kinds) || len(lines) != len(kinds) {
		t.Fatalf("%d kinds, %d progress lines; want %d", len(c.Kinds), len(lines), len(kinds))
	}
	d := c.Durations()
	for i, k := range c.Kinds {
		if k.Kind != kinds[i] || !(k.Seconds > 0) || len(k.Samples) != 3 || k.Calls < 1 || !slices.Contains(k.Samples, k.Seconds) {
			t.Errorf("kind %d: %+v", i, k)
		}
		if d[k.Kind] != k.Seconds {
			t.Errorf("Durations()[%s] = %g, want %g", k.Kind, d[k.Kind], k.Seconds)
		}
	}
	if _, err := Calibrate(CalibrateOptions{NB: 0, Reps: 1, Nu: 0.73}); err == nil {
		t.Fatal("nb = 0 accepted")
	}
	if _, err := Calibrate(CalibrateOptions{NB: 8, Reps: 1, Nu: -1}); err == nil {
		t.Fatal("nu = -1 accepted")
	}
}

func TestSpreadOf(t *testing.T) {
	cases := []struct {
		xs    []float64
		scale float64
		want  Spread
	}{
		{[]float64{3, 1, 2}, 1, Spread{2, 1, 3}},
		{[]float64{4, 1, 2, 10}, 0.5, Spread{1.5, 0.5, 5}},
		{nil, 1, Spread{}},
	}
	for _, c := range cases {
		if got := SpreadOf(c.xs, c.scale); got != c.want {
			t.Errorf("SpreadOf(%v, %g) = %+v, want %+v", c.xs, c.scale, got, c.want)
		}
	}
}

// TestCalibrationAddTo: a calibration's samples go into a performance
// model at each kind's footprint, with their mean (computed here).
func TestCalibrationAddTo(t *testing.T) {
	c := &Calibration{NB: 100, Kinds: []KindTiming{
		{Kind: "gemm", Seconds: 0.2, Samples: []float64{0.1, 0.2, 0.6}},
		{Kind: "dot", Seconds: 1e-6, Samples: []float64{1e-6, 3e-6}},
	}}
	m := perfmodel.New()
	c.AddTo(m, "cpu")
	for _, w := range []struct {
		kind string
		size int
		mean float64
	}{{"gemm", 10000, 0.3}, {"dot", 100, 2e-6}} {
		got, ok := m.Expected("cpu", w.kind, w.size)
		if !ok || math.Abs(got-w.mean) > 1e-15 {
			t.Errorf("%s at size %d: %v, %v; want %v", w.kind, w.size, got, ok, w.mean)
		}
	}
	if es := m.Entries(); len(es) != 2 || es[0].Samples != 2 || es[1].Samples != 3 {
		t.Errorf("entries %+v", es)
	}
}

// countingKernels counts the Dgemm calls it passes on.
type countingKernels struct {
	kernels.Impl
	gemm *int
}

func (c countingKernels) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int,
	b []float64, ldb int, beta float64, cc []float64, ldc int) {
	*c.gemm++
	c.Impl.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, cc, ldc)
}

// TestCalibrateKindsKernels: Kinds selects the kinds measured (in task
// order), Kernels runs them (one warm-up and Reps samples of gemm), and an
// unknown kind is an error.
func TestCalibrateKindsKernels(t *testing.T) {
	kernels.DefaultThreads().SetThreads(1)
	n := 0
	c, err := Calibrate(CalibrateOptions{NB: 24, Reps: 3, Nu: 0.5, MinSample: 1e-12, Kinds: []string{"gemm", "potrf"},
		Kernels: countingKernels{kernels.Default(), &n}})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Kinds) != 2 || c.Kinds[0].Kind != "potrf" || c.Kinds[1].Kind != "gemm" || n != 4 {
		t.Errorf("kinds %+v, %d gemm calls; want potrf then gemm, 4 calls", c.Kinds, n)
	}
	if _, err := Calibrate(CalibrateOptions{NB: 8, Reps: 1, Nu: 0.5, Kinds: []string{"nope"}}); err == nil {
		t.Error("unknown kind accepted")
	}
}

// TestCalibrateStable: with Stable, each kind takes rounds of Reps samples
// until the median of all moves by at most Stable from one round to the
// next (checked on the recorded round medians, each the median of the
// samples so far), or MaxReps samples; its spread is the samples'
// interquartile range over their median, computed here by sorting.
func TestCalibrateStable(t *testing.T) {
	kernels.DefaultThreads().SetThreads(1)
	const reps, maxReps, tol = 3, 12, 0.05
	c, err := Calibrate(CalibrateOptions{NB: 32, Reps: reps, Nu: 0.5, Stable: tol, MaxReps: maxReps, Kinds: []string{"gemm", "potrf"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range c.Kinds {
		n := len(k.Samples)
		if n%reps != 0 || n < 2*reps || n > maxReps || len(k.Medians) != n/reps {
			t.Fatalf("%s: %d samples, medians %v", k.Kind, n, k.Medians)
		}
		for r, m := range k.Medians {
			if want := median(k.Samples[:(r+1)*reps]); m != want {
				t.Errorf("%s: round %d median %g, want %g", k.Kind, r, m, want)
			}
		}
		last, prev := k.Medians[len(k.Medians)-1], k.Medians[len(k.Medians)-2]
		if stable := math.Abs(last-prev) <= tol*prev; stable != k.Stable || (!stable && n != maxReps) {
			t.Errorf("%s: medians %v, stable %v, %d samples", k.Kind, k.Medians, k.Stable, n)
		}
		s := slices.Clone(k.Samples)
		slices.Sort(s)
		q := func(p float64) float64 { // the p-quantile, interpolated
			x := p * float64(len(s)-1)
			i := int(x)
			if i+1 >= len(s) {
				return s[i]
			}
			return s[i] + (x-float64(i))*(s[i+1]-s[i])
		}
		if want := (q(0.75) - q(0.25)) / k.Seconds; math.Abs(k.Spread-want) > 1e-12*want || k.Seconds != median(k.Samples) {
			t.Errorf("%s: spread %g, want %g", k.Kind, k.Spread, want)
		}
		if !(k.Wall > 0) {
			t.Errorf("%s: wall %g", k.Kind, k.Wall)
		}
	}
}

// clockKernels is a kernel set that is a DeviceClock whose device time
// advances by tick per gemm call and by 0 otherwise.
type clockKernels struct {
	kernels.Impl
	tick, now *float64
}

func (k clockKernels) Dgemm(tA, tB blas.Transpose, m, n, kk int, alpha float64, a []float64, lda int,
	b []float64, ldb int, beta float64, c []float64, ldc int) {
	*k.now += *k.tick
	k.Impl.Dgemm(tA, tB, m, n, kk, alpha, a, lda, b, ldb, beta, c, ldc)
}

func (k clockKernels) DeviceSeconds() float64 { return *k.now }

// TestCalibrateDeviceClock: with a DeviceClock kernel set every sample is
// the device time per call (here 3 ms a gemm, whatever the CPU time), and
// the wall time is still the thread's; potrf, which the clock does not
// advance for, reads 0.
func TestCalibrateDeviceClock(t *testing.T) {
	kernels.DefaultThreads().SetThreads(1)
	tick, now := 3e-3, 0.0
	c, err := Calibrate(CalibrateOptions{NB: 24, Reps: 3, Nu: 0.5, Kinds: []string{"gemm", "potrf"},
		Kernels: clockKernels{kernels.Default(), &tick, &now}})
	if err != nil {
		t.Fatal(err)
	}
	for _, kt := range c.Kinds {
		want := map[string]float64{"gemm": 3e-3, "potrf": 0}[kt.Kind]
		for _, s := range kt.Samples {
			if math.Abs(s-want) > 1e-15 {
				t.Errorf("%s: sample %g s, want the device clock's %g s", kt.Kind, s, want)
			}
		}
		if kt.Wall <= 0 || kt.Wall >= 3e-3 {
			t.Errorf("%s: wall %g s: want the thread's (under 3 ms for nb = 24)", kt.Kind, kt.Wall)
		}
	}
}
