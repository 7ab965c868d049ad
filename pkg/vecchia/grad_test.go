package vecchia

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/exageostat/exageostat/pkg/vecchia/block"
)

// conditioning returns, for each point, the points it conditions on in
// the plan's blocks: every member of its block before it (the definition
// of the grouped approximation).
func conditioning(plan *Plan) [][]int {
	c := make([][]int, plan.N)
	bl := plan.Blocks
	for b := 0; b < bl.Len(); b++ {
		idx := bl.Idx[bl.Start[b]:bl.Start[b+1]]
		for k, v := range idx {
			i, resp := block.Response(v)
			if !resp {
				continue
			}
			for _, w := range idx[:k] {
				j, _ := block.Response(w)
				c[i] = append(c[i], int(j))
			}
		}
	}
	return c
}

// vecchiaDense is the reference Vecchia approximation written out from
// its definition: l = sum_i log N(y_i - x_i^T beta; b_i^T (y - X beta)_c,
// v_i) with b_i = Sigma_cc^-1 Sigma_ci and v_i = Sigma_ii - Sigma_ic b_i
// from the dense covariance matrix (the plan's ordered points), beta the
// GLS mean of the approximation, and the expected information of each
// conditional density, 1/2 (dv_j dv_k)/v^2 + db_j^T Sigma_cc db_k / v,
// summed, with the derivatives in theta by central differences.
type vecchiaDense struct {
	t    *testing.T
	plan *Plan
	c    [][]int
}

// pieces returns b_i and v_i of every point at theta.
func (d vecchiaDense) pieces(theta []float64) (bs [][]float64, vs []float64, s *mat.SymDense) {
	p := d.plan
	pr := p.problem()
	pr.Points, pr.Obs = p.Pts, p.Obs
	s = denseCov(d.t, pr, theta)
	bs = make([][]float64, p.N)
	vs = make([]float64, p.N)
	for i, c := range d.c {
		if len(c) == 0 {
			vs[i] = s.At(i, i)
			continue
		}
		scc := mat.NewSymDense(len(c), nil)
		sci := mat.NewVecDense(len(c), nil)
		for a, ja := range c {
			sci.SetVec(a, s.At(ja, i))
			for b := 0; b <= a; b++ {
				scc.SetSym(a, b, s.At(ja, c[b]))
			}
		}
		var ch mat.Cholesky
		if !ch.Factorize(scc) {
			d.t.Fatal("reference: conditioning matrix not positive definite")
		}
		var b mat.VecDense
		if err := ch.SolveVecTo(&b, sci); err != nil {
			d.t.Fatal(err)
		}
		bs[i] = b.RawVector().Data
		vs[i] = s.At(i, i) - mat.Dot(sci, &b)
	}
	return bs, vs, s
}

