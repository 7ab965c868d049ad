package likelihood

import (
	"math"
	"testing"

	"github.com/exageostat/exageostat/pkg/kind"
	"github.com/exageostat/exageostat/pkg/runtime"
)

// TestSchedulersBitwise: under every scheduler, on 1, 2 and 3 CPU workers
// with a host-test device, l is bitwise the one-worker prio value, which
// matches the dense reference.
func TestSchedulersBitwise(t *testing.T) {
	p := problem(270, 7)
	const nb = 30
	thetas := [][]float64{{1, 0.1, 0.5}, {1.4, 0.05, 1.5}}
	want := make([]float64, len(thetas))
	rt := runtime.New(runtime.Options{Workers: 1})
	ev, err := New(p, nb, rt, false)
	if err != nil {
		t.Fatal(err)
	}
	for i, th := range thetas {
		if want[i], _, err = ev.LogLik(th); err != nil {
			t.Fatal(err)
		}
		if ref := denseLogLik(t, p, th); math.Abs(want[i]-ref) > 1e-10*math.Abs(ref) {
			t.Fatalf("l %v, dense %v", want[i], ref)
		}
	}
	rt.Close()
	model := planted{"cpu": {kind.Gemm: 1e-3, kind.Potrf: 1e-3}, "host-test": {kind.Gemm: 1e-4, kind.Potrf: 1e-4}}
	for _, s := range runtime.Schedulers() {
		for workers := 1; workers <= 3; workers++ {
			rt := runtime.New(runtime.Options{Workers: workers, Scheduler: s, PerfModel: model,
				Devices: []runtime.Device{&runtime.HostTest{Bytes: 1 << 22}}})
			ev, err := New(p, nb, rt, false)
			if err != nil {
				t.Fatal(err)
			}
			for i, th := range thetas {
				l, _, err := ev.LogLik(th)
				if err != nil || l != want[i] {
					t.Errorf("%s, %d workers, theta %v: l = %v (%v), want %v", s, workers, th, l, err, want[i])
				}
			}
			if err := rt.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
}
