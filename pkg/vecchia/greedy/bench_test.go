package greedy

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/vecchia/embed"
	"github.com/exageostat/exageostat/pkg/vecchia/neighbors"
	"github.com/exageostat/exageostat/pkg/vecchia/order"
)

// benchProblem returns n uniform points in the unit square in maxmin
// order and each one's k nearest earlier points.
func benchProblem(b *testing.B, n, k int) (matern.Points, *neighbors.Sets) {
	rng := rand.New(rand.NewPCG(uint64(n), 7))
	p := matern.Points{X: make([]float64, n), Y: make([]float64, n)}
	for i := range n {
		p.X[i], p.Y[i] = rng.Float64(), rng.Float64()
	}
	c, err := embed.Embed(p, matern.Euclidean, embed.Frame{})
	if err != nil {
		b.Fatal(err)
	}
	perm := order.Maxmin(c)
	q := matern.Points{X: make([]float64, n), Y: make([]float64, n)}
	for i, j := range perm {
		q.X[i], q.Y[i] = p.X[j], p.Y[j]
	}
	embed.PermuteInPlace(c, perm)
	cand, err := neighbors.Conditioning(c, k, 1)
	if err != nil {
		b.Fatal(err)
	}
	return q, cand
}

// BenchmarkSelect: the selection of m = 30 of K = 90 candidates at
// N = 10^4 on one worker (nu = 0.5, 1.5 and 2.3, nugget 0.1), with the
// covariance an entry at a time (entry: a Cov of NewMatern's kernel at
// matern.Distance), a row at a time (rows: KernelRows) and, for nu = 2.3,
// by the blocks' evaluator (grad: GradRows).
func BenchmarkSelect(b *testing.B) {
	const n, m, k, tau2 = 10000, 30, 90, 0.1
	p, cand := benchProblem(b, n, k)
	for _, nu := range []float64{0.5, 1.5, 2.3} {
		kern, err := matern.NewMatern(matern.Theta{Sigma2: 1, Beta: 0.1, Nu: nu}, matern.MaxDistance(matern.Euclidean, p))
		if err != nil {
			b.Fatal(err)
		}
		cov := func(i, j int) float64 {
			if i == j {
				return kern.Cov(0) + tau2
			}
			return kern.Cov(matern.Distance(matern.Euclidean, p, i, p, j))
		}
		b.Run(fmt.Sprintf("nu=%g/entry", nu), func(b *testing.B) {
			for b.Loop() {
				if _, err := Select(cand, m, cov, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("nu=%g/rows", nu), func(b *testing.B) {
			for b.Loop() {
				kr := &KernelRows{K: kern, Nugget: tau2, Metric: matern.Euclidean, P: p}
				if _, err := SelectRows(cand, m, kr, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
		if nu == 1.5 || nu == 0.5 {
			continue
		}
		g, err := matern.NewGrad(matern.Theta{Sigma2: 1, Beta: 0.1, Nu: nu}, 1e-4, matern.MaxDistance(matern.Euclidean, p), false)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("nu=%g/grad", nu), func(b *testing.B) {
			for b.Loop() {
				if _, err := SelectRows(cand, m, &GradRows{G: g, Nugget: tau2, P: p}, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
