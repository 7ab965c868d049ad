package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	goruntime "runtime"
	"slices"
	"time"

	"gonum.org/v1/gonum/blas"

	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/cputime"
	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/kind"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/perfmodel"
)

// CalibrateOptions configure Calibrate.
type CalibrateOptions struct {
	NB   int // tile size
	Reps int // timed samples per task kind and round (the median of all is kept)
	// Stable, if > 0, makes each kind take rounds of Reps samples until
	// the median of all its samples moves by at most Stable (relative)
	// from one round to the next, or it has MaxReps samples (0: 10 Reps).
	Stable  float64
	MaxReps int
	Nu      float64 // Matérn smoothness of the dcmg tiles; a general value (not 0.5, 1.5, 2.5) has no closed form
	// MinSample is the shortest sample, in seconds (0: 200 us): a kernel
	// that can run again on its own output without changing its cost
	// (dcmg, syrk, gemm, gemv, geadd, det, dot, zcpy) is repeated within
	// one sample until it lasts this long, and the sample is the time per
	// call, so that microsecond kernels are not measured at the clock's
	// resolution.
	MinSample float64
	// Progress, if not nil, receives one line per measured kind.
	Progress func(string)
	// Kernels, if not nil, runs the tile kernels instead of
	// kernels.Default() (a GPU worker of pkg/cuda: its calls move the
	// tiles to the device and back). When it is a DeviceClock, a sample
	// is the device's own kernel time (the time a worker with resident
	// tiles spends on the task), not the thread's CPU time.
	Kernels kernels.Impl
	// Kinds, if not empty, are the kinds measured (in config.TaskKinds
	// order, whatever the order given); empty: all of them.
	Kinds []string
	// Cold evicts the core's caches before each timed task (writing over a
	// buffer of ColdBytes, 4 MiB if 0: more than a core's L2, less than the
	// shared L3), as in a run where a task reads tiles another core wrote:
	// a kernel measured on hot caches ran 2-9 % faster than the same task
	// in a run, and with 16-64 MiB evicted (tiles from memory) 7-14 %
	// slower (docs/heterogeneous.md).
	Cold      bool
	ColdBytes int
}

// DeviceClock is a kernel set that runs its calls on a device and stages
// the operands there and back (gpu.Staged): DeviceSeconds returns the
// seconds its device kernels have taken so far, each from its launch to
// its completion, the copies excluded. Calibrate samples it for such a
// kernel set, so that a GPU kind's duration is that of a task on tiles
// the runtime keeps resident (fit --gpus), not that of the copies.
type DeviceClock interface {
	DeviceSeconds() float64
}

// KindTiming is the measured duration of one task of a kind.
type KindTiming struct {
	Kind    string    `json:"kind"`
	Seconds float64   `json:"seconds"` // median of Samples
	Samples []float64 `json:"samples"` // CPU (or device: DeviceClock) seconds per task, one per sample
	Calls   int       `json:"calls"`   // calls per sample
	// Spread is the samples' interquartile range relative to their
	// median, (q3 - q1) / median; Medians the median after each round of
	// Reps samples, and Stable whether the last two are within
	// CalibrateOptions.Stable.
	Spread  float64   `json:"spread"`
	Medians []float64 `json:"round_medians"`
	Stable  bool      `json:"stable"`
	// Wall is the median wall time per task over the same samples: above
	// Seconds by what the OS took from the thread (a loaded machine).
	Wall float64 `json:"wall_seconds"`
	// Flops of one task at NB, as the task graph counts them (dcmg: the
	// entries generated, zcpy: 0), and Flops / Seconds in GFLOP/s (0 for
	// dcmg and zcpy).
	Flops  float64 `json:"flops"`
	Gflops float64 `json:"gflops"`
}

