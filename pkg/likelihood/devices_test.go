package likelihood

import (
	"errors"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/distribution"
	"github.com/exageostat/exageostat/pkg/gpu"
	"github.com/exageostat/exageostat/pkg/kind"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/tile"
)

// planted is a performance model with fixed durations (seconds) per
// architecture and kind, whatever the size: the planted slow/fast model.
type planted map[string]map[string]float64

func (p planted) Expected(arch, k string, _ int) (float64, bool) {
	d, ok := p[arch][k]
	return d, ok
}

// devOptions returns runtime options with one host-test device of the
// given capacity in bytes and scheduler sched (DMDA gets model).
func devOptions(o runtime.Options, capacity int64, sched string, model runtime.PerfModel) runtime.Options {
	o.Devices = []runtime.Device{&runtime.HostTest{Bytes: capacity}}
	o.Scheduler = sched
	if sched == runtime.DMDA {
		o.PerfModel = model
	}
	return o
}

// TestHostTestDeviceBitwise: with a host-test device (a second memory node
// whose worker runs the device kinds on its own copies), the l of every
// evaluation is bitwise the CPU-only l, which matches the dense reference,
// for block-cyclic and 1D-1D on 1 and 2 ranks, with the eager and the dmda
// scheduler, and with a device that holds the whole matrix or only 6 of
// its 45 tiles (eviction, with dirty copies written back). Under dmda
// (a model in which the device is faster) the device ran tasks and
// received copies, some prefetched; the small one evicted and wrote back;
// no device held more than its capacity.
func TestHostTestDeviceBitwise(t *testing.T) {
	p := problem(270, 5)
	const nb = 30 // 9 x 9 tiles, 45 in the lower triangle
	thetas := [][]float64{{1, 0.1, 0.5}, {1.4, 0.05, 1.5}}
	nt := tile.NewLayout(len(p.Obs), nb).NT
	rt := runtime.New(runtime.Options{Workers: 2})
	ev, err := New(p, nb, rt, false)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float64, len(thetas))
	for i, th := range thetas {
		if want[i], _, err = ev.LogLik(th); err != nil {
			t.Fatal(err)
		}
		if ref := denseLogLik(t, p, th); math.Abs(want[i]-ref) > 1e-10*math.Abs(ref) {
			t.Fatalf("CPU only %v, dense %v", want[i], ref)
		}
	}
	rt.Close()
	tileBytes := int64(8 * nb * nb)
	// Fast device for the BLAS kinds: dmda sends them there.
	model := planted{"cpu": {kind.Gemm: 1e-3, kind.Syrk: 1e-3, kind.Trmm: 1e-3, kind.Potrf: 1e-3, kind.Gemv: 1e-5},
		"host-test": {kind.Gemm: 1e-4, kind.Syrk: 1e-4, kind.Trmm: 1e-4, kind.Potrf: 1e-4, kind.Gemv: 1e-6}}
	bc := func(n int) distribution.Distribution {
		d, err := distribution.New("bc", n, 0, 0, nil, nt)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	d1, err := distribution.New("1d1d", 2, 0, 0, []float64{1, 3}, nt)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		ranks    int
		dist     distribution.Distribution
		capacity int64
		sched    string
		evict    bool
	}{
		{"1 rank bc eager big", 1, bc(1), 100 * tileBytes, runtime.Eager, false},
		{"1 rank bc dmda big", 1, bc(1), 100 * tileBytes, runtime.DMDA, false},
		{"1 rank bc dmda 6 tiles", 1, bc(1), 6 * tileBytes, runtime.DMDA, true},
		{"1 rank bc eager 6 tiles", 1, bc(1), 6 * tileBytes, runtime.Eager, false},
		{"2 ranks bc dmda", 2, bc(2), 100 * tileBytes, runtime.DMDA, false},
		{"2 ranks bc dmda 6 tiles", 2, bc(2), 6 * tileBytes, runtime.DMDA, true},
		{"2 ranks 1d1d eager", 2, d1, 100 * tileBytes, runtime.Eager, false},
		{"2 ranks 1d1d dmda 6 tiles", 2, d1, 6 * tileBytes, runtime.DMDA, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := comm.NewGroup(tc.ranks)
			var wg sync.WaitGroup
			for r := 0; r < tc.ranks; r++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ro := devOptions(runtime.Options{Workers: 1, Comm: g.Endpoint(r)}, tc.capacity, tc.sched, model)
					rt := runtime.New(ro)
					defer rt.Close()
					ev, err := NewWith(p, rt, Options{NB: nb, Owner: tc.dist.Owner})
					if err != nil {
						t.Error(err)
						return
					}
					for i, th := range thetas {
						l, _, err := ev.LogLik(th)
						if err != nil {
							t.Errorf("rank %d: %v", r, err)
							return
						}
						if l != want[i] {
							t.Errorf("rank %d, theta %v: l = %v, CPU only %v", r, th, l, want[i])
						}
					}
					ds := rt.DeviceStats()[0]
					// Eager lets whichever worker is free take a task: the
					// device may, by timing, run none.
					if tc.sched == runtime.DMDA && (ds.Tasks == 0 || ds.Loads == 0) {
						t.Errorf("rank %d: the device ran %d tasks, %d copies in", r, ds.Tasks, ds.Loads)
					}
					if ds.Peak > tc.capacity {
						t.Errorf("rank %d: device peak %d bytes > capacity %d", r, ds.Peak, tc.capacity)
					}
					if tc.evict && (ds.Evictions == 0 || ds.WriteBack == 0) {
						t.Errorf("rank %d: %d evictions, %d write-backs on a device of 6 tiles", r, ds.Evictions, ds.WriteBack)
					}
					if tc.sched == runtime.DMDA && ds.Prefetch == 0 {
						t.Errorf("rank %d: dmda prefetched nothing", r)
					}
				}()
			}
			wg.Wait()
		})
	}
}

