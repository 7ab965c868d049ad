package bench

import (
	"math"
	"testing"
)

// TestFloor: flops / rate + gen / workers, by hand.
func TestFloor(t *testing.T) {
	for _, c := range []struct {
		flops, rate, gen float64
		workers          int
		want             float64
	}{
		{1e9, 1e10, 0.4, 2, 0.1 + 0.2},
		{3.6e10, 1.5e11, 0.9, 3, 0.24 + 0.3},
		{0, 1e10, 0.5, 1, 0.5},
	} {
		if got := Floor(c.flops, c.rate, c.gen, c.workers); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("Floor(%g, %g, %g, %d) = %g, want %g", c.flops, c.rate, c.gen, c.workers, got, c.want)
		}
	}
}

// TestOverlapGains: gains from the medians, 1 - t/t_previous and
// 1 - t/t_sync.
func TestOverlapGains(t *testing.T) {
	r := OverlapResult{Steps: []OverlapStep{{Seconds: 2}, {Seconds: 1.5}, {Seconds: 1.2}}}
	r.gains()
	want := [][2]float64{{0, 0}, {0.25, 0.25}, {0.2, 0.4}}
	for i, s := range r.Steps {
		if math.Abs(s.GainPrev-want[i][0]) > 1e-15 || math.Abs(s.GainSync-want[i][1]) > 1e-15 {
			t.Errorf("step %d: gains %g, %g, want %v", i, s.GainPrev, s.GainSync, want[i])
		}
	}
}
