package block

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"syscall"
	"testing"

	"github.com/exageostat/exageostat/pkg/matern"
)

// BenchmarkRun times the block kernel on one thread (no BLAS call: its
// own Cholesky factor, solves and products): 2000 blocks of u = 45 nearby points of which the last r = 3
// are responses (the mean block of a grouped m = 30 plan), or u = 16 and
// r = 2 (an m = 10 plan's), Matérn with nu free, a nugget and a
// constant mean, l alone and with the gradient and information. It
// reports the thread's CPU nanoseconds per block (what a busy machine
// distorts least) and the share of each phase.
func BenchmarkRun(b *testing.B) {
	for _, ur := range [][2]int{{45, 3}, {16, 2}} {
		b.Run(fmt.Sprintf("u=%d", ur[0]), func(b *testing.B) { benchRun(b, ur[0], ur[1]) })
	}
}

func benchRun(b *testing.B, u, r int) {
	const n, nb = 4000, 2000
	rng := rand.New(rand.NewPCG(1, 2))
	pts := matern.Points{X: make([]float64, n), Y: make([]float64, n)}
	obs, x := make([]float64, n), make([]float64, n)
	for i := range obs {
		pts.X[i], pts.Y[i], obs[i], x[i] = rng.Float64(), rng.Float64(), rng.NormFloat64(), 1
	}
	d := NewData(pts, obs, x, 1, nil, []int64{0})
	near, dist := make([]int32, n), make([]float64, n)
	for range nb {
		c := rng.IntN(n)
		for i := range near {
			near[i], dist[i] = int32(i), matern.Distance(matern.Euclidean, pts, i, pts, c)
		}
		slices.SortFunc(near, func(a, b int32) int { return cmpFloat(dist[a], dist[b]) })
		blk := slices.Clone(near[:u])
		slices.Sort(blk)
		for k := u - r; k < u; k++ {
			blk[k] = ^blk[k]
		}
		d.Idx = append(d.Idx, blk...)
		d.Start = append(d.Start, int64(len(d.Idx)))
	}
	g, err := matern.NewGrad(matern.Theta{Sigma2: 1, Beta: 0.05, Nu: 0.8}, 1e-5, 1.5, true)
	if err != nil {
		b.Fatal(err)
	}
	for _, grad := range []bool{false, true} {
		s := &Spec{Cov: MaternCov{G: g, Nugget: 0.1, Metric: matern.Euclidean, Beta: true, Nu: true},
			Kinds: []Kind{Scale, Generated, Generated, Nugget}, Sigma2: 1, Tau2: 0.1, NCov: 1, Grad: grad, Timing: true}
		if !grad {
			g0, _ := matern.NewGrad(matern.Theta{Sigma2: 1, Beta: 0.05, Nu: 0.8}, 1e-5, 1.5, false)
			s.Cov = MaternCov{G: g0, Nugget: 0.1, Metric: matern.Euclidean} // the covariance alone, as the evaluator
		}
		work := make([]float64, s.WorkWords(u, r))
		acc := make([]float64, s.Layout().Len())
		b.Run(fmt.Sprintf("grad=%v", grad), func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			clear(acc)
			c0 := threadCPU()
			for i := 0; i < b.N; i++ {
				if err := Run(s, d, 0, nb, work, acc); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((threadCPU()-c0)*1e9/float64(b.N*nb), "cpu-ns/block")
			lay := s.Layout()
			tot := 0.0
			for _, v := range acc[lay.Times():] {
				tot += v
			}
			for ph, name := range []string{"gen", "chol", "solve", "grad"} {
				b.ReportMetric(acc[lay.Times()+ph]/tot, name+"-share")
			}
		})
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// threadCPU returns the calling thread's CPU seconds (Linux RUSAGE_THREAD).
func threadCPU() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(1, &ru)
	return float64(ru.Utime.Sec+ru.Stime.Sec) + 1e-6*float64(ru.Utime.Usec+ru.Stime.Usec)
}

// BenchmarkFill times MaternCov.Fill alone (the generation of a block:
// distances, covariances, unpacking) over 2000 blocks of u = 40 nearby
// points among 4000 uniform in the unit square (the mean block at N =
// 10^6, m = 30), Matérn nu = 0.8, beta = 0.05, l alone (C) and with
// dC/dbeta and dC/dnu (grad). It reports the thread's CPU nanoseconds
// per entry of the lower triangle.
func BenchmarkFill(b *testing.B) {
	const n, nb, u = 4000, 2000, 40
	rng := rand.New(rand.NewPCG(1, 3))
	pts := matern.Points{X: make([]float64, n), Y: make([]float64, n)}
	for i := range pts.X {
		pts.X[i], pts.Y[i] = rng.Float64(), rng.Float64()
	}
	near, dist := make([]int32, n), make([]float64, n)
	blocks := make([]matern.Points, nb)
	for k := range blocks {
		c := rng.IntN(n)
		for i := range near {
			near[i], dist[i] = int32(i), matern.Distance(matern.Euclidean, pts, i, pts, c)
		}
		slices.SortFunc(near, func(a, b int32) int { return cmpFloat(dist[a], dist[b]) })
		blk := slices.Clone(near[:u])
		slices.Sort(blk)
		p := matern.Points{X: make([]float64, u), Y: make([]float64, u)}
		for i, g := range blk {
			p.X[i], p.Y[i] = pts.X[g], pts.Y[g]
		}
		blocks[k] = p
	}
	th := matern.Theta{Sigma2: 1, Beta: 0.05, Nu: 0.8}
	for _, grad := range []bool{false, true} {
		g, err := matern.NewGrad(th, 1e-5, 1.5, grad)
		if err != nil {
			b.Fatal(err)
		}
		c := MaternCov{G: g, Nugget: 0.1, Metric: matern.Euclidean, Beta: grad, Nu: grad}
		s, work := make([]float64, u*u), make([]float64, u*u)
		d := [][]float64{make([]float64, u*u), make([]float64, u*u)}
		b.Run(fmt.Sprintf("grad=%v", grad), func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			c0 := threadCPU()
			for b.Loop() {
				for _, p := range blocks {
					c.Fill(p, u, s, d, work)
				}
			}
			b.ReportMetric((threadCPU()-c0)*1e9/(float64(b.N)*nb*u*(u+1)/2), "cpu-ns/entry")
		})
	}
}
