package insert

import (
	"fmt"

	"gonum.org/v1/gonum/blas"

	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/kind"
	"github.com/exageostat/exageostat/pkg/mixed"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/tlr"
)

// The tile low-rank (TLR) tasks of seed 002 work on handles of format
// runtime.LowRank (U V^T, or the tile dense when it needs more than the
// maximum rank), with the compressor and scratch tiles of Tasks.LR. Their
// flop counts are seed 002's for a tile of rank k; the rank is known only
// when the task has run, so Tasks.LR.Rank estimates it.

func lowRank(h *runtime.Handle) runtime.LowRank {
	f, ok := h.Format().(runtime.LowRank)
	if !ok {
		panic(fmt.Sprintf("insert: %s is %v, not a low-rank tile", h.Name(), h.Format()))
	}
	return f
}

// TileError names the tile of a failed TLR task.
type TileError struct {
	Tile [3]int
	Err  error
}

func (e *TileError) Error() string {
	return fmt.Sprintf("tile (%d,%d): %v", e.Tile[0], e.Tile[1], e.Err)
}

func (e *TileError) Unwrap() error { return e.Err }

// fit copies the low-rank content of tmp (format f) into access i's
// buffer, resized to the content with the rank rounded up to a multiple of
// 8 (fewer buffer sizes for the pool to keep): memory grows with the
// ranks.
func fit(c runtime.Context, i int, f runtime.LowRank, tmp []float64) {
	words := 1 + f.M*f.N
	if k := f.Rank(tmp); k >= 0 {
		words = 1 + (f.M+f.N)*min((k+7)/8*8, f.MaxRank)
	}
	copy(c.Resize(i, min(words, f.Words())), f.Pack(tmp))
}

// lrArgs: the formats of a low-rank task's tiles (a, b, c: the operands
// and the output, as the task names them), the compressor, the rank
// estimate, the tile indices (for errors) and, for generation, the
// covariance block; for products, a side, transpose, scalars and the
// number of right-hand sides.
type lrArgs struct {
	fa, fb, fc  runtime.Format
	cp          tlr.Compressor
	kEst        float64
	tile        [3]int
	cv          Cov
	side        blas.Side
	trans       blas.Transpose
	alpha, beta float64
	r           int
}

func (a lrArgs) dcmgFlops() float64 {
	f := a.fc.(runtime.LowRank)
	return float64(f.M)*float64(f.N) + tlr.CompressFlops(a.cp.Method, float64(f.M), float64(f.N))
}

func (a lrArgs) dcmg(_ kernels.Impl, c runtime.Context) error {
	f := a.fc.(runtime.LowRank)
	d := c.Buffer(1)[:f.M*f.N]
	tmp := c.Buffer(2)[:f.Words()]
	a.cv.fill(f.M, f.N, d)
	if _, err := a.cp.Compress(f, d, tmp); err != nil {
		return &TileError{Tile: a.tile, Err: err}
	}
	fit(c, 0, f, tmp)
	return nil
}

func (a lrArgs) trsmFlops() float64 { return tlr.TrsmFlops(float64(a.fc.(runtime.LowRank).N), a.kEst) }

func (a lrArgs) trsm(_ kernels.Impl, c runtime.Context) error {
	a.cp.Trsm(a.fc.(runtime.LowRank), c.Dense(0), c.Buffer(1))
	return nil
}

func (a lrArgs) syrkFlops() float64 { return tlr.SyrkFlops(float64(a.fa.(runtime.LowRank).M), a.kEst) }

func (a lrArgs) syrk(_ kernels.Impl, c runtime.Context) error {
	a.cp.Syrk(a.fa.(runtime.LowRank), c.Buffer(0), c.Dense(1))
	return nil
}

func (a lrArgs) gemmModes() []runtime.Mode {
	if _, ok := a.fc.(runtime.LowRank); ok {
		return modesRRRW_S
	}
	return modesRRRW
}

func (a lrArgs) gemmFlops() float64 {
	m, _ := shape(a.fc)
	return tlr.GemmFlops(float64(m), a.kEst)
}

