package bench

import (
	"math"
	"testing"

	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/perfmodel"
)

func relClose(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Abs(b) }

// TestGPUDuration: Hockney's model by hand values.
func TestGPUDuration(t *testing.T) {
	for _, c := range []struct {
		t0         float64
		nb0, nb    int
		half, want float64
	}{
		{0.0006806, 960, 960, 700, 0.0006806},                         // the anchor
		{1, 960, 1920, 0, 8},                                          // no n1/2: the flops, 2^3
		{1, 960, 1920, 700, 4 * 2620.0 / 1660},                        // 6.3133
		{1, 960, 480, 700, 0.25 * 1180.0 / 1660},                      // 0.17771
		{2, 1000, 100, 1e12, 2 * 0.01 * (100 + 1e12) / (1000 + 1e12)}, // latency bound: (nb/nb0)^2
	} {
		if got := GPUDuration(c.t0, c.nb0, c.nb, c.half); !relClose(got, c.want, 1e-14) {
			t.Errorf("GPUDuration(%g, %d, %d, %g) = %.17g, want %.17g", c.t0, c.nb0, c.nb, c.half, got, c.want)
		}
	}
	// The P100 of seed 000: 2.6 TFLOP/s at nb = 960 against 4.5 asymptotic.
	if got := HockneyHalf(960, 2.6e12, 4.5e12); !relClose(got, 960*(4.5/2.6-1), 1e-14) || math.Abs(got-701.54) > 0.01 {
		t.Errorf("HockneyHalf = %g, want 701.54", got)
	}
}

// TestGrainModel: CPU durations scale with the kind's order (or a measured
// shape), GPU ones by Hockney plus a tile over PCIe.
func TestGrainModel(t *testing.T) {
	n := GrainNode{Name: "x", CPUs: 4, GPUs: 1, Half: 100,
		CPU: config.Durations{"gemm": 0.08, "dcmg": 0.4, "dot": 1e-5, "det": 2e-5},
		GPU: config.Durations{"gemm": 0.01}}
	m, err := GrainModel(n, GrainOptions{NBs: []int{200, 400}, AnchorNB: 400, PCIe: 1.6e9, DcmgScale: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	cpu, gpu := m.Durations("cpu", 200), m.Durations("cuda", 200)
	want := config.Durations{"gemm": 0.01, "dcmg": 0.05, "dot": 5e-6, "det": 1e-5}
	for k, v := range want {
		if !relClose(cpu[k], v, 1e-14) {
			t.Errorf("cpu %s at nb 200 = %g, want %g", k, cpu[k], v)
		}
	}
	// 0.01 (1/2)^2 (300/500) + 8 200^2 / 1.6e9
	if g := gpu["gemm"]; !relClose(g, 0.0015+2e-4, 1e-14) || len(gpu) != 1 {
		t.Errorf("gpu at nb 200: %v, want gemm 0.0017", gpu)
	}
	if g := m.Durations("cuda", 400)["gemm"]; !relClose(g, 0.01+8e-4, 1e-14) {
		t.Errorf("gpu gemm at the anchor = %g, want 0.0108", g)
	}
	// A measured shape: gemm 3x slower at 400 than at 200.
	shape := perfmodel.New()
	shape.Record("cpu", "gemm", 200*200, 1)
	shape.Record("cpu", "gemm", 400*400, 3)
	m, err = GrainModel(GrainNode{Name: "y", CPUs: 1, CPU: config.Durations{"gemm": 0.09}}, GrainOptions{NBs: []int{200}, AnchorNB: 400, Shape: shape})
	if err != nil {
		t.Fatal(err)
	}
	if g := m.Durations("cpu", 200)["gemm"]; !relClose(g, 0.03, 1e-14) {
		t.Errorf("shaped gemm = %g, want 0.03", g)
	}
	if _, err := GrainModel(GrainNode{Name: "z", CPUs: 1, CPU: config.Durations{"syrk": 1}}, GrainOptions{NBs: []int{200}, AnchorNB: 400, Shape: shape}); err == nil {
		t.Error("a shape without syrk accepted")
	}
}

// TestGrainSweepOneWorker: on one CPU worker the evaluation is serial, so
// its makespan is the sum of its tasks' durations: with the solve kinds
// and trtri negligible, NT(NT+1)/2 dcmg + NT potrf + NT(NT-1)/2 (trmm +
// syrk) + NT(NT-1)(NT-2)/6 gemm, each kind's duration scaled from the
// anchor by (nb/anchor)^p.
func TestGrainSweepOneWorker(t *testing.T) {
	tiny := 1e-12
	cpu := config.Durations{"dcmg": 0.5, "potrf": 0.1, "trmm": 0.2, "syrk": 0.25, "gemm": 0.3,
		"trtri": tiny, "zcpy": tiny, "det": tiny, "trsv": tiny, "gemv": tiny, "geadd": tiny, "dot": tiny}
	rows, err := GrainSweep([]GrainNode{{Name: "one", CPUs: 1, CPU: cpu}}, GrainOptions{N: 400, NBs: []int{100, 50}, AnchorNB: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("%d rows", len(rows))
	}
	for i, c := range []struct{ nt, r float64 }{{4, 1}, {8, 0.5}} {
		nt, r := c.nt, c.r
		want := nt*(nt+1)/2*0.5*r*r + nt*0.1*r*r*r + nt*(nt-1)/2*(0.2+0.25)*r*r*r + nt*(nt-1)*(nt-2)/6*0.3*r*r*r
		if got := rows[i]; got.NT != int(nt) || !relClose(got.Makespan, want, 1e-9) || got.GPUTasks != 0 {
			t.Errorf("nb %d: %+v, want NT %g and makespan %.12g", got.NB, got, nt, want)
		}
	}
}
