package insert

import (
	"fmt"
	"slices"

	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/runtime"
)

// Codelet declares one task kind, once (StarPU's starpu_codelet): its
// name, the access mode of each buffer, its flop count, its CPU
// implementation, its device implementation (nil: CPU only) and the key of
// its performance model. A is what a task of the kind carries besides its
// buffers (StarPU's cl_arg): tile sizes, scalars, flags, a compressor.
//
// A kind is added in four steps: a name in package kind, an argument type
// whose methods compute the task (CPU, and Device where there is one)
// and its flops, a codelet, and an insert function that fills the
// arguments from the handles' formats and calls Insert (Chameleon's
// INSERT_TASK_x). For example, a task that scales a vector tile,
// x = alpha x:
//
//	type scaleArgs struct {
//		n     int
//		alpha float64
//	}
//
//	func (a scaleArgs) flops() float64 { return float64(a.n) }
//
//	func (a scaleArgs) cpu(_ kernels.Impl, c runtime.Context) error {
//		x := c.Vector(0)
//		for i := range x {
//			x[i] *= a.alpha
//		}
//		return nil
//	}
//
//	var scaleCL = &insert.Codelet[scaleArgs]{Kind: kind.Scale,
//		Modes: []runtime.Mode{runtime.RW}, Flops: scaleArgs.flops, CPU: scaleArgs.cpu}
//
//	// Scale submits x = alpha x for the vector tile x.
//	func Scale(ts insert.Tasks, p insert.Place, alpha float64, x *runtime.Handle) {
//		scaleCL.Insert(ts, p, scaleArgs{n: x.Format().(runtime.Vector).N, alpha: alpha}, x)
//	}
//
// A codelet may live in the package of its algorithm (Vecchia's block
// tasks, a benchmark's check); list it in Codelets (codelets.go) when it
// has a device implementation, so that calibration and the device
// scheduling see it. Its buffers come from the runtime (Context), never
// from slices captured when it is submitted; only input data that every
// rank holds (locations, observations) may be captured in A.
type Codelet[A any] struct {
	Kind string // the kind's name, from package kind
	// Modes is the access mode of each buffer, in order.
	Modes []runtime.Mode
	// ModesFor, if not nil, gives the modes of a task from its arguments
	// instead of Modes: an output that is overwritten (W, e.g. beta = 0,
	// a first partial sum) rather than updated (RW) waits for no earlier
	// reader's data and receives no copy; a task with a variable number
	// of buffers lists them all.
	ModesFor func(a A) []runtime.Mode
	// Flops is the task's floating-point operation count (for rates,
	// traces and the scheduler's estimate of a kind not yet measured).
	Flops func(a A) float64
	// CPU computes the task on a CPU worker with the tile kernels k.
	CPU func(a A, k kernels.Impl, c runtime.Context) error
	// Device computes the task on a device's worker with its kernels, on
	// the device buffers (Context.DevBuf); nil: the kind runs on CPUs
	// only. A host-test device runs CPU.
	Device func(a A, d kernels.Device, c runtime.Context) error
	// Model is the key of the kind's performance model (durations per
	// architecture and footprint); "" means Kind.
	Model string
}

// Name returns the codelet's kind.
func (cl *Codelet[A]) Name() string { return cl.Kind }

// OnDevice reports whether the kind has a device implementation.
func (cl *Codelet[A]) OnDevice() bool { return cl.Device != nil }

// ModelKey returns the key of the kind's performance model.
func (cl *Codelet[A]) ModelKey() string {
	if cl.Model == "" {
		return cl.Kind
	}
	return cl.Model
}

// Insert submits a task of the kind with arguments a on the buffers hs,
// in the order of the modes, at place p, on t's runtime and kernels.
func (cl *Codelet[A]) Insert(t Tasks, p Place, a A, hs ...*runtime.Handle) {
	modes := cl.Modes
	if cl.ModesFor != nil {
		modes = cl.ModesFor(a)
	}
	if len(modes) != len(hs) {
		panic(fmt.Sprintf("insert: %s takes %d buffers, got %d", cl.Kind, len(modes), len(hs)))
	}
	acc := make([]runtime.Access, len(hs), len(hs)+len(p.after)+1)
	for i, h := range hs {
		acc[i] = runtime.Access{H: h, Mode: modes[i]}
	}
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
	k := t.K
	var flops float64
	if cl.Flops != nil {
		flops = cl.Flops(a)
	}
	t.RT.Submit(runtime.Task{Kind: cl.Kind, Model: cl.Model, Tile: p.Tile, Priority: p.Priority, Flops: flops,
		Access: acc, Pin: p.pin, Rank: p.rank, Device: cl.Device != nil,
		Run: func(c runtime.Context) error { return cl.run(k, c, a) }})
}

// run computes a task: the device implementation on a device's worker
// whose kernels are a kernels.Device, else the CPU one.
func (cl *Codelet[A]) run(k kernels.Impl, c runtime.Context, a A) error {
	if cl.Device != nil {
		if d, ok := c.DeviceKernels().(kernels.Device); ok && d != nil {
			return cl.Device(a, d, c)
		}
	}
	return cl.CPU(a, k, c)
}

// Declared is a codelet seen without its argument type.
type Declared interface {
	Name() string
	OnDevice() bool
	ModelKey() string
}

// DeviceKinds returns the kinds of Codelets that have a device
// implementation, in the order of Codelets: the kinds a device worker
// may run and calibration measures on a device.
func DeviceKinds() []string {
	var out []string
	for _, cl := range Codelets() {
		if cl.OnDevice() && !slices.Contains(out, cl.Name()) {
			out = append(out, cl.Name())
		}
	}
	return out
}
