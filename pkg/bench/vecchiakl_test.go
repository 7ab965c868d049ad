package bench

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/vecchia"
	"github.com/exageostat/exageostat/pkg/vecchia/embed"
	"github.com/exageostat/exageostat/pkg/vecchia/order"
)

// closedMatern is the Matérn covariance at distance r in its closed forms
// (nu = 0.5: sigma2 e^-x; nu = 1.5: sigma2 (1 + x) e^-x, x = r/beta),
// plus tau2 at r = 0: written here, not the package's kernels; for any
// other nu the direct evaluation matern.Matern (its Bessel function, not
// the fast kernels that the code under test uses).
func closedMatern(theta []float64, r float64) float64 {
	if theta[2] != 0.5 && theta[2] != 1.5 {
		c := matern.Matern(matern.Theta{Sigma2: theta[0], Beta: theta[1], Nu: theta[2]}, r)
		if r == 0 {
			c += theta[3]
		}
		return c
	}
	x := r / theta[1]
	c := theta[0] * math.Exp(-x)
	if theta[2] == 1.5 {
		c *= 1 + x
	}
	if r == 0 {
		c += theta[3]
	}
	return c
}

// denseSigma returns the covariance matrix of pts at theta (closedMatern).
func denseSigma(pts matern.Points, theta []float64) *mat.SymDense {
	n := pts.Len()
	s := mat.NewSymDense(n, nil)
	for i := range n {
		for j := 0; j <= i; j++ {
			s.SetSym(i, j, closedMatern(theta, math.Hypot(pts.X[i]-pts.X[j], pts.Y[i]-pts.Y[j])))
		}
	}
	return s
}

// denseKL is KL(p || q) of the ungrouped Vecchia density q on the
// ordering perm with each location conditioned on its m nearest earlier
// locations (brute force here), or with k > 0 on the m of its k nearest
// that greedyDense picks, from the dense matrices: the sparse
// inverse Cholesky factor's rows by the conditional regressions
// (b_i = S_cc^-1 S_ci, d_i = S_ii - S_ic b_i), the precision
// A = sum_i a_i a_i^T / d_i with a_i = e_i - b_i on c(i), then
// (tr(A Sigma) - N - log|A| - log|Sigma|)/2.
func denseKL(t *testing.T, pts matern.Points, theta []float64, perm []int, m, k int) float64 {
	t.Helper()
	n := pts.Len()
	sig := denseSigma(pts, theta)
	a := mat.NewSymDense(n, nil)
	logDetA := 0.0
	for pos := range n {
		i := perm[pos]
		prev := slices.Clone(perm[:pos])
		dist := func(j int) float64 { return math.Hypot(pts.X[i]-pts.X[j], pts.Y[i]-pts.Y[j]) }
		slices.SortStableFunc(prev, func(x, y int) int {
			if dist(x) < dist(y) {
				return -1
			}
			if dist(x) > dist(y) {
				return 1
			}
			return 0
		})
		c := prev[:min(m, len(prev))]
		if k > 0 {
			c = greedyDense(t, sig, i, prev[:min(k, len(prev))], m)
		}
		b, d := regress(t, sig, i, c)
		logDetA -= math.Log(d)
		idx := append([]int{i}, c...)
		coef := []float64{1}
		for _, bu := range b {
			coef = append(coef, -bu)
		}
		for u, iu := range idx {
			for v, iv := range idx {
				if iu >= iv {
					a.SetSym(iu, iv, a.At(iu, iv)+coef[u]*coef[v]/d)
				}
			}
		}
	}
	var as mat.Dense
	as.Mul(a, sig)
	var ch mat.Cholesky
	if !ch.Factorize(sig) {
		t.Fatal("dense: Sigma is not positive definite")
	}
	return (mat.Trace(&as) - float64(n) - logDetA - ch.LogDet()) / 2
}

