package main

import "testing"

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
