// Package insert is the insert-task layer (Chameleon's INSERT_TASK_* over
// StarPU's codelets): each task kind is declared once as a Codelet (its
// accesses, flops, CPU and device implementations, performance-model
// key), and one insert function per kind fills the codelet's arguments
// from the handles' formats and submits the task with the place and
// priority the algorithm gives. Algorithms (cholesky, solve, likelihood,
// predict) call these and never write runtime.Task literals, so a kind is
// declared once; whether a kind runs on a device is read from its codelet
// (DeviceKinds).
//
// A task's code receives its buffers from the runtime (runtime.Context);
// the dimensions of a tile come from its handle's format (runtime.Dense
// M x N, runtime.Vector N). Flop counts are those of LAPACK Working Note 41
// for the dense kernels.
package insert

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"

	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/kind"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/tlr"
)

// Tasks submits tasks to a runtime with one set of tile kernels.
type Tasks struct {
	RT *runtime.Runtime
	K  kernels.Impl
	// LR runs the tasks on low-rank tiles (runtime.LowRank): its
	// compressor, the rank estimate of their flop counts and the
	// per-worker scratch tiles. Only tasks that read or write such tiles,
	// and the generation of float32 tiles, use it.
	LR LowRank
}

// LowRank is what the tasks of low-rank (and float32) tiles need besides
// their buffers.
type LowRank struct {
	Compressor tlr.Compressor
	// Rank estimates the rank of the low-rank tiles for the flop counts
	// (e.g. the mean rank of the previous evaluation); the rank is known
	// only when a task has run.
	Rank float64
	// Scratch is a dense tile of the largest tile size, one per worker
	// (a runtime.Scratch access), for generation before compression or
	// rounding; LRScratch a low-rank tile of the largest rank, one per
	// worker, for compression and recompression.
	Scratch, LRScratch *runtime.Handle
}

// New returns the inserter of tasks on rt running the kernels k.
func New(rt *runtime.Runtime, k kernels.Impl) Tasks { return Tasks{RT: rt, K: k} }

// Place is where a task goes: its tile indices (for traces and errors, -1
// where unused), its priority (higher runs first among ready tasks) and,
// optionally, the rank it runs on instead of the owner of the first handle
// it writes.
type Place struct {
	Tile     [3]int
	Priority int
	pin      bool
	rank     int
	// after and signal are ordering-only handles (runtime.NewHandle):
	// the task reads after (it starts once their last writers ended) and
	// writes signal (later readers of it wait for this task). They add
	// control dependencies, no data, and must be used on one rank only.
	after  []*runtime.Handle
	signal *runtime.Handle
}

// At returns the Place of a task on tile indices (m, n, k) with priority
// prio.
func At(m, n, k, prio int) Place { return Place{Tile: [3]int{m, n, k}, Priority: prio} }

// After makes the task wait for the last tasks that signalled the
// ordering-only handles hs (a control dependency: seed 002's lookahead).
// The tasks must run on the same rank.
func (p Place) After(hs ...*runtime.Handle) Place {
	p.after = append(p.after[:len(p.after):len(p.after)], hs...)
	return p
}

// Signal makes the task write the ordering-only handle h: the tasks
// submitted later with After(h) wait for it.
func (p Place) Signal(h *runtime.Handle) Place {
	p.signal = h
	return p
}

// On pins the task to rank r.
func (p Place) On(r int) Place {
	p.pin, p.rank = true, r
	return p
}

func dense(h *runtime.Handle) runtime.Dense {
	f, ok := h.Format().(runtime.Dense)
	if !ok {
		panic(fmt.Sprintf("insert: %s is %v, not a dense tile", h.Name(), h.Format()))
	}
	return f
}

func vector(h *runtime.Handle) int {
	f, ok := h.Format().(runtime.Vector)
	if !ok {
		panic(fmt.Sprintf("insert: %s is %v, not a vector", h.Name(), h.Format()))
	}
	return f.N
}

// out is the mode of an output that is overwritten (beta = 0) or updated.
func out(beta float64) runtime.Mode {
	if beta == 0 {
		return runtime.W
	}
	return runtime.RW
}

