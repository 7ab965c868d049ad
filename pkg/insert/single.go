package insert

import (
	"fmt"

	"gonum.org/v1/gonum/blas"

	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/kind"
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

// shape returns the dimensions of a dense, float32 or low-rank tile.
func shape(f runtime.Format) (m, n int) {
	switch f := f.(type) {
	case runtime.Dense:
		return f.M, f.N
	case runtime.Single:
		return f.M, f.N
	case runtime.LowRank:
		return f.M, f.N
	}
	panic(fmt.Sprintf("insert: %v is not a dense, float32 or low-rank tile", f))
}

// sArgs: a float32 task's tile sizes (a: m x k, b: n x k, c: m x n; of a
// generated or solved tile: m x n), which of its tiles are float32, its
// covariance block and scalars.
type sArgs struct {
	m, n, k                int
	aSingle, bSingle, cSgl bool
	cv                     Cov
	alpha, beta            float64
}

func (a sArgs) entries() float64 { return float64(a.m) * float64(a.n) }

func (a sArgs) dcmg(_ kernels.Impl, c runtime.Context) error {
	d := c.Buffer(1)[:a.m*a.n]
	a.cv.fill(a.m, a.n, d)
	mixed.ToSingle(a.m, a.n, d, c.Single(0))
	return nil
}

func (a sArgs) trsmFlops() float64 { return a.entries() * float64(a.n) }

func (a sArgs) trsm(_ kernels.Impl, c runtime.Context) error {
	l32 := make([]float32, a.n*a.n)
	mixed.LowerToSingle(a.n, c.Dense(0), l32)
	mixed.Default().Strsm(blas.Right, blas.Lower, blas.Trans, blas.NonUnit, a.m, a.n, 1, l32, a.n, c.Single(1), a.m)
	return nil
}

func (a sArgs) syrkFlops() float64 { return float64(a.n) * float64(a.m) * float64(a.m+1) }

func (a sArgs) syrk(k kernels.Impl, c runtime.Context) error {
	d := make([]float64, a.m*a.n)
	mixed.ToDouble(a.m, a.n, c.Single(0), d)
	k.Dsyrk(blas.Lower, blas.NoTrans, a.m, a.n, -1, d, a.m, 1, c.Dense(1), a.m)
	return nil
}

func (a sArgs) gemmFlops() float64 { return 2 * a.entries() * float64(a.k) }

func (a sArgs) gemm(k kernels.Impl, ctx runtime.Context) error {
	m, n, kk := a.m, a.n, a.k
	if a.cSgl {
		a32, b32 := operand32(ctx, 0, a.aSingle, m*kk), operand32(ctx, 1, a.bSingle, n*kk)
		mixed.Default().Sgemm(blas.NoTrans, blas.Trans, m, n, kk, -1, a32, m, b32, n, 1, ctx.Single(2), m)
		return nil
	}
	a64, b64 := operand64(ctx, 0, a.aSingle, m*kk), operand64(ctx, 1, a.bSingle, n*kk)
	k.Dgemm(blas.NoTrans, blas.Trans, m, n, kk, -1, a64, m, b64, n, 1, ctx.Dense(2), m)
	return nil
}

func (a sArgs) gemvModes() []runtime.Mode { return lastOut(a.beta == 0, modesRRRW, modesRRW) }

func (a sArgs) gemvFlops() float64 { return 2 * a.entries() }

func (a sArgs) gemv(_ kernels.Impl, c runtime.Context) error {
	y := c.Vector(2)
	scaleBy(a.beta, y)
	mixed.Gemv(a.m, a.n, a.alpha, c.Single(0), c.Vector(1), y)
	return nil
}

// The float32 kinds.
var (
	sDcmgCL = &Codelet[sArgs]{Kind: kind.SDcmg, Modes: []runtime.Mode{runtime.W, runtime.Scratch}, Flops: sArgs.entries, CPU: sArgs.dcmg}
	sTrsmCL = &Codelet[sArgs]{Kind: kind.STrsm, Modes: modesR_RW, Flops: sArgs.trsmFlops, CPU: sArgs.trsm}
	sSyrkCL = &Codelet[sArgs]{Kind: kind.SSyrk, Modes: modesR_RW, Flops: sArgs.syrkFlops, CPU: sArgs.syrk}
	sGemmCL = &Codelet[sArgs]{Kind: kind.SGemm, Modes: modesRRRW, Flops: sArgs.gemmFlops, CPU: sArgs.gemm}
	sGemvCL = &Codelet[sArgs]{Kind: kind.SGemv, ModesFor: sArgs.gemvModes, Flops: sArgs.gemvFlops, CPU: sArgs.gemv}
)

// DcmgS generates the covariance block cv into the dense scratch tile
// (Tasks.LR.Scratch) and rounds it into the float32 tile a.
func (t Tasks) DcmgS(p Place, cv Cov, a *runtime.Handle) {
	f, _ := single(a)
	sDcmgCL.Insert(t, p, sArgs{m: f.M, n: f.N, cv: cv}, a, t.LR.Scratch)
}

// STrsm overwrites the float32 tile a with a L^-T, L the dense diagonal
// factor l rounded to float32 (strsm; M N^2 flops).
func (t Tasks) STrsm(p Place, l, a *runtime.Handle) {
	f, _ := single(a)
	sTrsmCL.Insert(t, p, sArgs{m: f.M, n: f.N}, l, a)
}

// SSyrk updates the lower triangle of the dense diagonal tile c = c - a a^T
// for the float32 tile a, widened to float64 (dsyrk).
func (t Tasks) SSyrk(p Place, a, c *runtime.Handle) {
	f, _ := single(a)
	sSyrkCL.Insert(t, p, sArgs{m: f.M, n: f.N}, a, c)
}

// SGemm computes c = c - a b^T where some tile is float32 and none
// low-rank: in float32 (sgemm, float64 operands rounded) when c is
// float32, in float64 (dgemm, float32 operands widened) when c is dense.
func (t Tasks) SGemm(p Place, a, b, c *runtime.Handle) {
	m, kk := shape(a.Format())
	n, _ := shape(b.Format())
	_, cSingle := single(c)
	_, aSingle := single(a)
	_, bSingle := single(b)
	sGemmCL.Insert(t, p, sArgs{m: m, n: n, k: kk, aSingle: aSingle, bSingle: bSingle, cSgl: cSingle}, a, b, c)
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

// SGemv computes y = alpha a x + beta y for the float32 tile a, in
// float64; y is overwritten when beta = 0.
func (t Tasks) SGemv(p Place, alpha float64, a, x *runtime.Handle, beta float64, y *runtime.Handle) {
	f, _ := single(a)
	sGemvCL.Insert(t, p, sArgs{m: f.M, n: f.N, alpha: alpha, beta: beta}, a, x, y)
}
