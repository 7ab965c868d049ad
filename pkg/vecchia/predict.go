package vecchia

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/exageostat/exageostat/pkg/insert"
	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/vecchia/block"
)

// Sizes of Condition's tasks (targets) and batches (tasks): a batch's
// rows are held until they are used, about 64 x 256 x (m+1) values.
const (
	condTask  = 256
	condBatch = 64
)

// Condition computes the Gaussian conditionals of c's targets under cov
// (block.CondRun) as tasks on rt, spread over the ranks, and hands the
// rows (c.Stride() values per target) to use in batches, in order, on
// every rank.
func Condition(rt *runtime.Runtime, kern kernels.Impl, cov block.Cov, c *block.Conditionals, use func(k0 int, rows []float64) error) error {
	nt := len(c.Target)
	stride := c.Stride()
	outs := make([]*runtime.Handle, min(condBatch, (nt+condTask-1)/condTask))
	for j := range outs {
		outs[j] = rt.Register(fmt.Sprintf("vecchia cond %d", j), j%rt.Size(), runtime.Vector{N: condTask * stride})
	}
	scratch := rt.Register("vecchia cond scratch", 0, runtime.Vector{N: c.CondWork()})
	defer func() {
		for _, h := range outs {
			rt.Invalidate(h)
		}
	}()
	ts := insert.New(rt, kern)
	rows := make([]float64, 0, len(outs)*condTask*stride)
	for b0 := 0; b0 < nt; b0 += condBatch * condTask {
		b1 := min(nt, b0+condBatch*condTask)
		for j, t0 := 0, b0; t0 < b1; j, t0 = j+1, t0+condTask {
			condCL.Insert(ts, insert.At(t0/condTask, -1, -1, 0), condArgs{cov: cov, c: c, t0: t0, t1: min(b1, t0+condTask)}, outs[j], scratch)
			rt.Fetch(outs[j])
		}
		if err := rt.Wait(); err != nil {
			return err
		}
		rows = rows[:0]
		for j, t0 := 0, b0; t0 < b1; j, t0 = j+1, t0+condTask {
			rows = append(rows, rt.Local(outs[j])[:(min(b1, t0+condTask)-t0)*stride]...)
		}
		if err := use(b0, rows); err != nil {
			return err
		}
	}
	return nil
}

// condMean returns B y_c for the conditional row of a target (value v of
// its q) with the set's values y (q per location).
func condMean(row []float64, q, v int, set []int32, y []float64) float64 {
	s := 0.0
	for j, loc := range set {
		if loc < 0 {
			break
		}
		for w := 0; w < q; w++ {
			s += row[v+(j*q+w)*q] * y[int(loc)*q+w]
		}
	}
	return s
}

// Prediction holds kriging predictions at new locations.
type Prediction struct {
	Z   []float64 // predictor
	Var []float64 // prediction variance (of a new observation: includes the nugget)
}

// Targets are new locations to predict at: the points (Q per location),
// the covariates of the mean at them (one column per covariate of the
// plan), and the conditioning set of each location (flat, stride M):
// indices of the plan's ordered observation locations, or, for joint
// draws (Draw), N/Q + k for the k-th earlier target.
type Targets struct {
	Pts  matern.Points
	X    [][]float64
	Sets []int32
	M    int
}