// Calibration is the result of Calibrate.
type Calibration struct {
	NB      int          `json:"nb"`
	Reps    int          `json:"reps"`
	Nu      float64      `json:"nu"`
	Kernels string       `json:"kernels"`       // tile kernel implementation
	Core    string       `json:"openblas_core"` // kernels OpenBLAS selected
	Kinds   []KindTiming `json:"kinds"`         // in config.TaskKinds order
	// Workers and Ranks are the goroutines per rank and the ranks that
	// measured at once (CalibrateLoaded; 0 from Calibrate: one).
	Workers int `json:"workers,omitempty"`
	Ranks   int `json:"ranks,omitempty"`
}

// Durations returns the median seconds per task kind, as a cluster file's
// [group.cpu] table.
func (c *Calibration) Durations() config.Durations {
	d := config.Durations{}
	for _, k := range c.Kinds {
		d[k.Kind] = k.Seconds
	}
	return d
}

// calKind is how to measure one task kind: setup (untimed) puts the inputs
// in place before each call of a kernel that cannot run again on its own
// output; run is one task's kernel call.
type calKind struct {
	kind   string
	flops  float64
	setup  func()
	run    func()
	repeat bool // run may be called again without setup
}

// Calibrate measures, on the calling goroutine (one worker), the duration of
// one task of each kind of a likelihood evaluation (config.TaskKinds) on
// full NB x NB tiles, with the same kernel calls as the tasks of pkg/cholesky,
// pkg/solve and pkg/likelihood:
//
//	dcmg   matern.FillTile of an off-diagonal tile, Matérn (1, 0.1, Nu),
//	       2 NB points uniform in the unit square
//	potrf  Dpotrf of an exponential covariance tile
//	trtri  kernels.LowerInverse of its factor
//	trmm   Dtrmm(Right, Lower, Trans, NonUnit) by that inverse
//	syrk   Dsyrk(Lower, NoTrans), gemm Dgemm(NoTrans, Trans)
//	trsv   Dtrsv(Lower, NoTrans, NonUnit), gemv Dgemv(NoTrans), geadd Dgeadd
//	det    sum of the logs of the factor's diagonal
//	dot    Ddot of an NB-vector, zcpy copy of an NB-vector
//
// Each kind runs once untimed, then rounds of Reps timed samples (one
// round, or until the median is stable: CalibrateOptions.Stable); the
// duration is the median sample, its spread the interquartile range. A sample is the CPU time of the calling goroutine's OS
// thread (locked to it meanwhile: pkg/cputime), so that the OS giving the
// core to other work on a loaded machine does not lengthen it; its wall
// time is kept too (KindTiming.Wall). The caller sets the BLAS threads
// (one, for a task's duration on one worker).
func Calibrate(o CalibrateOptions) (*Calibration, error) {
	goruntime.LockOSThread()
	defer goruntime.UnlockOSThread()
	o, err := o.checked()
	if err != nil {
		return nil, err
	}
	kern := o.Kernels
	if kern == nil {
		kern = kernels.Default()
	}
	in, err := newCalInputs(kern, o.NB, o.Nu)
	if err != nil {
		return nil, err
	}
	kinds := in.kinds()
	evict := o.evictor()
	res := &Calibration{NB: o.NB, Reps: o.Reps, Nu: o.Nu, Kernels: kern.Name(), Core: kernels.DefaultThreads().CoreName()}
	for _, name := range config.TaskKinds() {
		if len(o.Kinds) > 0 && !slices.Contains(o.Kinds, name) {
			continue
		}
		ck, ok := kinds[name]
		if !ok {
			return nil, fmt.Errorf("bench: calibrate: no measurement for task kind %q", name)
		}
		ck.kind = name
		kt := measure(ck, o, evict)
		if kt.Flops > 0 && name != kind.Dcmg {
			kt.Gflops = kt.Flops / kt.Seconds * 1e-9
		}
		res.Kinds = append(res.Kinds, kt)
		o.Progress(calibrateLine(kt, o))
	}
	if math.IsNaN(in.sink) {
		o.Progress("note: NaN in the det/dot test values")
	}
	return res, nil
}