// TestDMDAPlantedModel: with a planted model in which one worker type is
// a hundred times faster for gemm and the other a hundred times faster for the panel
// kinds (potrf, trmm, syrk), dmda sends most gemm tasks to the fast type
// and most panel tasks to the other; swapping the model swaps the
// placement. The l is bitwise the same either way.
func TestDMDAPlantedModel(t *testing.T) {
	p := problem(600, 9)
	const nb = 40            // 15 x 15 tiles: 455 gemm, 105 trmm, 105 syrk, 15 potrf
	fast, slow := 1e-5, 1e-3 // a hundred times faster
	mk := func(gemmDev bool) planted {
		g, o := fast, slow // on host-test
		if !gemmDev {
			g, o = slow, fast
		}
		return planted{
			"host-test": {kind.Gemm: g, kind.Syrk: o, kind.Trmm: o, kind.Potrf: o, kind.Gemv: 1e-6},
			"cpu":       {kind.Gemm: slow + fast - g, kind.Syrk: slow + fast - o, kind.Trmm: slow + fast - o, kind.Potrf: slow + fast - o, kind.Gemv: 1e-6},
		}
	}
	var ls []float64
	for _, gemmDev := range []bool{true, false} {
		rt := runtime.New(devOptions(runtime.Options{Workers: 1, Trace: true}, 1<<30, runtime.DMDA, mk(gemmDev)))
		ev, err := New(p, nb, rt, true)
		if err != nil {
			t.Fatal(err)
		}
		l, _, err := ev.LogLik([]float64{1, 0.1, 0.5})
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		on := func(k string) (dev, all int) {
			for _, e := range ev.Events() {
				if e.Kind == k {
					all++
					if e.Resource == "host-test" {
						dev++
					}
				}
			}
			return
		}
		gd, ga := on(kind.Gemm)
		var pd, pa int
		for _, k := range []string{kind.Potrf, kind.Trmm, kind.Syrk} {
			d, a := on(k)
			pd, pa = pd+d, pa+a
		}
		rt.Close()
		if ga != 455 || pa != 225 {
			t.Fatalf("%d gemm and %d panel tasks in the trace, want 455 and 225", ga, pa)
		}
		gf, pf := float64(gd)/float64(ga), float64(pd)/float64(pa)
		t.Logf("gemm on the device: %v: %.2f of gemm, %.2f of the panel tasks", gemmDev, gf, pf)
		if gemmDev && (gf < 0.9 || pf > 0.1) {
			t.Errorf("fast device gemm: %.2f of gemm and %.2f of the panel on the device", gf, pf)
		}
		if !gemmDev && (gf > 0.1 || pf < 0.9) {
			t.Errorf("fast device panel: %.2f of gemm and %.2f of the panel on the device", gf, pf)
		}
	}
	if ls[0] != ls[1] {
		t.Errorf("l = %v and %v with the two placements", ls[0], ls[1])
	}
}

