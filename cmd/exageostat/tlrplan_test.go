package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/tlr"
)

// TestFitTLRPlan: fit --computation tlr without --nb takes seed 002's
// tile size (tlr.AutoNB, computed here from the file's points in Morton
// order at the fixed theta) and logs it; its memory check counts the
// low-rank tiles at a sampled rank (a limit below that estimate is refused
// with a message that says it is an estimate from a sample).
func TestFitTLRPlan(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	const n = 4000
	g := dataset.Grid(n, 7)
	rng := rand.New(rand.NewPCG(7, 1))
	var b strings.Builder
	b.WriteString("x,y,z\n")
	for i := range g.X {
		fmt.Fprintf(&b, "%.17g,%.17g,%.17g\n", g.X[i], g.Y[i], rng.NormFloat64())
	}
	data := filepath.Join(dir, "data.csv")
	if err := os.WriteFile(data, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// The expected tile size, independently of fit: the Morton-ordered
	// points of the file, theta = (1, 0.1, 0.5), one node.
	d := dataset.Permute(g, dataset.MortonOrder(g))
	pts := matern.Points{X: d.X, Y: d.Y}
	k, err := matern.NewMatern(matern.Theta{Sigma2: 1, Beta: 0.1, Nu: 0.5}, matern.MaxDistance(matern.Euclidean, pts))
	if err != nil {
		t.Fatal(err)
	}
	wantNB, _ := tlr.AutoNB(tlr.New(tlr.ACA, 1e-9), k, matern.Euclidean, pts, 1, 160, 4096, 16, 1)

	for _, c := range []struct {
		name  string
		limit string
		code  int
		want  string
	}{
		{"runs", "400MB", 0, fmt.Sprintf("nb=%d from seed 002's tile-size model", wantNB)},
		{"refused under the estimate", "70MB", 2, "tlr: an estimate from a sample of compressed tiles"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := filepath.Join(dir, "fit.json")
			os.Remove(res)
			_, stderr, code := run(t, bin, "fit", "--data", data, "--computation", "tlr", "--lb", "1,0.1,0.5", "--ub", "1,0.1,0.5",
				"--max-evals", "1", "--workers", "2", "--memory-limit", c.limit, "--json", res, "--checkpoint", "none")
			if code != c.code || !strings.Contains(stderr, c.want) {
				t.Fatalf("exit %d (want %d), stderr lacks %q:\n%s", code, c.code, c.want, stderr)
			}
			if code != 0 {
				return
			}
			if !strings.Contains(stderr, "tlr: memory need ") || !strings.Contains(stderr, "an estimate from a sample") {
				t.Errorf("the log lacks the memory estimate:\n%s", stderr)
			}
			var r struct {
				NB int `json:"nb"`
			}
			raw, err := os.ReadFile(res)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(raw, &r); err != nil || r.NB != wantNB {
				t.Errorf("JSON nb %d (%v), want the model's %d", r.NB, err, wantNB)
			}
		})
	}
}