// Access-mode lists shared by the codelets.
var (
	modesRW   = []runtime.Mode{runtime.RW}
	modesW    = []runtime.Mode{runtime.W}
	modesR_RW = []runtime.Mode{runtime.R, runtime.RW}
	modesR_W  = []runtime.Mode{runtime.R, runtime.W}
	modesRRRW = []runtime.Mode{runtime.R, runtime.R, runtime.RW}
	modesRRW  = []runtime.Mode{runtime.R, runtime.R, runtime.W}
	// a low-rank update's operands, output and recompression scratch
	modesRRRW_S = []runtime.Mode{runtime.R, runtime.R, runtime.RW, runtime.Scratch}
)

// lastOut returns the modes of a task whose last buffer is overwritten
// (first) or updated: rw with its last mode W when first.
func lastOut(first bool, rw, w []runtime.Mode) []runtime.Mode {
	if first {
		return w
	}
	return rw
}

// NotPosDefError reports a matrix that is not positive definite: the
// Cholesky (or inversion) of diagonal tile (Tile, Tile) failed because the
// leading minor of order Column+1 of the whole matrix is not positive
// (Column is the global, zero-based index of the failing pivot).
type NotPosDefError struct {
	Tile   int
	Column int
}

func (e *NotPosDefError) Error() string {
	return fmt.Sprintf("matrix is not positive definite: potrf failed on tile (%d,%d) at global column %d",
		e.Tile, e.Tile, e.Column)
}

// ErrorClass names the error for the other ranks of a distributed run
// (runtime.Classed).
func (e *NotPosDefError) ErrorClass() string { return "notposdef" }

// PotrfFlops returns n^3/3 + n^2/2 + n/6, the flops of the Cholesky of an
// n x n matrix.
func PotrfFlops(n float64) float64 { return n*n*n/3 + n*n/2 + n/6 }

// potrfArgs: an n x n diagonal tile, its tile index and its first global
// column (for the error of a matrix that is not positive definite).
type potrfArgs struct{ n, tile, col0 int }

func (a potrfArgs) flops() float64 { return PotrfFlops(float64(a.n)) }

func (a potrfArgs) inverseFlops() float64 { return float64(a.n) * float64(a.n) * float64(a.n) / 3 }

func (a potrfArgs) fail(info int) error {
	if info != 0 {
		return &NotPosDefError{Tile: a.tile, Column: a.col0 + info - 1}
	}
	return nil
}

func (a potrfArgs) cpu(k kernels.Impl, c runtime.Context) error {
	return a.fail(k.Dpotrf(a.n, c.Dense(0), a.n))
}

func (a potrfArgs) device(d kernels.Device, c runtime.Context) error {
	info, err := d.Dpotrf(a.n, c.DevBuf(0).Ptr, a.n)
	if err != nil {
		return err
	}
	return a.fail(info)
}

// invert writes into buffer 1 the inverse of the lower triangle of
// buffer 0.
func (a potrfArgs) invert(k kernels.Impl, c runtime.Context) error {
	n := a.n
	src, inv := c.Dense(0), c.Dense(1)
	for j := 0; j < n; j++ {
		copy(inv[j*n+j:(j+1)*n], src[j*n+j:(j+1)*n])
	}
	return a.fail(kernels.LowerInverse(k, n, inv, n))
}

// trmmArgs: b (m x n) = op(w) b or b op(w).
type trmmArgs struct {
	side  blas.Side
	trans blas.Transpose
	m, n  int
}

// lw returns the leading dimension of the triangular tile.
func (a trmmArgs) lw() int {
	if a.side == blas.Right {
		return a.n
	}
	return a.m
}

func (a trmmArgs) flops() float64 { return float64(a.m) * float64(a.n) * float64(a.lw()) }

func (a trmmArgs) cpu(k kernels.Impl, c runtime.Context) error {
	k.Dtrmm(a.side, blas.Lower, a.trans, blas.NonUnit, a.m, a.n, 1, c.Dense(0), a.lw(), c.Dense(1), a.m)
	return nil
}

func (a trmmArgs) device(d kernels.Device, c runtime.Context) error {
	return d.Dtrmm(a.side, blas.Lower, a.trans, blas.NonUnit, a.m, a.n, 1, c.DevBuf(0).Ptr, a.lw(), c.DevBuf(1).Ptr, a.m)
}

// syrkArgs: c (n x n) = c - a a^T for a of n x k.
type syrkArgs struct{ n, k int }

func (a syrkArgs) flops() float64 { return float64(a.k) * float64(a.n) * float64(a.n+1) }

