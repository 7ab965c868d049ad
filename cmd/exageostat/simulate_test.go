package main

import (
	"encoding/csv"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSimulateConditionalIsPredictDraws: simulate --conditional writes the
// same file as predict --draws with the same seed (the draws that
// pkg/predict's Monte-Carlo test checks against the dense kriging mean and
// covariance), for new observations and for the latent field; the latent
// draws' variance column is the observation's minus the nugget, and
// another seed gives other draws about the same mean.
func TestSimulateConditionalIsPredictDraws(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(8, 9))
	var b strings.Builder
	b.WriteString("x,y,z\n")
	for range 50 {
		fmt.Fprintf(&b, "%v,%v,%v\n", rng.Float64(), rng.Float64(), rng.NormFloat64())
	}
	writeFile(t, dir, "d.csv", b.String())
	writeFile(t, dir, "at.csv", "x,y\n0.5,0.5\n0.1,0.9\n0.33,0.2\n")
	read := func(name string) [][]string {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		rows, err := csv.NewReader(f).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	common := []string{"--data", filepath.Join(dir, "d.csv"), "--at", filepath.Join(dir, "at.csv"), "--theta", "1,0.1,0.5,0.2", "--draws", "5", "--nb", "16"}
	for _, c := range []struct{ variance, seed string }{{"observation", "7"}, {"latent", "7"}, {"latent", "8"}} {
		s := filepath.Join(dir, "s-"+c.variance+c.seed+".csv")
		p := filepath.Join(dir, "p-"+c.variance+c.seed+".csv")
		if _, e, code := run(t, bin, append([]string{"simulate", "--conditional", "--variance", c.variance, "--seed", c.seed, "--out", s}, common...)...); code != 0 {
			t.Fatalf("simulate: exit %d: %s", code, e)
		}
		if _, e, code := run(t, bin, append([]string{"predict", "--variance", c.variance, "--seed", c.seed, "--out", p}, common...)...); code != 0 {
			t.Fatalf("predict: exit %d: %s", code, e)
		}
		sb, _ := os.ReadFile(s)
		pb, _ := os.ReadFile(p)
		if len(sb) == 0 || string(sb) != string(pb) {
			t.Fatalf("%s seed %s: simulate --conditional wrote\n%s\npredict --draws wrote\n%s", c.variance, c.seed, sb, pb)
		}
		rows := read(filepath.Base(s))
		if len(rows) != 4 || strings.Join(rows[0], ",") != "x,y,z_hat,variance,draw_1,draw_2,draw_3,draw_4,draw_5" {
			t.Fatalf("%v", rows)
		}
	}
	obs, lat, lat8 := read("s-observation7.csv"), read("s-latent7.csv"), read("s-latent8.csv")
	for i := 1; i < 4; i++ {
		if d := num(obs[i][3]) - num(lat[i][3]); math.Abs(d-0.2) > 1e-12 || obs[i][2] != lat[i][2] || lat[i][2] != lat8[i][2] {
			t.Errorf("row %d: variances %s, %s (difference %g, want the nugget 0.2); means %s, %s, %s", i, obs[i][3], lat[i][3], d, obs[i][2], lat[i][2], lat8[i][2])
		}
		if lat[i][4] == lat8[i][4] || lat[i][4] == obs[i][4] {
			t.Errorf("row %d: the same draw for another seed or variance: %s %s %s", i, lat[i][4], lat8[i][4], obs[i][4])
		}
	}
}
