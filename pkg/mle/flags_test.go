package mle

import (
	"slices"
	"testing"
)

func TestAtBound(t *testing.T) {
	lower := []float64{0.001, 0.01, 0.5, 1}
	upper := []float64{5, 2, 0.5, 10}
	cases := []struct {
		name  string
		theta []float64
		want  []string
	}{
		{"inside", []float64{1, 0.1, 0.5, 5}, []string{NotAtBound, NotAtBound, Fixed, NotAtBound}},
		{"at lower", []float64{0.001, 0.01 * (1 + 5e-7), 0.5, 1}, []string{AtLower, AtLower, Fixed, AtLower}},
		{"near lower, not at it", []float64{0.001 * (1 + 2e-6), 0.1, 0.5, 1.00001}, []string{NotAtBound, NotAtBound, Fixed, NotAtBound}},
		{"at upper", []float64{5, 2 * (1 - 5e-7), 0.5, 10}, []string{AtUpper, AtUpper, Fixed, AtUpper}},
	}
	for _, c := range cases {
		if got := AtBound(c.theta, lower, upper); !slices.Equal(got, c.want) {
			t.Errorf("%s: AtBound(%v) = %q, want %q", c.name, c.theta, got, c.want)
		}
	}
}

func TestConverged(t *testing.T) {
	cases := map[string]bool{
		"FTOL_REACHED":                true,
		"XTOL_REACHED":                true,
		"SUCCESS":                     true,
		"ROUNDOFF_LIMITED":            true,
		"all parameters fixed":        true,
		"MAXEVAL_REACHED":             false,
		"MAXTIME_REACHED":             false,
		"FORCED_STOP":                 false,
		"interrupted":                 false,
		"FTOL_REACHED (restart 2)":    true,
		"MAXEVAL_REACHED (restart 1)": false,
		"":                            false,
		"CONVERGED":                   true,
		"MAXITER_REACHED":             false,
		"LINE_SEARCH_FAILED":          false,
	}
	for status, want := range cases {
		if got := Converged(status); got != want {
			t.Errorf("Converged(%q) = %v, want %v", status, got, want)
		}
	}
}

func TestMovedStart(t *testing.T) {
	cases := []struct {
		name         string
		start, first []float64
		want         []int
	}{
		{"same", []float64{1, 0.1, 0.5}, []float64{1, 0.1, 0.5}, nil},
		{"small move near a bound", []float64{1, 0.1, 0.5}, []float64{0.935, 0.1, 0.5}, nil},
		{"factor 2 exactly", []float64{1, 0.1, 0.5}, []float64{2, 0.05, 0.5}, nil},
		{"moved far up", []float64{1, 0.128855, 0.5}, []float64{1, 100.001, 0.5}, []int{1}},
		{"moved far down", []float64{1, 0.1, 0.5}, []float64{0.3, 0.1, 0.1}, []int{0, 2}},
	}
	for _, c := range cases {
		if got := MovedStart(c.start, c.first); !slices.Equal(got, c.want) {
			t.Errorf("%s: MovedStart = %v, want %v", c.name, got, c.want)
		}
	}
}
