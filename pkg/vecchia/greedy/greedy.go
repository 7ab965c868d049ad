// Package greedy chooses Vecchia conditioning sets by conditional
// variance instead of distance: for the point at position i, m of its K
// candidates (its K nearest earlier points, K > m) picked one at a time,
// each time the candidate c that most lowers the conditional variance of
// y_i,
//
//	c = argmax_c Cov(y_i, y_c | y_S)^2 / Var(y_c | y_S),
//
// S the candidates picked so far (Var(y_i | y_{S+c}) = Var(y_i | y_S) -
// that ratio). Vecchia's approximation loses KL(p || q) = 1/2 sum_i
// (log Var(y_i | y_{c(i)}) - log Var(y_i | y_{0..i-1})) nats when each
// point is its own block (docs/vecchia.md, "Which approximation: the KL
// divergence"), so each row's pick lowers its own term of that sum; the
// nearest points are not the best predictors where the covariance is
// smooth or the data noisy (Huan, Guinness, Katzfuss, Owhadi and Schäfer
// select this way). The sets depend on the covariance, so on the
// parameters: a fit chooses them at a pilot estimate.
//
// Each row is a partial Cholesky factor of the candidates' covariance,
// pivoted by that rule: O(K m) covariance entries and O(K m^2) flops a
// row, rows independent, so the result does not depend on the workers.
package greedy

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/exageostat/exageostat/pkg/vecchia/neighbors"
)

// Cov returns the covariance of the responses at positions i and j of the
// ordering (with the nugget on the diagonal, i == j).
type Cov func(i, j int) float64

// Select returns sets of m (at most each row's candidates) chosen from
// the rows of cand by the rule of the package comment, each row's picks
// in the order of its candidates (nearest first when cand is nearest
// first); ties go to the earlier candidate. A candidate whose conditional
// variance has fallen to 0 or below (a duplicate location without a
// nugget) is never picked while another is left, and then in the order
// of the candidates. Rows are split over workers threads (at least one).
func Select(cand *neighbors.Sets, m int, cov Cov, workers int) (*neighbors.Sets, error) {
	if m < 1 {
		return nil, fmt.Errorf("greedy: set size %d, want >= 1", m)
	}
	m = min(m, cand.M)
	out := neighbors.NewSets(cand.N, m)
	workers = max(1, min(workers, cand.N))
	chunk := (cand.N + workers - 1) / workers
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*chunk, min((w+1)*chunk, cand.N)
		if lo >= hi {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := newRow(cand.M, m)
			for i := lo; i < hi; i++ {
				r.pick(i, cand.Row(i), cov, out.Idx[i*m:(i+1)*m])
			}
		}()
	}
	wg.Wait()
	return out, nil
}

// row is one thread's scratch: for the candidates, their conditional
// variances, their conditional covariances with the target, whether
// picked, and the factor's columns (g[t*K+c]: column t at candidate c).
type row struct {
	resid, cv []float64
	used      []bool
	g         []float64
	picked    []int
}

func newRow(k, m int) *row {
	return &row{resid: make([]float64, k), cv: make([]float64, k), used: make([]bool, k),
		g: make([]float64, k*m), picked: make([]int, 0, m)}
}

// pick writes into dst the picks among the candidates c (positions,
// padded with -1) of the point at position i, in candidate order, and
// -1 after the last.
func (r *row) pick(i int, c []int32, cov Cov, dst []int32) {
	k := len(c)
	for k > 0 && c[k-1] < 0 {
		k--
	}
	c = c[:k]
	r.picked = r.picked[:0]
	for j, q := range c {
		r.resid[j] = cov(int(q), int(q))
		r.cv[j] = cov(int(q), i)
		r.used[j] = false
	}
	want := min(len(dst), k)
	for t := range want {
		b := r.best(k)
		r.used[b] = true
		r.picked = append(r.picked, b)
		r.update(t, b, c, cov)
	}
	slices.Sort(r.picked)
	for t := range dst {
		dst[t] = -1
		if t < len(r.picked) {
			dst[t] = c[r.picked[t]]
		}
	}
}

// best returns the unpicked candidate of the largest cv^2/resid (the
// earliest on ties), or the earliest unpicked one when no conditional
// variance is positive.
func (r *row) best(k int) int {
	b, bv, first := -1, math.Inf(-1), -1
	for j := range k {
		if r.used[j] {
			continue
		}
		if first < 0 {
			first = j
		}
		if r.resid[j] <= 0 {
			continue
		}
		if s := r.cv[j] * r.cv[j] / r.resid[j]; s > bv {
			b, bv = j, s
		}
	}
	if b < 0 {
		return first
	}
	return b
}

// update adds the factor's column t for the pick b: g_c = (Cov(c, b) -
// sum_{s<t} g_s[c] g_s[b]) / sqrt(resid_b) over the unpicked candidates,
// then lowers their conditional variances and covariances with the
// target by g_c^2 and g_c g_i.
func (r *row) update(t, b int, c []int32, cov Cov) {
	k, stride := len(c), len(r.resid)
	gt := r.g[t*stride : t*stride+k]
	piv := r.resid[b]
	if piv <= 0 {
		clear(gt) // nothing left to explain: the column is zero
		return
	}
	cb := int(c[b])
	for j := range k {
		gt[j] = 0
		if !r.used[j] {
			gt[j] = cov(int(c[j]), cb)
		}
	}
	// Less sum_{s<t} g_s[c] g_s[b], s in order for each c, a column at a
	// time (the rows of g are contiguous over the candidates).
	for s := range t {
		gs := r.g[s*stride : s*stride+k]
		f := gs[b]
		for j, v := range gs {
			gt[j] -= v * f
		}
	}
	sq := math.Sqrt(piv)
	gi := r.cv[b] / sq
	for j := range k {
		if r.used[j] {
			gt[j] = 0
			continue
		}
		gt[j] /= sq
		r.resid[j] -= gt[j] * gt[j]
		r.cv[j] -= gt[j] * gi
	}
	gt[b] = sq // column t at its own pivot: resid_b / sqrt(resid_b)
}