// TestDeviceKernelsPath: a GPU's code path without the CUDA calls (package
// gpu's device over its host emulation: buffers known to tasks by address
// only, blocks of one region, the one kernel set with its checks and its
// potrf info word) gives the CPU-only l bitwise, with eviction (a device
// of 8 tiles); dmda sends the device kinds there, and a matrix that is not
// positive definite fails as ErrNotPosDef from the device's potrf.
func TestDeviceKernelsPath(t *testing.T) {
	p := problem(400, 3)
	const nb = 40
	theta := []float64{1, 0.1, 0.5}
	rt := runtime.New(runtime.Options{Workers: 1})
	ev, err := New(p, nb, rt, false)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := ev.LogLik(theta)
	rt.Close()
	if err != nil {
		t.Fatal(err)
	}
	emu := gpu.NewEmulator(0)
	dev, err := gpu.Open(emu, nb, 8*8*nb*nb)
	if err != nil {
		t.Fatal(err)
	}
	model := planted{"cpu": {kind.Gemm: 1, kind.Syrk: 1, kind.Trmm: 1, kind.Potrf: 1, kind.Gemv: 1},
		"host-test": {kind.Gemm: 1e-6, kind.Syrk: 1e-6, kind.Trmm: 1e-6, kind.Potrf: 1e-6, kind.Gemv: 1e-6}}
	rt = runtime.New(runtime.Options{Workers: 1, Devices: []runtime.Device{dev}, Scheduler: runtime.DMDA, PerfModel: model})
	defer rt.Close()
	ev, err = New(p, nb, rt, false)
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := ev.LogLik(theta)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("l = %v on the emulated device, %v CPU only", got, want)
	}
	if emu.Calls() < 220 {
		t.Errorf("the emulated device ran %d routines", emu.Calls())
	}
	ds := rt.DeviceStats()[0]
	// 55 tiles: 10 potrf, 45 trmm, 45 syrk, 120 gemm, and the solve's gemv.
	if ds.Tasks < 220 || ds.Evictions == 0 {
		t.Errorf("device: %d tasks, %d evictions", ds.Tasks, ds.Evictions)
	}
	// Points 0 and 1 at one location with sigma^2 = 1: Sigma's leading 2 x 2
	// block is all ones, so the second pivot is 1 - 1*1 = 0 exactly in any
	// kernel set (a location repeated across tiles leaves a pivot whose sign
	// is rounding's: OPENBLAS_CORETYPE=Haswell factors it).
	p.Points.X[1], p.Points.Y[1] = p.Points.X[0], p.Points.Y[0]
	ev2, err := New(p, nb, rt, false)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = ev2.LogLik([]float64{1, 0.3, 2.5})
	if !errors.Is(err, ErrNotPosDef) || !strings.Contains(err.Error(), "potrf failed on tile (0,0) at global column 1") {
		t.Errorf("singular Sigma on the device: %v, want ErrNotPosDef at tile 0, column 1", err)
	}
}
