package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/tile"
	"github.com/exageostat/exageostat/pkg/vecchia"
	"github.com/exageostat/exageostat/pkg/vecchia/neighbors"
	"github.com/exageostat/exageostat/pkg/vecchia/order"
)

// VecchiaKLOptions configure VecchiaKL.
type VecchiaKLOptions struct {
	// Points are the locations; with none, N uniform random points in
	// the unit square (a PCG seeded by Seed).
	Points matern.Points
	N      int
	// Theta is the Matérn model (sigma2, beta, nu, tau2): the true
	// parameters, at which both densities are taken.
	Theta []float64
	// Ms, Orders and Groupings ("blocks", "none") are the approximations
	// compared: every combination, in this order of nesting (grouping
	// innermost).
	Ms        []int
	Orders    []order.Method
	Groupings []string
	// Selects are how the sets are chosen ("nearest": the m nearest
	// earlier points, as fit does; "greedy": m of the Candidates nearest
	// by conditional variance at Theta, package greedy), nested between
	// the orderings and the groupings.
	Selects []string
	// Candidates is the greedy rule's K (0: 3m).
	Candidates int
	Seed       uint64 // the points' seed and the random orderings'
	Workers    int
	NB         int // the exact Cholesky's tile size (0: tile.AutoNB)
	// Progress, if set, gets a line as each row ends.
	Progress func(string)
}

// VecchiaKLRow is one approximation's divergence from the exact density.
type VecchiaKLRow struct {
	M        int    `json:"m"`
	Order    string `json:"order"`
	Grouping string `json:"grouping"`
	Select   string `json:"select"` // how the sets were chosen: nearest or greedy
	Blocks   int    `json:"blocks"`
	// KL is KL(p || q) in nats; LogDet is log|Sigma~| of the Vecchia
	// density q.
	KL     float64 `json:"kl"`
	LogDet float64 `json:"logdet"`
	// Entries and CholFlops are the work of one evaluation of l, wall
	// clock aside: the covariance entries (u(u+1)/2 a block of u points)
	// and the Cholesky factors' flops (u^3/3 a block).
	Entries   float64 `json:"entries"`
	CholFlops float64 `json:"chol_flops"`
	// PrepSeconds is the ordering, the sets and the grouping, EvalSeconds
	// one evaluation of the Vecchia likelihood.
	PrepSeconds float64 `json:"prepare_seconds"`
	EvalSeconds float64 `json:"eval_seconds"`
}

// VecchiaKLResult is VecchiaKL's table.
type VecchiaKLResult struct {
	N       int       `json:"n"`
	Theta   []float64 `json:"theta"`
	Seed    uint64    `json:"seed"`
	Workers int       `json:"workers"`
	NB      int       `json:"nb"`
	// ExactLogDet is log|Sigma| by the tiled Cholesky, ExactSeconds its
	// time.
	ExactLogDet  float64        `json:"exact_logdet"`
	ExactSeconds float64        `json:"exact_seconds"`
	Rows         []VecchiaKLRow `json:"rows"`
}

// VecchiaKLNeed returns the memory VecchiaKL holds at most for n points
// with sets of at most maxM on workers workers, in bytes: the exact
// Cholesky's tiles (likelihood.MemoryNeed, one rank, tile size nb), then
// one Vecchia plan (vecchia.MemoryNeed), whichever is larger.
func VecchiaKLNeed(n, nb, maxM, workers int) int64 {
	if nb <= 0 {
		nb = tile.AutoNB(n)
	}
	exact := likelihood.MemoryNeed(n, likelihood.Options{NB: nb}, 1)[0]
	return max(exact, vecchia.MemoryNeed(n, maxM, 0, 4, workers))
}

