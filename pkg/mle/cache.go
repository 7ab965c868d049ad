package mle

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Record is one evaluation as a checkpoint keeps it: theta and l(theta),
// or why the evaluation failed.
type Record struct {
	Theta  []float64
	LogLik float64 // meaningless when Failed is set
	Failed string  // why the evaluation failed ("" when it succeeded)
	// Search is the point of a profiled search that Theta stands for
	// (Eval.Search), nil otherwise: the cache is keyed by it.
	Search []float64
	// Stage, Grad and Info are a Fisher-scoring search's (Eval.Stage,
	// Eval.Grad, Eval.Info; Info row by row, d x d): the cache is keyed by
	// the stage too (each stage is another objective).
	Stage int
	Grad  []float64
	Info  []float64
}

// at is the point of the search a record answers.
func (r Record) at() []float64 {
	if r.Search != nil {
		return r.Search
	}
	return r.Theta
}

// Cache answers evaluations already paid for: a map from the exact bits of
// the point of the search (the full theta vector, or the profiled search's
// point) to its record. BOBYQA is deterministic given the
// objective's values, so a search whose evaluations are answered from the
// cache of an earlier run retraces that run's path bitwise (replay costs
// nothing) and then goes on where it stopped. A nil *Cache answers nothing.
type Cache struct {
	m    map[string]Record
	used map[string]bool
	hits int
	// verify is the key of the record to recompute instead of replaying
	// (VerifyBest), "" for none; tol its relative tolerance.
	verify string
	tol    float64
}

// Mismatch is the error of a search whose verified record (Cache.VerifyBest)
// recomputes to another value: the records cannot be trusted.
type Mismatch struct {
	Theta    []float64
	Recorded float64
	Computed float64
	Failed   error // the recomputation failed instead (nil: it gave Computed)
}

func (e *Mismatch) Error() string {
	if e.Failed != nil {
		return fmt.Sprintf("the best recorded evaluation, l = %.10g, fails when recomputed: %v", e.Recorded, e.Failed)
	}
	return fmt.Sprintf("the best recorded evaluation, l = %.10g, recomputes to l = %.10g", e.Recorded, e.Computed)
}

// VerifyBest makes the cache recompute, instead of replaying, its best
// successful record (the largest l: the one a resumed search's result rests
// on) when the search asks for it, and stop the search with a *Mismatch
// when the value computed differs from the record's by more than tol
// relative to 1 + |l| (or the evaluation fails). It returns the record's
// point of the search (its theta, or its Search), nil when there is no
// successful record.
func (c *Cache) VerifyBest(tol float64) []float64 {
	var best *Record
	var bk string
	for k, r := range c.m {
		if r.Failed == "" && (best == nil || r.LogLik > best.LogLik || (r.LogLik == best.LogLik && k < bk)) {
			rr := r
			best, bk = &rr, k
		}
	}
	if best == nil {
		return nil
	}
	c.verify, c.tol = bk, tol
	return best.at()
}

// NewCache returns the cache of records (a later record of the same theta
// replaces an earlier one; both hold the same value in a deterministic run).
func NewCache(records []Record) *Cache {
	c := &Cache{m: make(map[string]Record, len(records)), used: map[string]bool{}}
	for _, r := range records {
		c.m[stageKey(r.Stage, r.at())] = r
	}
	return c
}

// Len returns the number of distinct thetas in the cache.
func (c *Cache) Len() int {
	if c == nil {
		return 0
	}
	return len(c.m)
}

// Hits returns the number of evaluations the cache has answered.
func (c *Cache) Hits() int {
	if c == nil {
		return 0
	}
	return c.hits
}

// Unused returns the number of distinct thetas of the cache that no
// evaluation has asked for (a resumed search that left the checkpointed
// path).
func (c *Cache) Unused() int {
	if c == nil {
		return 0
	}
	return len(c.m) - len(c.used)
}

