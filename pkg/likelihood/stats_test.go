package likelihood

import (
	"testing"

	"github.com/exageostat/exageostat/pkg/runtime"
)

// TestStatsBusy: for the exact, tlr and mp computations on 2 workers, the
// busy times per phase are positive, their CPU times positive and at most
// the wall ones (a task's thread cannot compute longer than it runs), the
// utilisation in (0, 1] (tlr and mp reported 0 before) and the CPU one at
// most it.
func TestStatsBusy(t *testing.T) {
	p := problem(400, 9)
	for _, a := range []Approx{{}, {Computation: TLR, Accuracy: 1e-9}, {Computation: MP, Band: 1}} {
		rt := runtime.New(runtime.Options{Workers: 2, Trace: true, TaskCPU: true})
		ev, err := NewWith(p, rt, Options{NB: 50, Approx: a})
		if err != nil {
			t.Fatal(err)
		}
		_, st, err := ev.LogLik([]float64{1, 0.1, 0.5})
		rt.Close()
		if err != nil {
			t.Fatal(err)
		}
		name := string(a.Computation)
		for _, b := range []struct {
			phase     string
			wall, cpu float64
		}{{"gen", st.Gen, st.GenCPU}, {"chol", st.Chol, st.CholCPU}, {"solve", st.Solve, st.SolveCPU}} {
			if !(b.wall > 0 && b.cpu > 0 && b.cpu <= b.wall*1.001) {
				t.Errorf("%s %s: busy %g s wall, %g s CPU", name, b.phase, b.wall, b.cpu)
			}
		}
		u := st.Utilization.Whole
		if !(u > 0 && u <= 1 && st.UtilizationCPU > 0 && st.UtilizationCPU <= u*1.001) {
			t.Errorf("%s: utilisation %g, CPU %g", name, u, st.UtilizationCPU)
		}
	}
}
