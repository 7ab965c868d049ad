package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/exageostat/exageostat/pkg/bench"
)

// TestSchedulerInputs: a performance model whose durations are not task
// durations (1e308 s made every expected finish +Inf, and dmda hung for
// 12 minutes) is refused when it is read, with exit 2 naming the file and
// the entry; the new schedulers run a fit.
func TestSchedulerInputs(t *testing.T) {
	huge := `{"format":"exageostat-perfmodel/1","entries":[
  {"arch":"cpu","kind":"gemm","size":100,"nb":10,"samples":3,"mean_s":1e308,"stddev_s":0}]}`
	cases := []cliCase{
		{name: "dmda huge model", args: []string{"fit", "--data", "@d.csv", "--scheduler", "dmda", "--perfmodel", "@pm.json"},
			files: map[string]string{"pm.json": huge}, want: "pm.json: entries[0] (cpu gemm): mean_s: 1e+308 s is not the duration of a task"},
		{name: "dmdas huge model", args: []string{"fit", "--data", "@d.csv", "--scheduler", "dmdas", "--perfmodel", "@pm.json"},
			files: map[string]string{"pm.json": huge}, want: "mean_s: 1e+308 s"},
		{name: "bench scheduler", args: []string{"bench", "likelihood", "--scheduler", "heft"}, want: "--scheduler must be one of eager, prio, ws, lws, dmda, dmdas"},
	}
	for _, s := range []string{"ws", "dmdas"} {
		cases = append(cases, cliCase{name: "fit " + s, args: []string{"fit", "--data", "@d.csv", "--nb", "16", "--workers", "2", "--scheduler", s, "--max-evals", "3"},
			ok: true, lines: true, want: "sigma2"})
	}
	runCLICases(t, binary(t), cases)
}

// TestBenchPin: bench likelihood --pin both times pinned and unpinned
// evaluations in pairs and reports their ratio; l, the same both ways, is
// the dense reference's of bench likelihood (to 1e-9); a pin mode that is
// not one is refused naming the flag.
func TestBenchPin(t *testing.T) {
	bin := binary(t)
	args := []string{"bench", "likelihood", "--n", "400", "--nb", "100", "--workers", "2", "--json"}
	out, e, code := run(t, bin, args...)
	var ref struct {
		Ref float64 `json:"reference_loglik"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &ref) != nil || ref.Ref == 0 {
		t.Fatalf("bench likelihood: exit %d: %s%s", code, out, e)
	}
	out, e, code = run(t, bin, append(args, "--pin", "both", "--reps", "2", "--reference=false")...)
	var pin bench.PinResult
	if code != 0 || json.Unmarshal([]byte(out), &pin) != nil {
		t.Fatalf("--pin both: exit %d: %s%s", code, out, e)
	}
	if math.Abs(pin.LogLik-ref.Ref) > 1e-9*math.Abs(ref.Ref) || len(pin.Ratios) != 2 || !(pin.Ratio > 0) ||
		pin.Pinned.Median <= 0 || pin.Unpinned.Median <= 0 || !strings.Contains(pin.PinNote, "pinned") {
		t.Errorf("--pin both: %+v; want l = %v, 2 pair ratios and a note", pin, ref.Ref)
	}
	runCLICases(t, bin, []cliCase{{name: "bench pin", args: []string{"bench", "likelihood", "--pin", "always"},
		want: "bench likelihood: --pin must be auto, on, off or both"}})
}
