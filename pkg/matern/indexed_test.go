package matern

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestCovIndexed: CovIndexed's entries bitwise FillTile's column of the
// gathered points against point i (itself checked against the direct
// Matérn elsewhere) and within 1e-14 relative of the direct covariance
// (Matern at math.Hypot's distance) where that is above 1e-280, for the
// closed forms (vector code), an interpolated nu and the powered
// exponential (the vector code's values checked whenever it runs), every
// length from 0 to 40 (the chunks of eight and their
// tails), a point repeated (distance 0) and far points (x > 708: the Go
// path); false for a PairKernel.
func TestCovIndexed(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	const n = 300
	p := Points{X: make([]float64, n), Y: make([]float64, n)}
	for i := range n {
		p.X[i], p.Y[i] = rng.Float64(), rng.Float64()
	}
	p.X[7], p.Y[7] = p.X[3], p.Y[3] // a duplicate of point 3
	p.X[n-1], p.Y[n-1] = 1000, 5    // far: x = 5000 at beta = 0.2
	for _, tc := range []struct {
		name   string
		k      func() (Kernel, error)
		direct func(r float64) float64
	}{
		{"nu 0.5", func() (Kernel, error) { return NewMatern(Theta{Sigma2: 1.3, Beta: 0.1, Nu: 0.5}, 2000) },
			func(r float64) float64 { return Matern(Theta{Sigma2: 1.3, Beta: 0.1, Nu: 0.5}, r) }},
		{"nu 1.5", func() (Kernel, error) { return NewMatern(Theta{Sigma2: 0.7, Beta: 0.05, Nu: 1.5}, 2000) },
			func(r float64) float64 { return Matern(Theta{Sigma2: 0.7, Beta: 0.05, Nu: 1.5}, r) }},
		{"nu 2.5", func() (Kernel, error) { return NewMatern(Theta{Sigma2: 2, Beta: 0.2, Nu: 2.5}, 2000) },
			func(r float64) float64 { return Matern(Theta{Sigma2: 2, Beta: 0.2, Nu: 2.5}, r) }},
		{"nu 2.3", func() (Kernel, error) { return NewMatern(Theta{Sigma2: 1, Beta: 0.1, Nu: 2.3}, 2000) },
			func(r float64) float64 { return Matern(Theta{Sigma2: 1, Beta: 0.1, Nu: 2.3}, r) }},
		{"powexp", func() (Kernel, error) { return PowExp{Sigma2: 1, Beta: 0.3, Delta: 1.4}, nil },
			func(r float64) float64 { return math.Exp(-math.Pow(r, 1.4) / 0.3) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, err := tc.k()
			if err != nil {
				t.Fatal(err)
			}
			for size := range 41 {
				i := rng.IntN(n - 1)
				js := make([]int32, size)
				for q := range js {
					js[q] = int32(rng.IntN(n - 1))
				}
				far := size > 5 && size%3 == 0
				if size > 5 {
					js[2] = 7 // the duplicate of point 3
					i = 3
				}
				if far {
					js[size-1] = int32(n - 1)
				}
				got := make([]float64, size)
				if !CovIndexed(k, p, i, js, got) {
					t.Fatal("CovIndexed: false")
				}
				form, _, _ := closedForm(k)
				vec := make([]float64, size)
				if v := closedIndexed(k, p.X, p.Y, p.X[i], p.Y[i], js, vec); v != (hasIndexedZ && form > 0 && size > 0 && !far) {
					t.Fatalf("size %d: vector code %v", size, v)
				} else if v {
					copy(got, vec)
				}
				g := Points{X: make([]float64, size), Y: make([]float64, size)}
				for q, j := range js {
					g.X[q], g.Y[q] = p.X[j], p.Y[j]
				}
				want := make([]float64, size)
				FillTile(k, 0, Euclidean, g, 0, size, p, i, 1, false, want, max(size, 1))
				for q, j := range js {
					if math.Float64bits(got[q]) != math.Float64bits(want[q]) {
						t.Fatalf("size %d entry %d: %v, FillTile %v", size, q, got[q], want[q])
					}
					d := tc.direct(math.Hypot(p.X[j]-p.X[i], p.Y[j]-p.Y[i]))
					if d > 1e-280 && math.Abs(got[q]-d) > 1e-14*d {
						t.Fatalf("size %d entry %d: %v, direct %v", size, q, got[q], d)
					}
				}
			}
		})
	}
	st, err := NewAniso(Aniso{Sigma2: 1, Beta: 0.1, Nu: 0.5, Angle: 0.3, Ratio: 2}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if CovIndexed(st, p, 0, []int32{1}, make([]float64, 1)) {
		t.Error("CovIndexed: true for a PairKernel")
	}
}

// BenchmarkCovIndexed: rows of 80 gathered entries out of 10^4 uniform
// points, beta = 0.1 (the vector code for the closed forms, one CovRow
// for the interpolant).
func BenchmarkCovIndexed(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, size = 10000, 80
	p := Points{X: make([]float64, n), Y: make([]float64, n)}
	for i := range n {
		p.X[i], p.Y[i] = rng.Float64(), rng.Float64()
	}
	js := make([]int32, size)
	for q := range js {
		js[q] = int32(rng.IntN(n))
	}
	out := make([]float64, size)
	for _, nu := range []float64{0.5, 1.5, 2.3} {
		k, err := NewMatern(Theta{Sigma2: 1, Beta: 0.1, Nu: nu}, 2)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("nu=%g", nu), func(b *testing.B) {
			for b.Loop() {
				CovIndexed(k, p, 17, js, out)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*size), "ns/entry")
		})
	}
}