func (a syrkArgs) cpu(k kernels.Impl, c runtime.Context) error {
	k.Dsyrk(blas.Lower, blas.NoTrans, a.n, a.k, -1, c.Dense(0), a.n, 1, c.Dense(1), a.n)
	return nil
}

func (a syrkArgs) device(d kernels.Device, c runtime.Context) error {
	return d.Dsyrk(blas.Lower, blas.NoTrans, a.n, a.k, -1, c.DevBuf(0).Ptr, a.n, 1, c.DevBuf(1).Ptr, a.n)
}

// gemmArgs: c (m x n) = alpha op(a) op(b) + beta c, op(a) m x k; lda and
// ldb the leading dimensions of a and b.
type gemmArgs struct {
	tA, tB      blas.Transpose
	m, n, k     int
	lda, ldb    int
	alpha, beta float64
}

func (a gemmArgs) modes() []runtime.Mode { return lastOut(a.beta == 0, modesRRRW, modesRRW) }

func (a gemmArgs) flops() float64 { return 2 * float64(a.m) * float64(a.n) * float64(a.k) }

func (a gemmArgs) cpu(k kernels.Impl, c runtime.Context) error {
	k.Dgemm(a.tA, a.tB, a.m, a.n, a.k, a.alpha, c.Dense(0), a.lda, c.Dense(1), a.ldb, a.beta, c.Dense(2), a.m)
	return nil
}

func (a gemmArgs) device(d kernels.Device, c runtime.Context) error {
	return d.Dgemm(a.tA, a.tB, a.m, a.n, a.k, a.alpha, c.DevBuf(0).Ptr, a.lda, c.DevBuf(1).Ptr, a.ldb, a.beta, c.DevBuf(2).Ptr, a.m)
}

// gemvArgs: y = alpha op(a) x + beta y for a of m x n.
type gemvArgs struct {
	tA          blas.Transpose
	m, n        int
	alpha, beta float64
}

func (a gemvArgs) modes() []runtime.Mode { return lastOut(a.beta == 0, modesRRRW, modesRRW) }

func (a gemvArgs) flops() float64 { return 2 * float64(a.m) * float64(a.n) }

func (a gemvArgs) cpu(k kernels.Impl, c runtime.Context) error {
	k.Dgemv(a.tA, a.m, a.n, a.alpha, c.Dense(0), a.m, c.Vector(1), 1, a.beta, c.Vector(2), 1)
	return nil
}

func (a gemvArgs) device(d kernels.Device, c runtime.Context) error {
	return d.Dgemv(a.tA, a.m, a.n, a.alpha, c.DevBuf(0).Ptr, a.m, c.DevBuf(1).Ptr, a.beta, c.DevBuf(2).Ptr)
}

// The dense BLAS and LAPACK kinds: cuBLAS and cuSOLVER run potrf, trmm,
// syrk, gemm and gemv on a device; the nested potrf's sub-tile tasks are
// the same kernels on the CPU.
var (
	potrfCL  = &Codelet[potrfArgs]{Kind: kind.Potrf, Modes: modesRW, Flops: potrfArgs.flops, CPU: potrfArgs.cpu, Device: potrfArgs.device}
	trtriCL  = &Codelet[potrfArgs]{Kind: kind.Trtri, Modes: modesR_W, Flops: potrfArgs.inverseFlops, CPU: potrfArgs.invert}
	trmmCL   = &Codelet[trmmArgs]{Kind: kind.Trmm, Modes: modesR_RW, Flops: trmmArgs.flops, CPU: trmmArgs.cpu, Device: trmmArgs.device}
	syrkCL   = &Codelet[syrkArgs]{Kind: kind.Syrk, Modes: modesR_RW, Flops: syrkArgs.flops, CPU: syrkArgs.cpu, Device: syrkArgs.device}
	gemmCL   = &Codelet[gemmArgs]{Kind: kind.Gemm, ModesFor: gemmArgs.modes, Flops: gemmArgs.flops, CPU: gemmArgs.cpu, Device: gemmArgs.device}
	gemvCL   = &Codelet[gemvArgs]{Kind: kind.Gemv, ModesFor: gemvArgs.modes, Flops: gemvArgs.flops, CPU: gemvArgs.cpu, Device: gemvArgs.device}
	hPotrfCL = &Codelet[potrfArgs]{Kind: kind.HPotrf, Modes: modesRW, Flops: potrfArgs.flops, CPU: potrfArgs.cpu}
	hSyrkCL  = &Codelet[syrkArgs]{Kind: kind.HSyrk, Modes: modesR_RW, Flops: syrkArgs.flops, CPU: syrkArgs.cpu}
	hGemmCL  = &Codelet[gemmArgs]{Kind: kind.HGemm, ModesFor: gemmArgs.modes, Flops: gemmArgs.flops, CPU: gemmArgs.cpu}
)

