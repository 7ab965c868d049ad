package insert

import (
	"fmt"

	"gonum.org/v1/gonum/blas"

	"github.com/exageostat/exageostat/pkg/kind"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/tlr"
)

// The tile low-rank (TLR) tasks of seed 002 work on handles of format
// runtime.LowRank (U V^T, or the tile dense when it needs more than the
// maximum rank). Their flop counts are seed 002's for a tile of rank k;
// the rank is known only when the task has run, so the caller gives an
// estimate (e.g. the mean rank of the previous evaluation).

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

// DcmgLR generates the covariance block cv into the dense scratch tile
// (a Scratch access: one per worker) and compresses it with cp into the
// low-rank scratch lr (a buffer of the largest rank), then into the tile a
// at the size of its rank (ExaGeoStat-HiCMA's generation + compression in
// one task: no dense off-diagonal tile is stored, and a tile takes the
// memory of its rank). Flops: the entries plus the compression's
// (tlr.CompressFlops).
func (t Tasks) DcmgLR(p Place, cv Cov, cp tlr.Compressor, a, scratch, lr *runtime.Handle) {
	f := lowRank(a)
	flops := float64(f.M)*float64(f.N) + tlr.CompressFlops(cp.Method, float64(f.M), float64(f.N))
	t.submit(p, kind.LRDcmg, flops, []runtime.Access{acc(a, runtime.W), acc(scratch, runtime.Scratch), acc(lr, runtime.Scratch)},
		func(c runtime.Context) error {
			d := c.Buffer(1)[:f.M*f.N]
			tmp := c.Buffer(2)[:f.Words()]
			matern.FillTile(cv.K, cv.Nugget, cv.Metric, cv.Rows, cv.Row0, f.M, cv.Cols, cv.Col0, f.N, cv.Diag, d, f.M)
			if _, err := cp.Compress(f, d, tmp); err != nil {
				return &TileError{Tile: p.Tile, Err: err}
			}
			fit(c, 0, f, tmp)
			return nil
		})
}

// TrsmLR overwrites the low-rank tile a = U V^T with a L^-T = U (L^-1 V)^T,
// l the dense diagonal factor (seed 002: nb^2 k flops).
func (t Tasks) TrsmLR(p Place, cp tlr.Compressor, l, a *runtime.Handle, kEst float64) {
	f := lowRank(a)
	t.submit(p, kind.LRTrsm, tlr.TrsmFlops(float64(f.N), kEst), []runtime.Access{acc(l, runtime.R), acc(a, runtime.RW)},
		func(c runtime.Context) error {
			cp.Trsm(f, c.Dense(0), c.Buffer(1))
			return nil
		})
}

// SyrkLR updates the dense diagonal tile c = c - a a^T for the low-rank
// a = U V^T: c - U (V^T V) U^T (seed 002: 2 nb^2 k + 4 nb k^2 flops).
func (t Tasks) SyrkLR(p Place, cp tlr.Compressor, a, c *runtime.Handle, kEst float64) {
	f := lowRank(a)
	t.submit(p, kind.LRSyrk, tlr.SyrkFlops(float64(f.M), kEst), []runtime.Access{acc(a, runtime.R), acc(c, runtime.RW)},
		func(ctx runtime.Context) error {
			cp.Syrk(f, ctx.Buffer(0), ctx.Dense(1))
			return nil
		})
}

// GemmLR updates the low-rank tile c = c - a b^T, recompressed to the
// compressor's accuracy in the low-rank scratch lr and stored back at the
// size of its new rank (seed 002: 36 nb k^2 flops).
func (t Tasks) GemmLR(p Place, cp tlr.Compressor, a, b, c, lr *runtime.Handle, kEst float64) {
	fa, fb, fc := lowRank(a), lowRank(b), lowRank(c)
	t.submit(p, kind.LRGemm, tlr.GemmFlops(float64(fc.M), kEst),
		[]runtime.Access{acc(a, runtime.R), acc(b, runtime.R), acc(c, runtime.RW), acc(lr, runtime.Scratch)},
		func(ctx runtime.Context) error {
			tmp := ctx.Buffer(3)[:fc.Words()]
			copy(tmp, fc.Pack(ctx.Buffer(2)))
			if _, err := cp.Gemm(fa, ctx.Buffer(0), fb, ctx.Buffer(1), fc, tmp); err != nil {
				return &TileError{Tile: p.Tile, Err: err}
			}
			fit(ctx, 2, fc, tmp)
			return nil
		})
}

// GemvLR computes y = y + alpha op(a) x for the low-rank tile a and vector
// tiles x, y (4 nb k flops).
func (t Tasks) GemvLR(p Place, cp tlr.Compressor, trans blas.Transpose, alpha float64, a, x, y *runtime.Handle, kEst float64) {
	f := lowRank(a)
	t.submit(p, kind.LRGemv, 2*float64(f.M+f.N)*kEst,
		[]runtime.Access{acc(a, runtime.R), acc(x, runtime.R), acc(y, runtime.RW)},
		func(c runtime.Context) error {
			cp.Gemv(f, trans, alpha, c.Buffer(0), c.Vector(1), c.Vector(2))
			return nil
		})
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
// one (s-mul). kEst estimates the rank for the flop count.
func (t Tasks) FactorMul(p Place, cp tlr.Compressor, side blas.Side, trans blas.Transpose, alpha float64, a, b, c *runtime.Handle, kEst float64) {
	cf := dense(c)
	r := cf.N // right-hand sides: C's columns (Left) or rows (Right)
	if side == blas.Right {
		r = cf.M
	}
	switch f := a.Format().(type) {
	case runtime.Dense:
		if side == blas.Left {
			t.Gemm(p, trans, blas.NoTrans, alpha, a, b, 1, c)
		} else {
			t.Gemm(p, blas.NoTrans, trans, alpha, b, a, 1, c)
		}
	case runtime.LowRank:
		t.submit(p, kind.LRMul, tlr.MulFlops(float64(f.M), float64(f.N), kEst, float64(r)),
			[]runtime.Access{acc(a, runtime.R), acc(b, runtime.R), acc(c, runtime.RW)},
			func(ctx runtime.Context) error {
				bf := dense(b)
				cp.Mul(f, ctx.Buffer(0), side, trans, alpha, ctx.Dense(1), bf.M, r, ctx.Dense(2), cf.M)
				return nil
			})
	case runtime.Single:
		k := t.K
		t.submit(p, kind.SMul, 2*float64(f.M)*float64(f.N)*float64(r),
			[]runtime.Access{acc(a, runtime.R), acc(b, runtime.R), acc(c, runtime.RW)},
			func(ctx runtime.Context) error {
				bf := dense(b)
				a64 := operand64(ctx, 0, true, f.M*f.N)
				rows, cols := f.M, f.N // of op(a)
				if trans == blas.Trans {
					rows, cols = cols, rows
				}
				if side == blas.Left {
					k.Dgemm(trans, blas.NoTrans, rows, r, cols, alpha, a64, f.M, ctx.Dense(1), bf.M, 1, ctx.Dense(2), cf.M)
				} else {
					k.Dgemm(blas.NoTrans, trans, r, cols, rows, alpha, ctx.Dense(1), bf.M, a64, f.M, 1, ctx.Dense(2), cf.M)
				}
				return nil
			})
	default:
		panic(fmt.Sprintf("insert: %s is %v, not a factor tile", a.Name(), a.Format()))
	}
}
