package matern

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"syscall"
	"testing"
)

// benchPoints returns 2*nb points uniform in the unit square.
func benchPoints(nb int) Points {
	rng := rand.New(rand.NewPCG(1, 1))
	p := Points{X: make([]float64, 2*nb), Y: make([]float64, 2*nb)}
	for i := range p.X {
		p.X[i] = rng.Float64()
		p.Y[i] = rng.Float64()
	}
	return p
}

// BenchmarkFillTile fills a 960 x 960 off-diagonal tile of random points in
// the unit square (beta = 0.1) with several kernels on one goroutine and
// reports entries per second.
func BenchmarkFillTile(b *testing.B) {
	const nb = 960
	p := benchPoints(nb)
	rmax := MaxDistance(Euclidean, p)
	mustNew := func(th Theta) Kernel {
		k, err := NewMatern(th, rmax)
		if err != nil {
			b.Fatal(err)
		}
		return k
	}
	cases := []struct {
		name string
		k    Kernel
		diag bool // a diagonal tile (symmetric: half the evaluations)
	}{
		{"nu=0.5", mustNew(Theta{1, 0.1, 0.5}), false},
		{"nu=0.73", mustNew(Theta{1, 0.1, 0.73}), false},
		{"nu=1.5", mustNew(Theta{1, 0.1, 1.5}), false},
		{"nu=2.5", mustNew(Theta{1, 0.1, 2.5}), false},
		{"nu=3.7", mustNew(Theta{1, 0.1, 3.7}), false},
		{"nu=0.73-diag", mustNew(Theta{1, 0.1, 0.73}), true},
		{"direct-nu=0.73", Theta{1, 0.1, 0.73}, false},
		{"powexp-delta=1.5", PowExp{1, 0.1, 1.5}, false},
	}
	dst := make([]float64, nb*nb)
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			col0 := nb
			if c.diag {
				col0 = 0
			}
			for b.Loop() {
				FillTile(c.k, 0.01, Euclidean, p, 0, nb, p, col0, nb, c.diag, dst, nb)
			}
			b.ReportMetric(float64(b.N)*nb*nb/b.Elapsed().Seconds(), "entries/s")
		})
	}
}

// BenchmarkNewMatern measures the construction of the interpolating
// evaluator, once per theta in a likelihood evaluation.
func BenchmarkNewMatern(b *testing.B) {
	for _, c := range []struct{ nu, xmax float64 }{{0.73, 14.2}, {0.05, 14.2}, {3.7, 14.2}, {0.73, 1e4}, {30, 1e4}} {
		b.Run(fmt.Sprintf("nu=%v/rmax=%vbeta", c.nu, c.xmax), func(b *testing.B) {
			for b.Loop() {
				if _, err := NewMatern(Theta{1, 0.1, c.nu}, c.xmax*0.1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGradRow evaluates C, dC/dbeta and (nu=...-dnu) dC/dnu, or C
// alone (nu=...-CovRow: Grad.CovRow; nu=...-interp: NewMatern's), at the
// distances of a 960 x 960 tile of random points in the unit square
// (beta = 0.1) on one goroutine, row by row as the Vecchia blocks do,
// and reports the thread's CPU nanoseconds per entry (what a busy
// machine distorts least).
func BenchmarkGradRow(b *testing.B) {
	const nb = 960
	p := benchPoints(nb)
	rmax := MaxDistance(Euclidean, p)
	r := make([]float64, nb*nb)
	for j := range nb {
		for i := range nb {
			r[i+j*nb] = Distance(Euclidean, p, i, p, nb+j)
		}
	}
	c, db, dn := make([]float64, nb), make([]float64, nb), make([]float64, nb)
	for _, nu := range []float64{0.5, 0.73, 1.5} {
		g, err := NewGrad(Theta{1, 0.1, nu}, 1e-6, rmax, false)
		if err != nil {
			b.Fatal(err)
		}
		k, err := NewMatern(Theta{1, 0.1, nu}, rmax)
		if err != nil {
			b.Fatal(err)
		}
		for _, f := range []struct {
			name string
			row  func(r, c []float64)
		}{{"CovRow", g.CovRow}, {"interp", k.(RowKernel).CovRow}} {
			b.Run(fmt.Sprintf("nu=%v-%s", nu, f.name), func(b *testing.B) {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				c0 := threadCPU()
				for b.Loop() {
					for j := range nb {
						f.row(r[j*nb:(j+1)*nb], c)
					}
				}
				b.ReportMetric((threadCPU()-c0)*1e9/(float64(b.N)*nb*nb), "cpu-ns/entry")
			})
		}
		for _, withNu := range []bool{false, true} {
			g, err := NewGrad(Theta{1, 0.1, nu}, 1e-6, rmax, withNu)
			if err != nil {
				b.Fatal(err)
			}
			name := fmt.Sprintf("nu=%v", nu)
			if withNu {
				name += "-dnu"
			}
			b.Run(name, func(b *testing.B) {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				c0 := threadCPU()
				for b.Loop() {
					for j := range nb {
						g.Row(r[j*nb:(j+1)*nb], c, db, dn)
					}
				}
				b.ReportMetric((threadCPU()-c0)*1e9/(float64(b.N)*nb*nb), "cpu-ns/entry")
			})
		}
	}
}

// threadCPU returns the calling thread's CPU seconds (Linux RUSAGE_THREAD).
func threadCPU() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(1, &ru)
	return float64(ru.Utime.Sec+ru.Stime.Sec) + 1e-6*float64(ru.Utime.Usec+ru.Stime.Usec)
}