// Potrf factors the diagonal tile a = L L^T in place (lower). col0 is the
// global index of its first column, for the error of a matrix that is not
// positive definite.
func (t Tasks) Potrf(p Place, a *runtime.Handle, col0 int) {
	potrfCL.Insert(t, p, potrfArgs{n: dense(a).M, tile: p.Tile[0], col0: col0}, a)
}

// Trtri writes into w the inverse of the lower-triangular factor held in
// the lower triangle of l (n^3/3 flops). Only the lower triangle of w is
// defined.
func (t Tasks) Trtri(p Place, l, w *runtime.Handle, col0 int) {
	trtriCL.Insert(t, p, potrfArgs{n: dense(l).M, tile: p.Tile[0], col0: col0}, l, w)
}

// Trmm multiplies the tile b in place by the lower-triangular tile w (an
// inverted diagonal factor): b = op(w) b (side Left) or b = b op(w) (side
// Right), op(w) = w or w^T.
func (t Tasks) Trmm(p Place, side blas.Side, trans blas.Transpose, w, b *runtime.Handle) {
	fb := dense(b)
	trmmCL.Insert(t, p, trmmArgs{side: side, trans: trans, m: fb.M, n: fb.N}, w, b)
}

// Syrk updates the lower triangle of the diagonal tile c = c - a a^T
// (k n (n+1) flops for a of n x k).
func (t Tasks) Syrk(p Place, a, c *runtime.Handle) {
	fa := dense(a)
	syrkCL.Insert(t, p, syrkArgs{n: fa.M, k: fa.N}, a, c)
}

// gemmOf returns the arguments of c = alpha op(a) op(b) + beta c.
func gemmOf(tA, tB blas.Transpose, alpha float64, a, b *runtime.Handle, beta float64, c *runtime.Handle) gemmArgs {
	fa, fb, fc := dense(a), dense(b), dense(c)
	kk := fa.N
	if tA == blas.Trans {
		kk = fa.M
	}
	return gemmArgs{tA: tA, tB: tB, m: fc.M, n: fc.N, k: kk, lda: fa.M, ldb: fb.M, alpha: alpha, beta: beta}
}

// Gemm computes c = alpha op(a) op(b) + beta c (2 m n k flops); c is
// overwritten when beta = 0.
func (t Tasks) Gemm(p Place, tA, tB blas.Transpose, alpha float64, a, b *runtime.Handle, beta float64, c *runtime.Handle) {
	gemmCL.Insert(t, p, gemmOf(tA, tB, alpha, a, b, beta, c), a, b, c)
}

// Gemv computes y = alpha op(a) x + beta y (2 m n flops) for the dense
// tile a; y is overwritten when beta = 0. FactorGemv takes a tile of any
// format.
func (t Tasks) Gemv(p Place, tA blas.Transpose, alpha float64, a, x *runtime.Handle, beta float64, y *runtime.Handle) {
	fa := dense(a)
	gemvCL.Insert(t, p, gemvArgs{tA: tA, m: fa.M, n: fa.N, alpha: alpha, beta: beta}, a, x, y)
}

// vecArgs: an n x n triangular tile or a vector tile of n values, a
// scalar, and whether the output is written afresh.
type vecArgs struct {
	n     int
	alpha float64
	first bool
}

func (a vecArgs) linear() float64 { return float64(a.n) }

func (a vecArgs) square() float64 { return float64(a.n) * float64(a.n) }

func (a vecArgs) trsv(k kernels.Impl, c runtime.Context) error {
	k.Dtrsv(blas.Lower, blas.NoTrans, blas.NonUnit, a.n, c.Dense(0), a.n, c.Vector(1), 1)
	return nil
}

