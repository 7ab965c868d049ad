package main

import (
	"cmp"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/vecchia/greedy"
	"github.com/exageostat/exageostat/pkg/vecchia/neighbors"
)

// readPoints reads the x, y columns of a simulate CSV file.
func readPoints(t *testing.T, path string) (x, y []float64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
		f := strings.Split(l, ",")
		xv, err1 := strconv.ParseFloat(f[0], 64)
		yv, err2 := strconv.ParseFloat(f[1], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %q", path, l)
		}
		x, y = append(x, xv), append(y, yv)
	}
	return x, y
}

// bruteCandidates returns each ordered location's k nearest earlier ones
// (positions, nearest first, ties by position) by comparing every pair:
// no k-d tree.
func bruteCandidates(x, y []float64, perm []int, k int) *neighbors.Sets {
	n := len(perm)
	s := neighbors.NewSets(n, k)
	for i := range n {
		js := make([]int, i)
		for j := range js {
			js[j] = j
		}
		d := func(j int) float64 { return math.Hypot(x[perm[j]]-x[perm[i]], y[perm[j]]-y[perm[i]]) }
		slices.SortStableFunc(js, func(a, b int) int { return cmp.Compare(d(a), d(b)) })
		row := s.Idx[i*k : (i+1)*k]
		for t := range row {
			row[t] = -1
			if t < len(js) {
				row[t] = int32(js[t])
			}
		}
	}
	return s
}

// TestFitVecchiaGreedy: fit --vecchia-select greedy writes the sets that
// greedy.Select chooses, with the covariance an entry at a time at the
// pilot theta of the fit's JSON (computed here: the kernel at each
// distance plus the nugget), among each location's 3m nearest earlier
// locations found by comparing every pair, in the fit's ordering; the
// search goes from the m = 10 stage to m = 30; a fit reading those sets
// (--vecchia-sets: Fisher scoring on them from the start) reaches the
// same optimum, within 0.02 of the standard errors and 1e-4 in l (the
// searches stop when the predicted gain is below 1e-5: each within about
// 0.005 SE of the optimum).
func TestFitVecchiaGreedy(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	for _, c := range []struct {
		name   string
		nu     float64
		lb, ub string
	}{
		{"nu 0.5 fixed", 0.5, "0.01,0.001,0.5,0.001", "10,5,0.5,2"},
		{"nu free", 1.5, "0.01,0.001,0.1,0.001", "10,5,3,2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			at := func(s string) string { return filepath.Join(dir, strings.ReplaceAll(c.name, " ", "")+s) }
			data := at("d.csv")
			theta := "1,0.1," + strconv.FormatFloat(c.nu, 'g', -1, 64)
			simulateNugget(t, bin, data, "300", theta, "4")
			base := []string{"fit", "--data", data, "--computation", "vecchia", "--mean", "constant", "--lb", c.lb, "--ub", c.ub, "--workers", "2", "-q", "--checkpoint", "none", "--stderr"}
			_, e, code := run(t, bin, append(slices.Clone(base), "--vecchia-select", "greedy", "--vecchia-sets-out", at("g.sets"), "--json", at("g.json"))...)
			if code != 0 {
				t.Fatalf("greedy fit: exit %d: %s", code, e)
			}
			g := readJSON[vecchiaResult](t, at("g.json"))
			if g.Vecchia.Select != "greedy" || g.Vecchia.Candidates != 90 || !slices.Equal(g.Vecchia.Stages, []int{10, 30}) || len(g.Vecchia.Pilot) != 4 {
				t.Fatalf("vecchia summary %+v: want greedy, 90 candidates, stages 10, 30 and a pilot", g.Vecchia)
			}
			f, err := os.Open(at("g.sets"))
			if err != nil {
				t.Fatal(err)
			}
			perm, sets, err := neighbors.Read(f, "g.sets")
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			x, y := readPoints(t, data)
			p := g.Vecchia.Pilot
			k, err := matern.NewMatern(matern.Theta{Sigma2: p[0], Beta: p[1], Nu: p[2]}, 2)
			if err != nil {
				t.Fatal(err)
			}
			cov := func(i, j int) float64 {
				v := k.Cov(math.Hypot(x[perm[i]]-x[perm[j]], y[perm[i]]-y[perm[j]]))
				if i == j {
					v += p[3]
				}
				return v
			}
			want, err := greedy.Select(bruteCandidates(x, y, perm, 90), 30, cov, 1)
			if err != nil {
				t.Fatal(err)
			}
			diff := 0
			for i := range sets.N {
				a, b := slices.Clone(sets.Row(i)), slices.Clone(want.Row(i))
				a, b = slices.DeleteFunc(a, func(v int32) bool { return v < 0 }), slices.DeleteFunc(b, func(v int32) bool { return v < 0 })
				slices.Sort(a)
				slices.Sort(b)
				if !slices.Equal(a, b) {
					if diff++; diff <= 3 {
						t.Errorf("position %d: the fit's set %v, greedy.Select's %v", i, a, b)
					}
				}
			}
			if diff > 0 || sets.M != 30 {
				t.Errorf("%d of %d sets differ (m %d)", diff, sets.N, sets.M)
			}
			_, e, code = run(t, bin, append(slices.Clone(base), "--vecchia-sets", at("g.sets"), "--json", at("r.json"))...)
			if code != 0 {
				t.Fatalf("fit --vecchia-sets: exit %d: %s", code, e)
			}
			r := readJSON[vecchiaResult](t, at("r.json"))
			if math.Abs(r.LogLik-g.LogLik) > 1e-4 {
				t.Errorf("l %.8f with the sets read, %.8f greedy", r.LogLik, g.LogLik)
			}
			for i := range g.Theta {
				if g.StdErr[i] > 0 && math.Abs(r.Theta[i]-g.Theta[i]) > 0.02*g.StdErr[i] {
					t.Errorf("theta[%d] %.6g with the sets read, %.6g greedy (SE %.3g)", i, r.Theta[i], g.Theta[i], g.StdErr[i])
				}
			}
		})
	}
}

