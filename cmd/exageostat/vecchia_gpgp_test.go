package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gpgpRef is one case of testdata/r/vecchia_loglik.json: GpGp 0.5.1's
// ungrouped Vecchia log-likelihoods of vecchia_n500.csv on the sets file
// vecchia_n500_sets.txt (cut to its m nearest), at theta.
type gpgpRef struct {
	M        int       `json:"m"`
	Covfun   string    `json:"covfun"`
	Theta    []float64 `json:"theta"`
	MeanZero float64   `json:"loglik_meanzero"` // vecchia_meanzero_loglik
	LogLik   float64   `json:"loglik"`          // vecchia_profbeta_loglik_grad_info, X = 1
}

// cutSets returns sets file b with each set cut to its m nearest.
func cutSets(t *testing.T, b []byte, m int) []byte {
	t.Helper()
	var out bytes.Buffer
	for i, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		f := strings.Fields(line)
		switch {
		case i == 0:
			n, _, ok := strings.Cut(line, " m=")
			if !ok {
				t.Fatalf("sets file header %q", line)
			}
			fmt.Fprintf(&out, "%s m=%d\n", n, m)
		case strings.HasPrefix(line, "#"):
			fmt.Fprintln(&out, line)
		default:
			fmt.Fprintln(&out, strings.Join(f[:min(len(f), m+2)], " "))
		}
	}
	return out.Bytes()
}

// TestVecchiaGpGpCLI: the sets file that fit --vecchia-sets-out writes for
// testdata/r/vecchia_n500.csv is the one GpGp read
// (testdata/r/vecchia_loglik.R, through its NNarray); read back with
// --vecchia-sets and --vecchia-grouping none, every parameter fixed at a
// case's theta, fit's l is GpGp's vecchia_meanzero_loglik (--mean zero)
// and its vecchia_profbeta_loglik (--mean constant, the GLS mean) to
// 1e-9 relative, at m = 10 and 30, for the exponential and Matérn
// kernels with a nugget (GpGp's covparms = (sigma2, beta, nu,
// tau2/sigma2)); the default grouping gives another l (a different
// approximation), and a bad --vecchia-grouping exits 2 naming the flag.
func TestVecchiaGpGpCLI(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	ref := filepath.Join("..", "..", "testdata", "r")
	data, err := filepath.Abs(filepath.Join(ref, "vecchia_n500.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []gpgpRef
	b, err := os.ReadFile(filepath.Join(ref, "vecchia_loglik.json"))
	if err == nil {
		err = json.Unmarshal(b, &cases)
	}
	if err != nil || len(cases) == 0 {
		t.Fatalf("vecchia_loglik.json: %d cases, %v", len(cases), err)
	}
	want, err := os.ReadFile(filepath.Join(ref, "vecchia_n500_sets.txt"))
	if err != nil {
		t.Fatal(err)
	}
	fit := func(name string, theta []float64, args ...string) float64 {
		t.Helper()
		th := strings.Trim(strings.Join(strings.Fields(fmt.Sprint(theta)), ","), "[]")
		res := filepath.Join(dir, name+".json")
		a := append([]string{"fit", "-q", "--data", data, "--computation", "vecchia", "--lb", th, "--ub", th,
			"--workers", "2", "--checkpoint", "none", "--json", res}, args...)
		if _, stderr, code := run(t, bin, a...); code != 0 {
			t.Fatalf("fit %v: exit %d: %s", a, code, stderr)
		}
		return readJSON[vecchiaResult](t, res).LogLik
	}
	// The sets file fit writes for this data is the file GpGp read.
	out := filepath.Join(dir, "sets30.txt")
	fit("sets", cases[0].Theta, "--vecchia-sets-out", out)
	if got, err := os.ReadFile(out); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("fit --vecchia-sets-out on vecchia_n500.csv differs from testdata/r/vecchia_n500_sets.txt (%v)", err)
	}
	sets := map[int]string{}
	for _, m := range []int{10, 30} {
		sets[m] = filepath.Join(dir, fmt.Sprintf("sets%d.txt", m))
		if err := os.WriteFile(sets[m], cutSets(t, want, m), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	worst := 0.0
	for i, c := range cases {
		if sets[c.M] == "" || len(c.Theta) != 4 {
			t.Fatalf("case %d: m = %d, theta %v", i, c.M, c.Theta)
		}
		for _, mc := range []struct {
			mean string
			want float64
		}{{"zero", c.MeanZero}, {"constant", c.LogLik}} {
			name := fmt.Sprintf("%d-%s", i, mc.mean)
			got := fit(name, c.Theta, "--vecchia-sets", sets[c.M], "--vecchia-grouping", "none", "--mean", mc.mean)
			d := math.Abs(got-mc.want) / math.Abs(mc.want)
			worst = max(worst, d)
			if !(d < 1e-9) {
				t.Errorf("%s m=%d theta %v mean %s: l %.15g, GpGp %.15g (relative %.2g)", c.Covfun, c.M, c.Theta, mc.mean, got, mc.want, d)
			}
		}
	}
	t.Logf("%d cases, l against GpGp's within %.2g relative", 2*len(cases), worst)
	// Grouped (the default): another approximation, another l.
	c := cases[len(cases)-1]
	if g := fit("grouped", c.Theta, "--vecchia-sets", sets[c.M]); !(math.Abs(g-c.MeanZero) > 1e-6*math.Abs(c.MeanZero)) {
		t.Errorf("grouped l %v equals the ungrouped GpGp l %v", g, c.MeanZero)
	}
	for _, bad := range []struct {
		args []string
		msg  string
	}{
		{[]string{"fit", "--data", data, "--computation", "vecchia", "--vecchia-grouping", "pairs"}, `--vecchia-grouping must be blocks or none, got "pairs"`},
		{[]string{"fit", "--data", data, "--vecchia-grouping", "none"}, "--vecchia-grouping is for --computation vecchia"},
	} {
		if _, stderr, code := run(t, bin, bad.args...); code != 2 || !strings.Contains(stderr, bad.msg) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line with %q", bad.args, code, stderr, bad.msg)
		}
	}
}
