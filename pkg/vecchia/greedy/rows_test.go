package greedy

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/vecchia/neighbors"
)

// rowsCase is a covariance of the KernelRows tests: the kernel, its
// points and metric, and the per-entry reference (K.Cov of
// matern.Distance, or a 1 x 1 FillTile for a PairKernel).
type rowsCase struct {
	name   string
	kern   func(rmax float64) (matern.Kernel, error)
	metric matern.Metric
	dim3   bool
	tau2   float64
}

func rowsCases() []rowsCase {
	mat := func(nu float64) func(float64) (matern.Kernel, error) {
		return func(rmax float64) (matern.Kernel, error) {
			return matern.NewMatern(matern.Theta{Sigma2: 1.2, Beta: 0.1, Nu: nu}, rmax)
		}
	}
	return []rowsCase{
		{"nu 0.5", mat(0.5), matern.Euclidean, false, 0.1},
		{"nu 1.5", mat(1.5), matern.Euclidean, false, 0.1},
		{"nu 2.5 no nugget", mat(2.5), matern.Euclidean, false, 0},
		{"nu 2.3", mat(2.3), matern.Euclidean, false, 0.05},
		{"nu 0.5 3D", mat(0.5), matern.Euclidean, true, 0.1},
		{"nu 1.5 great circle", func(rmax float64) (matern.Kernel, error) {
			return matern.NewMatern(matern.Theta{Sigma2: 1, Beta: 300, Nu: 1.5}, rmax)
		}, matern.GreatCircle, false, 0.1},
		{"powexp", func(float64) (matern.Kernel, error) {
			return matern.PowExp{Sigma2: 1, Beta: 0.2, Delta: 1.3}, nil
		}, matern.Euclidean, false, 0.1},
		{"anisotropic", func(rmax float64) (matern.Kernel, error) {
			return matern.NewAniso(matern.Aniso{Sigma2: 1, Beta: 0.1, Nu: 1.2, Angle: 0.4, Ratio: 3}, rmax)
		}, matern.Euclidean, false, 0.1},
	}
}

// setup returns n random points of the case (degrees within a 20 x 20
// degree box for the great-circle metric), its kernel and the per-entry
// covariance.
func (tc rowsCase) setup(t *testing.T, n int, seed uint64) (matern.Points, matern.Kernel, Cov) {
	rng := rand.New(rand.NewPCG(seed, 11))
	p := matern.Points{X: make([]float64, n), Y: make([]float64, n)}
	if tc.dim3 {
		p.Z = make([]float64, n)
	}
	for i := range n {
		p.X[i], p.Y[i] = rng.Float64(), rng.Float64()
		if tc.metric == matern.GreatCircle {
			p.X[i], p.Y[i] = 20*p.X[i], 40+20*p.Y[i]
		}
		if p.Z != nil {
			p.Z[i] = rng.Float64()
		}
	}
	p.X[5], p.Y[5] = p.X[2], p.Y[2] // a duplicate location
	if p.Z != nil {
		p.Z[5] = p.Z[2]
	}
	k, err := tc.kern(matern.MaxDistance(tc.metric, p))
	if err != nil {
		t.Fatal(err)
	}
	_, pair := k.(matern.PairKernel)
	cov := func(i, j int) float64 {
		if i == j {
			return k.Cov(0) + tc.tau2
		}
		if pair {
			var v [1]float64
			matern.FillTile(k, 0, tc.metric, p, i, 1, p, j, 1, false, v[:], 1)
			return v[0]
		}
		return k.Cov(matern.Distance(tc.metric, p, i, p, j))
	}
	return p, k, cov
}

// TestKernelRows: KernelRows' rows (the vector code for the planar
// closed forms, one CovRow for the interpolant and the powered
// exponential, the gathered FillTile column for 3D, great-circle and
// anisotropic points) within 1e-14 relative of the per-entry covariance,
// the nugget where the row's point is among its columns, for every row
// length up to 40 (a duplicate location included).
func TestKernelRows(t *testing.T) {
	const n = 200
	for _, tc := range rowsCases() {
		t.Run(tc.name, func(t *testing.T) {
			p, k, cov := tc.setup(t, n, 1)
			kr := (&KernelRows{K: k, Nugget: tc.tau2, Metric: tc.metric, P: p}).Fork()
			rng := rand.New(rand.NewPCG(2, 3))
			for size := range 41 {
				i := rng.IntN(n)
				js := make([]int32, size)
				for q := range js {
					js[q] = int32(rng.IntN(n))
				}
				if size > 3 {
					i, js[1], js[3] = 2, 5, 2 // the duplicate, and i itself
				}
				got := make([]float64, size)
				kr.Row(i, js, got)
				for q, j := range js {
					if w := cov(int(j), i); math.Abs(got[q]-w) > 1e-14*math.Abs(w) {
						t.Fatalf("row %d (size %d), column %d: %v, per entry %v", i, size, j, got[q], w)
					}
				}
				if v, w := kr.Var(i), cov(i, i); v != w {
					t.Fatalf("Var(%d) = %v, per entry %v", i, v, w)
				}
			}
		})
	}
}

