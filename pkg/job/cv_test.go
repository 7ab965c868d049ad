package job

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/matern"
)

// denseKrigeOne is the reference: universal kriging (simple kriging when
// rows is empty) of point i from the points train, densely with gonum's
// Cholesky: b = (X^T S^-1 X)^-1 X^T S^-1 z, z_hat = x_i^T b + k^T S^-1 (z - X b),
// var = C(0) + tau2 - k^T S^-1 k + d^T (X^T S^-1 X)^-1 d, d = x_i - X^T S^-1 k.
func denseKrigeOne(pts matern.Points, z []float64, rows [][]float64, train []int, i int, th matern.Theta, tau2 float64) (zhat, v float64) {
	m, np := len(train), len(rows[0])
	s := mat.NewSymDense(m, nil)
	k := mat.NewDense(m, 1, nil)
	zr := mat.NewDense(m, 1, nil)
	xr := mat.NewDense(m, max(np, 1), nil)
	for a, ja := range train {
		k.Set(a, 0, matern.Matern(th, matern.Distance(matern.Euclidean, pts, ja, pts, i)))
		zr.Set(a, 0, z[ja])
		for c := 0; c < np; c++ {
			xr.Set(a, c, rows[ja][c])
		}
		for b := 0; b <= a; b++ {
			c := matern.Matern(th, matern.Distance(matern.Euclidean, pts, ja, pts, train[b]))
			if a == b {
				c += tau2
			}
			s.SetSym(a, b, c)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(s) {
		panic("reference not SPD")
	}
	var sk, sz, sx mat.Dense
	for _, p := range []struct{ dst, b *mat.Dense }{{&sk, k}, {&sz, zr}, {&sx, xr}} {
		if err := ch.SolveTo(p.dst, p.b); err != nil {
			panic(err)
		}
	}
	v = th.Sigma2 + tau2
	for a := 0; a < m; a++ {
		zhat += sk.At(a, 0) * z[train[a]]
		v -= sk.At(a, 0) * k.At(a, 0)
	}
	if np == 0 {
		return zhat, v
	}
	var xsx, inv, xsz, b mat.Dense
	xsx.Mul(xr.T(), &sx)
	if err := inv.Inverse(&xsx); err != nil {
		panic(err)
	}
	xsz.Mul(xr.T(), &sz)
	b.Mul(&inv, &xsz)
	d := make([]float64, np)
	for c := 0; c < np; c++ {
		zhat += rows[i][c] * b.At(c, 0)
		d[c] = rows[i][c]
		for a := 0; a < m; a++ {
			zhat -= sk.At(a, 0) * rows[train[a]][c] * b.At(c, 0)
			d[c] -= rows[train[a]][c] * sk.At(a, 0)
		}
	}
	for a := 0; a < np; a++ {
		for c := 0; c < np; c++ {
			v += d[a] * inv.At(a, c) * d[c]
		}
	}
	return zhat, v
}

// TestCVMatchesDense: cv's residuals and variances, leave one out and
// K-fold, with the zero, constant and linear means, written in the data's
// order, equal dense (universal) kriging of each point from the points
// outside its fold (the fold column of the file; each point alone for leave
// one out) to 1e-10, and the summary's MSPE, mean log score and coverage
// equal those of the dense residuals.
func TestCVMatchesDense(t *testing.T) {
	cases := []struct {
		name  string
		mean  string
		folds int
		seed  uint64
	}{
		{"zero mean 5 folds", "zero", 5, 1},
		{"constant mean 4 folds", "constant", 4, 7},
		{"linear mean 7 folds", "linear", 7, 2},
		{"linear mean leave one out", "linear", 0, 1},
		{"constant mean leave one out", "constant", 0, 1},
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(15, 16))
	n := 61
	x, y, z := make([]float64, n), make([]float64, n), make([]float64, n)
	var sb strings.Builder
	sb.WriteString("x,y,z\n")
	for i := range n {
		x[i], y[i] = rng.Float64(), rng.Float64()
		z[i] = 1 + 2*x[i] - y[i] + rng.NormFloat64()
		fmt.Fprintf(&sb, "%v,%v,%v\n", x[i], y[i], z[i])
	}
	data := filepath.Join(dir, "d.csv")
	if err := os.WriteFile(data, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	th := matern.Theta{Sigma2: 1, Beta: 0.15, Nu: 0.8}
	tau2 := 0.05
	pts := matern.Points{X: x, Y: y}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := config.DefaultPredict()
			p.Data, p.At, p.Out, p.CV, p.NB = data, data, filepath.Join(dir, "cv.csv"), true, 16
			p.Theta, p.Mean, p.Folds, p.Seed = []float64{th.Sigma2, th.Beta, th.Nu, tau2}, c.mean, c.folds, c.seed
			r, err := Predict(p, Env{})
			if err != nil {
				t.Fatal(err)
			}
			rows := readRows(t, p.Out)
			want := "x,y,z,z_loo,variance,residual,standardized"
			if c.folds > 0 {
				want = "x,y,z,z_cv,variance,residual,standardized,fold"
			}
			if len(rows) != n+1 || strings.Join(rows[0], ",") != want {
				t.Fatalf("header %v, %d rows", rows[0], len(rows))
			}
			design := make([][]float64, n)
			for i := range design {
				design[i] = map[string][]float64{"zero": {}, "constant": {1}, "linear": {1, x[i], y[i]}}[c.mean]
			}
			fold := make([]int, n)
			sizes := map[int]int{}
			for i := range n {
				fold[i] = i // leave one out: each point its own fold
				if c.folds > 0 {
					f, err := strconv.Atoi(rows[i+1][7])
					if err != nil || f < 1 || f > c.folds {
						t.Fatalf("row %d: fold %q", i+1, rows[i+1][7])
					}
					fold[i] = f
				}
				sizes[fold[i]]++
			}
			if c.folds > 0 && len(sizes) != c.folds {
				t.Fatalf("%d folds used, want %d", len(sizes), c.folds)
			}
			for f, s := range sizes {
				if c.folds > 0 && (s < n/c.folds || s > n/c.folds+1) {
					t.Fatalf("fold %d has %d points", f, s)
				}
			}
			var mspe, score, cover float64
			worst := 0.0
			for i := range n {
				var train []int
				for j := range n {
					if fold[j] != fold[i] {
						train = append(train, j)
					}
				}
				zh, v := denseKrigeOne(pts, z, design, train, i, th, tau2)
				e := z[i] - zh
				mspe += e * e / float64(n)
				score += (0.5*math.Log(2*math.Pi*v) + e*e/(2*v)) / float64(n)
				if math.Abs(e) <= 1.959963984540054*math.Sqrt(v) {
					cover += 1 / float64(n)
				}
				ge, err1 := strconv.ParseFloat(rows[i+1][5], 64)
				gv, err2 := strconv.ParseFloat(rows[i+1][4], 64)
				de, dv := math.Abs(ge-e)/math.Max(1, math.Abs(e)), math.Abs(gv-v)/v
				worst = max(worst, de, dv)
				if err1 != nil || err2 != nil || de > 1e-10 || dv > 1e-10 {
					t.Fatalf("row %d: residual %v variance %v, dense %.15g %.15g", i+1, ge, gv, e, v)
				}
			}
			s := r.CV
			if s.N != n || s.Folds != c.folds || math.Abs(s.MSPE-mspe) > 1e-10*mspe || math.Abs(s.LogScore-score) > 1e-10*math.Abs(score) || math.Abs(s.Coverage-cover) > 1e-12 {
				t.Errorf("summary %+v, dense MSPE %v log score %v coverage %v", *s, mspe, score, cover)
			}
			t.Logf("largest relative difference %.2g; MSPE %.4f, log score %.4f, coverage %.3f", worst, mspe, score, cover)
		})
	}
}

