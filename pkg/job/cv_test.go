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
