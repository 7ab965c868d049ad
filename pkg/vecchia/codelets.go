package vecchia

import (
	"time"

	"github.com/exageostat/exageostat/pkg/insert"
	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/kind"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/vecchia/block"
)

// The Vecchia graph's codelets (package insert's Codelet): the blocks of
// a task, the fixed-order sum of tasks' partial results, and the
// conditionals of prediction, simulation and cross-validation targets.
// They run on CPUs only.

// blocksArgs are a VecchiaBlocks task's: the blocks b0 .. b1-1 of the
// rank's data, what to compute, and the task's modelled work.
type blocksArgs struct {
	spec   *block.Spec
	data   *block.Data
	b0, b1 int
	work   float64
	clock  int // the part's word of the task's seconds (Spec.Timing)
}

// cpu overwrites the partial result (buffer 0) with the blocks' sums
// (block.Run), on the worker's scratch (buffer 1); with Spec.Timing, the
// part's word clock is the task's own seconds (the blocks' phases, their
// gathers and prefetches: everything block.Run does).
func (a blocksArgs) cpu(_ kernels.Impl, c runtime.Context) error {
	var t0 time.Time
	if a.spec.Timing {
		t0 = time.Now()
	}
	out := c.Vector(0)
	clear(out)
	err := block.Run(a.spec, a.data, a.b0, a.b1, c.Buffer(1), out)
	if a.spec.Timing {
		out[a.clock] = time.Since(t0).Seconds()
	}
	return err
}

var blocksCL = &insert.Codelet[blocksArgs]{Kind: kind.VecchiaBlocks,
	Modes: []runtime.Mode{runtime.W, runtime.Scratch}, Flops: func(a blocksArgs) float64 { return a.work }, CPU: blocksArgs.cpu}

// sumArgs are a VecchiaSum task's: the number of parts and their length.
type sumArgs struct{ parts, n int }

// cpu overwrites buffer 0 with the sum of buffers 1.., added in order.
func (a sumArgs) cpu(_ kernels.Impl, c runtime.Context) error {
	o := c.Vector(0)
	clear(o)
	for i := range a.parts {
		for j, v := range c.Vector(1 + i)[:a.n] {
			o[j] += v
		}
	}
	return nil
}

var sumCL = &insert.Codelet[sumArgs]{Kind: kind.VecchiaSum,
	ModesFor: func(a sumArgs) []runtime.Mode {
		m := make([]runtime.Mode, a.parts+1)
		m[0] = runtime.W
		for i := 1; i < len(m); i++ {
			m[i] = runtime.R
		}
		return m
	},
	Flops: func(a sumArgs) float64 { return float64(a.parts * a.n) }, CPU: sumArgs.cpu}

// sumParts submits out = the sum of the vectors parts, in their order.
func sumParts(ts insert.Tasks, p insert.Place, parts []*runtime.Handle, out *runtime.Handle) {
	n := out.Format().(runtime.Vector).N
	sumCL.Insert(ts, p, sumArgs{parts: len(parts), n: n}, append([]*runtime.Handle{out}, parts...)...)
}

// condArgs are a VecchiaCond task's: targets t0 .. t1-1 of c under cov.
type condArgs struct {
	cov    block.Cov
	c      *block.Conditionals
	t0, t1 int
}

// cpu overwrites buffer 0 with the targets' conditionals (block.CondRun)
// on the worker's scratch (buffer 1).
func (a condArgs) cpu(k kernels.Impl, c runtime.Context) error {
	return block.CondRun(k, a.cov, a.c, a.t0, a.t1, c.Buffer(1), c.Vector(0))
}

func (a condArgs) flops() float64 {
	u := float64(a.c.Q * (a.c.M + 1))
	return float64(a.t1-a.t0) * (u*u*u/3 + u*u)
}

var condCL = &insert.Codelet[condArgs]{Kind: kind.VecchiaCond,
	Modes: []runtime.Mode{runtime.W, runtime.Scratch}, Flops: condArgs.flops, CPU: condArgs.cpu}
