package likelihood_test

// The golden-value test: l of the exact and the approximate computations
// (and a few predictions, Fisher informations, MLOE/MMOM, leave-one-out
// residuals, conditional draws and simulations) on 1, 2 and 4 in-process
// ranks and 1-3 workers, compared bitwise with the values the program
// computed at commit 228d8a6, before the tile algorithms moved into
// pkg/cholesky and pkg/solve (issue 25). The values were written by this
// same test at that commit:
//
//	git worktree add /tmp/old 228d8a6 && cp pkg/likelihood/golden_test.go /tmp/old/pkg/likelihood/
//	cd /tmp/old && go test ./pkg/likelihood -run TestGolden -golden.update
//	cd /tmp/old && go test -tags purego ./pkg/likelihood -run TestGolden -golden.update
//
// and copied into testdata/golden/. Bits depend on the BLAS kernels: one
// file per kernel set (kernels.DefaultThreads().CoreName(): the pure-Go
// build's "gonum", OpenBLAS' core name). `make test` runs the pure-Go
// build too, whose file holds on any amd64 machine.

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/distribution"
	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/predict"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/solve"
	"github.com/exageostat/exageostat/pkg/tile"
)

var goldenUpdate = flag.Bool("golden.update", false, "write the golden values of TestGolden for this kernel set")

const (
	goldenN  = 240
	goldenNB = 40
)

// goldenProblem returns goldenN points in the unit square sorted by x (so
// that tiles far from the diagonal hold far points, as the Morton order
// does), with observations drawn from the seed; mean adds an intercept and
// the x coordinate as covariates, with a trend in the observations.
func goldenProblem(mean bool) likelihood.Problem {
	rng := rand.New(rand.NewPCG(25, 228))
	x, y := make([]float64, goldenN), make([]float64, goldenN)
	for i := range x {
		x[i], y[i] = rng.Float64(), rng.Float64()
	}
	idx := make([]int, goldenN)
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return x[idx[a]] < x[idx[b]] })
	p := likelihood.Problem{Points: matern.Points{X: make([]float64, goldenN), Y: make([]float64, goldenN)},
		Obs: make([]float64, goldenN), Model: likelihood.Matern, Nugget: 1e-4}
	for i, j := range idx {
		p.Points.X[i], p.Points.Y[i] = x[j], y[j]
		p.Obs[i] = rng.NormFloat64()
	}
	if mean {
		one := make([]float64, goldenN)
		for i := range one {
			one[i] = 1
			p.Obs[i] += 2 + 3*p.Points.X[i]
		}
		p.Covariates = [][]float64{one, slices.Clone(p.Points.X)}
	}
	return p
}

// goldenAt returns 15 new locations.
func goldenAt() matern.Points {
	rng := rand.New(rand.NewPCG(25, 15))
	at := matern.Points{X: make([]float64, 15), Y: make([]float64, 15)}
	for i := range at.X {
		at.X[i], at.Y[i] = rng.Float64(), rng.Float64()
	}
	return at
}

// goldenCase is one configuration: a computation, a problem variant, a
// distribution over ranks and a worker count.
type goldenCase struct {
	comp    likelihood.Computation
	variant string // "plain" (theta of 3, fixed nugget), "tau2" (theta of 4), "mean" (covariates, REML, theta of 4)
	ranks   int
	workers int
	extra   string // "", "lookahead", "hpotrf", "per-rank", "move-tiles", "sync", "gen"
}

func (c goldenCase) name() string {
	s := fmt.Sprintf("%s/%s/r%d/w%d", c.comp, c.variant, c.ranks, c.workers)
	if c.extra != "" {
		s += "/" + c.extra
	}
	return s
}

func goldenCases() []goldenCase {
	var cs []goldenCase
	for _, comp := range []likelihood.Computation{likelihood.Exact, likelihood.TLR, likelihood.MP, likelihood.DST} {
		for _, v := range []string{"plain", "tau2", "mean"} {
			for _, r := range []int{1, 2, 4} {
				for w := 1; w <= 3; w++ {
					cs = append(cs, goldenCase{comp, v, r, w, ""})
				}
			}
		}
	}
	for _, r := range []int{1, 2} {
		cs = append(cs,
			goldenCase{likelihood.TLR, "tau2", r, 2, "lookahead"},
			goldenCase{likelihood.MP, "tau2", r, 2, "lookahead"},
			goldenCase{likelihood.TLR, "tau2", r, 2, "hpotrf"},
			goldenCase{likelihood.DST, "mean", r, 2, "hpotrf"})
	}
	for _, r := range []int{2, 4} {
		cs = append(cs,
			goldenCase{likelihood.Exact, "mean", r, 2, "per-rank"},
			goldenCase{likelihood.Exact, "tau2", r, 2, "move-tiles"},
			goldenCase{likelihood.Exact, "tau2", r, 2, "sync"},
			goldenCase{likelihood.Exact, "plain", r, 3, "gen"})
	}
	return cs
}

