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
