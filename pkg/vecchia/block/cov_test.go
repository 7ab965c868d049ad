package block

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/exageostat/exageostat/pkg/matern"
)

// TestMaternCovFill checks MaternCov.Fill for planar points (the packed
// generation): each entry of the covariance's lower triangle within 1e-12
// of the direct Matérn covariance (matern.Matern at math.Hypot's
// distance, the nugget on the diagonal) and bitwise Grad.Row's value at
// that entry's own distance (dist2Go) evaluated alone, the derivatives
// symmetric and bitwise Row's too (0 on the diagonal), for sizes across
// the vector groups, a pair of coincident points included, every
// combination of derivatives asked for, and a closed form (nu = 1/2).
func TestMaternCovFill(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 27))
	const nug = 0.1
	for _, nu := range []float64{0.8, 0.5} {
		th := matern.Theta{Sigma2: 1.3, Beta: 0.05, Nu: nu}
		for _, n := range []int{1, 2, 3, 5, 9, 16, 45} {
			p := matern.Points{X: make([]float64, n), Y: make([]float64, n)}
			for i := range n {
				p.X[i], p.Y[i] = 0.1*rng.Float64(), 0.1*rng.Float64()
			}
			if n > 4 {
				p.X[4], p.Y[4] = p.X[1], p.Y[1]
			}
			for _, c := range []MaternCov{{}, {Beta: true}, {Nu: true}, {Beta: true, Nu: true}} {
				withNu := c.Nu || nu != 0.5
				g, err := matern.NewGrad(th, 1e-6, 1, withNu)
				if err != nil {
					t.Fatal(err)
				}
				c.G, c.Nugget, c.Metric = g, nug, matern.Euclidean
				checkMaternFill(t, c, th, p, n)
			}
		}
	}
}

func checkMaternFill(t *testing.T, c MaternCov, th matern.Theta, p matern.Points, n int) {
	t.Helper()
	s, work := make([]float64, n*n), make([]float64, n*n+2*n)
	var d [][]float64
	for _, on := range []bool{c.Beta, c.Nu} {
		if on {
			d = append(d, make([]float64, n*n))
		}
	}
	for _, a := range append(d, s, work) {
		for i := range a {
			a[i] = math.NaN()
		}
	}
	c.Fill(p, n, s, d, work)
	for j := range n {
		for i := j; i < n; i++ {
			var r [1]float64
			dist2Go(p.X[i:i+1], p.Y[i:i+1], p.X[j], p.Y[j], r[:])
			var cv, db, dn [1]float64
			c.G.Row(r[:], cv[:], db[:], dn[:])
			want := []float64{cv[0], db[0], dn[0]}
			ref := matern.Matern(th, math.Hypot(p.X[i]-p.X[j], p.Y[i]-p.Y[j]))
			if i == j {
				want, ref = []float64{th.Sigma2 + c.Nugget, 0, 0}, th.Sigma2+c.Nugget
			}
			if got := s[i+j*n]; math.Float64bits(got) != math.Float64bits(want[0]) || math.Abs(got-ref) > 1e-12*th.Sigma2 {
				t.Fatalf("%+v n %d: C[%d,%d] = %v, Row %v, direct %v", c, n, i, j, got, want[0], ref)
			}
			g := 0
			for k, on := range []bool{c.Beta, c.Nu} {
				if !on {
					continue
				}
				lo, up := d[g][i+j*n], d[g][j+i*n]
				if math.Float64bits(lo) != math.Float64bits(want[1+k]) || math.Float64bits(up) != math.Float64bits(lo) {
					t.Fatalf("%+v n %d: d%d[%d,%d] = %v (upper %v), Row %v", c, n, k, i, j, lo, up, want[1+k])
				}
				g++
			}
		}
	}
}
