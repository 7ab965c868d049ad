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