// TestSelectRows: the picks with KernelRows equal those with the
// per-entry covariance (Select), on 400 random points with candidates
// the 24 nearest earlier points, m = 8, on 1 and 3 workers.
func TestSelectRows(t *testing.T) {
	const n, k, m = 400, 24, 8
	for _, tc := range rowsCases() {
		t.Run(tc.name, func(t *testing.T) {
			p, kern, cov := tc.setup(t, n, 4)
			cand := nearestEarlier(p, n, k, tc.metric)
			want, err := Select(cand, m, cov, 1)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range []int{1, 3} {
				got, err := SelectRows(cand, m, &KernelRows{K: kern, Nugget: tc.tau2, Metric: tc.metric, P: p}, w)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got.Idx, want.Idx) {
					t.Fatalf("workers %d: the picks differ from the per-entry covariance's", w)
				}
			}
		})
	}
}

// nearestEarlier returns each of the n points' k nearest earlier points,
// nearest first (ties by position), by sorting every distance.
func nearestEarlier(p matern.Points, n, k int, metric matern.Metric) *neighbors.Sets {
	cand := neighbors.NewSets(n, k)
	for i := range n {
		row := make([]int, i)
		d := make([]float64, i)
		for j := range i {
			row[j], d[j] = j, matern.Distance(metric, p, i, p, j)
		}
		slices.SortStableFunc(row, func(a, b int) int { return cmp.Compare(d[a], d[b]) })
		for q, j := range row[:min(k, i)] {
			cand.Idx[i*k+q] = int32(j)
		}
	}
	return cand
}

// TestGradRows: GradRows' rows (matern.Grad's AVX-512 row where the CPU
// has it) within 1e-14 relative of the per-entry covariance (NewMatern's
// Cov at matern.Distance, nugget on the diagonal), and the same picks as
// the per-entry covariance on 400 random points (K = 24, m = 8), for an
// interpolated nu on both sides of 1, a closed form, with and without a
// nugget.
func TestGradRows(t *testing.T) {
	const n, k, m = 400, 24, 8
	for _, tc := range []struct {
		nu, tau2 float64
	}{{0.8, 0.1}, {2.3, 0.05}, {1.5, 0.1}, {1.2, 0}} {
		t.Run(fmt.Sprint(tc.nu, tc.tau2), func(t *testing.T) {
			c := rowsCase{name: "", kern: func(rmax float64) (matern.Kernel, error) {
				return matern.NewMatern(matern.Theta{Sigma2: 1.2, Beta: 0.1, Nu: tc.nu}, rmax)
			}, metric: matern.Euclidean, tau2: tc.tau2}
			p, _, cov := c.setup(t, n, 6)
			g, err := matern.NewGrad(matern.Theta{Sigma2: 1.2, Beta: 0.1, Nu: tc.nu}, 1e-4, matern.MaxDistance(matern.Euclidean, p), false)
			if err != nil {
				t.Fatal(err)
			}
			gr := (&GradRows{G: g, Nugget: tc.tau2, P: p}).Fork()
			js := make([]int32, n)
			for j := range js {
				js[j] = int32(j)
			}
			row := make([]float64, n)
			for _, i := range []int{0, 2, 77, n - 1} {
				gr.Row(i, js, row)
				for j, v := range row {
					if w := cov(j, i); math.Abs(v-w) > 1e-14*math.Abs(w) {
						t.Fatalf("row %d, column %d: %v, per entry %v", i, j, v, w)
					}
				}
				if v, w := gr.Var(i), cov(i, i); v != w {
					t.Fatalf("Var(%d) = %v, per entry %v", i, v, w)
				}
			}
			cand := nearestEarlier(p, n, k, matern.Euclidean)
			want, err := Select(cand, m, cov, 1)
			if err != nil {
				t.Fatal(err)
			}
			got, err := SelectRows(cand, m, gr, 2)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Idx, want.Idx) {
				t.Fatal("the picks differ from the per-entry covariance's")
			}
		})
	}
}
