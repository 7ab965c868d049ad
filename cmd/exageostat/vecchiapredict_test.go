package main

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// splitCSV writes rows [a, b) of the data rows of the CSV src (with its
// header) to dir/name and returns the path.
func splitCSV(t *testing.T, src, dir, name string, a, b int) string {
	t.Helper()
	raw, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	return writeFile(t, dir, name, lines[0]+"\n"+strings.Join(lines[1+a:1+b], "\n")+"\n")
}

// relMax returns max |a_i - b_i| / max |b_i|.
func relMax(t *testing.T, a, b []float64) float64 {
	t.Helper()
	s := 0.0
	for _, v := range b {
		s = math.Max(s, math.Abs(v))
	}
	return maxDiff(t, a, b) / s
}

// mspe returns the mean squared difference of a and b.
func mspe(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return s / float64(len(a))
}

// TestPredictVecchiaCLI: predict and cv with --computation vecchia.
// Conditioned on every observation (--vecchia-m N) the kriging is exact
// kriging (the tiled path's, computed independently) to 1e-9, with a
// constant mean; leave one out (zero mean, m = N-1) and 5-fold (constant
// mean) cross-validation are the exact ones; at m = 30 the MSPE at 100
// held-out values and the leave-one-out MSPE are within 2 % of exact
// kriging's; fit --cv cross-validates at its estimate as cv does; joint draws scatter around the kriging mean with its
// variance; bad settings exit 2 with one line.
func TestPredictVecchiaCLI(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	all := filepath.Join(dir, "all.csv")
	simulateNugget(t, bin, all, "600", "1,0.1,0.8", "5")
	obs, at := splitCSV(t, all, dir, "obs.csv", 0, 500), splitCSV(t, all, dir, "at.csv", 500, 600)
	small, smallAt := splitCSV(t, all, dir, "small.csv", 0, 200), splitCSV(t, all, dir, "small-at.csv", 500, 530)
	theta := []string{"--theta", "1,0.1,0.8,0.1", "--workers", "2", "-q"}
	krige := func(name string, args ...string) map[string][]float64 {
		t.Helper()
		out := filepath.Join(dir, name+".csv")
		a := append(append([]string{}, args...), append(theta, "--out", out)...)
		if _, stderr, code := run(t, bin, a...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		return readColumns(t, out)
	}
	vecchia := func(m string) []string { return []string{"--computation", "vecchia", "--vecchia-m", m} }
	same := func(what string, got, want map[string][]float64, cols ...string) {
		t.Helper()
		for _, c := range cols {
			if d := relMax(t, got[c], want[c]); !(d < 1e-9) {
				t.Errorf("%s: column %s: vecchia and exact differ by %.2g (relative)", what, c, d)
			}
		}
	}
	base := []string{"predict", "--data", small, "--at", smallAt, "--mean", "constant"}
	same("predict, m = N", krige("p-v-all", append(base, vecchia("200")...)...), krige("p-exact-small", base...), "z_hat", "variance")
	loo := []string{"cv", "--data", small}
	same("leave one out, m = N-1", krige("loo-v-all", append(loo, vecchia("199")...)...), krige("loo-exact-small", loo...), "z_loo", "variance")
	kf := []string{"cv", "--data", small, "--mean", "constant", "--folds", "5"}
	same("5-fold, m = N", krige("kf-v-all", append(kf, vecchia("200")...)...), krige("kf-exact", kf...), "z_cv", "variance")
	// fit --cv at a fixed theta: the same 5-fold cross-validation.
	fcv := filepath.Join(dir, "fit-cv.csv")
	if _, stderr, code := run(t, bin, "fit", "--data", small, "--mean", "constant", "--lb", "1,0.1,0.8,0.1", "--ub", "1,0.1,0.8,0.1",
		"--cv", "5", "--cv-out", fcv, "--checkpoint", "none", "-q", "--workers", "2", "--computation", "vecchia", "--vecchia-m", "199"); code != 0 {
		t.Fatalf("fit --cv: exit %d: %s", code, stderr)
	}
	same("fit --cv 5, m = N-1", readColumns(t, fcv), krige("kf-exact", kf...), "z_cv", "variance")

	truth := readColumns(t, at)["z"]
	base = []string{"predict", "--data", obs, "--at", at, "--mean", "constant"}
	ex, v := mspe(krige("p-exact", base...)["z_hat"], truth), mspe(krige("p-v30", append(base, vecchia("30")...)...)["z_hat"], truth)
	if r := v / ex; !(math.Abs(r-1) < 0.02) {
		t.Errorf("hold-out MSPE at m = 30: vecchia %.6g, exact %.6g (ratio %.4f)", v, ex, r)
	}
	loo = []string{"cv", "--data", obs, "--mean", "constant"}
	le, lv := krige("loo-exact", loo...), krige("loo-v30", append(loo, vecchia("30")...)...)
	if r := mspe(lv["z_loo"], lv["z"]) / mspe(le["z_loo"], le["z"]); !(math.Abs(r-1) < 0.02) {
		t.Errorf("leave-one-out MSPE at m = 30: ratio to exact %.4f", r)
	}

	// Joint draws: (draw - z_hat)^2 / variance averages 1.
	d := krige("draws", "predict", "--data", obs, "--at", smallAt, "--mean", "constant", "--computation", "vecchia", "--draws", "300", "--seed", "3")
	s, n := 0.0, 0.0
	for k := 1; k <= 300; k++ {
		col := d["draw_"+strconv.Itoa(k)]
		for i, z := range col {
			s += (z - d["z_hat"][i]) * (z - d["z_hat"][i]) / d["variance"][i]
			n++
		}
	}
	if r := s / n; !(math.Abs(r-1) < 0.25) {
		t.Errorf("draws: mean of (draw - z_hat)^2 / variance %.3f, want 1", r)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--computation", "vecchia", "--nb", "100"}, "--nb: --computation vecchia has no tiles"},
		{[]string{"--vecchia-m", "20"}, "--vecchia-m is for --computation vecchia"},
		{[]string{"--computation", "vecchia", "--vecchia-m", "0"}, "--vecchia-m must be >= 1"},
	} {
		_, stderr, code := run(t, bin, append([]string{"predict", "--data", obs, "--at", at, "--theta", "1,0.1,0.8", "--out", filepath.Join(dir, "bad.csv")}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("predict %v: exit %d, %q; want exit 2 and one line with %q", c.args, code, stderr, c.want)
		}
	}
}