// TestResumeVecchiaGreedy: a greedy fit stopped by --max-evals in its
// final stage and resumed ends bitwise where the uninterrupted fit ends
// (the coarse stage replayed to the same pilot, the same sets chosen
// again, the final stage's evaluations replayed), with the same check;
// a resume with the nearest sets or other candidates is refused naming
// the setting.
func TestResumeVecchiaGreedy(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	simulateNugget(t, bin, data, "300", "1,0.1,1.5", "6")
	base := []string{"fit", "--data", data, "--computation", "vecchia", "--mean", "constant", "--lb", "0.01,0.001,0.1,0.001", "--ub", "10,5,3,2",
		"--workers", "2", "-q", "--vecchia-select", "greedy"}
	fit := func(name string, args ...string) vecchiaResult {
		t.Helper()
		out := filepath.Join(dir, name+".json")
		if _, e, code := run(t, bin, append(append(slices.Clone(base), "--json", out), args...)...); code != 0 {
			t.Fatalf("fit %v: exit %d: %s", args, code, e)
		}
		return readJSON[vecchiaResult](t, out)
	}
	full := fit("full", "--checkpoint", "none")
	stop := full.Evaluations - 2
	ckpt := filepath.Join(dir, "part.ckpt")
	part := fit("part", "--checkpoint", ckpt, "--max-evals", strconv.Itoa(stop))
	if part.Status != "MAXEVAL_REACHED" || !slices.Equal(part.Vecchia.Stages, []int{10, 30}) {
		t.Fatalf("--max-evals %d: status %q stages %v, want MAXEVAL_REACHED in the final stage", stop, part.Status, part.Vecchia.Stages)
	}
	res := fit("resumed", "--resume", ckpt)
	if res.LogLik != full.LogLik || !equalFloats(res.Theta, full.Theta) || res.Status != full.Status || !equalFloats(res.Vecchia.Pilot, full.Vecchia.Pilot) {
		t.Errorf("resumed: l %v theta %v %s pilot %v; uninterrupted: l %v theta %v %s pilot %v",
			res.LogLik, res.Theta, res.Status, res.Vecchia.Pilot, full.LogLik, full.Theta, full.Status, full.Vecchia.Pilot)
	}
	if !sameCheck(res.Check, full.Check) || res.Check == nil || res.Check.Skipped != "" {
		t.Errorf("resumed: the approximation check %+v; uninterrupted: %+v", res.Check, full.Check)
	}
	if res.Replayed != stop-1 {
		t.Errorf("resumed: %d evaluations replayed, want %d (the last, the best, recomputed)", res.Replayed, stop-1)
	}
	for _, other := range [][]string{{"--vecchia-select", "nearest"}, {"--vecchia-candidates", "60"}} {
		args := append(append(slices.Clone(base), "--resume", ckpt), other...)
		if _, e, code := run(t, bin, args...); code != 2 || !strings.Contains(e, `setting "computation" differs`) {
			t.Errorf("resume with %v: exit %d, %q", other, code, e)
		}
	}
}