// checked returns o with its defaults filled in (MinSample, Progress), or
// an error for a size, a count or a kind out of range.
func (o CalibrateOptions) checked() (CalibrateOptions, error) {
	if o.NB < 1 || o.Reps < 1 {
		return o, fmt.Errorf("bench: calibrate needs nb and reps >= 1 (got %d, %d)", o.NB, o.Reps)
	}
	if o.MinSample <= 0 {
		o.MinSample = 2e-4
	}
	for _, k := range o.Kinds {
		if !slices.Contains(config.TaskKinds(), k) {
			return o, fmt.Errorf("bench: calibrate: unknown task kind %q", k)
		}
	}
	if o.Progress == nil {
		o.Progress = func(string) {}
	}
	return o, nil
}

// evictor returns the function that evicts the core's caches before a
// timed task (Cold), or nil.
func (o CalibrateOptions) evictor() func() {
	if !o.Cold {
		return nil
	}
	n := o.ColdBytes / 8
	if n <= 0 {
		n = 4 << 20 / 8
	}
	junk := make([]float64, n)
	return func() {
		for i := range junk {
			junk[i]++
		}
	}
}

// calibrateLine is Calibrate's progress line for one measured kind.
func calibrateLine(kt KindTiming, o CalibrateOptions) string {
	rate := ""
	switch {
	case kt.Kind == kind.Dcmg:
		rate = fmt.Sprintf("  (%.1f M entries/s)", kt.Flops/kt.Seconds*1e-6)
	case kt.Gflops > 0:
		rate = fmt.Sprintf("  (%.2f GFLOP/s)", kt.Gflops)
	}
	stable := ""
	if o.Stable > 0 && !kt.Stable {
		stable = ", not stable"
	}
	return fmt.Sprintf("%-6s nb=%d  median %s, spread %.1f %% (IQR), over %d samples of %d call(s)%s%s",
		kt.Kind, o.NB, formatSeconds(kt.Seconds), 100*kt.Spread, len(kt.Samples), kt.Calls, rate, stable)
}

// calInputs are Calibrate's tiles and vectors: an SPD tile, its factor and
// the inverse of the factor, general tiles and vectors, points and a
// Matérn kernel; sink collects the det and dot results.
type calInputs struct {
	kern                     kernels.Impl
	nb                       int
	spd, factor, inv         []float64
	a, b, c, pristineC, work []float64
	z, g, zsrc               []float64
	pts                      matern.Points
	k                        matern.Kernel
	sink                     float64
}

// newCalInputs makes the inputs of nb x nb tiles, Matérn smoothness nu.
func newCalInputs(kern kernels.Impl, nb int, nu float64) (*calInputs, error) {
	in := &calInputs{kern: kern, nb: nb}
	in.spd = ExpCovariance(nb, 0.1, 20261101, 1)
	in.factor = append([]float64(nil), in.spd...)
	if info := kern.Dpotrf(nb, in.factor, nb); info != 0 {
		return nil, fmt.Errorf("bench: calibrate: the test tile is not positive definite (info %d)", info)
	}
	in.inv = make([]float64, nb*nb)
	in.lowerCopy(in.inv)
	if info := kernels.LowerInverse(kern, nb, in.inv, nb); info != 0 {
		return nil, fmt.Errorf("bench: calibrate: the test factor is singular (info %d)", info)
	}
	rng := rand.New(rand.NewPCG(20261101, 11))
	random := func(n int) []float64 {
		x := make([]float64, n)
		for i := range x {
			x[i] = rng.Float64() - 0.5
		}
		return x
	}
	in.a, in.b, in.c, in.pristineC = random(nb*nb), random(nb*nb), make([]float64, nb*nb), random(nb*nb)
	in.work = make([]float64, nb*nb)
	in.z, in.g, in.zsrc = random(nb), random(nb), random(nb)
	in.pts = matern.Points{X: random(2 * nb), Y: random(2 * nb)}
	k, err := matern.NewMatern(matern.Theta{Sigma2: 1, Beta: 0.1, Nu: nu}, math.Sqrt2)
	if err != nil {
		return nil, fmt.Errorf("bench: calibrate: %w", err)
	}
	in.k = k
	return in, nil
}