// conditionals returns the conditionals of the targets among the plan's
// observations and the targets themselves.
func (e *Evaluator) conditionals(t *Targets) (*block.Conditionals, error) {
	p := e.p
	q := p.per()
	nq := t.Pts.Len()
	if nq%q != 0 || len(t.Sets) != nq/q*t.M {
		return nil, fmt.Errorf("vecchia: %d target points and %d set entries for sets of %d", nq, len(t.Sets), t.M)
	}
	if (t.Pts.Z == nil) != (p.Pts.Z == nil) || (t.Pts.T == nil) != (p.Pts.T == nil) {
		return nil, fmt.Errorf("predict: the observed and the new locations must both have times (t) or not, and both a third coordinate or not")
	}
	if len(t.X) != p.NCov {
		return nil, fmt.Errorf("vecchia: %d covariates at the new locations for a mean of %d", len(t.X), p.NCov)
	}
	cat := func(a, b []float64) []float64 {
		if a == nil {
			return nil
		}
		return append(append(make([]float64, 0, len(a)+len(b)), a...), b...)
	}
	c := &block.Conditionals{Pts: matern.Points{X: cat(p.Pts.X, t.Pts.X), Y: cat(p.Pts.Y, t.Pts.Y), Z: cat(p.Pts.Z, t.Pts.Z), T: cat(p.Pts.T, t.Pts.T)},
		Q: q, Sets: t.Sets, M: t.M, Target: make([]int32, nq/q)}
	base := int32(p.N / q)
	for k := range c.Target {
		c.Target[k] = base + int32(k)
		for _, j := range t.Sets[k*t.M : (k+1)*t.M] {
			if j >= base+int32(k) {
				return nil, fmt.Errorf("vecchia: target %d conditions on %d, not an observation or an earlier target", k, j)
			}
		}
	}
	return c, nil
}

// prepare returns the conditionals of the targets, the evaluation at
// theta (fit, or computed when nil) and the model's covariance.
func (e *Evaluator) prepare(theta []float64, t *Targets, fit *Result) (*block.Conditionals, *Result, block.Cov, error) {
	c, err := e.conditionals(t)
	if err != nil {
		return nil, nil, nil, err
	}
	if fit == nil {
		if fit, err = e.Eval(theta, Want{}); err != nil {
			return nil, nil, nil, err
		}
	}
	cov, err := e.p.kernelCov(theta, matern.MaxDistance(e.p.Metric, c.Pts))
	if err != nil {
		return nil, nil, nil, err
	}
	return c, fit, cov, nil
}

// kernelCov returns the covariance of the model at theta for distances
// up to rmax (no derivatives).
func (p *Plan) kernelCov(theta []float64, rmax float64) (block.Cov, error) {
	k, err := p.Model.Kernel(theta, rmax)
	if err != nil {
		return nil, fmt.Errorf("%w (theta %v): %v", likelihood.ErrBadTheta, theta, err)
	}
	return block.KernelCov{K: k, Nugget: p.problem().Tau2(theta), Metric: p.Metric}, nil
}

// residuals returns y - X beta over the plan's ordered points.
func (p *Plan) residuals(beta []float64) []float64 {
	r := append([]float64(nil), p.Obs...)
	for i := range r {
		for c, b := range beta {
			r[i] -= p.X[i*p.NCov+c] * b
		}
	}
	return r
}

