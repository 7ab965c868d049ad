package insert

import (
	"gonum.org/v1/gonum/blas"

	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/kind"
	"github.com/exageostat/exageostat/pkg/runtime"
)

// The hierarchical potrf of seed 002 (its optimisation 4): the Cholesky of
// a dense n x n diagonal tile A = L L^T as a nested graph of tasks on
// s x s sub-tiles held by handles of their own, so that every worker can
// help on the critical path instead of one running a single large dpotrf.
// With sub-tiles A_ij (i >= j) of a tile cut at multiples of s,
//
//	h-split: S_ij = A_ij                        (one task per sub-tile)
//	for l = 0, 1, ...:
//	  h-potrf: S_ll = L_ll L_ll^T
//	  h-trsm:  S_il = S_il L_ll^-T              (i > l)
//	  h-syrk:  S_jj = S_jj - S_jl S_jl^T        (j > l)
//	  h-gemm:  S_ij = S_ij - S_il S_jl^T        (i > j > l)
//	h-join:  A_ij = S_ij                        (one task, every sub-tile)
//
// the right-looking tiled Cholesky of package cholesky (cholesky.HierPotrf
// submits it), with a triangular solve in place of the inverse and
// multiply (the sub-tiles are small).
// Its flops are those of a potrf of the tile (n^3/3 + O(n^2)) plus the
// copies; its arithmetic differs from one dpotrf call only in the order of
// the sums, and each sub-tile's updates are ordered by the submission
// order, so the factor is bitwise the same for any number of workers.

// hArgs: a sub-tile copy or solve: the diagonal tile's order n, the
// sub-tile's m x k (copies) or m x n (solve), its offsets, and for h-join
// the sub-tiles' formats and offsets.
type hArgs struct {
	n, m, k int
	r0, c0  int
	subs    []runtime.Dense
	off     [][2]int
}

func (a hArgs) split(_ kernels.Impl, c runtime.Context) error {
	src, dst := c.Dense(0), c.Dense(1)
	for j := 0; j < a.k; j++ {
		copy(dst[j*a.m:(j+1)*a.m], src[(a.c0+j)*a.n+a.r0:(a.c0+j)*a.n+a.r0+a.m])
	}
	return nil
}

func (a hArgs) joinModes() []runtime.Mode {
	m := make([]runtime.Mode, 1+len(a.subs))
	m[0] = runtime.RW
	for i := range a.subs {
		m[1+i] = runtime.R
	}
	return m
}

func (a hArgs) join(_ kernels.Impl, c runtime.Context) error {
	dst := c.Dense(0)
	for i, f := range a.subs {
		src := c.Dense(1 + i)
		r0, c0 := a.off[i][0], a.off[i][1]
		for j := 0; j < f.N; j++ {
			copy(dst[(c0+j)*a.n+r0:(c0+j)*a.n+r0+f.M], src[j*f.M:(j+1)*f.M])
		}
	}
	return nil
}

func (a hArgs) trsmFlops() float64 { return float64(a.m) * float64(a.n) * float64(a.n) }

func (a hArgs) trsm(k kernels.Impl, c runtime.Context) error {
	k.Dtrsm(blas.Right, blas.Lower, blas.Trans, blas.NonUnit, a.m, a.n, 1, c.Dense(0), a.n, c.Dense(1), a.m)
	return nil
}

// The sub-tile copies and solve (h-potrf, h-syrk and h-gemm share the
// dense kinds' arguments and kernels, insert.go).
var (
	hSplitCL = &Codelet[hArgs]{Kind: kind.HSplit, Modes: modesR_W, CPU: hArgs.split}
	hJoinCL  = &Codelet[hArgs]{Kind: kind.HJoin, ModesFor: hArgs.joinModes, CPU: hArgs.join}
	hTrsmCL  = &Codelet[hArgs]{Kind: kind.HTrsm, Modes: modesR_RW, Flops: hArgs.trsmFlops, CPU: hArgs.trsm}
)

// HSplit copies the block of rows [r0, r0+M) and columns [c0, c0+N) of the
// dense diagonal tile a into the sub-tile s (M x N, its format's sizes).
func (t Tasks) HSplit(p Place, a, s *runtime.Handle, r0, c0 int) {
	fs := dense(s)
	hSplitCL.Insert(t, p, hArgs{n: dense(a).M, m: fs.M, k: fs.N, r0: r0, c0: c0}, a, s)
}

// HJoin copies the sub-tiles subs, each at the row and column offsets of
// off (same order), back into the dense diagonal tile a.
func (t Tasks) HJoin(p Place, a *runtime.Handle, subs []*runtime.Handle, off [][2]int) {
	fs := make([]runtime.Dense, len(subs))
	for i, s := range subs {
		fs[i] = dense(s)
	}
	hJoinCL.Insert(t, p, hArgs{n: dense(a).M, subs: fs, off: off}, append([]*runtime.Handle{a}, subs...)...)
}

// HPotrf factors the diagonal sub-tile a = L L^T in place; col0 is the
// global index of its first column (for the error of a matrix that is not
// positive definite, as Potrf), tile the index of the diagonal tile.
func (t Tasks) HPotrf(p Place, a *runtime.Handle, tile, col0 int) {
	hPotrfCL.Insert(t, p, potrfArgs{n: dense(a).M, tile: tile, col0: col0}, a)
}

// HTrsm overwrites the sub-tile b with b l^-T, l the lower factor of a
// diagonal sub-tile (m n^2 flops).
func (t Tasks) HTrsm(p Place, l, b *runtime.Handle) {
	fb := dense(b)
	hTrsmCL.Insert(t, p, hArgs{m: fb.M, n: fb.N}, l, b)
}

// HSyrk updates the lower triangle of the diagonal sub-tile c = c - a a^T
// (k n (n+1) flops for a of n x k).
func (t Tasks) HSyrk(p Place, a, c *runtime.Handle) {
	fa := dense(a)
	hSyrkCL.Insert(t, p, syrkArgs{n: fa.M, k: fa.N}, a, c)
}

// HGemm updates the sub-tile c = c - a b^T (2 m n k flops).
func (t Tasks) HGemm(p Place, a, b, c *runtime.Handle) {
	hGemmCL.Insert(t, p, gemmOf(blas.NoTrans, blas.Trans, -1, a, b, 1, c), a, b, c)
}
