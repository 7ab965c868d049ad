package job

import (
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/vecchia"
)

// vecchiaLiveEnv names the fit a re-executed test binary runs
// (TestVecchiaLiveChild): "n,grouping".
const vecchiaLiveEnv = "EXAGEOSTAT_TEST_VECCHIA_LIVE"

// vecchiaLiveFit is the fit TestVecchiaLive measures: n simulated points
// (Matérn, nugget, constant mean), m = 30 and the check at m2 = 60, 2
// workers, the blocks grouped or not (grouping "none").
func vecchiaLiveFit(n int, grouping string) config.Fit {
	cfg := config.DefaultFit()
	cfg.Computation, cfg.N, cfg.Seed, cfg.Workers, cfg.Mean = "vecchia", n, 29, 2, "constant"
	cfg.Theta = []float64{1, 0.1, 0.8, 0.1}
	cfg.Lower, cfg.Upper = []float64{0.01, 0.001, 0.1, 0.001}, []float64{10, 5, 3, 2}
	cfg.Vecchia.M, cfg.Vecchia.Grouping, cfg.Checkpoint = 30, grouping, "none"
	return cfg
}

// TestVecchiaLiveChild is the child process of TestVecchiaLive: the fit
// vecchiaLiveEnv names, with the collector at GOGC = 1 (a cycle every 1 %
// of the live heap, so that the live heap it reports follows the fit's
// closely), the largest live heap (runtime/metrics /gc/heap/live:bytes)
// sampled every 200 microseconds less the live heap before the fit,
// printed as "live BYTES". Without vecchiaLiveEnv it returns.
func TestVecchiaLiveChild(t *testing.T) {
	spec := os.Getenv(vecchiaLiveEnv)
	if spec == "" {
		return
	}
	var n int
	var grouping string
	if _, err := fmt.Sscanf(strings.Replace(spec, ",", " ", 1), "%d %s", &n, &grouping); err != nil {
		t.Fatalf("%s=%q: %v", vecchiaLiveEnv, spec, err)
	}
	debug.SetGCPercent(1)
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	read := func() int64 { metrics.Read(sample); return int64(sample[0].Value.Uint64()) }
	base := read()
	var most atomic.Int64
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-time.After(200 * time.Microsecond):
				most.Store(max(most.Load(), read()))
			}
		}
	}()
	r, err := Fit(vecchiaLiveFit(n, grouping), Env{})
	close(done)
	if err != nil {
		t.Fatal(err)
	}
	if r.VecchiaCheck == nil || r.VecchiaCheck.Skipped != "" {
		t.Fatalf("the check was not made: %+v", r.VecchiaCheck)
	}
	fmt.Printf("live %d\n", max(most.Load(), read())-base)
}

// TestVecchiaLive checks the live bound of a Vecchia fit
// (vecchia.FitNeed's Live, less its floor) against the largest live heap
// of the fit with its check, in a fresh process (TestVecchiaLiveChild):
// at N = 12000, m = 30, m2 = 60, the blocks grouped and not (the
// bound's worst case). Measured (Intel Xeon, 2026-11-27): 13.8 and
// 16.5 MB of 31.1 MB (the check's evaluation is the largest phase at
// this N: 7.5 MB for the points, 23.6 MB for the work space of two
// workers and the sums); at N = 20000, 21.8 and 26.1 MB of 37.5 MB.
func TestVecchiaLive(t *testing.T) {
	if raceBuild {
		t.Skip("the race detector's shadow memory is not the fit's; checked by the plain test run")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const n = 12000
	groupings := []string{"blocks", "none"}
	outs := make([][]byte, len(groupings))
	errs := make([]error, len(groupings))
	var wg sync.WaitGroup
	for i, grouping := range groupings { // both at once: each measures its own heap
		wg.Go(func() {
			cmd := exec.Command(exe, "-test.run=^TestVecchiaLiveChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d,%s", vecchiaLiveEnv, n, grouping), "GOMEMLIMIT=off")
			outs[i], errs[i] = cmd.CombinedOutput()
		})
	}
	wg.Wait()
	for i, grouping := range groupings {
		if errs[i] != nil {
			t.Fatalf("%s: %v\n%s", grouping, errs[i], outs[i])
		}
		var live int64
		for _, line := range strings.Split(string(outs[i]), "\n") {
			if _, err := fmt.Sscanf(line, "live %d", &live); err == nil {
				break
			}
		}
		cfg := vecchiaLiveFit(n, grouping)
		bound := vecchia.FitNeed(vecchia.FitShape{N: n, M: 30, Coarse: vecchiaCoarseM, Wide: 60, NCov: 1, Params: 4, Workers: cfg.Workers}).Live - 16<<20
		t.Logf("%s: live %d, bound %d (%.2fx)", grouping, live, bound, float64(bound)/float64(live))
		if live <= 0 || live > bound {
			t.Errorf("grouping %s: the fit's live heap %d, its bound %d", grouping, live, bound)
		}
	}
}