// TestEffectiveRangeWald: the delta-method standard error of the
// effective range rho = beta c(nu): at nu = 0.5 (fixed) c = ln 20 and
// sd = ln 20 sqrt((I^-1)_beta,beta); at nu = 0.7 free, with I = [[4, 1],
// [1, 2]] over (beta, nu) and beta = 0.2, R gives c(0.7) = 3.446877345158799,
// c'(0.7) = 2.046132905453302 (uniroot, central difference) and
// sd = sqrt(g^T I^-1 g) = 1.757054547532244. The Wald intervals are
// estimate -+ 1.959964 sd.
func TestEffectiveRangeWald(t *testing.T) {
	cases := []struct {
		name  string
		theta []float64
		a     Assessment
		want  float64
	}{
		{"nu fixed", []float64{1, 0.1, 0.5}, Assessment{FisherOf: []string{"sigma2", "beta"}, Fisher: [][]float64{{2, 0}, {0, 25}}}, math.Log(20) * math.Sqrt(1.0/25)},
		{"nu free", []float64{1, 0.2, 0.7}, Assessment{FisherOf: []string{"beta", "nu"}, Fisher: [][]float64{{4, 1}, {1, 2}}}, 1.757054547532244},
	}
	for _, c := range cases {
		sd, ok := effectiveRangeSD(c.theta, c.a)
		if !ok || math.Abs(sd-c.want) > 1e-6*c.want {
			t.Errorf("%s: sd %.15g (%v), want %.15g", c.name, sd, ok, c.want)
		}
		ivs := []Interval{{Param: EffectiveRangeParam, Estimate: 3}, {Param: "beta", Estimate: c.theta[1]}}
		a := c.a
		a.StdErr = []float64{0, 0.05, 0}
		setWald(ivs, []string{"sigma2", "beta", "nu"}, c.theta, a, 0.95)
		z := 1.959963984540054
		if len(ivs[0].Wald) != 2 || math.Abs(ivs[0].Wald[0]-(3-z*c.want)) > 1e-6 || math.Abs(ivs[0].Wald[1]-(3+z*c.want)) > 1e-6 ||
			len(ivs[1].Wald) != 2 || math.Abs(ivs[1].Wald[0]-(c.theta[1]-z*0.05)) > 1e-12 {
			t.Errorf("%s: Wald intervals %v, %v", c.name, ivs[0].Wald, ivs[1].Wald)
		}
	}
}

