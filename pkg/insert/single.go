package insert

import (
	"fmt"

	"gonum.org/v1/gonum/blas"

	"github.com/exageostat/exageostat/pkg/kind"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/mixed"
	"github.com/exageostat/exageostat/pkg/runtime"
)

// The mixed-precision tasks work on float32 tiles (runtime.Single) off the
// band of the diagonal and convert at the band's edge: a float64 operand
// of a float32 update is rounded, a float32 operand of a float64 update is
// widened. Flop counts are those of the dense kernels.

func single(h *runtime.Handle) (runtime.Single, bool) {
	f, ok := h.Format().(runtime.Single)
	return f, ok
}

// shape returns the dimensions of a dense or float32 tile.
func shape(h *runtime.Handle) (m, n int) {
	switch f := h.Format().(type) {
	case runtime.Dense:
		return f.M, f.N
	case runtime.Single:
		return f.M, f.N
	}
	panic(fmt.Sprintf("insert: %s is %v, not a dense or float32 tile", h.Name(), h.Format()))
}

// DcmgS generates the covariance block cv into the dense scratch tile and
// rounds it into the float32 tile a.
func (t Tasks) DcmgS(p Place, cv Cov, a, scratch *runtime.Handle) {
	f, _ := single(a)
	t.submit(p, kind.SDcmg, float64(f.M)*float64(f.N), []runtime.Access{acc(a, runtime.W), acc(scratch, runtime.Scratch)},
		func(c runtime.Context) error {
			d := c.Buffer(1)[:f.M*f.N]
			matern.FillTile(cv.K, cv.Nugget, cv.Metric, cv.Rows, cv.Row0, f.M, cv.Cols, cv.Col0, f.N, cv.Diag, d, f.M)
			mixed.ToSingle(f.M, f.N, d, c.Single(0))
			return nil
		})
}

// STrsm overwrites the float32 tile a with a L^-T, L the dense diagonal
// factor l rounded to float32 (strsm; M N^2 flops).
func (t Tasks) STrsm(p Place, l, a *runtime.Handle) {
	f, _ := single(a)
	s := mixed.Default()
	t.submit(p, kind.STrsm, float64(f.M)*float64(f.N)*float64(f.N), []runtime.Access{acc(l, runtime.R), acc(a, runtime.RW)},
		func(c runtime.Context) error {
			l32 := make([]float32, f.N*f.N)
			mixed.LowerToSingle(f.N, c.Dense(0), l32)
			s.Strsm(blas.Right, blas.Lower, blas.Trans, blas.NonUnit, f.M, f.N, 1, l32, f.N, c.Single(1), f.M)
			return nil
		})
}

// SSyrk updates the lower triangle of the dense diagonal tile c = c - a a^T
// for the float32 tile a, widened to float64 (dsyrk).
func (t Tasks) SSyrk(p Place, a, c *runtime.Handle) {
	f, _ := single(a)
	k := t.K
	t.submit(p, kind.SSyrk, float64(f.N)*float64(f.M)*float64(f.M+1), []runtime.Access{acc(a, runtime.R), acc(c, runtime.RW)},
		func(ctx runtime.Context) error {
			d := make([]float64, f.M*f.N)
			mixed.ToDouble(f.M, f.N, ctx.Single(0), d)
			k.Dsyrk(blas.Lower, blas.NoTrans, f.M, f.N, -1, d, f.M, 1, ctx.Dense(1), f.M)
			return nil
		})
}

// SGemm computes c = c - a b^T where some tile is float32: in float32
// (sgemm, float64 operands rounded) when c is float32, in float64 (dgemm,
// float32 operands widened) when c is dense.
func (t Tasks) SGemm(p Place, a, b, c *runtime.Handle) {
	m, kk := shape(a)
	n, _ := shape(b)
	_, cSingle := single(c)
	_, aSingle := single(a)
	_, bSingle := single(b)
	k, s := t.K, mixed.Default()
	t.submit(p, kind.SGemm, 2*float64(m)*float64(n)*float64(kk),
		[]runtime.Access{acc(a, runtime.R), acc(b, runtime.R), acc(c, runtime.RW)},
		func(ctx runtime.Context) error {
			if cSingle {
				a32, b32 := operand32(ctx, 0, aSingle, m*kk), operand32(ctx, 1, bSingle, n*kk)
				s.Sgemm(blas.NoTrans, blas.Trans, m, n, kk, -1, a32, m, b32, n, 1, ctx.Single(2), m)
				return nil
			}
			a64, b64 := operand64(ctx, 0, aSingle, m*kk), operand64(ctx, 1, bSingle, n*kk)
			k.Dgemm(blas.NoTrans, blas.Trans, m, n, kk, -1, a64, m, b64, n, 1, ctx.Dense(2), m)
			return nil
		})
}

func operand32(c runtime.Context, i int, isSingle bool, n int) []float32 {
	if isSingle {
		return c.Single(i)
	}
	out := make([]float32, n)
	for j, v := range c.Dense(i)[:n] {
		out[j] = float32(v)
	}
	return out
}

func operand64(c runtime.Context, i int, isSingle bool, n int) []float64 {
	if !isSingle {
		return c.Dense(i)
	}
	out := make([]float64, n)
	for j, v := range c.Single(i)[:n] {
		out[j] = float64(v)
	}
	return out
}

// SGemv computes y = y + alpha a x for the float32 tile a, in float64.
func (t Tasks) SGemv(p Place, alpha float64, a, x, y *runtime.Handle) {
	f, _ := single(a)
	t.submit(p, kind.SGemv, 2*float64(f.M)*float64(f.N),
		[]runtime.Access{acc(a, runtime.R), acc(x, runtime.R), acc(y, runtime.RW)},
		func(c runtime.Context) error {
			mixed.Gemv(f.M, f.N, alpha, c.Single(0), c.Vector(1), c.Vector(2))
			return nil
		})
}
