// Package bench measures exageostat's kernels and runtime against reference
// implementations in the same run, so that ratios mean something on a noisy
// shared machine.
package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"gonum.org/v1/gonum/blas"

	"github.com/exageostat/exageostat/pkg/cholesky"
	"github.com/exageostat/exageostat/pkg/insert"
	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/tile"
	"github.com/exageostat/exageostat/pkg/trace"
)

// CholeskyOptions configure CholeskyBench.
type CholeskyOptions struct {
	N       int // matrix order
	NB      int // tile size; 0: tile.AutoNB(N), fit's automatic tile size
	Workers int // runtime workers and LAPACK threads
	Reps    int // repetitions of each timed factorisation (median reported)
	Seed    uint64
	Check   bool // compute the residual ||A - L L^T||_F / ||A||_F
	Trace   bool // record a trace of the last tiled factorisation
	// NoReference skips LAPACK dpotrf (its time, rate, ratio and
	// residual stay 0): for a run on a GPU, where the CPU reference at a
	// large N takes far longer than the factorisation timed.
	NoReference bool
	// Progress, if not nil, receives one line per finished step.
	Progress func(string)
	// Place, if not nil, sets the runtime's devices, scheduler and
	// performance model (job.Placement).
	Place func(*runtime.Options)
}

// CholeskyResult is what CholeskyBench measured. Rates are medians over the
// repetitions; Ratio is Gflops / LapackGflops.
type CholeskyResult struct {
	N            int       `json:"n"`
	NB           int       `json:"nb"`
	Workers      int       `json:"workers"`
	Reps         int       `json:"reps"`
	Kernels      string    `json:"kernels"`
	Core         string    `json:"openblas_core"`
	Seconds      []float64 `json:"seconds"`
	LapackSecs   []float64 `json:"lapack_seconds"`
	Gflops       float64   `json:"gflops"`
	LapackGflops float64   `json:"lapack_gflops"`
	DgemmGflops  float64   `json:"dgemm_gflops"`
	DgemmN       int       `json:"dgemm_n"`
	Ratio        float64   `json:"ratio"`
	DgemmRatio   float64   `json:"dgemm_ratio"`
	Residual     float64   `json:"residual"`
	LapackResid  float64   `json:"lapack_residual"`
	Tasks        int       `json:"tasks"`

	Events []trace.Event `json:"-"`
	// Devices are the counters of the runtime's devices (--gpus, --devices).
	Devices []runtime.DeviceStats `json:"devices,omitempty"`
}

