package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/exageostat/exageostat/pkg/tlr"
)

// TestBenchTLR: bench tlr times every swept tile size and the model's
// (ModelNB of the sampled rank, cut into equal tiles: checked here from the
// printed rank), marks the best, and gives the model's time over it.
func TestBenchTLR(t *testing.T) {
	bin := binary(t)
	o, e, code := run(t, bin, "bench", "tlr", "--n", "900", "--nb-sweep", "150,300", "--workers", "2", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	var r struct {
		ModelNB    int     `json:"model_nb"`
		ModelRank  float64 `json:"model_sampled_rank"`
		Best       int     `json:"best_nb"`
		ModelRatio float64 `json:"model_ratio"`
		Rows       []struct {
			NB       int
			Seconds  float64
			MeanRank float64 `json:"mean_rank"`
			Model    bool
		}
	}
	if err := json.Unmarshal([]byte(o), &r); err != nil {
		t.Fatalf("%v: %s", err, o)
	}
	want := tlr.FullTiles(900, min(max(int(math.Round(tlr.ModelNB(900, r.ModelRank, 1))), 160), 4096, 450))
	if r.ModelNB != want || !(r.ModelRank > 0) {
		t.Errorf("model nb %d from rank %g, want %d", r.ModelNB, r.ModelRank, want)
	}
	best, model := math.Inf(1), 0.0
	nbs := map[int]bool{}
	for _, row := range r.Rows {
		nbs[row.NB] = true
		if !(row.Seconds > 0) || row.MeanRank < 0 {
			t.Errorf("row %+v", row)
		}
		if row.Seconds < best {
			best = row.Seconds
		}
		if row.Model {
			model = row.Seconds
		}
	}
	if !nbs[150] || !nbs[300] || !nbs[r.ModelNB] || math.Abs(r.ModelRatio-model/best) > 1e-12 {
		t.Errorf("rows %+v, ratio %g", r.Rows, r.ModelRatio)
	}
	_, stderr, code := run(t, bin, "bench", "tlr", "--nb-sweep", "x")
	if code != 2 || !strings.Contains(stderr, `--nb-sweep: "x" is not a tile size`) {
		t.Errorf("bad sweep: exit %d, %s", code, stderr)
	}
}

// TestBenchTLROpt: bench tlr-opt times the baseline, each lookahead depth,
// each hierarchical potrf size and the first of each together; the
// lookahead gives the baseline's l bitwise, the hierarchical potrf within
// 1e-12; the ratios are the printed times' quotients; on a 2 x 2 grid the
// block-cyclic distribution puts the diagonal on 2 nodes, the hybrid one
// on all 4.
func TestBenchTLROpt(t *testing.T) {
	bin := binary(t)
	o, e, code := run(t, bin, "bench", "tlr-opt", "--n", "900", "--nb", "150", "--workers", "2", "--reps", "1",
		"--lookahead", "1", "--hpotrf", "40", "--sim-workers", "2,8", "--sim-ranks", "4", "--dist-bands", "0", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	var r struct {
		Variants []struct {
			Name      string
			Lookahead int
			HPotrf    int
			Seconds   float64
			Speedup   float64 `json:"speedup_vs_baseline"`
			LogLik    float64
			RelDiff   float64 `json:"rel_diff_vs_baseline"`
			Sim       []struct {
				Workers int
				Seconds float64
			}
		}
		Dist []struct {
			Variant   string
			Dist      string `json:"distribution"`
			Seconds   float64
			Messages  int
			DiagNodes int     `json:"diag_nodes"`
			Speedup   float64 `json:"speedup_vs_bc"`
		} `json:"distributed"`
	}
	if err := json.Unmarshal([]byte(o), &r); err != nil {
		t.Fatalf("%v: %s", err, o)
	}
	names := []string{"baseline", "lookahead 1", "hpotrf 40", "lookahead 1 + hpotrf 40"}
	if len(r.Variants) != len(names) {
		t.Fatalf("variants %+v", r.Variants)
	}
	base := r.Variants[0]
	for i, v := range r.Variants {
		if v.Name != names[i] || !(v.Seconds > 0) || math.Abs(v.Speedup-base.Seconds/v.Seconds) > 1e-9*v.Speedup || len(v.Sim) != 2 {
			t.Errorf("variant %+v", v)
		}
		rel := math.Abs(v.LogLik-base.LogLik) / math.Abs(base.LogLik)
		if (v.HPotrf == 0 && v.LogLik != base.LogLik) || rel > 1e-12 || v.RelDiff != rel {
			t.Errorf("%s: l = %.17g, baseline %.17g (reported rel diff %g)", v.Name, v.LogLik, base.LogLik, v.RelDiff)
		}
	}
	if len(r.Dist) != 4 {
		t.Fatalf("distributed replays %+v", r.Dist)
	}
	for i, d := range r.Dist {
		want := 2
		if i%2 == 1 {
			want = 4
			if math.Abs(d.Speedup-r.Dist[i-1].Seconds/d.Seconds) > 1e-9*d.Speedup {
				t.Errorf("%+v: speedup against %+v", d, r.Dist[i-1])
			}
		}
		if d.DiagNodes != want || d.Messages == 0 || !(d.Seconds > 0) {
			t.Errorf("replay %+v: want the diagonal on %d nodes", d, want)
		}
	}
}