// VecchiaKL returns the Kullback-Leibler divergence KL(p || q) of each
// Vecchia density q (every m, ordering and grouping of o) from the exact
// Gaussian density p = N(0, Sigma) of o's points, Sigma the Matérn
// covariance at o.Theta with the nugget: how much the approximation loses
// at the true parameters (Guinness 2018 compares orderings this way).
//
// Each of q's factors is the exact conditional density of its block's
// responses given the block's earlier points under Sigma's entries, so
// q = N(0, Sigma~) with y^T Sigma~^-1 y = sum_b (y_R - B_b y_C)^T D_b^-1
// (y_R - B_b y_C), each term's mean under p being r_b (its residual has
// covariance D_b under p). Hence E_p[y^T Sigma~^-1 y] = tr(Sigma~^-1
// Sigma) = N and
//
//	KL(p || q) = (tr(Sigma~^-1 Sigma) - N + log|Sigma~| - log|Sigma|)/2
//	           = (log|Sigma~| - log|Sigma|)/2 = l_p(0) - l_q(0),
//
// with log|Sigma~| = sum_b log|D_b| from one Vecchia evaluation and
// log|Sigma| from the tiled Cholesky (once for all rows). The tests check
// the trace identity by N evaluations and the divergence against a dense
// computation.
func VecchiaKL(o VecchiaKLOptions) (*VecchiaKLResult, error) {
	pts := o.Points
	if pts.Len() == 0 {
		pts = uniformPoints(o.N, o.Seed)
	}
	n := pts.Len()
	if n < 2 || len(o.Theta) != 4 || len(o.Ms) == 0 || len(o.Orders) == 0 || len(o.Groupings) == 0 || o.Workers < 1 {
		return nil, fmt.Errorf("bench vecchia-kl: want n >= 2, theta sigma2,beta,nu,tau2, workers >= 1 and at least one m, ordering and grouping")
	}
	nb := o.NB
	if nb <= 0 {
		nb = tile.AutoNB(n)
	}
	pr := likelihood.Problem{Points: pts, Obs: make([]float64, n), Model: likelihood.Matern}
	res := &VecchiaKLResult{N: n, Theta: o.Theta, Seed: o.Seed, Workers: o.Workers, NB: nb}
	rt := runtime.New(runtime.Options{Workers: o.Workers})
	defer rt.Close()
	var err error
	if res.ExactLogDet, res.ExactSeconds, err = exactLogDet(pr, o.Theta, nb, rt); err != nil {
		return nil, err
	}
	if o.Progress != nil {
		o.Progress(fmt.Sprintf("exact: log|Sigma| = %.10g (%.2fs)", res.ExactLogDet, res.ExactSeconds))
	}
	selects := o.Selects
	if len(selects) == 0 {
		selects = []string{"nearest"}
	}
	for _, m := range o.Ms {
		for _, ord := range o.Orders {
			for _, sel := range selects {
				for _, g := range o.Groupings {
					row, err := klRow(pr, o, klApprox{m, ord, sel, g}, rt)
					if err != nil {
						return nil, err
					}
					row.KL = (row.LogDet - res.ExactLogDet) / 2
					res.Rows = append(res.Rows, *row)
					if o.Progress != nil {
						o.Progress(fmt.Sprintf("m=%d order=%s select=%s grouping=%s: KL %.6g (%.2fs)", m, ord, sel, g, row.KL, row.PrepSeconds+row.EvalSeconds))
					}
				}
			}
		}
	}
	return res, nil
}

// exactLogDet returns log|Sigma| of pr at theta by the tiled Cholesky on
// rt (tile size nb) and its seconds.
func exactLogDet(pr likelihood.Problem, theta []float64, nb int, rt *runtime.Runtime) (float64, float64, error) {
	t0 := time.Now()
	ev, err := likelihood.New(pr, nb, rt, false)
	if err != nil {
		return 0, 0, err
	}
	defer ev.Release()
	_, st, err := ev.LogLik(theta)
	if err != nil {
		return 0, 0, fmt.Errorf("bench vecchia-kl: the exact covariance: %w", err)
	}
	return st.LogDet, time.Since(t0).Seconds(), nil
}