// Predict returns the kriging predictions at the targets from the plan's
// observations at theta, each target conditioned on its set (of
// observations only): with B and L_t the target's conditional
// (block.CondRun), r = y - X beta_hat the residuals at the GLS mean (fit:
// the evaluation at theta; nil evaluates it) and d = x0 - B X_c,
//
//	z_hat = x0^T beta_hat + B r_c,  var = diag(L_t L_t^T) + d^T Cov(beta_hat) d,
//
// the Vecchia approximation of universal kriging. Every rank gets the
// whole result.
func (e *Evaluator) Predict(theta []float64, t *Targets, fit *Result) (*Prediction, error) {
	for k, j := range t.Sets {
		if base := int32(e.p.N / e.p.per()); j >= base {
			return nil, fmt.Errorf("vecchia: target %d of a prediction conditions on another target", k/t.M)
		}
	}
	c, fit, cov, err := e.prepare(theta, t, fit)
	if err != nil {
		return nil, err
	}
	p := e.p
	q, np := c.Q, p.NCov
	r := p.residuals(fit.Beta)
	out := &Prediction{Z: make([]float64, t.Pts.Len()), Var: make([]float64, t.Pts.Len())}
	stride := c.Stride()
	col := func(a int) []float64 { // covariate a over the observations
		v := make([]float64, p.N)
		for i := range v {
			v[i] = p.X[i*np+a]
		}
		return v
	}
	xs := make([][]float64, np)
	for a := range xs {
		xs[a] = col(a)
	}
	d := make([]float64, np)
	err = Condition(e.rt, e.kern, cov, c, func(k0 int, rows []float64) error {
		for kk := 0; kk < len(rows)/stride; kk++ {
			k := k0 + kk
			row := rows[kk*stride : (kk+1)*stride]
			set := c.Sets[k*c.M : (k+1)*c.M]
			lt := row[q*q*c.M:]
			for v := 0; v < q; v++ {
				i := k*q + v
				z := condMean(row, q, v, set, r)
				vr := 0.0
				for w := 0; w <= v; w++ {
					vr += lt[v+w*q] * lt[v+w*q]
				}
				for a := 0; a < np; a++ {
					d[a] = t.X[a][i] - condMean(row, q, v, set, xs[a])
					z += t.X[a][i] * fit.Beta[a]
				}
				for a := 0; a < np; a++ {
					for b := 0; b < np; b++ {
						vr += d[a] * fit.BetaCov[a][b] * d[b]
					}
				}
				out.Z[i], out.Var[i] = z, vr
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Draw returns ndraws joint conditional simulations at the targets
// (z[d][i]: draw d at target point i), each target conditioned on its set
// of observations and earlier targets, in the targets' order:
//
//	z_t = x0^T beta_hat + B (r, z - X0 beta_hat)_c + L_t e,  e ~ N(0, I),
//
// at the GLS mean of fit (nil: evaluated at theta), the draws' standard
// normals from a PCG seeded by seed (the same draws on every rank and
// for any number of workers).
func (e *Evaluator) Draw(theta []float64, t *Targets, fit *Result, ndraws int, seed uint64) ([][]float64, error) {
	rng := rand.New(rand.NewPCG(seed, 0x76656363))
	return e.draw(theta, t, fit, ndraws, rng.NormFloat64)
}

// draw is Draw with the standard normals from normal.
func (e *Evaluator) draw(theta []float64, t *Targets, fit *Result, ndraws int, normal func() float64) ([][]float64, error) {
	c, fit, cov, err := e.prepare(theta, t, fit)
	if err != nil {
		return nil, err
	}
	p := e.p
	q := c.Q
	n := t.Pts.Len()
	res := p.residuals(fit.Beta)
	// The residual field over observations then targets, one per draw.
	vals := make([][]float64, ndraws)
	for dr := range vals {
		vals[dr] = make([]float64, p.N+n)
		copy(vals[dr], res)
	}
	noise := make([]float64, q)
	stride := c.Stride()
	err = Condition(e.rt, e.kern, cov, c, func(k0 int, rows []float64) error {
		for kk := 0; kk < len(rows)/stride; kk++ {
			k := k0 + kk
			row := rows[kk*stride : (kk+1)*stride]
			set := c.Sets[k*c.M : (k+1)*c.M]
			lt := row[q*q*c.M:]
			for dr := range vals {
				for v := range noise {
					noise[v] = normal()
				}
				for v := 0; v < q; v++ {
					z := condMean(row, q, v, set, vals[dr])
					for w := 0; w <= v; w++ {
						z += lt[v+w*q] * noise[w]
					}
					vals[dr][p.N+k*q+v] = z
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([][]float64, ndraws)
	for dr := range out {
		out[dr] = vals[dr][p.N:]
		for i := range out[dr] {
			for a, b := range fit.Beta {
				out[dr][i] += t.X[a][i] * b
			}
		}
	}
	return out, nil
}

// Simulate draws Gaussian data at the ordered points pts (Q per location)
// under the Vecchia approximation of the model at theta with the
// conditioning sets of its locations (flat, stride m, earlier locations):
// the field without the nugget, x_i = B_i x_c(i) + L_i e_i in the
// ordering (the sparse inverse Cholesky factor of the latent field's
// approximation), then y = x + tau e' with independent noise of the
// nugget's variance tau^2; e, then e', standard normal from a PCG seeded
// by seed, the conditionals as tasks on rt, a batch at a time. Every rank
// gets the data. Conditioning the noisy responses instead (the nugget
// inside the conditionals) draws, for data dense against the range, a
// law far from the model's (docs/vecchia.md, "Dense data with a
// nugget"); the latent field's conditionals are accurate there. Where
// they are not positive definite and there is a nugget (a very smooth
// field, dense), Simulate draws the responses so from the same seed and
// says so: responses is true.
func Simulate(rt *runtime.Runtime, kern kernels.Impl, model likelihood.Model, metric matern.Metric, nugget float64,
	theta []float64, pts matern.Points, sets []int32, m int, seed uint64) (y []float64, responses bool, err error) {
	normal := func() func() float64 { return rand.New(rand.NewPCG(seed, 0x73696d)).NormFloat64 }
	y, err = simulate(rt, kern, model, metric, nugget, theta, pts, sets, m, true, normal())
	if errors.Is(err, likelihood.ErrNotPosDef) && (&Plan{Model: model, Nugget: nugget}).problem().Tau2(theta) > 0 {
		y, err = simulate(rt, kern, model, metric, nugget, theta, pts, sets, m, false, normal())
		return y, true, err
	}
	return y, false, err
}

// simulate is Simulate with the standard normals from normal: the latent
// field then the noise (latent), or the responses (the nugget inside the
// conditionals).
func simulate(rt *runtime.Runtime, kern kernels.Impl, model likelihood.Model, metric matern.Metric, nugget float64,
	theta []float64, pts matern.Points, sets []int32, m int, latent bool, normal func() float64) ([]float64, error) {
	p := &Plan{Model: model, Metric: metric, Nugget: nugget}
	q := p.per()
	n := pts.Len()
	if n%q != 0 || len(sets) != n/q*m {
		return nil, fmt.Errorf("vecchia: %d points and %d set entries for sets of %d", n, len(sets), m)
	}
	k, err := p.kernelCov(theta, matern.MaxDistance(metric, pts))
	if err != nil {
		return nil, err
	}
	cov := k.(block.KernelCov)
	tau2 := 0.0
	if latent { // the nugget is added after the draw
		tau2, cov.Nugget = cov.Nugget, 0
	}
	c := &block.Conditionals{Pts: pts, Q: q, Sets: sets, M: m, Target: make([]int32, n/q)}
	for k := range c.Target {
		c.Target[k] = int32(k)
	}
	y := make([]float64, n)
	noise := make([]float64, q)
	stride := c.Stride()
	err = Condition(rt, kern, cov, c, func(k0 int, rows []float64) error {
		for kk := 0; kk < len(rows)/stride; kk++ {
			k := k0 + kk
			row := rows[kk*stride : (kk+1)*stride]
			lt := row[q*q*m:]
			for v := range noise {
				noise[v] = normal()
			}
			for v := 0; v < q; v++ {
				z := condMean(row, q, v, sets[k*m:(k+1)*m], y)
				for w := 0; w <= v; w++ {
					z += lt[v+w*q] * noise[w]
				}
				y[k*q+v] = z
			}
		}
		return nil
	})
	if block.IsNotPosDef(err) {
		return nil, fmt.Errorf("%w (theta %v): %v", ErrNotPosDef, theta, err)
	}
	if err != nil {
		return nil, err
	}
	if tau2 > 0 {
		tau := math.Sqrt(tau2)
		for i := range y {
			y[i] += tau * normal()
		}
	}
	for _, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("vecchia: the simulation produced %v", v)
		}
	}
	return y, nil
}