func (a lrArgs) gemm(_ kernels.Impl, ctx runtime.Context) error {
	fa, abuf := asLowRank(ctx, 0, a.fa)
	fb, bbuf := asLowRank(ctx, 1, a.fb)
	switch fc := a.fc.(type) {
	case runtime.LowRank:
		tmp := ctx.Buffer(3)[:fc.Words()]
		copy(tmp, fc.Pack(ctx.Buffer(2)))
		if _, err := a.cp.Gemm(fa, abuf, fb, bbuf, fc, tmp); err != nil {
			return &TileError{Tile: a.tile, Err: err}
		}
		fit(ctx, 2, fc, tmp)
	case runtime.Dense:
		a.cp.GemmDense(fa, abuf, fb, bbuf, ctx.Dense(2))
	case runtime.Single:
		d := make([]float64, fc.M*fc.N)
		mixed.ToDouble(fc.M, fc.N, ctx.Single(2), d)
		a.cp.GemmDense(fa, abuf, fb, bbuf, d)
		mixed.ToSingle(fc.M, fc.N, d, ctx.Single(2))
	}
	return nil
}

func (a lrArgs) gemvModes() []runtime.Mode { return lastOut(a.beta == 0, modesRRRW, modesRRW) }

func (a lrArgs) gemvFlops() float64 {
	f := a.fa.(runtime.LowRank)
	return 2 * float64(f.M+f.N) * a.kEst
}

func (a lrArgs) gemv(_ kernels.Impl, c runtime.Context) error {
	y := c.Vector(2)
	scaleBy(a.beta, y)
	a.cp.Gemv(a.fa.(runtime.LowRank), a.trans, a.alpha, c.Buffer(0), c.Vector(1), y)
	return nil
}

func (a lrArgs) mulFlops() float64 {
	f := a.fa.(runtime.LowRank)
	return tlr.MulFlops(float64(f.M), float64(f.N), a.kEst, float64(a.r))
}

func (a lrArgs) mul(_ kernels.Impl, ctx runtime.Context) error {
	bm, _ := shape(a.fb)
	cm, _ := shape(a.fc)
	a.cp.Mul(a.fa.(runtime.LowRank), ctx.Buffer(0), a.side, a.trans, a.alpha, ctx.Dense(1), bm, a.r, ctx.Dense(2), cm)
	return nil
}

// sMulFlops and sMul are the product of FactorMul with a float32 tile
// a, widened: a dgemm.
func (a lrArgs) sMulFlops() float64 {
	m, n := shape(a.fa)
	return 2 * float64(m) * float64(n) * float64(a.r)
}

func (a lrArgs) sMul(k kernels.Impl, ctx runtime.Context) error {
	fm, fn := shape(a.fa)
	bm, _ := shape(a.fb)
	cm, _ := shape(a.fc)
	a64 := operand64(ctx, 0, true, fm*fn)
	rows, cols := fm, fn // of op(a)
	if a.trans == blas.Trans {
		rows, cols = cols, rows
	}
	if a.side == blas.Left {
		k.Dgemm(a.trans, blas.NoTrans, rows, a.r, cols, a.alpha, a64, fm, ctx.Dense(1), bm, 1, ctx.Dense(2), cm)
	} else {
		k.Dgemm(blas.NoTrans, a.trans, a.r, cols, rows, a.alpha, ctx.Dense(1), bm, a64, fm, 1, ctx.Dense(2), cm)
	}
	return nil
}

// The low-rank kinds (lr-gemm serves every update with a low-rank tile)
// and the product with a float32 factor tile.
var (
	lrDcmgCL = &Codelet[lrArgs]{Kind: kind.LRDcmg, Modes: []runtime.Mode{runtime.W, runtime.Scratch, runtime.Scratch}, Flops: lrArgs.dcmgFlops, CPU: lrArgs.dcmg}
	lrTrsmCL = &Codelet[lrArgs]{Kind: kind.LRTrsm, Modes: modesR_RW, Flops: lrArgs.trsmFlops, CPU: lrArgs.trsm}
	lrSyrkCL = &Codelet[lrArgs]{Kind: kind.LRSyrk, Modes: modesR_RW, Flops: lrArgs.syrkFlops, CPU: lrArgs.syrk}
	lrGemmCL = &Codelet[lrArgs]{Kind: kind.LRGemm, ModesFor: lrArgs.gemmModes, Flops: lrArgs.gemmFlops, CPU: lrArgs.gemm}
	lrGemvCL = &Codelet[lrArgs]{Kind: kind.LRGemv, ModesFor: lrArgs.gemvModes, Flops: lrArgs.gemvFlops, CPU: lrArgs.gemv}
	lrMulCL  = &Codelet[lrArgs]{Kind: kind.LRMul, Modes: modesRRRW, Flops: lrArgs.mulFlops, CPU: lrArgs.mul}
	sMulCL   = &Codelet[lrArgs]{Kind: kind.SMul, Modes: modesRRRW, Flops: lrArgs.sMulFlops, CPU: lrArgs.sMul}
)