// CholeskyBench factorises one SPD matrix - the exponential covariance
// exp(-|x_i - x_j| / 0.1) of N uniform random points in the unit square -
// with the tiled Cholesky on the task runtime and with LAPACK dpotrf using
// the same number of threads, alternating the two Reps times. It also
// measures the dgemm rate with that many threads (the practical ceiling).
func CholeskyBench(o CholeskyOptions) (*CholeskyResult, error) {
	if o.NB == 0 && o.N >= 1 {
		o.NB = tile.AutoNB(o.N)
	}
	if o.N < 1 || o.NB < 1 || o.Workers < 1 || o.Reps < 1 {
		return nil, fmt.Errorf("bench: need n, nb, workers, reps >= 1 (got %d, %d, %d, %d)", o.N, o.NB, o.Workers, o.Reps)
	}
	progress := o.Progress
	if progress == nil {
		progress = func(string) {}
	}
	kern := kernels.Default()
	thr := kernels.DefaultThreads()
	res := &CholeskyResult{N: o.N, NB: o.NB, Workers: o.Workers, Reps: o.Reps,
		Kernels: kern.Name(), Core: thr.CoreName()}
	n := o.N
	pristine := ExpCovariance(n, 0.1, o.Seed, o.Workers)
	work := make([]float64, n*n)
	ro := runtime.Options{Workers: o.Workers, Trace: o.Trace}
	if o.Place != nil {
		o.Place(&ro)
	}
	rt := runtime.New(ro)
	defer rt.Close()
	a := tile.NewSym(rt, n, o.NB, nil)
	flops := cholesky.Flops(n)

	thr.SetThreads(o.Workers)
	res.DgemmN = min(n, 4096)
	res.DgemmGflops = dgemmRate(kern, res.DgemmN, 2)
	thr.SetThreads(1)
	progress(fmt.Sprintf("dgemm %d threads: %.1f GFLOP/s", o.Workers, res.DgemmGflops))

	for rep := 0; rep < o.Reps; rep++ {
		a.FromDense(pristine, n)
		if err := rt.Wait(); err != nil {
			return nil, err
		}
		thr.SetThreads(1)
		rt.Events()
		t0 := time.Now()
		cholesky.Submit(a, kern)
		if err := rt.Wait(); err != nil {
			return nil, err
		}
		res.Seconds = append(res.Seconds, time.Since(t0).Seconds())
		if o.Trace {
			res.Events = rt.Events()
		}

		if o.NoReference {
			progress(fmt.Sprintf("rep %d/%d: tiled %.1f GFLOP/s", rep+1, o.Reps, flops/res.Seconds[rep]*1e-9))
			continue
		}
		copy(work, pristine)
		thr.SetThreads(o.Workers)
		t0 = time.Now()
		info := kern.Dpotrf(n, work, n)
		res.LapackSecs = append(res.LapackSecs, time.Since(t0).Seconds())
		thr.SetThreads(1)
		if info != 0 {
			return nil, fmt.Errorf("bench: LAPACK dpotrf failed at column %d", info)
		}
		progress(fmt.Sprintf("rep %d/%d: tiled %.1f GFLOP/s, LAPACK %.1f GFLOP/s", rep+1, o.Reps,
			flops/res.Seconds[rep]*1e-9, flops/res.LapackSecs[rep]*1e-9))
	}
	res.Tasks = int(cholesky.Tasks(float64(a.NT)))
	res.Gflops = flops / median(res.Seconds) * 1e-9
	if !o.NoReference {
		res.LapackGflops = flops / median(res.LapackSecs) * 1e-9
		res.Ratio = res.Gflops / res.LapackGflops
	}
	res.DgemmRatio = res.Gflops / res.DgemmGflops
	if o.Check {
		thr.SetThreads(1)
		r, err := Residual(kern, pristine, a)
		if err != nil {
			return nil, err
		}
		res.Residual = r
		if o.NoReference {
			return withDevices(res, rt), nil
		}
		a.Invalidate()
		l := tile.NewSym(rt, n, o.NB, nil)
		l.FromDense(work, n)
		if r, err = Residual(kern, pristine, l); err != nil {
			return nil, err
		}
		res.LapackResid = r
		rt.Events()
	}
	return withDevices(res, rt), nil
}

// withDevices returns res with the counters of rt's devices, if any.
func withDevices(res *CholeskyResult, rt *runtime.Runtime) *CholeskyResult {
	if ds := rt.DeviceStats(); len(ds) > 0 {
		res.Devices = ds
	}
	return res
}

func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// ExpCovariance returns the column-major n x n matrix
// A(i,j) = exp(-|x_i - x_j| / beta) for n points drawn uniformly in the unit
// square with the given seed. Only the lower triangle is filled.
func ExpCovariance(n int, beta float64, seed uint64, threads int) []float64 {
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	x := make([]float64, n)
	y := make([]float64, n)
	for i := range x {
		x[i], y[i] = rng.Float64(), rng.Float64()
	}
	a := make([]float64, n*n)
	var wg sync.WaitGroup
	threads = max(threads, 1)
	for t := 0; t < threads; t++ {
		wg.Add(1)
		go func(t int) {
			defer wg.Done()
			for j := t; j < n; j += threads {
				col := a[j*n:]
				for i := j; i < n; i++ {
					dx, dy := x[i]-x[j], y[i]-y[j]
					col[i] = math.Exp(-math.Sqrt(dx*dx+dy*dy) / beta)
				}
			}
		}(t)
	}
	wg.Wait()
	return a
}

func dgemmRate(kern kernels.Impl, n, reps int) float64 {
	a := make([]float64, n*n)
	b := make([]float64, n*n)
	c := make([]float64, n*n)
	for i := range a {
		a[i] = float64(i%7) * 0.1
		b[i] = float64(i%5) * 0.2
	}
	best := math.Inf(1)
	for r := 0; r < reps; r++ {
		t0 := time.Now()
		kern.Dgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, a, n, b, n, 0, c, n)
		best = min(best, time.Since(t0).Seconds())
	}
	return 2 * float64(n) * float64(n) * float64(n) / best * 1e-9
}

// residualArgs: tile (m, c) of A - L L^T for the matrix a and the
// factor l, its squared norms written to norm and sum.
type residualArgs struct {
	l         *tile.Sym
	a         []float64
	m, c      int
	norm, sum *float64
}

