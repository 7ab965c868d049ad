package mle

import (
	"errors"
	"math"
	"slices"
	"testing"
)

// A curved valley with a failing region, so that the path has failed
// points, BOBYQA restarts and a few dozen evaluations.
func valley(th []float64) (float64, error) {
	if th[2] > 3 {
		return math.Inf(-1), &Recoverable{Err: errors.New("not positive definite")}
	}
	a, b, c := math.Log(th[0]/1.3), math.Log(th[1]/0.08), math.Log(th[2]/0.6)
	return -(a*a + 10*(b-a*a)*(b-a*a) + 0.5*c*c + 0.3*a*c), nil
}

func valleyOptions() Options {
	return Options{Lower: []float64{0.001, 0.001, 0.001}, Upper: []float64{5, 5, 5},
		Start: StartData, Guess: []float64{3, 2, 4.5}, FtolAbs: 1e-9, LogScale: true}
}

// run maximises valley with o, returning the result and every evaluation.
func run(t *testing.T, o Options) (*Result, []Eval) {
	t.Helper()
	var evs []Eval
	res, err := Maximize(valley, o, func(e Eval) { evs = append(evs, e) })
	if err != nil {
		t.Fatal(err)
	}
	return res, evs
}

func records(evs []Eval) []Record {
	r := make([]Record, len(evs))
	for i, e := range evs {
		r[i] = e.Record()
	}
	return r
}

// A search whose evaluations all come from the cache of an earlier one
// retraces it bitwise (same thetas in the same order, same result) and
// calls the objective not once.
func TestReplayRetracesThePath(t *testing.T) {
	ref, refEvs := run(t, valleyOptions())
	if ref.Restarts == 0 || ref.Failed == 0 {
		t.Fatalf("want a path with restarts and failures, got %d restarts, %d failed", ref.Restarts, ref.Failed)
	}
	o := valleyOptions()
	o.Replay = NewCache(records(refEvs))
	calls := 0
	res, err := Maximize(func(th []float64) (float64, error) { calls++; return valley(th) }, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if calls != 0 || res.Replayed != ref.Evaluations || res.Evaluations != ref.Evaluations {
		t.Fatalf("objective called %d times, %d replayed of %d (want 0, %d of %d)", calls, res.Replayed, res.Evaluations, ref.Evaluations, ref.Evaluations)
	}
	if !slices.Equal(res.Theta, ref.Theta) || res.LogLik != ref.LogLik || res.Status != ref.Status || res.Restarts != ref.Restarts || res.Failed != ref.Failed {
		t.Fatalf("replay %+v, original %+v", res, ref)
	}
}

// A search resumed from the first k evaluations of an interrupted one
// replays them, computes the rest, and ends where the uninterrupted one
// does: same thetas in the same order, bitwise the same optimum, no
// evaluation paid twice.
func TestResumeAfterK(t *testing.T) {
	ref, refEvs := run(t, valleyOptions())
	n := len(refEvs)
	for _, k := range []int{1, n / 3, n / 2, n - 1, n} {
		// The interrupted run: Stop after k evaluations.
		o := valleyOptions()
		seen := 0
		o.Stop = func() bool { seen++; return seen >= k }
		part, partEvs := run(t, o)
		if part.Status != StatusInterrupted || len(partEvs) != k {
			t.Fatalf("k=%d: status %q after %d evaluations", k, part.Status, len(partEvs))
		}
		o = valleyOptions()
		o.Replay = NewCache(records(partEvs))
		res, evs := run(t, o)
		for i := range evs {
			if !slices.Equal(evs[i].Theta, refEvs[i].Theta) || evs[i].Replayed != (i < k) {
				t.Fatalf("k=%d: evaluation %d: theta %v (replayed %v), uninterrupted %v", k, i+1, evs[i].Theta, evs[i].Replayed, refEvs[i].Theta)
			}
		}
		if !slices.Equal(res.Theta, ref.Theta) || res.LogLik != ref.LogLik || res.Evaluations != n || res.Replayed != k {
			t.Fatalf("k=%d: theta %v l %v after %d (%d replayed), uninterrupted %v l %v after %d",
				k, res.Theta, res.LogLik, res.Evaluations, res.Replayed, ref.Theta, ref.LogLik, n)
		}
		// Paid in all: k + (n - k) = n, within 10 % of the uninterrupted run.
		if paid := k + res.Evaluations - res.Replayed; paid > n+n/10 {
			t.Fatalf("k=%d: %d evaluations paid in all, uninterrupted %d", k, paid, n)
		}
	}
}

// A run stopped by max_evals continues without the limit on the path the
// unlimited run takes: the limit only cuts the path.
func TestResumeBeyondMaxEvals(t *testing.T) {
	ref, refEvs := run(t, valleyOptions())
	for _, k := range []int{5, len(refEvs) / 2, len(refEvs) - 2} {
		o := valleyOptions()
		o.MaxEvals = k
		part, partEvs := run(t, o)
		if len(partEvs) != k || part.Status != "MAXEVAL_REACHED" {
			t.Fatalf("max %d: %d evaluations, status %s", k, len(partEvs), part.Status)
		}
		for i := range partEvs {
			if !slices.Equal(partEvs[i].Theta, refEvs[i].Theta) {
				t.Fatalf("max %d: evaluation %d differs from the unlimited run", k, i+1)
			}
		}
		o = valleyOptions()
		o.Replay = NewCache(records(partEvs))
		res, _ := run(t, o)
		if !slices.Equal(res.Theta, ref.Theta) || res.Evaluations != ref.Evaluations || res.Replayed != k {
			t.Fatalf("max %d: resumed to %v after %d, unlimited %v after %d", k, res.Theta, res.Evaluations, ref.Theta, ref.Evaluations)
		}
	}
}

// Stop before any success: ErrInterrupted, not a result.
func TestInterruptedBeforeSuccess(t *testing.T) {
	o := valleyOptions()
	o.Stop = func() bool { return true }
	fail := func([]float64) (float64, error) { return math.NaN(), nil }
	if _, err := Maximize(fail, o, nil); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err %v, want ErrInterrupted", err)
	}
}