// TestFitCV: fit --cv 4 --mean constant cross-validates the data at the
// fit's estimate: each residual equals dense universal kriging of the
// point from the other folds at the estimated theta (1e-10), and the JSON
// holds the summary.
func TestFitCV(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(21, 22))
	n := 70
	x, y, z := make([]float64, n), make([]float64, n), make([]float64, n)
	var sb strings.Builder
	sb.WriteString("x,y,z\n")
	for i := range n {
		x[i], y[i] = rng.Float64(), rng.Float64()
		z[i] = 3 + rng.NormFloat64()
		fmt.Fprintf(&sb, "%v,%v,%v\n", x[i], y[i], z[i])
	}
	data := filepath.Join(dir, "d.csv")
	if err := os.WriteFile(data, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := config.DefaultFit()
	cfg.Data, cfg.Checkpoint, cfg.N, cfg.Theta, cfg.Seed, cfg.NB = data, "none", 0, nil, 5, 16
	cfg.Mean, cfg.Nugget, cfg.CV, cfg.CVOut, cfg.JSON = "constant", 0.05, "4", filepath.Join(dir, "cv.csv"), filepath.Join(dir, "r.json")
	r, err := Fit(cfg, Env{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := FitCV(r, cfg, Env{}); err != nil {
		t.Fatal(err)
	}
	rows := readRows(t, cfg.CVOut)
	if len(rows) != n+1 || rows[0][7] != "fold" {
		t.Fatalf("%d rows, header %v", len(rows), rows[0])
	}
	th := matern.Theta{Sigma2: r.Theta[0], Beta: r.Theta[1], Nu: r.Theta[2]}
	design := make([][]float64, n)
	fold := make([]string, n)
	for i := range n {
		design[i], fold[i] = []float64{1}, rows[i+1][7]
	}
	var mspe float64
	for i := range n {
		var train []int
		for j := range n {
			if fold[j] != fold[i] {
				train = append(train, j)
			}
		}
		zh, _ := denseKrigeOne(matern.Points{X: x, Y: y}, z, design, train, i, th, 0.05)
		e := z[i] - zh
		mspe += e * e / float64(n)
		got, err := strconv.ParseFloat(rows[i+1][5], 64)
		if err != nil || math.Abs(got-e) > 1e-10*math.Max(1, math.Abs(e)) {
			t.Fatalf("row %d: residual %v, dense %.15g", i+1, got, e)
		}
	}
	b, err := os.ReadFile(cfg.JSON)
	if err != nil {
		t.Fatal(err)
	}
	if r.CV == nil || r.CV.Folds != 4 || math.Abs(r.CV.MSPE-mspe) > 1e-10*mspe || !strings.Contains(string(b), `"cross_validation": {`) {
		t.Errorf("summary %+v (dense MSPE %v); JSON has it: %v", r.CV, mspe, strings.Contains(string(b), "cross_validation"))
	}
}