// klApprox is one row's approximation: the set size, the ordering, how
// the sets are chosen and the grouping.
type klApprox struct {
	m     int
	ord   order.Method
	sel   string
	group string
}

// klRow prepares pr's Vecchia plan of the approximation a and evaluates
// log|Sigma~| at o.Theta.
func klRow(pr likelihood.Problem, o VecchiaKLOptions, a klApprox, rt *runtime.Runtime) (*VecchiaKLRow, error) {
	m, ord, g := a.m, a.ord, a.group
	if g != "blocks" && g != "none" {
		return nil, fmt.Errorf("bench vecchia-kl: grouping %q (want blocks or none)", g)
	}
	if a.sel != "nearest" && a.sel != "greedy" {
		return nil, fmt.Errorf("bench vecchia-kl: select %q (want nearest or greedy)", a.sel)
	}
	t0 := time.Now()
	s := vecchia.Setup{M: m, Order: ord, Seed: o.Seed, Workers: o.Workers, Grouping: vecchia.Grouping{Off: g == "none"}}
	if a.sel == "greedy" {
		var err error
		if s.Perm, s.Sets, err = greedySets(pr, o, m, ord); err != nil {
			return nil, err
		}
	}
	prep, err := vecchia.Prepare(pr, o.Theta, s)
	if err != nil {
		return nil, err
	}
	t1 := time.Now()
	ev := vecchia.NewEvaluator(prep.Plan, len(o.Theta), rt, kernels.Default())
	r, err := ev.Eval(o.Theta, vecchia.Want{})
	if err != nil {
		return nil, err
	}
	if math.IsNaN(r.LogDet) {
		return nil, fmt.Errorf("bench vecchia-kl: log|Sigma~| is NaN (m=%d, %s)", m, ord)
	}
	row := &VecchiaKLRow{M: prep.Sets.M, Order: string(ord), Select: a.sel, Grouping: g, Blocks: prep.Plan.Blocks.Len(), LogDet: r.LogDet,
		PrepSeconds: t1.Sub(t0).Seconds(), EvalSeconds: time.Since(t1).Seconds()}
	for b := range row.Blocks {
		u, _ := prep.Plan.Blocks.Size(b)
		fu := float64(u)
		row.Entries += fu * (fu + 1) / 2
		row.CholFlops += fu * fu * fu / 3
	}
	return row, nil
}

// greedySets returns the ordering ord of pr's points and sets of m chosen
// by conditional variance (package greedy) at o.Theta among each point's
// o.Candidates (0: 3m) nearest earlier points: vecchia.SelectGreedy, as
// fit --vecchia-select greedy chooses them (greedy.KernelRows for nu =
// 1/2, 3/2, 5/2, NewMatern's values; greedy.GradRows, matern.Grad's, for
// any other nu on planar points).
func greedySets(pr likelihood.Problem, o VecchiaKLOptions, m int, ord order.Method) ([]int, *neighbors.Sets, error) {
	k := o.Candidates
	if k <= 0 {
		k = 3 * m
	}
	wide, err := vecchia.Prepare(pr, o.Theta, vecchia.Setup{M: m, Wide: max(k, m), Order: ord, Seed: o.Seed, Workers: o.Workers})
	if err != nil {
		return nil, nil, err
	}
	cand := wide.Wide
	if cand == nil {
		cand = wide.Sets
	}
	sets, err := vecchia.SelectGreedy(pr, wide.Perm, o.Theta, cand, m, o.Workers)
	return wide.Perm, sets, err
}

// uniformPoints returns n uniform random points in the unit square (a
// PCG seeded by seed; the same points as VecchiaBench's problem).
func uniformPoints(n int, seed uint64) matern.Points {
	rng := rand.New(rand.NewPCG(seed, 0x76626e63))
	pts := matern.Points{X: make([]float64, n), Y: make([]float64, n)}
	for i := range n {
		pts.X[i], pts.Y[i] = rng.Float64(), rng.Float64()
		rng.NormFloat64() // vecchiaProblem draws a value after each point
	}
	return pts
}