func (a vecArgs) geadd(k kernels.Impl, c runtime.Context) error {
	k.Dgeadd(a.n, 1, a.alpha, c.Vector(0), a.n, 1, c.Vector(1), a.n)
	return nil
}

func (a vecArgs) det(_ kernels.Impl, c runtime.Context) error {
	l := c.Dense(0)
	var sum float64
	for i := 0; i < a.n; i++ {
		sum += math.Log(l[i+i*a.n])
	}
	*c.Scalar(1) = sum
	return nil
}

func (a vecArgs) trmvModes() []runtime.Mode { return lastOut(a.first, modesRRRW, modesRRW) }

func (a vecArgs) trmv(_ kernels.Impl, c runtime.Context) error {
	l, e, zm := c.Dense(0), c.Vector(1), c.Vector(2)
	n := a.n
	if a.first {
		clear(zm)
	}
	for j := 0; j < n; j++ {
		for i := j; i < n; i++ {
			zm[i] += l[i+j*n] * e[j]
		}
	}
	return nil
}

// dotArgs: x^T y of n values; norm: y is x (buffers x, s), else buffers
// x, y, s.
type dotArgs struct {
	n    int
	norm bool
}

func (a dotArgs) modes() []runtime.Mode {
	if a.norm {
		return modesR_W
	}
	return modesRRW
}

func (a dotArgs) flops() float64 { return 2 * float64(a.n) }

func (a dotArgs) cpu(k kernels.Impl, c runtime.Context) error {
	if a.norm {
		v := c.Vector(0)
		*c.Scalar(1) = k.Ddot(a.n, v, 1, v, 1)
		return nil
	}
	*c.Scalar(2) = k.Ddot(a.n, c.Vector(0), 1, c.Vector(1), 1)
	return nil
}

// copyArgs: the block of rows [r0, r0+m) and columns [c0, c0+n) of a
// column-major host matrix with leading dimension lda (input data, the
// same on every rank), or a vector of m values (n = 1, lda = m).
type copyArgs struct {
	a           []float64
	lda, r0, c0 int
	m, n        int
}

func (a copyArgs) cpu(_ kernels.Impl, c runtime.Context) error {
	t := c.Buffer(0)
	for j := 0; j < a.n; j++ {
		copy(t[j*a.m:(j+1)*a.m], a.a[(a.c0+j)*a.lda+a.r0:][:a.m])
	}
	return nil
}

// colArgs: column reductions of an m x n tile.
type colArgs struct {
	m, n  int
	first bool
}

func (a colArgs) flops() float64 { return 2 * float64(a.m) * float64(a.n) }

func (a colArgs) colssModes() []runtime.Mode { return lastOut(a.first, modesR_RW, modesR_W) }

func (a colArgs) coldotModes() []runtime.Mode { return lastOut(a.first, modesRRRW, modesRRW) }

// put writes (first) or adds v into s[j].
func (a colArgs) put(s []float64, j int, v float64) {
	if a.first {
		s[j] = v
	} else {
		s[j] += v
	}
}

func (a colArgs) colss(_ kernels.Impl, c runtime.Context) error {
	v, s := c.Dense(0), c.Vector(1)
	for j := 0; j < a.n; j++ {
		var sum float64
		for _, x := range v[j*a.m : (j+1)*a.m] {
			sum += x * x
		}
		a.put(s, j, sum)
	}
	return nil
}

func (a colArgs) coldot(k kernels.Impl, c runtime.Context) error {
	x, y, s := c.Dense(0), c.Dense(1), c.Vector(2)
	for j := 0; j < a.n; j++ {
		a.put(s, j, k.Ddot(a.m, x[j*a.m:(j+1)*a.m], 1, y[j*a.m:(j+1)*a.m], 1))
	}
	return nil
}

func (a colArgs) tdot(k kernels.Impl, c runtime.Context) error {
	*c.Scalar(2) = k.Ddot(a.m*a.n, c.Dense(0), 1, c.Dense(1), 1)
	return nil
}