var goldenThetas = map[string][][]float64{
	"plain": {{1, 0.1, 0.5}, {1.3, 0.05, 0.9}},
	"tau2":  {{1, 0.1, 0.5, 0.01}, {0.8, 0.04, 1.2, 0.05}},
	"mean":  {{1, 0.1, 0.5, 0.01}, {0.8, 0.04, 1.2, 0.05}},
}

// options returns the evaluator options of the case on a distribution
// over its ranks.
func (c goldenCase) options(t *testing.T) likelihood.Options {
	nt := tile.NewLayout(goldenN, goldenNB).NT
	o := likelihood.Options{NB: goldenNB}
	if c.ranks > 1 {
		d, err := distribution.New("bc", c.ranks, 0, 0, nil, nt)
		if err != nil {
			t.Fatal(err)
		}
		o.Owner = d.Owner
	}
	switch c.comp {
	case likelihood.TLR:
		o.Approx = likelihood.Approx{Computation: likelihood.TLR, Accuracy: 1e-7}
	case likelihood.MP:
		o.Approx = likelihood.Approx{Computation: likelihood.MP, Band: 1}
	case likelihood.DST:
		o.Approx = likelihood.Approx{Computation: likelihood.DST, Band: 2}
	}
	switch c.extra {
	case "lookahead":
		o.Approx.Lookahead = 2
	case "hpotrf":
		o.Approx.HPotrf = 16
	case "per-rank":
		o.Solve = solve.PerRank
	case "move-tiles":
		o.Solve = solve.MoveTiles
	case "sync":
		o.Overlap = &likelihood.Overlap{}
	case "gen":
		d, err := distribution.New("1d1d", c.ranks, 0, 0, nil, nt)
		if err != nil {
			t.Fatal(err)
		}
		o.GenOwner = d.Owner
	}
	return o
}

// onRanks runs f on size in-process ranks with workers workers each and
// returns rank 0's values.
func onRanks(t *testing.T, name string, size, workers int, f func(rt *runtime.Runtime) ([]float64, error)) []float64 {
	t.Helper()
	g := comm.NewGroup(size)
	out := make([][]float64, size)
	errs := make([]error, size)
	var wg sync.WaitGroup
	for r := 0; r < size; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := runtime.Options{Workers: workers}
			if size > 1 {
				o.Comm = g.Endpoint(r)
			}
			rt := runtime.New(o)
			defer rt.Close()
			out[r], errs[r] = f(rt)
		}()
	}
	wg.Wait()
	for r := range errs {
		if errs[r] != nil {
			t.Fatalf("%s: rank %d: %v", name, r, errs[r])
		}
	}
	return out[0]
}

// goldenValues computes every value of the test, by name.
func goldenValues(t *testing.T) map[string][]float64 {
	vals := map[string][]float64{}
	var mu sync.Mutex
	put := func(name string, v []float64) {
		mu.Lock()
		defer mu.Unlock()
		vals[name] = v
	}
	for _, c := range goldenCases() {
		p := goldenProblem(c.variant == "mean")
		p.REML = c.variant == "mean"
		o := c.options(t)
		put("l/"+c.name(), onRanks(t, c.name(), c.ranks, c.workers, func(rt *runtime.Runtime) ([]float64, error) {
			ev, err := likelihood.NewWith(p, rt, o)
			if err != nil {
				return nil, err
			}
			var ls []float64
			for _, th := range goldenThetas[c.variant] {
				l, _, err := ev.LogLik(th)
				if err != nil {
					return nil, err
				}
				ls = append(ls, l)
			}
			return ls, nil
		}))
	}
	assessGolden(t, put)
	return vals
}

