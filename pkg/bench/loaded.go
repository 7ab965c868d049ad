package bench

import (
	"fmt"
	"sync"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/config"
)

// CalibrateLoaded is Calibrate with the machine as loaded as in a run:
// it runs Calibrate on workers goroutines of every rank of w at once (each
// goroutine one worker, BLAS single-threaded as set by the caller) and
// returns, per task kind, the median over the goroutines of their median
// durations, averaged over the ranks (every rank returns the same).
// Each kind's Samples hold the calling rank's samples of every goroutine,
// its Spread is theirs, its Wall the median of the goroutines', it is
// Stable if every goroutine's was, and its Medians are the first
// goroutine's; Progress, if set, is called by the first goroutine only.
//
// With every core busy, tasks run 10-30 % slower than on one idle core
// (shared caches and memory bandwidth, lower all-core clocks), and a
// simulation calibrated on an idle core predicts runs that are too fast.
func CalibrateLoaded(o CalibrateOptions, workers int, w comm.Comm) (*Calibration, error) {
	if workers < 1 {
		return nil, fmt.Errorf("bench: calibrate needs workers >= 1 (got %d)", workers)
	}
	if w == nil {
		w = comm.Self{}
	}
	cals, local, err := calibrateGoroutines(o, workers)
	if err != nil {
		return nil, err
	}
	kinds := config.TaskKinds()
	mean, err := rankMean(w, kinds, local, nil)
	if err != nil {
		return nil, err
	}
	res := *cals[0]
	res.Workers, res.Ranks = workers, w.Size()
	res.Kinds = nil
	for k, kt := range cals[0].Kinds {
		kt.Seconds = mean[kt.Kind]
		kt.Samples = nil
		var walls []float64
		for _, c := range cals {
			kt.Samples = append(kt.Samples, c.Kinds[k].Samples...)
			walls = append(walls, c.Kinds[k].Wall)
			kt.Stable = kt.Stable && c.Kinds[k].Stable
		}
		kt.Wall = median(walls)
		kt.Spread = spread(kt.Samples)
		if kt.Gflops > 0 && kt.Seconds > 0 {
			kt.Gflops = kt.Flops / kt.Seconds * 1e-9
		}
		res.Kinds = append(res.Kinds, kt)
	}
	return &res, nil
}

// calibrateGoroutines runs Calibrate on workers goroutines at once and
// returns their results and, per kind (config.TaskKinds order), the median
// over the goroutines.
func calibrateGoroutines(o CalibrateOptions, workers int) ([]*Calibration, []float64, error) {
	cals := make([]*Calibration, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for i := range cals {
		wg.Add(1)
		go func() {
			defer wg.Done()
			oi := o
			if i > 0 {
				oi.Progress = nil
			}
			cals[i], errs[i] = Calibrate(oi)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, nil, err
		}
	}
	kinds := config.TaskKinds()
	local := make([]float64, len(kinds))
	for k, kind := range kinds {
		var s []float64
		for _, c := range cals {
			s = append(s, c.Durations()[kind])
		}
		local[k] = median(s)
	}
	return cals, local, nil
}