// The kinds of the solves, the reductions and the copies into the runtime.
var (
	trsvCL   = &Codelet[vecArgs]{Kind: kind.Trsv, Modes: modesR_RW, Flops: vecArgs.square, CPU: vecArgs.trsv}
	geaddCL  = &Codelet[vecArgs]{Kind: kind.Geadd, Modes: modesR_RW, Flops: vecArgs.linear, CPU: vecArgs.geadd}
	detCL    = &Codelet[vecArgs]{Kind: kind.Det, Modes: modesR_W, Flops: vecArgs.linear, CPU: vecArgs.det}
	trmvCL   = &Codelet[vecArgs]{Kind: kind.Trmv, ModesFor: vecArgs.trmvModes, Flops: vecArgs.square, CPU: vecArgs.trmv}
	dotCL    = &Codelet[dotArgs]{Kind: kind.Dot, ModesFor: dotArgs.modes, Flops: dotArgs.flops, CPU: dotArgs.cpu}
	colssCL  = &Codelet[colArgs]{Kind: kind.Colss, ModesFor: colArgs.colssModes, Flops: colArgs.flops, CPU: colArgs.colss}
	coldotCL = &Codelet[colArgs]{Kind: kind.Coldot, ModesFor: colArgs.coldotModes, Flops: colArgs.flops, CPU: colArgs.coldot}
	tdotCL   = &Codelet[colArgs]{Kind: kind.Tdot, Modes: modesRRW, Flops: colArgs.flops, CPU: colArgs.tdot}
	zcpyCL   = &Codelet[copyArgs]{Kind: kind.Zcpy, Modes: modesW, CPU: copyArgs.cpu}
	copyInCL = &Codelet[copyArgs]{Kind: kind.Copy, Modes: modesW, CPU: copyArgs.cpu}
)

// Trsv solves x = L^-1 x with the lower-triangular tile l (n^2 flops).
func (t Tasks) Trsv(p Place, l, x *runtime.Handle) {
	trsvCL.Insert(t, p, vecArgs{n: dense(l).M}, l, x)
}

// Geadd computes y = y + alpha x for vector tiles.
func (t Tasks) Geadd(p Place, alpha float64, x, y *runtime.Handle) {
	geaddCL.Insert(t, p, vecArgs{n: vector(x), alpha: alpha}, x, y)
}

// Det writes s = sum_i log L_ii for the diagonal factor tile l: then
// log |A| = 2 sum over the diagonal tiles.
func (t Tasks) Det(p Place, l, s *runtime.Handle) {
	detCL.Insert(t, p, vecArgs{n: dense(l).M}, l, s)
}

// Trmv computes z = L e (first) or z = z + L e for the lower-triangular
// tile l and the vector tile e.
func (t Tasks) Trmv(p Place, l, e, z *runtime.Handle, first bool) {
	trmvCL.Insert(t, p, vecArgs{n: dense(l).M, first: first}, l, e, z)
}

// Dot writes s = x^T y for the vector tiles x and y of the same length;
// y nil (or x) gives the squared norm x^T x.
func (t Tasks) Dot(p Place, x, y, s *runtime.Handle) {
	n := vector(x)
	if y == nil || y == x {
		dotCL.Insert(t, p, dotArgs{n: n, norm: true}, x, s)
		return
	}
	if m := vector(y); m != n {
		panic(fmt.Sprintf("insert: dot of %s (%d) and %s (%d)", x.Name(), n, y.Name(), m))
	}
	dotCL.Insert(t, p, dotArgs{n: n}, x, y, s)
}

// Zcpy copies the host values src (len = the tile's length; input data,
// the same on every rank) into the vector tile v.
func (t Tasks) Zcpy(p Place, src []float64, v *runtime.Handle) {
	if n := vector(v); n != len(src) {
		panic(fmt.Sprintf("insert: %d values for %s of %d", len(src), v.Name(), n))
	}
	zcpyCL.Insert(t, p, copyArgs{a: src, lda: len(src), m: len(src), n: 1}, v)
}

// CopyIn copies the block of the column-major host matrix a (leading
// dimension lda; input data, the same on every rank) whose first row and
// column are r0 and c0 into the dense tile h, of the tile's size.
func (t Tasks) CopyIn(p Place, a []float64, lda, r0, c0 int, h *runtime.Handle) {
	f := dense(h)
	copyInCL.Insert(t, p, copyArgs{a: a, lda: lda, r0: r0, c0: c0, m: f.M, n: f.N}, h)
}

// Colss writes (first) or adds into the vector tile ss the sums of squares
// of the columns of tile v.
func (t Tasks) Colss(p Place, v, ss *runtime.Handle, first bool) {
	f := dense(v)
	colssCL.Insert(t, p, colArgs{m: f.M, n: f.N, first: first}, v, ss)
}