// VerifyBest recomputes the best record instead of replaying it: a true
// record passes (one evaluation paid, the same path and optimum), an
// edited one stops the search with a *Mismatch naming both values, and a
// record whose theta now fails is a *Mismatch too.
func TestVerifyBest(t *testing.T) {
	ref, refEvs := run(t, valleyOptions())
	recs := records(refEvs)
	cases := []struct {
		name string
		edit func([]Record) float64 // edits the records, returns the recorded best l
		ok   bool
	}{
		{"true", func(r []Record) float64 { return ref.LogLik }, true},
		{"edited best", func(r []Record) float64 {
			for i := range r {
				if r[i].Failed == "" && slices.Equal(r[i].Theta, ref.Theta) {
					r[i].LogLik = 1e6
				}
			}
			return 1e6
		}, false},
		{"edited into the best", func(r []Record) float64 {
			r[0].LogLik = 5
			return 5
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := slices.Clone(recs)
			want := c.edit(r)
			o := valleyOptions()
			o.Replay = NewCache(r)
			if th := o.Replay.VerifyBest(1e-9); th == nil {
				t.Fatal("no record to verify")
			}
			calls := 0
			res, err := Maximize(func(th []float64) (float64, error) { calls++; return valley(th) }, o, nil)
			var mm *Mismatch
			switch {
			case c.ok && (err != nil || calls != 1 || res.LogLik != ref.LogLik || !slices.Equal(res.Theta, ref.Theta)):
				t.Fatalf("true records: err %v, %d objective calls (want 1), l %v (want %v)", err, calls, res, ref.LogLik)
			case !c.ok && (!errors.As(err, &mm) || mm.Recorded != want || mm.Computed == want || calls != 1):
				t.Fatalf("edited records: err %v after %d calls, want a Mismatch with the recorded %g", err, calls, want)
			}
		})
	}
	// A record whose theta fails when recomputed.
	r := slices.Clone(recs)
	o := valleyOptions()
	o.Replay = NewCache(r)
	o.Replay.VerifyBest(1e-9)
	_, err := Maximize(func(th []float64) (float64, error) {
		return math.Inf(-1), &Recoverable{Err: errors.New("not positive definite")}
	}, o, nil)
	var mm *Mismatch
	if !errors.As(err, &mm) || mm.Failed == nil {
		t.Fatalf("failing recomputation: %v, want a Mismatch with the failure", err)
	}
}

// An evaluation given up (ErrAbandoned) ends the search as Stop does,
// without counting or reporting it: the result is the best of the ones
// before, and a resume from those retraces the uninterrupted path.
func TestAbandonedEvaluation(t *testing.T) {
	ref, refEvs := run(t, valleyOptions())
	const k = 7
	calls := 0
	var evs []Eval
	res, err := Maximize(func(th []float64) (float64, error) {
		if calls++; calls == k+1 {
			return math.NaN(), ErrAbandoned
		}
		return valley(th)
	}, valleyOptions(), func(e Eval) { evs = append(evs, e) })
	if err != nil || res.Status != StatusInterrupted || res.Evaluations != k || len(evs) != k {
		t.Fatalf("abandoned at %d: err %v, %+v, %d reported", k+1, err, res, len(evs))
	}
	o := valleyOptions()
	o.Replay = NewCache(records(evs))
	got, err := Maximize(valley, o, nil)
	if err != nil || got.LogLik != ref.LogLik || got.Evaluations != len(refEvs) || got.Replayed != k {
		t.Fatalf("resumed: %v %+v; uninterrupted l %v after %d", err, got, ref.LogLik, len(refEvs))
	}
}
