package job

import (
	"errors"
	"math"

	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/predict"
)

// CVSummary scores leave-one-out cross-validation: the mean square of the
// residuals e_i = z_i - E[z_i | z_-i], the mean logarithmic score
// 1/n sum (1/2 log(2 pi v_i) + e_i^2/(2 v_i)) (lower is better; v_i the
// leave-one-out variance), and the share of the observations inside their
// 95 % interval (|e_i| <= 1.96 sqrt(v_i)).
type CVSummary struct {
	N        int     `json:"n"`
	MSPE     float64 `json:"mspe"`
	LogScore float64 `json:"mean_log_score"`
	Coverage float64 `json:"coverage_95"`
}

// leaveOneOut runs predict.LeaveOneOut on ev (whose points are obs
// permuted by perm: point k is obs row perm[k]) and returns, in obs's
// order, the leave-one-out predictions z_i - e_i and variances, the
// residuals, and the summary.
func leaveOneOut(ev *likelihood.Evaluator, theta []float64, obs *dataset.Data, perm []int) (*predict.Result, []float64, *CVSummary, error) {
	loo, err := predict.LeaveOneOut(ev, theta)
	if errors.Is(err, predict.ErrLOOMean) {
		return nil, nil, nil, badInput("cv: %v", err)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	n := obs.Len()
	r := &predict.Result{Z: make([]float64, n), Var: make([]float64, n), Seconds: loo.Seconds}
	e := make([]float64, n)
	for k, i := range perm {
		e[i] = loo.Residual[k]
		r.Var[i] = loo.Var[k]
		r.Z[i] = obs.Obs[i] - e[i]
	}
	s := &CVSummary{N: n}
	for i := range e {
		v := r.Var[i]
		s.MSPE += e[i] * e[i]
		s.LogScore += 0.5*math.Log(2*math.Pi*v) + e[i]*e[i]/(2*v)
		if math.Abs(e[i]) <= 1.96*math.Sqrt(v) {
			s.Coverage++
		}
	}
	s.MSPE /= float64(n)
	s.LogScore /= float64(n)
	s.Coverage /= float64(n)
	return r, e, s, nil
}