// loglik returns the reference l at theta.
func (d vecchiaDense) loglik(theta []float64) float64 {
	p := d.plan
	bs, vs, _ := d.pieces(theta)
	// residuals r_i(v) = v_i - b_i^T v_c of y and of the covariates
	resid := func(v func(int) float64) []float64 {
		r := make([]float64, p.N)
		for i, c := range d.c {
			r[i] = v(i)
			for a, j := range c {
				r[i] -= bs[i][a] * v(j)
			}
		}
		return r
	}
	ry := resid(func(i int) float64 { return p.Obs[i] })
	rx := make([][]float64, p.NCov)
	for k := range rx {
		rx[k] = resid(func(i int) float64 { return p.X[i*p.NCov+k] })
	}
	l := 0.0
	for i := range ry {
		l -= 0.5*math.Log(2*math.Pi*vs[i]) + 0.5*ry[i]*ry[i]/vs[i]
	}
	if p.NCov == 0 {
		return l
	}
	a := mat.NewSymDense(p.NCov, nil)
	b := mat.NewVecDense(p.NCov, nil)
	for k := range rx {
		for i := range ry {
			b.SetVec(k, b.AtVec(k)+rx[k][i]*ry[i]/vs[i])
		}
		for m := 0; m <= k; m++ {
			s := 0.0
			for i := range ry {
				s += rx[k][i] * rx[m][i] / vs[i]
			}
			a.SetSym(k, m, s)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(a) {
		d.t.Fatal("reference: collinear")
	}
	var beta mat.VecDense
	if err := ch.SolveVecTo(&beta, b); err != nil {
		d.t.Fatal(err)
	}
	return l + 0.5*mat.Dot(b, &beta)
}

// info returns the reference expected information at theta (free
// parameters only, in their order).
func (d vecchiaDense) info(theta []float64, free []int) [][]float64 {
	_, vs, s := d.pieces(theta)
	db := make([][][]float64, len(free))
	dv := make([][]float64, len(free))
	for a, j := range free {
		h := 1e-5 * math.Abs(theta[j])
		tp := append([]float64(nil), theta...)
		tm := append([]float64(nil), theta...)
		tp[j] += h
		tm[j] -= h
		bp, vp, _ := d.pieces(tp)
		bm, vm, _ := d.pieces(tm)
		db[a] = make([][]float64, len(vs))
		dv[a] = make([]float64, len(vs))
		for i := range vs {
			dv[a][i] = (vp[i] - vm[i]) / (2 * h)
			db[a][i] = make([]float64, len(bp[i]))
			for k := range bp[i] {
				db[a][i][k] = (bp[i][k] - bm[i][k]) / (2 * h)
			}
		}
	}
	out := make([][]float64, len(free))
	for a := range free {
		out[a] = make([]float64, len(free))
		for b := range free {
			v := 0.0
			for i, c := range d.c {
				v += 0.5 * dv[a][i] * dv[b][i] / (vs[i] * vs[i])
				q := 0.0
				for x, jx := range c {
					for y, jy := range c {
						q += db[a][i][x] * s.At(jx, jy) * db[b][i][y]
					}
				}
				v += q / vs[i]
			}
			out[a][b] = v
		}
	}
	return out
}

// TestGradInfoDense checks l, the gradient and the Fisher information of
// grouped Vecchia approximations with small conditioning sets against the
// reference written out from the definition (vecchiaDense): l to 1e-11
// relative, the gradient to central differences of the reference l, the
// information to the reference's, for every kernel with and without the
// nugget in theta and a mean.
func TestGradInfoDense(t *testing.T) {
	const n, m = 120, 6
	for _, c := range cases(n, 3) {
		plan := newPlan(t, c.p, m, Grouping{})
		ref := vecchiaDense{t: t, plan: plan, c: conditioning(plan)}
		res := eval(t, plan, c.theta, Want{Grad: true}, 2)
		want := ref.loglik(c.theta)
		if e := relDiff(res.L, want); !(e <= 1e-11) {
			t.Errorf("%s: l = %.15g, reference %.15g (rel %.2g)", c.name, res.L, want, e)
		}
		var free []int
		for j := range c.theta {
			free = append(free, j)
			h := 1e-5 * math.Abs(c.theta[j])
			tp := append([]float64(nil), c.theta...)
			tm := append([]float64(nil), c.theta...)
			tp[j] += h
			tm[j] -= h
			fd := (ref.loglik(tp) - ref.loglik(tm)) / (2 * h)
			if math.Abs(res.Grad[j]-fd) > 1e-5*(math.Abs(fd)+1) {
				t.Errorf("%s: dl/d%s = %.10g, central difference %.10g", c.name, c.p.Model.ParamNamesFor(len(c.theta))[j], res.Grad[j], fd)
			}
		}
		info := ref.info(c.theta, free)
		for a := range free {
			for b := range free {
				scale := math.Sqrt(math.Abs(info[a][a] * info[b][b]))
				if math.Abs(res.Info[a][b]-info[a][b]) > 1e-5*scale {
					t.Errorf("%s: I[%d][%d] = %.10g, reference %.10g", c.name, a, b, res.Info[a][b], info[a][b])
				}
			}
		}
	}
}
