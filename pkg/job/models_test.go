package job

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/matern"
)

// denseNuggetLogLik is the reference log-likelihood of zero-mean data z at
// points (x, y) for the Matérn theta = (sigma2, beta, nu, tau2): Sigma =
// sigma2 R + tau2 I built entry by entry and factorised by gonum.
func denseNuggetLogLik(t *testing.T, x, y, z []float64, theta []float64) float64 {
	t.Helper()
	n := len(z)
	pts := matern.Points{X: x, Y: y}
	th := matern.Theta{Sigma2: theta[0], Beta: theta[1], Nu: theta[2]}
	s := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			c := matern.Matern(th, matern.Distance(matern.Euclidean, pts, i, pts, j))
			if i == j {
				c += theta[3]
			}
			s.SetSym(i, j, c)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(s) {
		t.Fatal("reference: not positive definite")
	}
	var w mat.VecDense
	zv := mat.NewVecDense(n, append([]float64(nil), z...))
	if err := ch.SolveVecTo(&w, zv); err != nil {
		t.Fatal(err)
	}
	return -0.5*mat.Dot(zv, &w) - 0.5*ch.LogDet() - 0.5*float64(n)*math.Log(2*math.Pi)
}

// nuggetData writes n random points (with duplicates) and a draw of the
// field with theta = (1, 0.1, 0.5) plus white noise of variance tau2.
func nuggetData(t *testing.T, n int, tau2 float64) (path string, x, y, z []float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(11, 7))
	x, y = make([]float64, n), make([]float64, n)
	for i := range x {
		x[i], y[i] = rng.Float64(), rng.Float64()
	}
	for i := 0; i < 6; i++ { // duplicate locations: legal with a nugget
		x[n-1-i], y[n-1-i] = x[i], y[i]
	}
	pts := matern.Points{X: x, Y: y}
	s := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			s.SetSym(i, j, matern.Matern(matern.Theta{Sigma2: 1, Beta: 0.1, Nu: 0.5}, matern.Distance(matern.Euclidean, pts, i, pts, j))+map[bool]float64{true: 1e-10}[i == j])
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(s) {
		t.Fatal("not positive definite")
	}
	var l mat.TriDense
	ch.LTo(&l)
	e := make([]float64, n)
	for i := range e {
		e[i] = rng.NormFloat64()
	}
	var f mat.VecDense
	f.MulVec(&l, mat.NewVecDense(n, e))
	z = make([]float64, n)
	var b strings.Builder
	b.WriteString("x,y,z\n")
	for i := range z {
		z[i] = f.AtVec(i) + math.Sqrt(tau2)*rng.NormFloat64()
		fmt.Fprintf(&b, "%.17g,%.17g,%.17g\n", x[i], y[i], z[i])
	}
	path = filepath.Join(t.TempDir(), "nugget.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, x, y, z
}