// lr returns the arguments of a low-rank task on output format fc.
func (t Tasks) lr(fc runtime.Format) lrArgs {
	return lrArgs{fc: fc, cp: t.LR.Compressor, kEst: t.LR.Rank}
}

// DcmgLR generates the covariance block cv into the dense scratch tile
// and compresses it into the low-rank scratch, then into the tile a at the
// size of its rank (ExaGeoStat-HiCMA's generation + compression in one
// task: no dense off-diagonal tile is stored, and a tile takes the memory
// of its rank). Flops: the entries plus the compression's
// (tlr.CompressFlops).
func (t Tasks) DcmgLR(p Place, cv Cov, a *runtime.Handle) {
	args := t.lr(lowRank(a))
	args.tile, args.cv = p.Tile, cv
	lrDcmgCL.Insert(t, p, args, a, t.LR.Scratch, t.LR.LRScratch)
}

// TrsmLR overwrites the low-rank tile a = U V^T with a L^-T = U (L^-1 V)^T,
// l the dense diagonal factor (seed 002: nb^2 k flops).
func (t Tasks) TrsmLR(p Place, l, a *runtime.Handle) {
	lrTrsmCL.Insert(t, p, t.lr(lowRank(a)), l, a)
}

// SyrkLR updates the dense diagonal tile c = c - a a^T for the low-rank
// a = U V^T: c - U (V^T V) U^T (seed 002: 2 nb^2 k + 4 nb k^2 flops).
func (t Tasks) SyrkLR(p Place, a, c *runtime.Handle) {
	args := t.lr(c.Format())
	args.fa = lowRank(a)
	lrSyrkCL.Insert(t, p, args, a, c)
}

// asLowRank returns access i's tile as a low-rank format and buffer: its
// own for a low-rank tile, a dense-held copy for a dense or float32 one.
func asLowRank(c runtime.Context, i int, f runtime.Format) (runtime.LowRank, []float64) {
	switch f := f.(type) {
	case runtime.LowRank:
		return f, c.Buffer(i)
	case runtime.Dense:
		return denseLowRank(f.M, f.N, c.Dense(i))
	case runtime.Single:
		lf, buf := denseLowRank(f.M, f.N, nil)
		mixed.ToDouble(f.M, f.N, c.Single(i), buf[1:])
		return lf, buf
	}
	panic(fmt.Sprintf("insert: %v is not a factor tile", f))
}

// denseLowRank returns a low-rank format of an m x n tile whose buffer
// holds it dense, and such a buffer holding d (or zeros for d nil).
func denseLowRank(m, n int, d []float64) (runtime.LowRank, []float64) {
	f := runtime.LowRank{M: m, N: n, MaxRank: (m*n + m + n - 1) / (m + n)}
	buf := make([]float64, 1+m*n)
	copy(f.SetDense(buf), d)
	return f, buf
}

// GemmLR updates the tile c = c - a b^T where some tile is low-rank: a
// low-rank c is recompressed to the compressor's accuracy in the low-rank
// scratch and stored back at the size of its new rank (seed 002: 36 nb k^2
// flops); a dense or float32 c takes the product in float64. Dense and
// float32 operands enter as dense tiles.
func (t Tasks) GemmLR(p Place, a, b, c *runtime.Handle) {
	args := t.lr(c.Format())
	args.fa, args.fb, args.tile = a.Format(), b.Format(), p.Tile
	if _, ok := args.fc.(runtime.LowRank); ok {
		lrGemmCL.Insert(t, p, args, a, b, c, t.LR.LRScratch)
		return
	}
	lrGemmCL.Insert(t, p, args, a, b, c)
}

