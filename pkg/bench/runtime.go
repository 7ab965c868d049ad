package bench

import (
	"fmt"
	"time"

	"github.com/exageostat/exageostat/pkg/runtime"
)

// OverheadResult is the runtime's cost per task, in microseconds, for empty
// tasks submitted and completed: as a chain (each task RW on the same handle,
// so each waits for the previous one) and as independent tasks (each W on a
// handle of its own).
type OverheadResult struct {
	Tasks             int     `json:"tasks"`
	Workers           int     `json:"workers"`
	Runs              int     `json:"runs"`
	ChainMicros       float64 `json:"chain_us_per_task"`
	IndependentMicros float64 `json:"independent_us_per_task"`
	// The spreads over the runs, in microseconds per task.
	Chain       Spread `json:"chain_us_per_task_spread"`
	Independent Spread `json:"independent_us_per_task_spread"`
}

// RuntimeOverhead measures submit-to-completion time per empty task, the
// median over runs repetitions.
func RuntimeOverhead(tasks, workers, runs int) OverheadResult {
	rt := runtime.New(runtime.Options{Workers: workers})
	defer rt.Close()
	noop := func(runtime.Context) error { return nil }
	one := runtime.NewHandle("chain", 0)
	own := make([]*runtime.Handle, tasks)
	for i := range own {
		own[i] = runtime.NewHandle(fmt.Sprint("h", i), 0)
	}
	var chain, indep []float64
	for r := 0; r < runs; r++ {
		t0 := time.Now()
		for i := 0; i < tasks; i++ {
			rt.Submit(runtime.Task{Kind: "noop", Tile: [3]int{i, -1, -1},
				Access: []runtime.Access{{H: one, Mode: runtime.RW}}, Run: noop})
		}
		rt.Wait()
		chain = append(chain, time.Since(t0).Seconds())
		t0 = time.Now()
		for i := 0; i < tasks; i++ {
			rt.Submit(runtime.Task{Kind: "noop", Tile: [3]int{i, -1, -1},
				Access: []runtime.Access{{H: own[i], Mode: runtime.W}}, Run: noop})
		}
		rt.Wait()
		indep = append(indep, time.Since(t0).Seconds())
	}
	return OverheadResult{Tasks: tasks, Workers: workers, Runs: runs,
		ChainMicros:       median(chain) / float64(tasks) * 1e6,
		IndependentMicros: median(indep) / float64(tasks) * 1e6,
		Chain:             SpreadOf(chain, 1e6/float64(tasks)),
		Independent:       SpreadOf(indep, 1e6/float64(tasks))}
}
