package tlr

import (
	"fmt"
	"testing"

	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/runtime"
)

// BenchmarkCompress compares, on one goroutine with single-threaded BLAS,
// the generation of a Matérn off-diagonal tile (nu = 0.5: closed form;
// nu = 0.73: general K_nu) with its compression at accuracy 1e-9 by each
// method, for nb = 400, 600, 900 on the N = 16 nb^2 / 4 grid (tile (1,0):
// neighbours, the highest ranks; tile (6,0): farther). It reports the
// rank as a metric.
func BenchmarkCompress(b *testing.B) {
	kernels.DefaultThreads().SetThreads(1)
	for _, nb := range []int{400, 600, 900} {
		d := dataset.Grid(8*nb, 1)
		p := matern.Points{X: d.X, Y: d.Y}
		rmax := matern.MaxDistance(matern.Euclidean, p)
		for _, nu := range []float64{0.5, 0.73} {
			k, err := matern.NewMatern(matern.Theta{Sigma2: 1, Beta: 0.1, Nu: nu}, rmax)
			if err != nil {
				b.Fatal(err)
			}
			for _, row := range []int{1, 6} {
				a := make([]float64, nb*nb)
				gen := func() {
					matern.FillTile(k, 0, matern.Euclidean, p, row*nb, nb, p, 0, nb, false, a, nb)
				}
				b.Run(fmt.Sprintf("nb=%d/nu=%g/tile=%d,0/generate", nb, nu, row), func(b *testing.B) {
					for b.Loop() {
						gen()
					}
				})
				f := runtime.LowRank{M: nb, N: nb, MaxRank: nb / 2}
				buf := make([]float64, f.Words())
				gen()
				src := append([]float64(nil), a...)
				for _, m := range []Method{SVD, RRQR, ACA} {
					c := New(m, 1e-9)
					b.Run(fmt.Sprintf("nb=%d/nu=%g/tile=%d,0/%v", nb, nu, row, m), func(b *testing.B) {
						var r int
						for b.Loop() {
							copy(a, src)
							r, err = c.Compress(f, a, buf)
							if err != nil {
								b.Fatal(err)
							}
						}
						b.ReportMetric(float64(r), "rank")
					})
				}
			}
		}
	}
}

// BenchmarkKernels times the LR kernels on nb = 400 Matérn tiles (nu =
// 0.5, beta = 0.1, accuracy 1e-9) of a grid of 16000 points: tiles (6,0),
// (5,0) and (6,5) of ranks about 30.
func BenchmarkKernels(b *testing.B) {
	kernels.DefaultThreads().SetThreads(1)
	const nb = 400
	d := dataset.Grid(16000, 1)
	p := matern.Points{X: d.X, Y: d.Y}
	k, err := matern.NewMatern(matern.Theta{Sigma2: 1, Beta: 0.1, Nu: 0.5}, matern.MaxDistance(matern.Euclidean, p))
	if err != nil {
		b.Fatal(err)
	}
	c := New(ACA, 1e-9)
	f := runtime.LowRank{M: nb, N: nb, MaxRank: nb / 2}
	tileOf := func(row, col int) []float64 {
		a := make([]float64, nb*nb)
		matern.FillTile(k, 0, matern.Euclidean, p, row*nb, nb, p, col*nb, nb, false, a, nb)
		buf := make([]float64, f.Words())
		if _, err := c.Compress(f, a, buf); err != nil {
			b.Fatal(err)
		}
		return buf
	}
	a, bb, cc := tileOf(16, 0), tileOf(15, 0), tileOf(16, 15)
	b.Logf("ranks %d %d %d", f.Rank(a), f.Rank(bb), f.Rank(cc))
	diag := make([]float64, nb*nb)
	matern.FillTile(k, 0.1, matern.Euclidean, p, 0, nb, p, 0, nb, true, diag, nb)
	c.K.Dpotrf(nb, diag, nb)
	b.Run("gemm", func(b *testing.B) {
		w := make([]float64, len(cc))
		for b.Loop() {
			copy(w, cc)
			if _, err := c.Gemm(f, a, f, bb, f, w); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("syrk", func(b *testing.B) {
		w := make([]float64, nb*nb)
		for b.Loop() {
			c.Syrk(f, a, w)
		}
	})
	b.Run("trsm", func(b *testing.B) {
		w := make([]float64, len(a))
		for b.Loop() {
			copy(w, a)
			c.Trsm(f, diag, w)
		}
	})
	b.Run("dense-gemm", func(b *testing.B) {
		x, y, z := make([]float64, nb*nb), make([]float64, nb*nb), make([]float64, nb*nb)
		for b.Loop() {
			c.K.Dgemm(blasNoTrans, blasTrans, nb, nb, nb, -1, x, nb, y, nb, 1, z, nb)
		}
	})
}
