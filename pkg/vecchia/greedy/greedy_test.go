package greedy

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/vecchia/neighbors"
	"gonum.org/v1/gonum/mat"
)

// condVar returns Var(y_i | y_S) by a dense Cholesky solve (the
// reference: no incremental factor).
func condVar(cov Cov, i int, s []int) float64 {
	if len(s) == 0 {
		return cov(i, i)
	}
	a := mat.NewSymDense(len(s), nil)
	b := mat.NewVecDense(len(s), nil)
	for p, q := range s {
		for r := range p + 1 {
			a.SetSym(p, r, cov(q, s[r]))
		}
		b.SetVec(p, cov(q, i))
	}
	var ch mat.Cholesky
	if !ch.Factorize(a) {
		return math.NaN()
	}
	var x mat.VecDense
	if err := ch.SolveVecTo(&x, b); err != nil {
		return math.NaN()
	}
	return cov(i, i) - mat.Dot(b, &x)
}

// refPick is the rule written out: m times, the candidate whose addition
// leaves the smallest Var(y_i | y_S), by dense solves; in candidate order.
func refPick(cov Cov, i int, cand []int, m int) []int {
	var s, idx []int
	used := make([]bool, len(cand))
	for range min(m, len(cand)) {
		b, bv := -1, math.Inf(1)
		for j, q := range cand {
			if used[j] {
				continue
			}
			if v := condVar(cov, i, append(slices.Clone(s), q)); v < bv {
				b, bv = j, v
			}
		}
		used[b] = true
		s = append(s, cand[b])
		idx = append(idx, b)
	}
	slices.Sort(idx)
	out := make([]int, len(idx))
	for t, j := range idx {
		out[t] = cand[j]
	}
	return out
}

func TestSelect(t *testing.T) {
	for _, tc := range []struct {
		name     string
		n, k, m  int
		nu, tau2 float64
		workers  int
		beta     float64
	}{
		{"exponential nugget", 120, 16, 6, 0.5, 0.1, 1, 0.2},
		{"smooth nugget", 120, 20, 8, 1.5, 0.1, 3, 0.2},
		{"smooth small nugget", 90, 12, 5, 2.5, 1e-3, 2, 0.3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.n), 3))
			x, y := make([]float64, tc.n), make([]float64, tc.n)
			for i := range x {
				x[i], y[i] = rng.Float64(), rng.Float64()
			}
			th := matern.Theta{Sigma2: 1, Beta: tc.beta, Nu: tc.nu}
			cov := func(i, j int) float64 {
				if i == j {
					return 1 + tc.tau2
				}
				return matern.Matern(th, math.Hypot(x[i]-x[j], y[i]-y[j]))
			}
			// Candidates: the k nearest earlier points, nearest first (by hand).
			cand := neighbors.NewSets(tc.n, tc.k)
			rows := make([][]int, tc.n)
			for i := range tc.n {
				for j := range i {
					rows[i] = append(rows[i], j)
				}
				d := func(j int) float64 { return math.Hypot(x[i]-x[j], y[i]-y[j]) }
				slices.SortStableFunc(rows[i], func(a, b int) int {
					if d(a) < d(b) {
						return -1
					}
					if d(a) > d(b) {
						return 1
					}
					return 0
				})
				rows[i] = rows[i][:min(tc.k, i)]
				for p, j := range rows[i] {
					cand.Idx[i*tc.k+p] = int32(j)
				}
			}
			got, err := Select(cand, tc.m, cov, tc.workers)
			if err != nil {
				t.Fatal(err)
			}
			if got.M != tc.m {
				t.Fatalf("M = %d, want %d", got.M, tc.m)
			}
			var klNear, klGreedy float64
			for i := range tc.n {
				want := refPick(cov, i, rows[i], tc.m)
				var row []int
				for _, q := range got.Row(i) {
					if q >= 0 {
						row = append(row, int(q))
					}
				}
				if !slices.Equal(row, want) {
					t.Fatalf("row %d: picked %v, want %v", i, row, want)
				}
				klNear += math.Log(condVar(cov, i, rows[i][:min(tc.m, len(rows[i]))]))
				klGreedy += math.Log(condVar(cov, i, want))
			}
			// The point of the rule: the ungrouped KL's sum of log conditional
			// variances is lower than with the m nearest (checked, not assumed).
			if !(klGreedy < klNear) {
				t.Errorf("sum log Var: greedy %g, nearest %g", klGreedy, klNear)
			}
		})
	}
}

func TestSelectDuplicates(t *testing.T) {
	// Position 2 duplicates position 0 and there is no nugget: once 0 is
	// picked, 2's conditional variance is 0 and it goes last.
	pts := [][2]float64{{0, 0}, {0.5, 0}, {0, 0}, {0.1, 0.1}}
	th := matern.Theta{Sigma2: 1, Beta: 0.3, Nu: 0.5}
	cov := func(i, j int) float64 {
		return matern.Matern(th, math.Hypot(pts[i][0]-pts[j][0], pts[i][1]-pts[j][1]))
	}
	cand := neighbors.NewSets(4, 3)
	copy(cand.Idx[9:12], []int32{2, 0, 1})
	got, err := Select(cand, 3, cov, 1)
	if err != nil {
		t.Fatal(err)
	}
	if r := got.Row(3); !slices.Equal(r, []int32{2, 0, 1}) {
		t.Fatalf("row 3 = %v, want every candidate", r)
	}
	got, _ = Select(cand, 2, cov, 1)
	if r := got.Row(3); !slices.Equal(r, []int32{2, 1}) && !slices.Equal(r, []int32{0, 1}) {
		t.Fatalf("row 3 = %v, want one of the duplicates and the other point", r)
	}
	if _, err := Select(cand, 0, cov, 1); err == nil {
		t.Fatal("m = 0 accepted")
	}
}