// assessGolden computes the predictions, Fisher informations, MLOE/MMOM,
// leave-one-out, conditional draws and simulations.
func assessGolden(t *testing.T, put func(string, []float64)) {
	at := goldenAt()
	theta := []float64{1, 0.1, 0.5, 0.01}
	for _, comp := range []likelihood.Computation{likelihood.Exact, likelihood.TLR, likelihood.MP, likelihood.DST} {
		for _, r := range []int{1, 2} {
			c := goldenCase{comp, "tau2", r, 2, ""}
			o := c.options(t)
			name := c.name()
			put("assess/"+name, onRanks(t, name, r, 2, func(rt *runtime.Runtime) ([]float64, error) {
				ev, err := likelihood.NewWith(goldenProblem(false), rt, o)
				if err != nil {
					return nil, err
				}
				var out []float64
				k, err := predict.Krige(ev, theta, at)
				if err != nil {
					return nil, fmt.Errorf("krige: %w", err)
				}
				out = append(append(out, k.Z...), k.Var...)
				f, err := predict.FisherInfo(ev, theta, []bool{true, true, false, true})
				if err != nil {
					return nil, fmt.Errorf("fisher: %w", err)
				}
				for _, row := range f.Info {
					out = append(out, row...)
				}
				e, err := predict.MLOEMMOM(ev, at, []float64{1.2, 0.12, 0.5, 0.01}, theta)
				if err != nil {
					return nil, fmt.Errorf("mloe: %w", err)
				}
				out = append(out, e.MLOE, e.MMOM)
				loo, err := predict.LeaveOneOut(ev, theta)
				if err != nil {
					return nil, fmt.Errorf("loo: %w", err)
				}
				out = append(append(out, loo.Residual[:20]...), loo.Var[:20]...)
				d, err := predict.ConditionalDraws(ev, theta, at, 2, 7, true)
				if err != nil {
					return nil, fmt.Errorf("draws: %w", err)
				}
				if rt.Rank() == 0 { // the draws are rank 0's
					out = append(append(out, d.Z[0]...), d.Z[1]...)
				}
				return out, nil
			}))
			put("simulate/"+name, onRanks(t, name, r, 2, func(rt *runtime.Runtime) ([]float64, error) {
				rng := rand.New(rand.NewPCG(3, 4))
				e := make([]float64, goldenN)
				for i := range e {
					e[i] = rng.NormFloat64()
				}
				return likelihood.Simulate(goldenProblem(false), theta, e, rt, o, -1)
			}))
			mean := goldenCase{comp, "mean", r, 2, ""}
			put("universal/"+mean.name(), onRanks(t, mean.name(), r, 2, func(rt *runtime.Runtime) ([]float64, error) {
				ev, err := likelihood.NewWith(goldenProblem(true), rt, o)
				if err != nil {
					return nil, err
				}
				x0 := [][]float64{make([]float64, len(at.X)), slices.Clone(at.X)}
				for i := range x0[0] {
					x0[0][i] = 1
				}
				k, err := predict.KrigeUniversal(ev, theta, at, x0)
				if err != nil {
					return nil, err
				}
				return append(k.Z, k.Var...), nil
			}))
		}
	}
}

func goldenFile() string {
	core := strings.NewReplacer(" ", "-", "(", "", ")", "").Replace(strings.ToLower(kernels.DefaultThreads().CoreName()))
	return filepath.Join("testdata", "golden", core+".json")
}

// TestGolden compares every value bitwise with the file of this kernel
// set.
func TestGolden(t *testing.T) {
	file := goldenFile()
	if *goldenUpdate {
		got := goldenValues(t)
		enc := map[string][]string{}
		for k, v := range got {
			for _, x := range v {
				enc[k] = append(enc[k], fmt.Sprintf("%016x", math.Float64bits(x)))
			}
		}
		b, err := json.MarshalIndent(enc, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %d series to %s", len(enc), file)
		return
	}
	b, err := os.ReadFile(file)
	if os.IsNotExist(err) {
		// Another CPU picks other OpenBLAS kernels, whose last bits
		// differ: the pure-Go build's file is the portable check.
		t.Skipf("no golden values for the kernels %q (%s); the pure-Go build (-tags purego) checks testdata/golden/gonum-pure-go.json",
			kernels.DefaultThreads().CoreName(), file)
	}
	if err != nil {
		t.Fatal(err)
	}
	got := goldenValues(t)
	var want map[string][]string
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if len(want) != len(got) {
		t.Errorf("%d series, the golden file has %d", len(got), len(want))
	}
	bad := 0
	var series []string
	for k, ws := range want {
		tol := reordered(k, ws)
		g, ok := got[k]
		if !ok {
			t.Errorf("%s: not computed", k)
			continue
		}
		if len(g) != len(ws) {
			t.Errorf("%s: %d values, want %d", k, len(g), len(ws))
			continue
		}
		for i, w := range ws {
			var bits uint64
			if _, err := fmt.Sscanf(w, "%x", &bits); err != nil {
				t.Fatalf("%s[%d]: %v", k, i, err)
			}
			if w := math.Float64frombits(bits); tol > 0 && math.Abs(g[i]-w) <= tol {
				continue
			}
			if math.Float64bits(g[i]) != bits {
				if len(series) == 0 || series[len(series)-1] != k {
					series = append(series, k)
				}
				if bad++; bad <= 20 {
					t.Errorf("%s[%d] = %v (%016x), want %v (%s)", k, i, g[i], math.Float64bits(g[i]), math.Float64frombits(bits), w)
				}
			}
		}
	}
	if bad > 0 {
		sort.Strings(series)
		t.Errorf("%d values of %d series differ from %s: %s", bad, len(series), file, strings.Join(series, " "))
	}
}

// reordered returns, for a series whose sums the redesign reordered on
// purpose, the largest difference it accepts: 1e-14 times the largest
// magnitude of the series; 0 (bitwise) for every other series. The only
// ones are the simulations with an approximate factor: z(m) = L(m,m) e(m)
// + sum_c L(m,c) e(c) summed the diagonal first before, the products
// first (as the exact computation always did) since solve.Trmv serves
// both.
func reordered(name string, ws []string) float64 {
	if !strings.HasPrefix(name, "simulate/") || strings.HasPrefix(name, "simulate/exact/") {
		return 0
	}
	big := 0.0
	for _, w := range ws {
		var bits uint64
		fmt.Sscanf(w, "%x", &bits)
		big = max(big, math.Abs(math.Float64frombits(bits)))
	}
	return 1e-14 * big
}
