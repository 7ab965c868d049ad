package bench

import (
	"math"
	"slices"
	"testing"

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
