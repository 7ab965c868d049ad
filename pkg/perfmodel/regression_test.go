package perfmodel

import (
	"math"
	"testing"
)

// TestOutliers: after MinSamples samples, one far off the mean is left out
// and counted; a lasting change (three in a row on one side) is followed,
// the run's samples included.
func TestOutliers(t *testing.T) {
	m := New()
	base := []float64{0.010, 0.011, 0.0105, 0.0095, 0.010}
	for _, x := range base {
		m.Record("cpu", "gemm", 16, x)
	}
	m.Record("cpu", "gemm", 16, 0.1) // preempted: 10x
	m.Record("cpu", "gemm", 16, 0.0102)
	want, _ := twoPass(append(append([]float64{}, base...), 0.0102))
	e := m.Entries()[0]
	if e.Samples != 6 || e.Outliers != 1 || !close(e.Mean, want) {
		t.Fatalf("after one outlier: %+v, want 6 samples of mean %v, 1 outlier", e, want)
	}
	// The box gets 3x slower for good: the first two are held back, the
	// third brings all three in.
	slow := []float64{0.030, 0.031, 0.029}
	for i, x := range slow {
		m.Record("cpu", "gemm", 16, x)
		e = m.Entries()[0]
		if i < 2 && (e.Samples != 6 || e.Outliers != 2+i) {
			t.Fatalf("slow sample %d: %+v, want it held back", i, e)
		}
	}
	all := append(append(append([]float64{}, base...), 0.0102), slow...)
	want, _ = twoPass(all)
	if e.Samples != 9 || e.Outliers != 1 || !close(e.Mean, want) {
		t.Fatalf("after a lasting change: %+v, want 9 samples of mean %v, 1 outlier", e, want)
	}
}

// TestRegression: durations of t = a n^b exactly at three sizes are fitted
// back (Regression: ln t linear in ln n; the nl-regression finds c = 0 and
// is no better); Expected at a size without a history is the fit's.
func TestRegression(t *testing.T) {
	const a, b = 3e-10, 1.5
	m := New()
	for _, nb := range []int{100, 200, 400} {
		n := float64(nb * nb)
		m.Record("cpu", "gemm", nb*nb, a*math.Pow(n, b))
		m.Record("cpu", "gemm", nb*nb, a*math.Pow(n, b))
	}
	f := m.Fit("cpu", "gemm")
	if f == nil || math.Abs(f.A/a-1) > 1e-9 || math.Abs(f.B-b) > 1e-9 || f.RMS > 1e-9 {
		t.Fatalf("fit %+v, want a = %g, b = %g", f, a, b)
	}
	got, ok := m.Expected("cpu", "gemm", 300*300)
	if want := a * math.Pow(300*300, b); !ok || math.Abs(got/want-1) > 1e-6 {
		t.Errorf("Expected at nb 300 = %v, %v; want %v", got, ok, want)
	}
	if _, ok := m.Expected("cpu", "potrf", 300*300); ok {
		t.Error("a kind without a history has an expected duration")
	}
	one := New()
	one.Record("cpu", "gemm", 100, 1)
	if _, ok := one.Expected("cpu", "gemm", 400); ok || one.Fit("cpu", "gemm") != nil {
		t.Error("one size made a regression")
	}
}

// TestNLRegression: durations of t = a n^b + c (a fixed cost c) at four
// sizes are fitted back by the nl-regression, which then beats the power
// law, and a new sample drops the cached fit.
func TestNLRegression(t *testing.T) {
	const a, b, c = 2e-10, 1.5, 2e-4
	m := New()
	for _, nb := range []int{50, 100, 200, 400} {
		n := float64(nb * nb)
		m.Record("cpu", "syrk", nb*nb, a*math.Pow(n, b)+c)
	}
	f := m.Fit("cpu", "syrk")
	if f == nil || f.Model != NLRegression || math.Abs(f.A/a-1) > 1e-4 || math.Abs(f.B-b) > 1e-5 || math.Abs(f.C/c-1) > 1e-4 {
		t.Fatalf("fit %+v, want nl-regression a = %g, b = %g, c = %g", f, a, b, c)
	}
	if p := powerFit([]point{{2500, a*math.Pow(2500, b) + c, 1}, {1e4, a*1e6 + c, 1}, {4e4, a*8e6 + c, 1}}); p.RMS <= f.RMS {
		t.Errorf("power law rms %g beats the nl-regression's %g", p.RMS, f.RMS)
	}
	m.Record("cpu", "syrk", 800*800, 10*(a*math.Pow(800*800, b)+c))
	if g := m.Fit("cpu", "syrk"); g.Sizes != 5 {
		t.Errorf("the fit was not remade after a new size: %+v", g)
	}
}