// lowerCopy copies the factor's lower triangle into dst.
func (in *calInputs) lowerCopy(dst []float64) {
	nb := in.nb
	for j := range nb {
		copy(dst[j*nb+j:(j+1)*nb], in.factor[j*nb+j:(j+1)*nb])
	}
}

// kinds returns how to measure each task kind on the inputs.
func (in *calInputs) kinds() map[string]calKind {
	nb, kern := in.nb, in.kern
	fnb := float64(nb)
	factor, inv, work, a, b, c := in.factor, in.inv, in.work, in.a, in.b, in.c
	z, g, zsrc := in.z, in.g, in.zsrc
	return map[string]calKind{
		kind.Dcmg: {flops: fnb * fnb, repeat: true, run: func() {
			matern.FillTile(in.k, 0, matern.Euclidean, in.pts, 0, nb, in.pts, nb, nb, false, work, nb)
		}},
		kind.Zcpy: {repeat: true, run: func() { copy(z, zsrc) }},
		kind.Potrf: {flops: fnb*fnb*fnb/3 + fnb*fnb/2 + fnb/6,
			setup: func() { copy(work, in.spd) },
			run:   func() { kern.Dpotrf(nb, work, nb) }},
		kind.Trtri: {flops: fnb * fnb * fnb / 3,
			setup: func() { in.lowerCopy(work) },
			run:   func() { kernels.LowerInverse(kern, nb, work, nb) }},
		kind.Trmm: {flops: fnb * fnb * fnb,
			setup: func() { copy(work, a) },
			run: func() {
				kern.Dtrmm(blas.Right, blas.Lower, blas.Trans, blas.NonUnit, nb, nb, 1, inv, nb, work, nb)
			}},
		kind.Syrk: {flops: fnb * fnb * (fnb + 1), repeat: true,
			setup: func() { copy(c, in.pristineC) },
			run:   func() { kern.Dsyrk(blas.Lower, blas.NoTrans, nb, nb, -1, a, nb, 1, c, nb) }},
		kind.Gemm: {flops: 2 * fnb * fnb * fnb, repeat: true,
			setup: func() { copy(c, in.pristineC) },
			run: func() {
				kern.Dgemm(blas.NoTrans, blas.Trans, nb, nb, nb, -1, a, nb, b, nb, 1, c, nb)
			}},
		kind.Det: {flops: fnb, repeat: true, run: func() {
			var s float64
			for i := range nb {
				s += math.Log(factor[i+i*nb])
			}
			in.sink += s
		}},
		kind.Trsv: {flops: fnb * fnb,
			setup: func() { copy(z, zsrc) },
			run:   func() { kern.Dtrsv(blas.Lower, blas.NoTrans, blas.NonUnit, nb, factor, nb, z, 1) }},
		kind.Gemv: {flops: 2 * fnb * fnb, repeat: true,
			setup: func() { copy(g, zsrc) },
			run:   func() { kern.Dgemv(blas.NoTrans, nb, nb, 1, factor, nb, zsrc, 1, 1, g, 1) }},
		kind.Geadd: {flops: fnb, repeat: true,
			setup: func() { copy(z, zsrc) },
			run:   func() { kern.Dgeadd(nb, 1, -1, g, nb, 1, z, nb) }},
		kind.Dot: {flops: 2 * fnb, repeat: true, run: func() { in.sink += kern.Ddot(nb, zsrc, 1, zsrc, 1) }},
	}
}

