package job

import (
	"strings"
	"testing"
	"time"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/mle"
	"github.com/exageostat/exageostat/pkg/vecchia"
)

// TestVecchiaMemory: the memory check of a Vecchia fit counts the
// approximation check's plans at m2 = 2m when they fit; when only the
// fit's at m fit, the check is skipped with a note naming m2 and the
// fit goes on; when neither fits, the fit stops (the agreed input error
// of the fit at m); with the check off the need is the fit's at m. On 2
// ranks, every rank the same.
func TestVecchiaMemory(t *testing.T) {
	const n, m, workers = 1000000, 30, 2
	f := vecchia.FitShape{N: n, M: m, Coarse: vecchiaCoarseM, Params: 4, Workers: workers}
	needM := vecchia.FitNeed(f).Need
	f.Wide = 2 * m
	needM2 := vecchia.FitNeed(f).Need
	if !(needM2 > needM) {
		t.Fatalf("FitNeed: m = %d %d bytes, m2 = %d %d bytes", m, needM, 2*m, needM2)
	}
	for _, c := range []struct {
		check    bool
		limit    int64
		need     int64
		note     string // a substring of the note ("" none)
		wantFail bool
	}{
		{true, needM2, needM2, "", false},
		{true, needM2 - 1, needM, "not enough memory for m = 60 (fit: rank 0 needs", false},
		{true, needM - 1, 0, "", true},
		{false, needM, needM, "", false},
	} {
		errs := ranksWithin(t, 10*time.Second, 2, func(w comm.Comm) error {
			cfg := config.DefaultFit()
			cfg.Computation, cfg.VecchiaCheck, cfg.Vecchia.M = "vecchia", c.check, m
			v := &fitJob{cfg: cfg, w: w, model: likelihood.Matern, names: []string{"sigma2", "beta", "nu", "tau2"}, limit: c.limit, workers: workers}
			mem, _, note, err := v.vecchiaMemory(n)
			if err != nil {
				return err
			}
			if need := mem.Need; need != c.need || (c.note == "") != (note == "") || !strings.Contains(note, c.note) {
				t.Errorf("check %v, limit %d, rank %d: need %d, note %q; want %d, %q", c.check, c.limit, w.Rank(), mem.Need, note, c.need, c.note)
			}
			return nil
		})
		for r, err := range errs {
			if (err != nil) != c.wantFail || (err != nil && (!IsInput(err) || !Agreed(err) || !strings.Contains(err.Error(), "m=30: points"))) {
				t.Errorf("check %v, limit %d, rank %d: %v", c.check, c.limit, r, err)
			}
		}
	}
}

// TestVecchiaCheckSkipped: the approximation check is skipped, with its
// note, when the search was interrupted or stopped at its deadline (the
// fit's stop error set), when it stopped before converging, with a sets
// file, when m is already N - 1 (m2 cut to N - 1 is not larger), and when
// the memory check left a note; with --vecchia-check=false there is none.
func TestVecchiaCheckSkipped(t *testing.T) {
	for _, c := range []struct {
		name   string
		off    bool
		fin    error
		status string
		sets   string
		n      int
		note   string
		want   string // the note's start ("" with off: no check)
	}{
		{name: "off", off: true, status: "CONVERGED", n: 1000},
		{name: "interrupted", fin: &Interrupted{Signal: 2}, status: "interrupted", n: 1000, want: "interrupted"},
		{name: "deadline", fin: &Interrupted{Signal: 15}, status: "deadline", n: 1000, want: "interrupted"},
		{name: "max-evals", status: "MAXEVAL_REACHED", n: 1000, want: "the search stopped before converging (status MAXEVAL_REACHED)"},
		{name: "sets file", status: "CONVERGED", sets: "s.txt", n: 1000, want: "--vecchia-sets gives the sets"},
		{name: "m = N-1", status: "CONVERGED", n: 31, want: "m = 30 conditions each location on every earlier one"},
		{name: "memory", status: "CONVERGED", n: 1000, note: "not enough memory for m = 60 (...)", want: "not enough memory for m = 60"},
	} {
		cfg := config.DefaultFit()
		cfg.Computation, cfg.VecchiaCheck, cfg.Vecchia.Sets = "vecchia", !c.off, c.sets
		v := &fitJob{cfg: cfg, fin: c.fin, names: []string{"sigma2", "beta", "nu", "tau2"}}
		st := &vecchiaStages{final: &vecchia.Prepared{Plan: &vecchia.Plan{M: 30}}}
		lv := &vecchiaLevels{st: st, res: &mle.Result{Status: c.status}}
		chk, st2 := v.vecchiaCheck(lv, checkRun{note: c.note}, c.n)
		switch {
		case c.off && chk != nil:
			t.Errorf("%s: check %+v, want none", c.name, chk)
		case c.off:
		case chk == nil || !strings.HasPrefix(chk.Skipped, c.want) || chk.StepSE != nil || len(lv.warnings) != 0 || st2 != nil:
			t.Errorf("%s: check %+v, warnings %q, stages %v; want skipped %q", c.name, chk, lv.warnings, st2, c.want)
		}
	}
}

// TestHandOvers: over several ranks (prepDistribute) without a hold-out,
// the fit's input is handed over in the fit's own preparation, or, with
// the approximation check, in the check's, and the release drops the
// job's dataset, the caller's data and its Problem; one rank, a rank 0
// that scatters, and a hold-out hand nothing over.
func TestHandOvers(t *testing.T) {
	for _, c := range []struct {
		name             string
		mode             prepMode
		held, check      bool
		refine           bool // --vecchia-refine-m: every level distributes the input again
		wantFit, wantChk bool
	}{
		{name: "distributed", mode: prepDistribute, wantFit: true},
		{name: "distributed, check", mode: prepDistribute, check: true, wantChk: true},
		{name: "hold-out", mode: prepDistribute, held: true, check: true},
		{name: "one rank", mode: prepLocal, check: true},
		{name: "scatter", mode: prepScatter},
		{name: "distributed, refined", mode: prepDistribute, check: true, refine: true},
	} {
		cfg := config.DefaultFit()
		cfg.VecchiaCheck = c.check
		if c.refine {
			cfg.VecchiaRefineM = 120
		}
		d := &dataset.Data{Obs: []float64{1, 2}}
		pr := likelihood.Problem{Obs: d.Obs}
		v := &fitJob{cfg: cfg, d: d}
		fit, chk := v.handOvers(c.mode, c.held, &d, &pr)
		if (fit != nil) != c.wantFit || (chk != nil) != c.wantChk {
			t.Errorf("%s: fit's release %t, check's %t; want %t, %t", c.name, fit != nil, chk != nil, c.wantFit, c.wantChk)
			continue
		}
		for _, release := range []func(){fit, chk} {
			if release != nil {
				release()
			}
		}
		if dropped := v.d == nil && d == nil && pr.Obs == nil; dropped != (c.wantFit || c.wantChk) {
			t.Errorf("%s: input dropped %t (job %v, data %v, problem %v)", c.name, dropped, v.d, d, pr.Obs)
		}
	}
}
