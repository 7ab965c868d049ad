package vecchia

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/vecchia/neighbors"
)

// gpgpDir holds GpGp's references (testdata/r/vecchia_loglik.R wrote
// them; testdata/r/README.md says how).
var gpgpDir = filepath.Join("..", "..", "testdata", "r")

// gpgpCase is one entry of vecchia_loglik.json: GpGp's Vecchia
// log-likelihoods on the sets file of the data, at one theta and
// conditioning set size, one block per location.
type gpgpCase struct {
	Data     string      `json:"data"`
	M        int         `json:"m"`
	Covfun   string      `json:"covfun"`
	Case     int         `json:"case"`
	Theta    []float64   `json:"theta"`
	MeanZero float64     `json:"loglik_meanzero"` // vecchia_meanzero_loglik
	LogLik   float64     `json:"loglik"`          // vecchia_profbeta_loglik_grad_info (constant mean)
	BetaHat  float64     `json:"beta_hat"`        // its GLS mean
	Names    []string    `json:"theta_names"`
	Grad     []float64   `json:"grad_theta"`
	Info     [][]float64 `json:"info_theta"`
}

// readGpGpCases reads vecchia_loglik.json.
func readGpGpCases(t *testing.T) []gpgpCase {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(gpgpDir, "vecchia_loglik.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cs []gpgpCase
	if err := json.Unmarshal(b, &cs); err != nil {
		t.Fatal(err)
	}
	return cs
}

// gpgpData is a reference data set in the file's row order with its
// ordering and m = 30 conditioning sets (the sets file GpGp read).
type gpgpData struct {
	pts  matern.Points
	z    []float64
	perm []int32
	sets *neighbors.Sets
}

// readGpGpData reads vecchia_<name>.csv (x,y,z) and vecchia_<name>_sets.txt.
func readGpGpData(t *testing.T, name string) gpgpData {
	t.Helper()
	data, err := dataset.ReadCSV(filepath.Join(gpgpDir, "vecchia_"+name+".csv"))
	if err != nil {
		t.Fatal(err)
	}
	d := gpgpData{pts: matern.Points{X: data.X, Y: data.Y}, z: data.Obs}
	f, err := os.Open(filepath.Join(gpgpDir, "vecchia_"+name+"_sets.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	perm, s, err := neighbors.Read(f, f.Name())
	if err != nil {
		t.Fatal(err)
	}
	if len(perm) != len(d.z) {
		t.Fatalf("%s: %d locations, the data %d", f.Name(), len(perm), len(d.z))
	}
	for _, p := range perm {
		d.perm = append(d.perm, int32(p))
	}
	d.sets = s
	return d
}

// firstM returns the first m neighbours of each row of s (flat, stride m).
func firstM(s *neighbors.Sets, m int) []int32 {
	out := make([]int32, 0, s.N*m)
	for i := 0; i < s.N; i++ {
		out = append(out, s.Idx[i*s.M:i*s.M+m]...)
	}
	return out
}

// TestAgainstGpGp evaluates the Vecchia log-likelihood, its gradient and
// its Fisher information on the ordering and conditioning sets that GpGp
// 0.5.1 read through its NNarray (testdata/r/vecchia_loglik.R): one block
// per location (GpGp's ungrouped vecchia_meanzero_loglik and
// vecchia_profbeta_loglik), m = 10 and 30, the exponential (nu fixed at
// 1/2) and Matérn with nu free, all with a nugget; with a zero mean and
// with a constant mean profiled by GLS. GpGp's theta is ours with the
// nugget as a ratio (the script maps its gradient and information).
func TestAgainstGpGp(t *testing.T) {
	const (
		tolL    = 1e-9 // relative, l (issue 29)
		tolBeta = 1e-9 // relative, the GLS mean
	)
	data := map[string]gpgpData{}
	for _, c := range readGpGpCases(t) {
		d, ok := data[c.Data]
		if !ok {
			d = readGpGpData(t, c.Data)
			data[c.Data] = d
		}
		name := c.Data + "/m=" + strconv.Itoa(c.M) + "/" + c.Covfun + "/" + strconv.Itoa(c.Case)
		t.Run(name, func(t *testing.T) {
			pr := likelihood.Problem{Points: d.pts, Obs: d.z, Model: likelihood.Matern}
			plan, err := NewPlan(pr, d.perm, c.M, firstM(d.sets, c.M), Grouping{Off: true})
			if err != nil {
				t.Fatal(err)
			}
			free := []bool{true, true, c.Covfun == "matern_isotropic", true}
			r0 := eval(t, plan, c.Theta, Want{Free: free}, 2).L
			if e := relDiff(r0, c.MeanZero); e > tolL {
				t.Errorf("zero mean: l = %.15g, GpGp %.15g (relative %.1e)", r0, c.MeanZero, e)
			}
			pr.Covariates = [][]float64{ones(len(d.z))}
			plan, err = NewPlan(pr, d.perm, c.M, firstM(d.sets, c.M), Grouping{Off: true})
			if err != nil {
				t.Fatal(err)
			}
			r := eval(t, plan, c.Theta, Want{Grad: true, Free: free}, 2)
			if e := relDiff(r.Beta[0], c.BetaHat); e > tolBeta {
				t.Errorf("constant mean: beta = %.15g, GpGp %.15g (relative %.1e)", r.Beta[0], c.BetaHat, e)
			}
			if e := relDiff(r.L, c.LogLik); e > tolL {
				t.Errorf("constant mean: l = %.15g, GpGp %.15g (relative %.1e)", r.L, c.LogLik, e)
			}
			eg, ei := compareGradInfo(t, r, c)
			t.Logf("relative differences from GpGp: l %.1e (zero mean), %.1e (constant mean), beta %.1e, gradient %.1e, information %.1e",
				relDiff(r0, c.MeanZero), relDiff(r.L, c.LogLik), relDiff(r.Beta[0], c.BetaHat), eg, ei)
		})
	}
}

// compareGradInfo compares the gradient and information over GpGp's
// parameters (c.Names, a subset of sigma2, beta, nu, tau2 in order) and
// returns the largest differences, relative to the largest entry of
// GpGp's gradient and information. GpGp differentiates in nu by a finite
// difference (d_matern_isotropic), its other derivatives are closed
// forms: an entry that involves nu gets 1e-6, the others 1e-11.
func compareGradInfo(t *testing.T, r *Result, c gpgpCase) (eg, ei float64) {
	t.Helper()
	tol := func(names ...string) float64 {
		for _, n := range names {
			if n == "nu" {
				return 1e-6
			}
		}
		return 1e-11
	}
	at := map[string]int{"sigma2": 0, "beta": 1, "nu": 2, "tau2": 3}
	idx := make([]int, len(c.Names))
	for i, n := range c.Names {
		idx[i] = at[n]
	}
	gmax, imax := 0.0, 0.0
	for i := range idx {
		gmax = math.Max(gmax, math.Abs(c.Grad[i]))
		for j := range idx {
			imax = math.Max(imax, math.Abs(c.Info[i][j]))
		}
	}
	for i, a := range idx {
		e := math.Abs(r.Grad[a]-c.Grad[i]) / gmax
		eg = math.Max(eg, e)
		if e > tol(c.Names[i]) {
			t.Errorf("dl/d%s = %.12g, GpGp %.12g (%.1e of the largest)", c.Names[i], r.Grad[a], c.Grad[i], e)
		}
		for j, b := range idx {
			e := math.Abs(r.Info[a][b]-c.Info[i][j]) / imax
			ei = math.Max(ei, e)
			if e > tol(c.Names[i], c.Names[j]) {
				t.Errorf("info[%s,%s] = %.12g, GpGp %.12g (%.1e of the largest)", c.Names[i], c.Names[j], r.Info[a][b], c.Info[i][j], e)
			}
		}
	}
	return eg, ei
}

// ones returns n ones (the constant mean's design column).
func ones(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 1
	}
	return v
}
