package mle

import (
	"errors"
	"math"
	"testing"
)

// A smooth concave function with its maximum at known theta.
func bowl(center []float64) Objective {
	return func(th []float64) (float64, error) {
		var s float64
		for i := range th {
			d := math.Log(th[i] / center[i])
			s += d * d * float64(i+1)
		}
		return -s, nil
	}
}

func TestMaximizeFindsKnownMaximum(t *testing.T) {
	center := []float64{1.3, 0.08, 0.6}
	cases := []struct {
		name  string
		start Start
		log   bool
	}{{"data/log", StartData, true}, {"lower/linear", StartLower, false}, {"lower/log", StartLower, true}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var n int
			res, err := Maximize(bowl(center), Options{Lower: []float64{0.001, 0.001, 0.001}, Upper: []float64{5, 5, 5},
				Start: c.start, Guess: []float64{1, 0.1, 0.5}, FtolAbs: 1e-12, LogScale: c.log}, func(e Eval) { n = e.N })
			if err != nil {
				t.Fatal(err)
			}
			for i := range center {
				if math.Abs(res.Theta[i]/center[i]-1) > 1e-3 {
					t.Fatalf("theta %v, want %v", res.Theta, center)
				}
			}
			if n != res.Evaluations || res.Evaluations < 5 {
				t.Fatalf("reported %d evaluations, result says %d", n, res.Evaluations)
			}
		})
	}
}

func TestFixedParameter(t *testing.T) {
	center := []float64{1.3, 0.08, 0.6}
	res, err := Maximize(bowl(center), Options{Lower: []float64{0.001, 0.001, 0.5}, Upper: []float64{5, 5, 0.5},
		Guess: []float64{1, 0.1, 0.5}, FtolAbs: 1e-12, LogScale: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Theta[2] != 0.5 || math.Abs(res.Theta[0]/1.3-1) > 1e-3 || math.Abs(res.Theta[1]/0.08-1) > 1e-3 {
		t.Fatalf("theta %v", res.Theta)
	}
}

func TestRecoverableFailuresAreSteppedAround(t *testing.T) {
	center := []float64{1.3, 0.08, 0.6}
	f := bowl(center)
	failed := 0
	g := func(th []float64) (float64, error) {
		if th[1] > 1 { // a region where the "matrix" is singular
			failed++
			return math.Inf(-1), &Recoverable{Err: errors.New("not positive definite")}
		}
		return f(th)
	}
	res, err := Maximize(g, Options{Lower: []float64{0.001, 0.001, 0.001}, Upper: []float64{5, 5, 5},
		Start: StartData, Guess: []float64{3, 3, 3}, FtolAbs: 1e-10, LogScale: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if failed == 0 || res.Failed != failed {
		t.Fatalf("failed %d, result counts %d", failed, res.Failed)
	}
	if math.Abs(res.Theta[1]/0.08-1) > 1e-2 {
		t.Fatalf("theta %v", res.Theta)
	}
}

func TestHardErrorStops(t *testing.T) {
	boom := errors.New("disk on fire")
	calls := 0
	_, err := Maximize(func([]float64) (float64, error) { calls++; return 0, boom },
		Options{Lower: []float64{1, 1}, Upper: []float64{2, 2}, Start: StartLower}, nil)
	if !errors.Is(err, boom) || calls != 1 {
		t.Fatalf("err %v after %d calls", err, calls)
	}
}

func TestCheckBounds(t *testing.T) {
	names := []string{"sigma2", "beta", "nu"}
	cases := []struct {
		lb, ub []float64
		want   string
	}{
		{[]float64{1, 1, 1}, []float64{2, 2, 2}, ""},
		{[]float64{1, 3, 1}, []float64{2, 2, 2}, "lower bound of beta (3) is above its upper bound (2)"},
		{[]float64{1, 1}, []float64{2, 2, 2}, "bounds need 3 values each ([sigma2 beta nu]), got 2 lower and 3 upper"},
		{[]float64{0, 1, 1}, []float64{2, 2, 2}, "bounds of sigma2 must be positive and finite, got [0, 2]"},
		{[]float64{1, 1, 1}, []float64{2, 2, math.Inf(1)}, "bounds of nu must be positive and finite, got [1, +Inf]"},
	}
	for _, c := range cases {
		err := CheckBounds(names, c.lb, c.ub)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("CheckBounds(%v, %v) = %q, want %q", c.lb, c.ub, got, c.want)
		}
	}
}