// TestFitNuggetEstimated: four bounds make tau2 the fourth parameter; the
// data have duplicate locations (legal then, refused without a nugget);
// the reported l is the dense l at the reported theta, and no point of a
// small grid around the estimate is higher; the JSON's nugget is the
// estimate and predict --theta-from takes it.
func TestFitNuggetEstimated(t *testing.T) {
	data, x, y, z := nuggetData(t, 150, 0.2)
	f := config.DefaultFit()
	f.Data, f.NB, f.Workers = data, 40, 2
	if _, err := Fit(f, Env{}); err == nil || !strings.Contains(err.Error(), "duplicate") {
		t.Fatalf("duplicates without a nugget: %v", err)
	}
	f.Lower, f.Upper = []float64{0.01, 0.005, 0.5, 1e-4}, []float64{10, 2, 0.5, 5}
	f.JSON = filepath.Join(t.TempDir(), "r.json")
	r, err := Fit(f, Env{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Theta) != 4 || strings.Join(r.Params, ",") != "sigma2,beta,nu,tau2" || r.Nugget != r.Theta[3] {
		t.Fatalf("params %v theta %v nugget %v", r.Params, r.Theta, r.Nugget)
	}
	want := denseNuggetLogLik(t, x, y, z, r.Theta)
	if math.Abs(r.LogLik-want) > 1e-10*math.Abs(want) {
		t.Fatalf("l = %.15g, dense at the estimate %.15g", r.LogLik, want)
	}
	for _, d := range [][]float64{{1.05, 1, 1, 1}, {0.95, 1, 1, 1}, {1, 1.05, 1, 1}, {1, 0.95, 1, 1}, {1, 1, 1, 1.1}, {1, 1, 1, 0.9}} {
		th := []float64{r.Theta[0] * d[0], r.Theta[1] * d[1], r.Theta[2], r.Theta[3] * d[3]}
		if l := denseNuggetLogLik(t, x, y, z, th); l > r.LogLik+1e-6 {
			t.Errorf("dense l at %v = %.10g, above the fit's %.10g", th, l, r.LogLik)
		}
	}
	t.Logf("theta %v l %.10g evaluations %d status %s", r.Theta, r.LogLik, r.Evaluations, r.Status)
	if r.Theta[3] < 0.05 || r.Theta[3] > 0.6 {
		t.Errorf("tau2 = %g, simulated with 0.2", r.Theta[3])
	}
	back, err := ReadFitResult(f.JSON)
	if err != nil {
		t.Fatal(err)
	}
	p := config.DefaultPredict()
	if err := back.ApplyTo(&p, f.JSON, func(string) bool { return false }); err != nil || p.Nugget != r.Theta[3] || len(p.Theta) != 3 {
		t.Fatalf("theta-from: %v %+v", err, p)
	}
}

// denseGLS is the reference of a fit with a mean: Sigma = sigma2 R +
// tau2 I densely, b = (X' S^-1 X)^-1 X' S^-1 z, the profile l (or REML l =
// l - 1/2 log|X' S^-1 X| + p/2 log 2 pi) and the standard errors
// sqrt(diag((X' S^-1 X)^-1)).
func denseGLS(t *testing.T, x, y, z []float64, cols [][]float64, theta []float64, reml bool) (l float64, b, se []float64) {
	t.Helper()
	n, k := len(z), len(cols)
	pts := matern.Points{X: x, Y: y}
	th := matern.Theta{Sigma2: theta[0], Beta: theta[1], Nu: theta[2]}
	s := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			c := matern.Matern(th, matern.Distance(matern.Euclidean, pts, i, pts, j))
			if i == j && len(theta) == 4 {
				c += theta[3]
			}
			s.Set(i, j, c)
		}
	}
	var sinv mat.Dense
	if err := sinv.Inverse(s); err != nil {
		t.Fatal(err)
	}
	xm := mat.NewDense(n, k, nil)
	for c := range cols {
		for i := range cols[c] {
			xm.Set(i, c, cols[c][i])
		}
	}
	var sx, a, ainv mat.Dense
	sx.Mul(&sinv, xm)
	a.Mul(xm.T(), &sx)
	if err := ainv.Inverse(&a); err != nil {
		t.Fatal(err)
	}
	zv := mat.NewVecDense(n, append([]float64(nil), z...))
	var xsz, bv, r, sr mat.VecDense
	xsz.MulVec(sx.T(), zv)
	bv.MulVec(&ainv, &xsz)
	r.MulVec(xm, &bv)
	r.SubVec(zv, &r)
	sr.MulVec(&sinv, &r)
	var lu mat.LU
	lu.Factorize(s)
	logdet, _ := lu.LogDet()
	l = -0.5*mat.Dot(&r, &sr) - 0.5*logdet - 0.5*float64(n)*math.Log(2*math.Pi)
	if reml {
		var la mat.LU
		la.Factorize(&a)
		ld, _ := la.LogDet()
		l += -0.5*ld + 0.5*float64(k)*math.Log(2*math.Pi)
	}
	for i := 0; i < k; i++ {
		b = append(b, bv.AtVec(i))
		se = append(se, math.Sqrt(ainv.At(i, i)))
	}
	return l, b, se
}