// Coldot writes (first) or adds into the vector tile d the dot products of
// the columns of tiles a and b (of the same shape).
func (t Tasks) Coldot(p Place, a, b, d *runtime.Handle, first bool) {
	f := dense(a)
	coldotCL.Insert(t, p, colArgs{m: f.M, n: f.N, first: first}, a, b, d)
}

// Tdot writes s = sum_ij a_ij b_ij, the Frobenius inner product of two
// tiles of the same shape.
func (t Tasks) Tdot(p Place, a, b, s *runtime.Handle) {
	f := dense(a)
	tdotCL.Insert(t, p, colArgs{m: f.M, n: f.N}, a, b, s)
}

// Cov describes a block of a covariance matrix: entry (i, j) is
// K(d(Rows_{Row0+i}, Cols_{Col0+j})), plus Nugget on the diagonal when
// Diag (a diagonal block: Rows = Cols, Row0 = Col0).
type Cov struct {
	K      matern.Kernel
	Nugget float64
	Metric matern.Metric
	Rows   matern.Points
	Row0   int
	Cols   matern.Points
	Col0   int
	Diag   bool
}

// fill writes the m x n block into d (leading dimension m).
func (cv Cov) fill(m, n int, d []float64) {
	matern.FillTile(cv.K, cv.Nugget, cv.Metric, cv.Rows, cv.Row0, m, cv.Cols, cv.Col0, n, cv.Diag, d, m)
}

// covArgs: a covariance block of m x n entries and, for Dderiv, its terms.
type covArgs struct {
	cv    Cov
	m, n  int
	terms []Term
}

func (a covArgs) entries() float64 { return float64(a.m) * float64(a.n) }

func (a covArgs) termEntries() float64 { return float64(len(a.terms)) * a.entries() }

func (a covArgs) dcmg(_ kernels.Impl, c runtime.Context) error {
	a.cv.fill(a.m, a.n, c.Dense(0))
	return nil
}

func (a covArgs) dderiv(_ kernels.Impl, c runtime.Context) error {
	m, n, cv := a.m, a.n, a.cv
	d, tmp := c.Dense(0), c.Dense(1)[:m*n]
	clear(d)
	for _, tm := range a.terms {
		if tm.K == nil {
			if cv.Diag {
				for i := range min(m, n) {
					d[i+i*m] += tm.Weight
				}
			}
			continue
		}
		matern.FillTile(tm.K, 0, cv.Metric, cv.Rows, cv.Row0, m, cv.Cols, cv.Col0, n, cv.Diag, tmp, m)
		for i, v := range tmp {
			d[i] += tm.Weight * v
		}
	}
	return nil
}

// The generation of dense tiles: of a covariance, of a combination of
// covariances.
var (
	dcmgCL   = &Codelet[covArgs]{Kind: kind.Dcmg, Modes: modesW, Flops: covArgs.entries, CPU: covArgs.dcmg}
	dderivCL = &Codelet[covArgs]{Kind: kind.Dderiv, Modes: []runtime.Mode{runtime.W, runtime.Scratch}, Flops: covArgs.termEntries, CPU: covArgs.dderiv}
)

// Dcmg generates the covariance block c into the tile a (ExaGeoStat's
// dcmg); its flop count is the number of entries.
func (t Tasks) Dcmg(p Place, cv Cov, a *runtime.Handle) {
	f := dense(a)
	dcmgCL.Insert(t, p, covArgs{cv: cv, m: f.M, n: f.N}, a)
}

// Term is one covariance block in a linear combination (Dderiv); a Term
// with K nil is the identity matrix (Weight on the diagonal of a diagonal
// block).
type Term struct {
	K      matern.Kernel
	Weight float64
}

// Dderiv generates into the tile a the block sum_i Weight_i K_i(d) of the
// block cv describes (cv.K and cv.Nugget unused), each K_i generated into
// the scratch tile: e.g. a finite-difference derivative of the covariance
// with respect to a parameter.
func (t Tasks) Dderiv(p Place, cv Cov, terms []Term, a, scratch *runtime.Handle) {
	f := dense(a)
	dderivCL.Insert(t, p, covArgs{cv: cv, m: f.M, n: f.N, terms: terms}, a, scratch)
}
