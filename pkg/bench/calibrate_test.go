package bench

import (
	"slices"
	"testing"

	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/kernels"
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