// meanData writes n random points with z = 3 + 2 x - elev + a Matérn
// field (1, 0.1, 0.5) + noise, with a covariate column elev.
func meanData(t *testing.T, n int) (path string, x, y, z, elev []float64) {
	t.Helper()
	_, x, y, f := nuggetData(t, n, 0.05)
	rng := rand.New(rand.NewPCG(3, 9))
	z, elev = make([]float64, n), make([]float64, n)
	var b strings.Builder
	b.WriteString("x,y,z,elev\n")
	for i := range z {
		elev[i] = rng.Float64()
		z[i] = 3 + 2*x[i] - elev[i] + f[i]
		fmt.Fprintf(&b, "%.17g,%.17g,%.17g,%.17g\n", x[i], y[i], z[i], elev[i])
	}
	path = filepath.Join(t.TempDir(), "mean.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, x, y, z, elev
}

// TestFitMean: constant, linear and named-column means, ML and REML,
// profiled or not, with an estimated nugget: the reported l, coefficients
// and standard errors are the dense GLS ones at the reported theta; the
// JSON carries the mean, and predict --theta-from makes universal kriging
// that matches the dense one.
func TestFitMean(t *testing.T) {
	data, x, y, z, elev := meanData(t, 130)
	one := make([]float64, len(z))
	for i := range one {
		one[i] = 1
	}
	cases := []struct {
		mean    string
		reml    bool
		profile string
		cols    [][]float64
		terms   string
	}{
		{"constant", false, "auto", [][]float64{one}, "intercept"},
		{"linear", true, "auto", [][]float64{one, x, y}, "intercept,x,y"},
		{"elev", true, "off", [][]float64{one, elev}, "intercept,elev"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/reml=%v/profile=%s", c.mean, c.reml, c.profile), func(t *testing.T) {
			f := config.DefaultFit()
			f.Data, f.NB, f.Workers, f.Mean, f.REML, f.Profile = data, 40, 2, c.mean, c.reml, c.profile
			f.Lower, f.Upper = []float64{0.01, 0.005, 0.5, 1e-4}, []float64{10, 2, 0.5, 5}
			f.JSON = filepath.Join(t.TempDir(), "r.json")
			r, err := Fit(f, Env{})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("theta %v l %.10g evaluations %d beta %v se %v", r.Theta, r.LogLik, r.Evaluations, r.MeanCoef, r.MeanStdErr)
			l, b, se := denseGLS(t, x, y, z, c.cols, r.Theta, c.reml)
			if math.Abs(r.LogLik-l) > 1e-9*math.Abs(l) || strings.Join(r.MeanTerms, ",") != c.terms || !r.REML == c.reml {
				t.Fatalf("l %.15g, dense %.15g; terms %v reml %v", r.LogLik, l, r.MeanTerms, r.REML)
			}
			for i := range b {
				if math.Abs(r.MeanCoef[i]-b[i]) > 1e-9*(1+math.Abs(b[i])) || math.Abs(r.MeanStdErr[i]-se[i]) > 1e-8*se[i] {
					t.Fatalf("coefficients %v se %v, dense %v %v", r.MeanCoef, r.MeanStdErr, b, se)
				}
			}
			// The estimate is a maximum of the dense l (sigma2 and tau2 moved).
			for _, d := range []float64{0.95, 1.05} {
				th := append([]float64(nil), r.Theta...)
				th[0] *= d
				if l2, _, _ := denseGLS(t, x, y, z, c.cols, th, c.reml); l2 > r.LogLik+1e-6 {
					t.Errorf("dense l at sigma2 x %g: %.10g above %.10g", d, l2, r.LogLik)
				}
			}
			// predict --theta-from: universal kriging at two new locations.
			at := filepath.Join(t.TempDir(), "at.csv")
			if err := os.WriteFile(at, []byte("x,y,elev\n0.5,0.5,0.2\n0.11,0.93,0.7\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			back, err := ReadFitResult(f.JSON)
			if err != nil {
				t.Fatal(err)
			}
			p := config.DefaultPredict()
			p.Data, p.At, p.Out = data, at, filepath.Join(t.TempDir(), "p.csv")
			if err := back.ApplyTo(&p, f.JSON, func(string) bool { return false }); err != nil || p.Mean != c.mean {
				t.Fatalf("theta-from: %v %+v", err, p)
			}
			if _, err := Predict(p, Env{}); err != nil {
				t.Fatal(err)
			}
			out, err := os.ReadFile(p.Out)
			if err != nil {
				t.Fatal(err)
			}
			x0 := map[string][][]float64{"constant": {{1, 1}}, "linear": {{1, 1}, {0.5, 0.11}, {0.5, 0.93}}, "elev": {{1, 1}, {0.2, 0.7}}}[c.mean]
			zw, vw := denseUK(t, x, y, z, c.cols, []float64{0.5, 0.11}, []float64{0.5, 0.93}, x0, r.Theta)
			rows := strings.Split(strings.TrimSpace(string(out)), "\n")[1:]
			for i, row := range rows {
				var a, bb, zh, v float64
				if _, err := fmt.Sscanf(strings.ReplaceAll(row, ",", " "), "%g %g %g %g", &a, &bb, &zh, &v); err != nil {
					t.Fatal(err)
				}
				if math.Abs(zh-zw[i]) > 1e-8*(1+math.Abs(zw[i])) || math.Abs(v-vw[i]) > 1e-8*vw[i] {
					t.Fatalf("row %d: (%.12g, %.12g), dense (%.12g, %.12g)", i, zh, v, zw[i], vw[i])
				}
			}
		})
	}
}

// denseUK is universal kriging densely at (x2, y2) with covariates x0.
func denseUK(t *testing.T, x, y, z []float64, cols [][]float64, x2, y2 []float64, x0 [][]float64, theta []float64) (zhat, v []float64) {
	t.Helper()
	n, k := len(z), len(cols)
	pts := matern.Points{X: x, Y: y}
	th := matern.Theta{Sigma2: theta[0], Beta: theta[1], Nu: theta[2]}
	s := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			c := matern.Matern(th, matern.Distance(matern.Euclidean, pts, i, pts, j))
			if i == j {
				c += theta[3]
			}
			s.Set(i, j, c)
		}
	}
	var sinv mat.Dense
	if err := sinv.Inverse(s); err != nil {
		t.Fatal(err)
	}
	xm := mat.NewDense(n, k, nil)
	for c := range cols {
		for i := range cols[c] {
			xm.Set(i, c, cols[c][i])
		}
	}
	var sx, a, ainv mat.Dense
	sx.Mul(&sinv, xm)
	a.Mul(xm.T(), &sx)
	if err := ainv.Inverse(&a); err != nil {
		t.Fatal(err)
	}
	zv := mat.NewVecDense(n, z)
	var xsz, b, r, sr mat.VecDense
	xsz.MulVec(sx.T(), zv)
	b.MulVec(&ainv, &xsz)
	r.MulVec(xm, &b)
	r.SubVec(zv, &r)
	sr.MulVec(&sinv, &r)
	q := matern.Points{X: x2, Y: y2}
	for j := range x2 {
		c := mat.NewVecDense(n, nil)
		for i := 0; i < n; i++ {
			c.SetVec(i, matern.Matern(th, matern.Distance(matern.Euclidean, pts, i, q, j)))
		}
		var sc mat.VecDense
		sc.MulVec(&sinv, c)
		zh := mat.Dot(c, &sr)
		d := mat.NewVecDense(k, nil)
		for cc := 0; cc < k; cc++ {
			zh += x0[cc][j] * b.AtVec(cc)
			var xs float64
			for i := 0; i < n; i++ {
				xs += xm.At(i, cc) * sc.AtVec(i)
			}
			d.SetVec(cc, x0[cc][j]-xs)
		}
		var ad mat.VecDense
		ad.MulVec(&ainv, d)
		zhat = append(zhat, zh)
		v = append(v, th.Sigma2+theta[3]-mat.Dot(c, &sc)+mat.Dot(d, &ad))
	}
	return zhat, v
}