// eval returns the cached value of theta if there is one (replayed, with
// the full theta the record holds), or calls f. A cached failure comes
// back as a *Recoverable error, as the original one did (Maximize maps
// both to the same value).
func (c *Cache) eval(f Objective, theta []float64) (l float64, err error, replayed bool, full []float64) {
	if c != nil {
		k := stageKey(0, theta)
		if r, ok := c.m[k]; ok && k == c.verify {
			l, err = f(theta)
			return l, c.check(k, r, l, err), false, nil
		}
		if r, ok := c.m[k]; ok {
			c.hits++
			c.used[k] = true
			if r.Failed != "" {
				return math.Inf(-1), &Recoverable{Err: errors.New(r.Failed)}, true, r.Theta
			}
			return r.LogLik, nil, true, r.Theta
		}
	}
	l, err = f(theta)
	return l, err, false, nil
}

// evalGrad is eval for a Fisher-scoring stage: the cached value, gradient
// and information of (stage, theta), or f's. A record without a gradient
// (BOBYQA's) is not an answer.
func (c *Cache) evalGrad(f GradObjective, stage int, theta []float64) (l float64, g []float64, info [][]float64, err error, replayed bool) {
	if c != nil {
		k := stageKey(stage, theta)
		if r, ok := c.m[k]; ok && k == c.verify {
			l, g, info, err = f(theta)
			return l, g, info, c.check(k, r, l, err), false
		}
		if r, ok := c.m[k]; ok && (r.Failed != "" || (len(r.Grad) == len(theta) && len(r.Info) == len(theta)*len(theta))) {
			c.hits++
			c.used[k] = true
			if r.Failed != "" {
				return math.Inf(-1), nil, nil, &Recoverable{Err: errors.New(r.Failed)}, true
			}
			d := len(theta)
			info = make([][]float64, d)
			for i := range info {
				info[i] = append([]float64(nil), r.Info[i*d:(i+1)*d]...)
			}
			return r.LogLik, append([]float64(nil), r.Grad...), info, nil, true
		}
	}
	l, g, info, err = f(theta)
	return l, g, info, err, false
}

// check compares the recomputation (l, err) of the verified record r (key
// k) with it, once: a *Mismatch when it fails now or differs by more than
// the tolerance, err otherwise.
func (c *Cache) check(k string, r Record, l float64, err error) error {
	c.verify = "" // once
	c.used[k] = true
	var rec *Recoverable
	if errors.As(err, &rec) { // fails at theta now: not the record
		return &Mismatch{Theta: r.Theta, Recorded: r.LogLik, Failed: err}
	}
	if err == nil && !(math.Abs(l-r.LogLik) <= c.tol*(1+math.Abs(r.LogLik))) {
		return &Mismatch{Theta: r.Theta, Recorded: r.LogLik, Computed: l}
	}
	return err
}

// stageKey is key(theta), prefixed by the stage when it is not 0.
func stageKey(stage int, theta []float64) string {
	if stage == 0 {
		return key(theta)
	}
	return fmt.Sprintf("stage %d:", stage) + key(theta)
}

// key is the exact bit pattern of theta.
func key(theta []float64) string {
	b := make([]byte, 8*len(theta))
	for i, v := range theta {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
	}
	return string(b)
}

// Record returns e as a checkpoint keeps it.
func (e Eval) Record() Record {
	r := Record{Theta: append([]float64(nil), e.Theta...), LogLik: e.LogLik}
	if e.Search != nil {
		r.Search = append([]float64(nil), e.Search...)
	}
	r.Stage = e.Stage
	if e.Grad != nil && e.Info != nil && e.Failed == nil {
		r.Grad = append([]float64(nil), e.Grad...)
		for _, row := range e.Info {
			r.Info = append(r.Info, row...)
		}
	}
	if e.Failed != nil {
		r.LogLik, r.Failed = 0, e.Failed.Error()
	}
	return r
}