// regress returns the regression of location i on the locations c under
// sig, b = S_cc^-1 S_ci, and the conditional variance d = S_ii - S_ic b,
// by a dense Cholesky solve.
func regress(t *testing.T, sig *mat.SymDense, i int, c []int) ([]float64, float64) {
	t.Helper()
	b := make([]float64, len(c))
	d := sig.At(i, i)
	if len(c) == 0 {
		return b, d
	}
	scc := mat.NewSymDense(len(c), nil)
	sci := mat.NewVecDense(len(c), nil)
	for u, cu := range c {
		sci.SetVec(u, sig.At(cu, i))
		for v := 0; v <= u; v++ {
			scc.SetSym(u, v, sig.At(cu, c[v]))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(scc) {
		t.Fatal("dense: a conditioning set's matrix is not positive definite")
	}
	var bv mat.VecDense
	if err := ch.SolveVecTo(&bv, sci); err != nil {
		t.Fatal(err)
	}
	for u := range c {
		b[u] = bv.AtVec(u)
	}
	return b, d - mat.Dot(sci, &bv)
}

// greedyDense picks m of the candidates cand of location i the greedy
// rule's way, written out: each time the candidate whose addition leaves
// the smallest Var(y_i | y_S), each variance by a dense solve.
func greedyDense(t *testing.T, sig *mat.SymDense, i int, cand []int, m int) []int {
	t.Helper()
	condVar := func(s []int) float64 {
		_, d := regress(t, sig, i, s)
		return d
	}
	var s []int
	left := slices.Clone(cand)
	for len(s) < m && len(left) > 0 {
		best, bv := 0, math.Inf(1)
		for u, c := range left {
			if v := condVar(append(slices.Clone(s), c)); v < bv {
				best, bv = u, v
			}
		}
		s = append(s, left[best])
		left = slices.Delete(left, best, best+1)
	}
	return s
}

// TestVecchiaKLDense: the ungrouped rows equal the dense KL of the same
// ordering (the sets found by brute force in the test); m = N-1 gives 0
// for both groupings; the grouped density is at least as close as the
// ungrouped one on the same sets (Guinness 2018).
func TestVecchiaKLDense(t *testing.T) {
	const n, seed = 70, 4
	pts := uniformPoints(n, seed)
	for _, theta := range [][]float64{{1, 0.1, 0.5, 0.1}, {1.3, 0.2, 1.5, 0.05}} {
		orders := []order.Method{order.MaxMin, order.Random, order.Coord, order.ApproxMaxMin}
		r, err := VecchiaKL(VecchiaKLOptions{Points: pts, Theta: theta, Ms: []int{4, n - 1}, Orders: orders,
			Groupings: []string{"none", "blocks"}, Seed: seed, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if want := math.Log(mat.Det(denseSigma(pts, theta))); math.Abs(r.ExactLogDet-want) > 1e-9*math.Abs(want) {
			t.Errorf("theta %v: exact log|Sigma| %.12g, dense %.12g", theta, r.ExactLogDet, want)
		}
		for i := 0; i < len(r.Rows); i += 2 {
			none, blocks := r.Rows[i], r.Rows[i+1]
			if none.M == n-1 {
				if math.Abs(none.KL) > 1e-9 || math.Abs(blocks.KL) > 1e-9 {
					t.Errorf("theta %v %s m=N-1: KL %g (none), %g (blocks), want 0", theta, none.Order, none.KL, blocks.KL)
				}
				continue
			}
			perm, err := order.Order(embed.Coords{Dim: 2, V: interleave(pts)}, order.Method(none.Order), seed)
			if err != nil {
				t.Fatal(err)
			}
			want := denseKL(t, pts, theta, perm, none.M, 0)
			if math.Abs(none.KL-want) > 1e-9+1e-8*want || !(want > 0.01) {
				t.Errorf("theta %v %s m=%d: KL %.12g, dense %.12g", theta, none.Order, none.M, none.KL, want)
			}
			if !(blocks.KL <= none.KL+1e-9) || !(blocks.KL >= 0) {
				t.Errorf("theta %v %s m=%d: grouped KL %g, ungrouped %g", theta, none.Order, none.M, blocks.KL, none.KL)
			}
		}
	}
}

// interleave returns pts as embed.Coords' flat x, y pairs.
func interleave(pts matern.Points) []float64 {
	v := make([]float64, 0, 2*pts.Len())
	for i := range pts.Len() {
		v = append(v, pts.X[i], pts.Y[i])
	}
	return v
}

// TestVecchiaKLTrace checks the identity VecchiaKL rests on, for the
// grouped density, by the definition: with Sigma = L L^T and l_q(y) =
// c - y^T A y/2 (c = l_q(0)), E_p[l_q] = c + sum_k (l_q(L e_k) - c),
// N evaluations of the Vecchia likelihood at the columns of L (dense
// Cholesky in the test); then E_p[l_p] - E_p[l_q] with E_p[l_p] =
// -log|Sigma|/2 - (N/2) log(2 pi) - N/2 must be the KL of the row. The
// same sum of gradients gives E_p[grad l_q(theta)] (the gradient is
// g_0 - y^T dA y/2), which is 0: each factor of q is a true conditional
// density, so the Vecchia score has mean zero at the true theta and its
// estimate is not biased (docs/vecchia.md).
func TestVecchiaKLTrace(t *testing.T) {
	const n, seed, m = 50, 9, 5
	pts := uniformPoints(n, seed)
	theta := []float64{1, 0.15, 1.5, 0.1}
	r, err := VecchiaKL(VecchiaKLOptions{Points: pts, Theta: theta, Ms: []int{m}, Orders: []order.Method{order.MaxMin},
		Groupings: []string{"blocks"}, Seed: seed, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	sig := denseSigma(pts, theta)
	var ch mat.Cholesky
	if !ch.Factorize(sig) {
		t.Fatal("dense: Sigma is not positive definite")
	}
	var l mat.TriDense
	ch.LTo(&l)
	rt := runtime.New(runtime.Options{Workers: 1})
	defer rt.Close()
	lq := func(y []float64) (float64, []float64) {
		pr := likelihood.Problem{Points: pts, Obs: y, Model: likelihood.Matern}
		prep, err := vecchia.Prepare(pr, theta, vecchia.Setup{M: m, Order: order.MaxMin, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		res, err := vecchia.NewEvaluator(prep.Plan, 4, rt, kernels.Default()).Eval(theta, vecchia.Want{Grad: true})
		if err != nil {
			t.Fatal(err)
		}
		return res.L, res.Grad
	}
	c, g0 := lq(make([]float64, n))
	eq, eg, scale := c, slices.Clone(g0), make([]float64, len(g0))
	for k := range n {
		y := make([]float64, n)
		for i := range n {
			y[i] = l.At(i, k)
		}
		lk, gk := lq(y)
		eq += lk - c
		for j := range eg {
			eg[j] += gk[j] - g0[j]
			scale[j] += math.Abs(gk[j] - g0[j])
		}
	}
	for j := range eg {
		if !(math.Abs(eg[j]) < 1e-9*scale[j]) || !(scale[j] > 1) {
			t.Errorf("E_p[dl_q/dtheta_%d] = %g (the terms' sum of magnitudes %g), want 0", j, eg[j], scale[j])
		}
	}
	ep := -ch.LogDet()/2 - float64(n)/2*math.Log(2*math.Pi) - float64(n)/2
	if kl := ep - eq; math.Abs(kl-r.Rows[0].KL) > 1e-9 || math.Abs(eq-(c-float64(n)/2)) > 1e-9 {
		t.Errorf("E_p[l_p] - E_p[l_q] = %.12g by %d evaluations, the row's KL %.12g; E_p[l_q] - c = %.12g, want -N/2",
			kl, n, r.Rows[0].KL, eq-c)
	}
}

// TestVecchiaKLGreedy: the ungrouped rows of greedy sets equal the dense
// KL of the sets the rule picks when written out (greedyDense), grouped
// they are at least as close, and on these points they are closer than
// the nearest sets of the same size.
func TestVecchiaKLGreedy(t *testing.T) {
	const n, seed, m, k = 70, 4, 4, 12
	pts := uniformPoints(n, seed)
	for _, theta := range [][]float64{{1, 0.1, 0.5, 0.1}, {1.3, 0.2, 1.5, 0.05}} {
		orders := []order.Method{order.MaxMin, order.Random}
		r, err := VecchiaKL(VecchiaKLOptions{Points: pts, Theta: theta, Ms: []int{m}, Orders: orders,
			Selects: []string{"nearest", "greedy"}, Candidates: k, Groupings: []string{"none", "blocks"}, Seed: seed, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Rows) != 8 {
			t.Fatalf("%d rows, want 8", len(r.Rows))
		}
		for i := 0; i < len(r.Rows); i += 4 {
			near, none, blocks := r.Rows[i], r.Rows[i+2], r.Rows[i+3]
			if none.Select != "greedy" || none.Grouping != "none" || blocks.Grouping != "blocks" || near.Select != "nearest" {
				t.Fatalf("rows out of order: %+v", r.Rows[i:i+4])
			}
			perm, err := order.Order(embed.Coords{Dim: 2, V: interleave(pts)}, order.Method(none.Order), seed)
			if err != nil {
				t.Fatal(err)
			}
			want := denseKL(t, pts, theta, perm, m, k)
			if math.Abs(none.KL-want) > 1e-9+1e-8*want || !(want > 0.01) {
				t.Errorf("theta %v %s greedy: KL %.12g, dense %.12g", theta, none.Order, none.KL, want)
			}
			if !(blocks.KL <= none.KL+1e-9) || !(blocks.KL >= 0) {
				t.Errorf("theta %v %s greedy: grouped KL %g, ungrouped %g", theta, none.Order, blocks.KL, none.KL)
			}
			if !(none.KL < near.KL) {
				t.Errorf("theta %v %s: greedy KL %g, nearest %g", theta, none.Order, none.KL, near.KL)
			}
		}
	}
}

// TestVecchiaKLGreedyGrad: for nu other than 1/2, 3/2, 5/2 (the greedy
// sets chosen with greedy.GradRows, matern.Grad's values), the ungrouped
// greedy rows equal the dense KL of the sets the rule picks when written
// out (greedyDense at the direct Matérn covariance), for each nu and
// ordering.
func TestVecchiaKLGreedyGrad(t *testing.T) {
	const n, seed, m, k = 70, 4, 4, 12
	pts := uniformPoints(n, seed)
	for _, theta := range [][]float64{{1, 0.1, 0.8, 0.1}, {1.3, 0.2, 2.3, 0.05}} {
		r, err := VecchiaKL(VecchiaKLOptions{Points: pts, Theta: theta, Ms: []int{m}, Orders: []order.Method{order.MaxMin, order.Random},
			Selects: []string{"greedy"}, Candidates: k, Groupings: []string{"none"}, Seed: seed, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range r.Rows {
			perm, err := order.Order(embed.Coords{Dim: 2, V: interleave(pts)}, order.Method(row.Order), seed)
			if err != nil {
				t.Fatal(err)
			}
			if want := denseKL(t, pts, theta, perm, m, k); math.Abs(row.KL-want) > 1e-9+1e-8*want || !(want > 0.01) {
				t.Errorf("theta %v %s greedy: KL %.12g, dense %.12g", theta, row.Order, row.KL, want)
			}
		}
	}
}