// TestModelInputErrors: the new model options' bad inputs are input
// errors (exit 2) with one-line messages naming what is wrong.
func TestModelInputErrors(t *testing.T) {
	data, _, _, _, _ := meanData(t, 40)
	dir := t.TempDir()
	twice := filepath.Join(dir, "twice.csv")
	if err := os.WriteFile(twice, []byte("x,y,z,a,b\n0.1,0.2,1,1,2\n0.3,0.1,2,2,4\n0.5,0.9,0,3,6\n0.7,0.4,1,4,8\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		set  func(*config.Fit)
		want string
	}{
		{"missing column", func(f *config.Fit) { f.Mean = "slope" }, `no column "slope"`},
		{"collinear", func(f *config.Fit) { f.Data, f.Mean = twice, "a,b" }, "linearly dependent"},
		{"reml without mean", func(f *config.Fit) { f.REML = true }, "--reml needs a mean model"},
		{"profile on with a fixed nugget", func(f *config.Fit) {
			f.Profile, f.Nugget, f.Lower, f.Upper = "on", 0.1, []float64{0.1, 0.1, 0.1}, []float64{1, 1, 1}
		}, "--profile on: a fixed nugget"},
		{"nugget beside tau2 bounds", func(f *config.Fit) {
			f.Lower, f.Upper, f.Nugget = []float64{0.1, 0.1, 0.1, 0.1}, []float64{1, 1, 1, 1}, 0.2
		}, "the nugget is the fourth parameter"},
	}
	for _, c := range cases {
		f := config.DefaultFit()
		f.Data, f.NB, f.Workers = data, 20, 1
		f.Lower, f.Upper = []float64{0.01, 0.01, 0.5, 0.01}, []float64{5, 1, 0.5, 1} // duplicates: a nugget
		c.set(&f)
		_, err := Fit(f, Env{})
		if err == nil || !IsInput(err) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v (input %v), want %q", c.name, err, IsInput(err), c.want)
		}
	}
	// predict: the mean's column is missing at the new locations.
	at := filepath.Join(dir, "at.csv")
	if err := os.WriteFile(at, []byte("x,y\n0.5,0.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := config.DefaultPredict()
	p.Data, p.At, p.Out, p.Theta, p.Mean = data, at, filepath.Join(dir, "p.csv"), []float64{1, 0.1, 0.5, 0.1}, "elev"
	if _, err := Predict(p, Env{}); err == nil || !IsInput(err) || !strings.Contains(err.Error(), `no column "elev"`) {
		t.Errorf("predict without the column at --at: %v", err)
	}
}
