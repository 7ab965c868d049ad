// Package insert is the insert-task layer (Chameleon's INSERT_TASK_*): one
// function per task kind declares the task's accesses, flop count and
// kernel, and submits it with the priority and tile indices the algorithm
// gives. Algorithms (cholesky, solve, likelihood, predict) call these and
// never write runtime.Task literals, so a kind is declared once.
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
)

// Tasks submits tasks to a runtime with one set of tile kernels.
type Tasks struct {
	RT *runtime.Runtime
	K  kernels.Impl
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

func (t Tasks) submit(p Place, k string, flops float64, acc []runtime.Access, run func(runtime.Context) error) {
	// Control accesses go last: the task's buffers keep their indices and
	// it still runs on the owner of the first data handle it writes.
	for _, h := range p.after {
		if h != nil {
			acc = append(acc, runtime.Access{H: h, Mode: runtime.R})
		}
	}
	if p.signal != nil {
		acc = append(acc, runtime.Access{H: p.signal, Mode: runtime.W})
	}
	t.RT.Submit(runtime.Task{Kind: k, Tile: p.Tile, Priority: p.Priority, Flops: flops, Access: acc,
		Run: run, Pin: p.pin, Rank: p.rank, Device: OnDevice(k)})
}

// device returns the kernels of the device a task runs on, nil on a CPU
// worker or a device that runs the CPU kernels (host-test).
func device(c runtime.Context) kernels.Device {
	d, _ := c.DeviceKernels().(kernels.Device)
	return d
}

// OnDevice reports whether tasks of kind k have a device implementation
// (runtime.Task.Device): the dense BLAS and LAPACK kinds that cuBLAS and
// cuSOLVER provide (potrf, trmm, syrk, gemm, gemv). Generation (dcmg)
// stays on the CPU, as in seed 000, and so do the low-rank, float32 and
// reduction kinds.
func OnDevice(k string) bool {
	switch k {
	case kind.Potrf, kind.Trmm, kind.Syrk, kind.Gemm, kind.Gemv:
		return true
	}
	return false
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

func acc(h *runtime.Handle, m runtime.Mode) runtime.Access { return runtime.Access{H: h, Mode: m} }

// out is the mode of an output that is overwritten (beta = 0) or updated.
func out(beta float64) runtime.Mode {
	if beta == 0 {
		return runtime.W
	}
	return runtime.RW
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

// Potrf factors the diagonal tile a = L L^T in place (lower). col0 is the
// global index of its first column, for the error of a matrix that is not
// positive definite.
func (t Tasks) Potrf(p Place, a *runtime.Handle, col0 int) {
	n := dense(a).M
	k := t.K
	t.submit(p, kind.Potrf, PotrfFlops(float64(n)), []runtime.Access{acc(a, runtime.RW)},
		func(c runtime.Context) error {
			if d := device(c); d != nil {
				info, err := d.Dpotrf(n, c.DevBuf(0).Ptr, n)
				if err != nil {
					return err
				}
				if info != 0 {
					return &NotPosDefError{Tile: p.Tile[0], Column: col0 + info - 1}
				}
				return nil
			}
			if info := k.Dpotrf(n, c.Dense(0), n); info != 0 {
				return &NotPosDefError{Tile: p.Tile[0], Column: col0 + info - 1}
			}
			return nil
		})
}

// Trtri writes into w the inverse of the lower-triangular factor held in
// the lower triangle of l (n^3/3 flops). Only the lower triangle of w is
// defined.
func (t Tasks) Trtri(p Place, l, w *runtime.Handle, col0 int) {
	n := dense(l).M
	k := t.K
	t.submit(p, kind.Trtri, float64(n)*float64(n)*float64(n)/3,
		[]runtime.Access{acc(l, runtime.R), acc(w, runtime.W)},
		func(c runtime.Context) error {
			src, inv := c.Dense(0), c.Dense(1)
			for j := 0; j < n; j++ {
				copy(inv[j*n+j:(j+1)*n], src[j*n+j:(j+1)*n])
			}
			if info := kernels.LowerInverse(k, n, inv, n); info != 0 {
				return &NotPosDefError{Tile: p.Tile[0], Column: col0 + info - 1}
			}
			return nil
		})
}

// Trmm multiplies the tile b in place by the lower-triangular tile w (an
// inverted diagonal factor): b = op(w) b (side Left) or b = b op(w) (side
// Right), op(w) = w or w^T.
func (t Tasks) Trmm(p Place, side blas.Side, trans blas.Transpose, w, b *runtime.Handle) {
	fb := dense(b)
	m, n := fb.M, fb.N
	flops := float64(m) * float64(n) * float64(n)
	if side == blas.Left {
		flops = float64(m) * float64(m) * float64(n)
	}
	k := t.K
	t.submit(p, kind.Trmm, flops, []runtime.Access{acc(w, runtime.R), acc(b, runtime.RW)},
		func(c runtime.Context) error {
			lw := m
			if side == blas.Right {
				lw = n
			}
			if d := device(c); d != nil {
				return d.Dtrmm(side, blas.Lower, trans, blas.NonUnit, m, n, 1, c.DevBuf(0).Ptr, lw, c.DevBuf(1).Ptr, m)
			}
			k.Dtrmm(side, blas.Lower, trans, blas.NonUnit, m, n, 1, c.Dense(0), lw, c.Dense(1), m)
			return nil
		})
}

// Syrk updates the lower triangle of the diagonal tile c = c - a a^T
// (k n (n+1) flops for a of n x k).
func (t Tasks) Syrk(p Place, a, c *runtime.Handle) {
	fa := dense(a)
	n, kk := fa.M, fa.N
	k := t.K
	t.submit(p, kind.Syrk, float64(kk)*float64(n)*float64(n+1), []runtime.Access{acc(a, runtime.R), acc(c, runtime.RW)},
		func(ctx runtime.Context) error {
			if d := device(ctx); d != nil {
				return d.Dsyrk(blas.Lower, blas.NoTrans, n, kk, -1, ctx.DevBuf(0).Ptr, n, 1, ctx.DevBuf(1).Ptr, n)
			}
			k.Dsyrk(blas.Lower, blas.NoTrans, n, kk, -1, ctx.Dense(0), n, 1, ctx.Dense(1), n)
			return nil
		})
}

// Gemm computes c = alpha op(a) op(b) + beta c (2 m n k flops); c is
// overwritten when beta = 0.
func (t Tasks) Gemm(p Place, tA, tB blas.Transpose, alpha float64, a, b *runtime.Handle, beta float64, c *runtime.Handle) {
	fa, fb, fc := dense(a), dense(b), dense(c)
	m, n, kk := fc.M, fc.N, fa.N
	if tA == blas.Trans {
		kk = fa.M
	}
	k := t.K
	t.submit(p, kind.Gemm, 2*float64(m)*float64(n)*float64(kk),
		[]runtime.Access{acc(a, runtime.R), acc(b, runtime.R), acc(c, out(beta))},
		func(ctx runtime.Context) error {
			if d := device(ctx); d != nil {
				return d.Dgemm(tA, tB, m, n, kk, alpha, ctx.DevBuf(0).Ptr, fa.M, ctx.DevBuf(1).Ptr, fb.M, beta, ctx.DevBuf(2).Ptr, m)
			}
			k.Dgemm(tA, tB, m, n, kk, alpha, ctx.Dense(0), fa.M, ctx.Dense(1), fb.M, beta, ctx.Dense(2), m)
			return nil
		})
}

// Gemv computes y = alpha op(a) x + beta y (2 m n flops); y is overwritten
// when beta = 0.
func (t Tasks) Gemv(p Place, tA blas.Transpose, alpha float64, a, x *runtime.Handle, beta float64, y *runtime.Handle) {
	fa := dense(a)
	k := t.K
	t.submit(p, kind.Gemv, 2*float64(fa.M)*float64(fa.N),
		[]runtime.Access{acc(a, runtime.R), acc(x, runtime.R), acc(y, out(beta))},
		func(c runtime.Context) error {
			if d := device(c); d != nil {
				return d.Dgemv(tA, fa.M, fa.N, alpha, c.DevBuf(0).Ptr, fa.M, c.DevBuf(1).Ptr, beta, c.DevBuf(2).Ptr)
			}
			k.Dgemv(tA, fa.M, fa.N, alpha, c.Dense(0), fa.M, c.Vector(1), 1, beta, c.Vector(2), 1)
			return nil
		})
}

// Trsv solves x = L^-1 x with the lower-triangular tile l (n^2 flops).
func (t Tasks) Trsv(p Place, l, x *runtime.Handle) {
	n := dense(l).M
	k := t.K
	t.submit(p, kind.Trsv, float64(n)*float64(n), []runtime.Access{acc(l, runtime.R), acc(x, runtime.RW)},
		func(c runtime.Context) error {
			k.Dtrsv(blas.Lower, blas.NoTrans, blas.NonUnit, n, c.Dense(0), n, c.Vector(1), 1)
			return nil
		})
}

// Geadd computes y = y + alpha x for vector tiles.
func (t Tasks) Geadd(p Place, alpha float64, x, y *runtime.Handle) {
	n := vector(x)
	k := t.K
	t.submit(p, kind.Geadd, float64(n), []runtime.Access{acc(x, runtime.R), acc(y, runtime.RW)},
		func(c runtime.Context) error {
			k.Dgeadd(n, 1, alpha, c.Vector(0), n, 1, c.Vector(1), n)
			return nil
		})
}

// Det writes s = sum_i log L_ii for the diagonal factor tile l: then
// log |A| = 2 sum over the diagonal tiles.
func (t Tasks) Det(p Place, l, s *runtime.Handle) {
	n := dense(l).M
	t.submit(p, kind.Det, float64(n), []runtime.Access{acc(l, runtime.R), acc(s, runtime.W)},
		func(c runtime.Context) error {
			a := c.Dense(0)
			var sum float64
			for i := 0; i < n; i++ {
				sum += math.Log(a[i+i*n])
			}
			*c.Scalar(1) = sum
			return nil
		})
}

// Dot writes s = x^T y for the vector tiles x and y of the same length;
// y nil (or x) gives the squared norm x^T x.
func (t Tasks) Dot(p Place, x, y, s *runtime.Handle) {
	n := vector(x)
	k := t.K
	if y == nil || y == x {
		t.submit(p, kind.Dot, 2*float64(n), []runtime.Access{acc(x, runtime.R), acc(s, runtime.W)},
			func(c runtime.Context) error {
				v := c.Vector(0)
				*c.Scalar(1) = k.Ddot(n, v, 1, v, 1)
				return nil
			})
		return
	}
	if m := vector(y); m != n {
		panic(fmt.Sprintf("insert: dot of %s (%d) and %s (%d)", x.Name(), n, y.Name(), m))
	}
	t.submit(p, kind.Dot, 2*float64(n), []runtime.Access{acc(x, runtime.R), acc(y, runtime.R), acc(s, runtime.W)},
		func(c runtime.Context) error {
			*c.Scalar(2) = k.Ddot(n, c.Vector(0), 1, c.Vector(1), 1)
			return nil
		})
}

// Zcpy copies the host values src (len = the tile's length; input data,
// the same on every rank) into the vector tile v.
func (t Tasks) Zcpy(p Place, src []float64, v *runtime.Handle) {
	if n := vector(v); n != len(src) {
		panic(fmt.Sprintf("insert: %d values for %s of %d", len(src), v.Name(), n))
	}
	t.submit(p, kind.Zcpy, 0, []runtime.Access{acc(v, runtime.W)},
		func(c runtime.Context) error {
			copy(c.Vector(0), src)
			return nil
		})
}

// Trmv computes z = L e (first) or z = z + L e for the lower-triangular
// tile l and the vector tile e.
func (t Tasks) Trmv(p Place, l, e, z *runtime.Handle, first bool) {
	n := dense(l).M
	mode := runtime.RW
	if first {
		mode = runtime.W
	}
	t.submit(p, kind.Trmv, float64(n)*float64(n), []runtime.Access{acc(l, runtime.R), acc(e, runtime.R), acc(z, mode)},
		func(c runtime.Context) error {
			a, e, zm := c.Dense(0), c.Vector(1), c.Vector(2)
			if first {
				clear(zm)
			}
			for j := 0; j < n; j++ {
				for i := j; i < n; i++ {
					zm[i] += a[i+j*n] * e[j]
				}
			}
			return nil
		})
}

// Colss writes (first) or adds into the vector tile ss the sums of squares
// of the columns of tile v.
func (t Tasks) Colss(p Place, v, ss *runtime.Handle, first bool) {
	f := dense(v)
	mode := runtime.RW
	if first {
		mode = runtime.W
	}
	t.submit(p, kind.Colss, 2*float64(f.M)*float64(f.N), []runtime.Access{acc(v, runtime.R), acc(ss, mode)},
		func(c runtime.Context) error {
			a, s := c.Dense(0), c.Vector(1)
			for j := 0; j < f.N; j++ {
				var sum float64
				for _, x := range a[j*f.M : (j+1)*f.M] {
					sum += x * x
				}
				if first {
					s[j] = sum
				} else {
					s[j] += sum
				}
			}
			return nil
		})
}

// Coldot writes (first) or adds into the vector tile d the dot products of
// the columns of tiles a and b (of the same shape).
func (t Tasks) Coldot(p Place, a, b, d *runtime.Handle, first bool) {
	f := dense(a)
	mode := runtime.RW
	if first {
		mode = runtime.W
	}
	k := t.K
	t.submit(p, kind.Coldot, 2*float64(f.M)*float64(f.N), []runtime.Access{acc(a, runtime.R), acc(b, runtime.R), acc(d, mode)},
		func(c runtime.Context) error {
			x, y, s := c.Dense(0), c.Dense(1), c.Vector(2)
			for j := 0; j < f.N; j++ {
				v := k.Ddot(f.M, x[j*f.M:(j+1)*f.M], 1, y[j*f.M:(j+1)*f.M], 1)
				if first {
					s[j] = v
				} else {
					s[j] += v
				}
			}
			return nil
		})
}

// Tdot writes s = sum_ij a_ij b_ij, the Frobenius inner product of two
// tiles of the same shape.
func (t Tasks) Tdot(p Place, a, b, s *runtime.Handle) {
	f := dense(a)
	k := t.K
	t.submit(p, kind.Tdot, 2*float64(f.M)*float64(f.N), []runtime.Access{acc(a, runtime.R), acc(b, runtime.R), acc(s, runtime.W)},
		func(c runtime.Context) error {
			*c.Scalar(2) = k.Ddot(f.M*f.N, c.Dense(0), 1, c.Dense(1), 1)
			return nil
		})
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

// Dcmg generates the covariance block c into the tile a (ExaGeoStat's
// dcmg); its flop count is the number of entries.
func (t Tasks) Dcmg(p Place, cv Cov, a *runtime.Handle) {
	f := dense(a)
	t.submit(p, kind.Dcmg, float64(f.M)*float64(f.N), []runtime.Access{acc(a, runtime.W)},
		func(c runtime.Context) error {
			matern.FillTile(cv.K, cv.Nugget, cv.Metric, cv.Rows, cv.Row0, f.M, cv.Cols, cv.Col0, f.N, cv.Diag, c.Dense(0), f.M)
			return nil
		})
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
	t.submit(p, kind.Dderiv, float64(len(terms))*float64(f.M)*float64(f.N),
		[]runtime.Access{acc(a, runtime.W), acc(scratch, runtime.Scratch)},
		func(c runtime.Context) error {
			d, tmp := c.Dense(0), c.Dense(1)[:f.M*f.N]
			clear(d)
			for _, tm := range terms {
				if tm.K == nil {
					if cv.Diag {
						for i := range min(f.M, f.N) {
							d[i+i*f.M] += tm.Weight
						}
					}
					continue
				}
				matern.FillTile(tm.K, 0, cv.Metric, cv.Rows, cv.Row0, f.M, cv.Cols, cv.Col0, f.N, cv.Diag, tmp, f.M)
				for i, v := range tmp {
					d[i] += tm.Weight * v
				}
			}
			return nil
		})
}
