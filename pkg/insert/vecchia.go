package insert

import (
	"github.com/exageostat/exageostat/pkg/kind"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/vecchia/block"
)

// VecchiaBlocks overwrites the vector part with the sums of blocks b0 ..
// b1-1 of d to the Vecchia log-likelihood, and to its gradient and Fisher
// information when s.Grad (block.Run, its layout), using the worker's
// scratch (a vector handle of at least s.WorkWords of the largest block).
// flops is the task's modelled work.
func (t Tasks) VecchiaBlocks(p Place, s *block.Spec, d *block.Data, b0, b1 int, flops float64, part, scratch *runtime.Handle) {
	k := t.K
	t.submit(p, kind.VecchiaBlocks, flops, []runtime.Access{acc(part, runtime.W), acc(scratch, runtime.Scratch)},
		func(c runtime.Context) error {
			out := c.Vector(0)
			clear(out)
			return block.Run(k, s, d, b0, b1, c.Buffer(1), out)
		})
}

// VecchiaSum overwrites the vector out with the sum of the vectors parts
// (each as long as out), added in their order.
func (t Tasks) VecchiaSum(p Place, parts []*runtime.Handle, out *runtime.Handle) {
	n := vector(out)
	acs := make([]runtime.Access, 0, len(parts)+1)
	acs = append(acs, acc(out, runtime.W))
	for _, h := range parts {
		acs = append(acs, acc(h, runtime.R))
	}
	t.submit(p, kind.VecchiaSum, float64(n*len(parts)), acs,
		func(c runtime.Context) error {
			o := c.Vector(0)
			clear(o)
			for i := range parts {
				for j, v := range c.Vector(1 + i)[:n] {
					o[j] += v
				}
			}
			return nil
		})
}

// VecchiaCond overwrites the vector out with the conditionals of targets
// k0 .. k1-1 of c under the covariance cov (block.CondRun: c.Stride()
// values per target), using the worker's scratch (at least c.CondWork()
// words).
func (t Tasks) VecchiaCond(p Place, cov block.Cov, c *block.Conditionals, k0, k1 int, out, scratch *runtime.Handle) {
	k := t.K
	u := float64(c.Q * (c.M + 1))
	t.submit(p, kind.VecchiaCond, float64(k1-k0)*(u*u*u/3+u*u), []runtime.Access{acc(out, runtime.W), acc(scratch, runtime.Scratch)},
		func(ctx runtime.Context) error {
			return block.CondRun(k, cov, c, k0, k1, ctx.Buffer(1), ctx.Vector(0))
		})
}