// measure times ck: one untimed call, then rounds of o.Reps samples of
// calls calls each (calls > 1 only for repeatable kernels shorter than
// o.MinSample), in the thread's CPU time and in wall time, until the
// median is stable (o.Stable) or there are o.MaxReps samples; one round
// without o.Stable.
func measure(ck calKind, o CalibrateOptions, evict func()) KindTiming {
	// timed runs ck calls times (after setup and eviction) and returns
	// the CPU and wall seconds per call.
	timed := func(calls int) (cpu, wall float64) {
		if ck.setup != nil {
			ck.setup()
		}
		if evict != nil {
			evict()
		}
		clock, device := o.Kernels.(DeviceClock)
		var d0 float64
		if device {
			d0 = clock.DeviceSeconds()
		}
		c0, _ := cputime.Thread()
		t0 := time.Now()
		for range calls {
			ck.run()
		}
		wall = time.Since(t0).Seconds()
		c1, ok := cputime.Thread()
		cpu = float64(c1-c0) * 1e-9
		switch {
		case device:
			cpu = clock.DeviceSeconds() - d0
		case !ok:
			cpu = wall
		}
		return cpu / float64(calls), wall / float64(calls)
	}
	first, _ := timed(1) // warm-up: caches, page faults, lazy initialisation
	calls := 1
	if ck.repeat && first < o.MinSample {
		calls = int(min(math.Ceil(o.MinSample/math.Max(first, 1e-9)), 1e6))
		// A second estimate: the first call is often the slowest.
		per, _ := timed(calls)
		calls = int(min(math.Ceil(o.MinSample/math.Max(per, 1e-9)), 1e6))
	}
	kt := KindTiming{Kind: ck.kind, Flops: ck.flops, Calls: calls}
	var walls []float64
	maxReps := o.MaxReps
	if maxReps < o.Reps {
		maxReps = 10 * o.Reps
	}
	for len(kt.Samples) < maxReps {
		for range o.Reps {
			c, w := timed(calls)
			kt.Samples, walls = append(kt.Samples, c), append(walls, w)
		}
		kt.Medians = append(kt.Medians, median(kt.Samples))
		if o.Stable <= 0 {
			break
		}
		if n := len(kt.Medians); n >= 2 && math.Abs(kt.Medians[n-1]-kt.Medians[n-2]) <= o.Stable*kt.Medians[n-2] {
			kt.Stable = true
			break
		}
	}
	kt.Seconds, kt.Wall, kt.Spread = median(kt.Samples), median(walls), spread(kt.Samples)
	return kt
}

// spread is the interquartile range of xs relative to their median (0 for
// a median of 0).
func spread(xs []float64) float64 {
	m := median(xs)
	if !(m > 0) {
		return 0
	}
	return (quantile(xs, 0.75) - quantile(xs, 0.25)) / m
}

// quantile returns the q-quantile of xs (linear interpolation between
// order statistics).
func quantile(xs []float64, q float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	p := q * float64(len(s)-1)
	i := int(p)
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[i] + (p-float64(i))*(s[i+1]-s[i])
}

// formatSeconds prints a duration with a unit that suits it.
func formatSeconds(s float64) string {
	switch {
	case s >= 1:
		return fmt.Sprintf("%.3f s", s)
	case s >= 1e-3:
		return fmt.Sprintf("%.3f ms", s*1e3)
	case s >= 1e-6:
		return fmt.Sprintf("%.3f us", s*1e6)
	}
	return fmt.Sprintf("%.1f ns", s*1e9)
}

// AddTo records every sample of c (seconds per task of each kind, on full
// NB x NB tiles) into m under arch, at the footprint
// perfmodel.Footprint(kind, NB): the model's mean and standard deviation
// are those of the samples (Calibration.Durations keeps their median).
func (c *Calibration) AddTo(m *perfmodel.Model, arch string) {
	for _, k := range c.Kinds {
		for _, s := range k.Samples {
			m.Record(arch, k.Kind, perfmodel.Footprint(k.Kind, c.NB), s)
		}
	}
}
