package insert

import (
	"testing"

	"gonum.org/v1/gonum/blas"

	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/kind"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/runtime"
)

// TestKindsAndFlops records one task of each kind and checks its kind, flop
// count (LAWN 41 counts, dcmg: entries) and dependencies: an output with
// beta = 0 is written, not read, so it does not wait for the task that
// wrote it before.
func TestKindsAndFlops(t *testing.T) {
	rt := runtime.New(runtime.Options{Record: true})
	ts := New(rt, kernels.Default())
	a := rt.Register("A", 0, runtime.Dense{M: 6, N: 4})
	b := rt.Register("B", 0, runtime.Dense{M: 5, N: 4})
	c := rt.Register("C", 0, runtime.Dense{M: 6, N: 5})
	d := rt.Register("D", 0, runtime.Dense{M: 4, N: 4})
	w := rt.Register("W", 0, runtime.Dense{M: 4, N: 4})
	x := rt.Register("x", 0, runtime.Vector{N: 4})
	y := rt.Register("y", 0, runtime.Vector{N: 6})
	s := rt.Register("s", 0, runtime.Scalar{})
	pts := matern.Points{X: make([]float64, 10), Y: make([]float64, 10)}
	p := At(0, 0, 0, 1)
	steps := []struct {
		submit func()
		kind   string
		flops  float64
	}{
		{func() { ts.Dcmg(p, Cov{K: matern.Theta{Sigma2: 1, Beta: 1, Nu: 0.5}, Rows: pts, Cols: pts}, c) }, kind.Dcmg, 30},
		{func() { ts.Gemm(p, blas.NoTrans, blas.Trans, -1, a, b, 1, c) }, kind.Gemm, 2 * 6 * 5 * 4},
		{func() { ts.Gemm(p, blas.NoTrans, blas.Trans, 1, a, b, 0, c) }, kind.Gemm, 2 * 6 * 5 * 4},
		{func() { ts.Potrf(p, d, 0) }, kind.Potrf, 64.0/3 + 8 + 4.0/6},
		{func() { ts.Trtri(p, d, w, 0) }, kind.Trtri, 64.0 / 3},
		{func() { ts.Trmm(p, blas.Right, blas.Trans, w, a) }, kind.Trmm, 6 * 4 * 4},
		{func() { ts.Trmm(p, blas.Left, blas.NoTrans, w, x2(rt)) }, kind.Trmm, 4 * 4 * 3},
		{func() { ts.Syrk(p, a, rt.Register("S", 0, runtime.Dense{M: 6, N: 6})) }, kind.Syrk, 4 * 6 * 7},
		{func() { ts.Gemv(p, blas.NoTrans, 1, a, x, 0, y) }, kind.Gemv, 2 * 6 * 4},
		{func() { ts.Trsv(p, d, x) }, kind.Trsv, 16},
		{func() { ts.Det(p, d, s) }, kind.Det, 4},
		{func() { ts.Dot(p, x, nil, s) }, kind.Dot, 8},
		{func() { ts.Colss(p, c, y, true) }, kind.Colss, 2 * 6 * 5},
	}
	for _, st := range steps {
		st.submit()
	}
	g := rt.Graph()
	if len(g.Nodes) != len(steps) {
		t.Fatalf("%d nodes for %d tasks", len(g.Nodes), len(steps))
	}
	for i, st := range steps {
		nd := g.Nodes[i]
		if nd.Kind != st.kind || nd.Flops != st.flops {
			t.Errorf("task %d: %s with %g flops, want %s with %g", i, nd.Kind, nd.Flops, st.kind, st.flops)
		}
	}
	// The second gemm (beta = 1) reads C: it waits for the dcmg; the third
	// (beta = 0) only writes C: it waits for the second (WaW) alone.
	if d := g.Nodes[1].Deps; len(d) != 1 || d[0] != 0 {
		t.Errorf("gemm with beta = 1 depends on %v, want [0]", d)
	}
	if d := g.Nodes[2].Deps; len(d) != 1 || d[0] != 1 {
		t.Errorf("gemm with beta = 0 depends on %v, want [1]", d)
	}
}

func x2(rt *runtime.Runtime) *runtime.Handle {
	return rt.Register("X", 0, runtime.Dense{M: 4, N: 3})
}
