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
// The entries are read a row at a time (Rows: KernelRows for the kernels
// of package matern, a Cov one entry at a time for any other), and the
// factor's updates run eight or 32 candidates at a time with AVX-512
// where the CPU has it, each operation rounded as in the Go loops: the
// same picks on every CPU.
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
// cov is read one entry at a time: SelectRows with a KernelRows reads the
// same covariances a row at a time, faster.
func Select(cand *neighbors.Sets, m int, cov Cov, workers int) (*neighbors.Sets, error) {
	return SelectRows(cand, m, cov, workers)
}

// SelectRows is Select with the covariances read a row at a time from
// rows (forked once per thread): the same picks as Select with a Cov of
// the same values.
func SelectRows(cand *neighbors.Sets, m int, rows Rows, workers int) (*neighbors.Sets, error) {
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
			r := newRow(cand.M, m, rows.Fork())
			for i := lo; i < hi; i++ {
				r.pick(i, cand.Row(i), out.Idx[i*m:(i+1)*m])
			}
		}()
	}
	wg.Wait()
	return out, nil
}

// row is one thread's scratch: for the candidates, their conditional
// variances, their conditional covariances with the target and the
// factor's columns (g[t*K+c]: column t at candidate c); the picks, the
// unpicked candidates' indices (act, in candidate order; mask: their
// bits) and positions (js), and the pick's covariances with them (buf).
type row struct {
	resid, cv []float64
	g         []float64
	picked    []int
	act       []int
	mask      []uint8
	js        []int32
	buf       []float64
	rows      Rows
}

func newRow(k, m int, rows Rows) *row {
	return &row{resid: make([]float64, k), cv: make([]float64, k),
		g: make([]float64, k*m), picked: make([]int, 0, m),
		act: make([]int, 0, k), mask: make([]uint8, (k+7)/8), js: make([]int32, 0, k), buf: make([]float64, k), rows: rows}
}

// pick writes into dst the picks among the candidates c (positions,
// padded with -1) of the point at position i, in candidate order, and
// -1 after the last.
func (r *row) pick(i int, c []int32, dst []int32) {
	k := len(c)
	for k > 0 && c[k-1] < 0 {
		k--
	}
	c = c[:k]
	r.picked, r.act, r.js = r.picked[:0], r.act[:0], append(r.js[:0], c...)
	clear(r.mask)
	for j, q := range c {
		r.resid[j] = r.rows.Var(int(q))
		r.act = append(r.act, j)
		r.mask[j>>3] |= 1 << (j & 7)
	}
	r.rows.Row(i, c, r.cv[:k])
	want := min(len(dst), k)
	b := r.best()
	for t := range want {
		r.picked = append(r.picked, b)
		p := slices.Index(r.act, b)
		r.act = slices.Delete(r.act, p, p+1)
		r.js = slices.Delete(r.js, p, p+1)
		r.mask[b>>3] &^= 1 << (b & 7)
		b = r.update(t, b, c)
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
// variance is positive (-1 when none is left).
func (r *row) best() int {
	b, bv := -1, math.Inf(-1)
	for _, j := range r.act {
		if r.resid[j] > 0 {
			if s := r.cv[j] * r.cv[j] / r.resid[j]; s > bv {
				b, bv = j, s
			}
		}
	}
	if b < 0 && len(r.act) > 0 {
		return r.act[0]
	}
	return b
}

// update adds the factor's column t for the pick b (no longer in r.act):
// g_c = (Cov(c, b) - sum_{s<t} g_s[c] g_s[b]) / sqrt(resid_b) over the
// unpicked candidates c (0 at the picked ones, sqrt(resid_b) at b), then
// lowers their conditional variances and covariances with the target by
// g_c^2 and g_c g_i, and returns the next pick (best's, found on the
// way).
func (r *row) update(t, b int, c []int32) int {
	k, stride := len(c), len(r.resid)
	gt := r.g[t*stride : t*stride+k]
	clear(gt)
	piv := r.resid[b]
	if piv <= 0 {
		return r.best() // nothing left to explain: the column is zero
	}
	// The pick's covariances with the unpicked candidates, one row.
	buf := r.buf[:len(r.js)]
	r.rows.Row(int(c[b]), r.js, buf)
	for q, j := range r.act {
		gt[j] = buf[q]
	}
	// Less sum_{s<t} g_s[c] g_s[b], s in order for each c (the rows of g
	// are contiguous over the candidates).
	colSub(r.g, stride, t, b, gt)
	sq := math.Sqrt(piv)
	nb := r.tail(gt, sq, r.cv[b]/sq)
	for _, j := range r.picked {
		gt[j] = 0
	}
	gt[b] = sq // column t at its own pivot: resid_b / sqrt(resid_b)
	return nb
}

// tailGo is the end of update over the unpicked candidates c (r.act):
// g_c = gt[c] / sq, resid_c -= g_c^2, cv_c -= g_c gi, and the next pick
// (best's rule, over the new values).
func (r *row) tailGo(gt []float64, sq, gi float64) int {
	nb, bv := -1, math.Inf(-1)
	for _, j := range r.act {
		gj := gt[j] / sq
		gt[j] = gj
		rj := r.resid[j] - gj*gj
		cj := r.cv[j] - gj*gi
		r.resid[j], r.cv[j] = rj, cj
		if rj > 0 {
			if s := cj * cj / rj; s > bv {
				nb, bv = j, s
			}
		}
	}
	if nb < 0 && len(r.act) > 0 {
		return r.act[0]
	}
	return nb
}

// colSubGo sets gt[j] -= g_s[j] g_s[b] for s = 0..t-1 in that order, for
// j < len(gt), g_s = g[s*stride : s*stride+len(gt)]: a column of g at a
// time.
func colSubGo(g []float64, stride, t, b int, gt []float64) {
	k := len(gt)
	for s := range t {
		gs := g[s*stride : s*stride+k]
		f := gs[b]
		for j, v := range gs {
			gt[j] -= v * f
		}
	}
}