// scaleBy sets y = beta y (beta = 0 clears y, whatever it held).
func scaleBy(beta float64, y []float64) {
	switch beta {
	case 1:
	case 0:
		clear(y)
	default:
		for i := range y {
			y[i] *= beta
		}
	}
}

// GemvLR computes y = alpha op(a) x + beta y for the low-rank tile a and
// vector tiles x, y (4 nb k flops); y is overwritten when beta = 0.
func (t Tasks) GemvLR(p Place, trans blas.Transpose, alpha float64, a, x *runtime.Handle, beta float64, y *runtime.Handle) {
	args := t.lr(y.Format())
	args.fa, args.trans, args.alpha, args.beta = lowRank(a), trans, alpha, beta
	lrGemvCL.Insert(t, p, args, a, x, y)
}

// FactorMul computes, for a tile a of a Cholesky factor in any of the
// formats of the approximate computations (runtime.Dense, runtime.LowRank
// or runtime.Single) and dense tiles b and c,
//
//	side Left:  c = c + alpha op(a) b,
//	side Right: c = c + alpha b op(a),
//
// the tile step of a triangular solve (or product) of a dense tiled matrix
// with a TLR, mixed-precision or DST factor: a dgemm for a dense a (kind
// gemm), U (V^T b)-style products through the rank for a low-rank one
// (lr-mul, tlr.Compressor.Mul), a dgemm on a widened copy for a float32
// one (s-mul).
func (t Tasks) FactorMul(p Place, side blas.Side, trans blas.Transpose, alpha float64, a, b, c *runtime.Handle) {
	cf := dense(c)
	r := cf.N // right-hand sides: C's columns (Left) or rows (Right)
	if side == blas.Right {
		r = cf.M
	}
	args := t.lr(cf)
	args.fa, args.fb, args.side, args.trans, args.alpha, args.r = a.Format(), b.Format(), side, trans, alpha, r
	switch a.Format().(type) {
	case runtime.Dense:
		if side == blas.Left {
			t.Gemm(p, trans, blas.NoTrans, alpha, a, b, 1, c)
		} else {
			t.Gemm(p, blas.NoTrans, trans, alpha, b, a, 1, c)
		}
	case runtime.LowRank:
		lrMulCL.Insert(t, p, args, a, b, c)
	case runtime.Single:
		sMulCL.Insert(t, p, args, a, b, c)
	default:
		panic(fmt.Sprintf("insert: %s is %v, not a factor tile", a.Name(), a.Format()))
	}
}

// Generate generates the covariance block cv into the tile a in its
// format: dcmg for a dense tile, lr-dcmg (generated and compressed) for a
// low-rank one, s-dcmg (generated and rounded) for a float32 one.
func (t Tasks) Generate(p Place, cv Cov, a *runtime.Handle) {
	switch a.Format().(type) {
	case runtime.LowRank:
		t.DcmgLR(p, cv, a)
	case runtime.Single:
		t.DcmgS(p, cv, a)
	default:
		t.Dcmg(p, cv, a)
	}
}

// FactorGemv computes y = alpha op(a) x + beta y for a tile a of any of
// the formats of a factor (gemv, lr-gemv or s-gemv by a's format); y is
// overwritten when beta = 0.
func (t Tasks) FactorGemv(p Place, trans blas.Transpose, alpha float64, a, x *runtime.Handle, beta float64, y *runtime.Handle) {
	switch a.Format().(type) {
	case runtime.Dense:
		t.Gemv(p, trans, alpha, a, x, beta, y)
	case runtime.LowRank:
		t.GemvLR(p, trans, alpha, a, x, beta, y)
	case runtime.Single:
		if trans != blas.NoTrans {
			panic(fmt.Sprintf("insert: s-gemv of %s transposed", a.Name()))
		}
		t.SGemv(p, alpha, a, x, beta, y)
	default:
		panic(fmt.Sprintf("insert: %s is %v, not a factor tile", a.Name(), a.Format()))
	}
}
