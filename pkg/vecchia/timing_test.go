package vecchia

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/kind"
	"github.com/exageostat/exageostat/pkg/runtime"
)

// TestTimedShares checks a timed evaluation (Evaluator.Timing) against
// the runtime's own trace of it: every value is bitwise the untimed
// evaluation's; the phases lie inside the blocks' tasks (0 < Busy <=
// TaskBusy); and the tasks' seconds that the blocks' tasks report
// (TaskBusy x workers x Wall) are at most the seconds from the start to
// the end of their kernels in the trace (the runtime brackets each
// kernel call with its own clock reads), and at most workers x Wall.
func TestTimedShares(t *testing.T) {
	plan := spreadPlan(t, rand.New(rand.NewPCG(3, 29)), 3000, 20, nil)
	theta := []float64{1, 0.05, 0.9, 0.05}
	for _, c := range []struct {
		workers int
		grad    bool
	}{{1, false}, {2, false}, {2, true}} {
		rt := runtime.New(runtime.Options{Workers: c.workers, Trace: true})
		e := NewEvaluator(plan, len(theta), rt, kernels.Default())
		plain, err := e.Eval(theta, Want{Grad: c.grad})
		if err != nil {
			t.Fatal(err)
		}
		rt.Events() // drop the untimed evaluation's events
		e.Timing = true
		timed, err := e.Eval(theta, Want{Grad: c.grad})
		if err != nil {
			t.Fatal(err)
		}
		kernelSeconds := 0.0
		for _, ev := range rt.Events() {
			if ev.Kind == kind.VecchiaBlocks {
				kernelSeconds += float64(ev.End-ev.Exec) * 1e-9
			}
		}
		rt.Close()
		slots := float64(c.workers) * timed.Wall
		tasks := timed.TaskBusy * slots
		switch {
		case !sameBits(timed, plain):
			t.Errorf("%+v: timed l %.17g, untimed %.17g (or the gradient, information, mean differ)", c, timed.L, plain.L)
		case plain.Busy != 0 || plain.TaskBusy != 0:
			t.Errorf("%+v: untimed busy shares %v, %v, want 0", c, plain.Busy, plain.TaskBusy)
		case !(timed.Busy > 0 && timed.Busy <= timed.TaskBusy):
			t.Errorf("%+v: phases' share %v, tasks' %v: want 0 < phases <= tasks", c, timed.Busy, timed.TaskBusy)
		case tasks > kernelSeconds*(1+1e-9):
			t.Errorf("%+v: the tasks report %.9f s, the trace's kernels %.9f s", c, tasks, kernelSeconds)
		case timed.TaskBusy > 1+1e-9:
			t.Errorf("%+v: tasks' share %v of %d workers x %.6f s", c, timed.TaskBusy, c.workers, timed.Wall)
		}
	}
}

// TestEvaluatorRelease: a released evaluator refuses to evaluate, and a
// new evaluator of the same plan gives bitwise the l and gradient that
// the released one gave (Release leaves a whole plan's blocks alone).
func TestEvaluatorRelease(t *testing.T) {
	plan := spreadPlan(t, rand.New(rand.NewPCG(3, 30)), 800, 10, nil)
	theta := []float64{1, 0.05, 0.9, 0.05}
	rt := runtime.New(runtime.Options{Workers: 2})
	defer rt.Close()
	e := NewEvaluator(plan, len(theta), rt, kernels.Default())
	want, err := e.Eval(theta, Want{Grad: true})
	if err != nil {
		t.Fatal(err)
	}
	e.Release()
	if _, err := e.Eval(theta, Want{Grad: true}); err == nil {
		t.Error("a released evaluator evaluated")
	}
	got, err := NewEvaluator(plan, len(theta), rt, kernels.Default()).Eval(theta, Want{Grad: true})
	if err != nil {
		t.Fatal(err)
	}
	if got.L != want.L || !slices.Equal(got.Grad, want.Grad) {
		t.Errorf("after Release: l %v grad %v, before: l %v grad %v", got.L, got.Grad, want.L, want.Grad)
	}
}