// residualCL is the task of Residual: it reads L(m,0..c), then L(c,0..c)
// when c != m, and writes the squared Frobenius norms of A(m,c) and of
// R(m,c) = A(m,c) - sum_k L(m,k) L(c,k)^T (symSumSq) into the caller's
// slots (a check of a benchmark on one process: no runtime data out).
var residualCL = &insert.Codelet[residualArgs]{
	Kind: "residual",
	ModesFor: func(r residualArgs) []runtime.Mode {
		n := r.c + 1
		if r.c != r.m {
			n *= 2
		}
		modes := make([]runtime.Mode, n)
		for i := range modes {
			modes[i] = runtime.R
		}
		return modes
	},
	CPU: func(r residualArgs, kern kernels.Impl, ctx runtime.Context) error {
		l, m, c, n := r.l, r.m, r.c, r.l.N
		lm := func(k int) []float64 { return ctx.Dense(k) } // L(m,k)
		lc := lm                                            // L(c,k)
		if c != m {
			lc = func(k int) []float64 { return ctx.Dense(c + 1 + k) }
		}
		mb, nb := l.Rows(m), l.Rows(c)
		res := make([]float64, mb*nb)
		for j := 0; j < nb; j++ {
			copy(res[j*mb:(j+1)*mb], r.a[(l.Offset(c)+j)*n+l.Offset(m):][:mb])
		}
		*r.norm = symSumSq(res, mb, nb, m == c)
		// Lower-triangular copy of the diagonal factor tile L(c,c).
		lcc := make([]float64, nb*nb)
		src := lc(c)
		for j := 0; j < nb; j++ {
			copy(lcc[j*nb+j:(j+1)*nb], src[j*nb+j:(j+1)*nb])
		}
		for k := 0; k < c; k++ {
			kern.Dgemm(blas.NoTrans, blas.Trans, mb, nb, l.Rows(k), -1, lm(k), mb, lc(k), nb, 1, res, mb)
		}
		lmc := lcc
		if m != c {
			lmc = lm(c)
		}
		kern.Dgemm(blas.NoTrans, blas.Trans, mb, nb, nb, -1, lmc, mb, lcc, nb, 1, res, mb)
		*r.sum = symSumSq(res, mb, nb, m == c)
		return nil
	},
}

// Residual returns ||A - L L^T||_F / ||A||_F, where A is the lower triangle
// of the column-major matrix a (order l.N) and L the lower factor held in the
// tiles of l. It runs as one task per lower tile on l's runtime.
func Residual(kern kernels.Impl, a []float64, l *tile.Sym) (float64, error) {
	rt := l.Runtime()
	ts := insert.New(rt, kern)
	nt := l.NT
	sums := make([]float64, nt*(nt+1)/2) // ||R(m,n)||^2 per tile, off-diagonal tiles counted twice
	norms := make([]float64, nt*(nt+1)/2)
	i := 0
	for m := 0; m < nt; m++ {
		for c := 0; c <= m; c++ {
			var hs []*runtime.Handle
			for j := 0; j <= c; j++ {
				hs = append(hs, l.Handle(m, j))
			}
			if c != m {
				for j := 0; j <= c; j++ {
					hs = append(hs, l.Handle(c, j))
				}
			}
			residualCL.Insert(ts, insert.At(m, c, -1, 0), residualArgs{l: l, a: a, m: m, c: c, norm: &norms[i], sum: &sums[i]}, hs...)
			i++
		}
	}
	if err := rt.Wait(); err != nil {
		return 0, err
	}
	var s, an float64
	for i := range sums {
		s += sums[i]
		an += norms[i]
	}
	return math.Sqrt(s / an), nil
}

// symSumSq returns the contribution of an mb x nb tile of a symmetric matrix
// to its squared Frobenius norm: each entry twice for an off-diagonal tile,
// the lower triangle (off-diagonal entries twice) for a diagonal one.
func symSumSq(r []float64, mb, nb int, diag bool) float64 {
	var s float64
	for j := 0; j < nb; j++ {
		for i := 0; i < mb; i++ {
			if diag && i < j {
				continue
			}
			w := 2.0
			if diag && i == j {
				w = 1
			}
			s += w * r[i+j*mb] * r[i+j*mb]
		}
	}
	return s
}
