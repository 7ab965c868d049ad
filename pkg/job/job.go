// Package job runs exageostat's commands: a job is one run of a command
// from its configuration. Fit, Simulate and Predict take a validated
// configuration (pkg/config) and the ranks to run on, and do everything
// between the flags and the printed result: they read the data, build the
// tile distributions, check that every rank has the memory the run needs,
// start the runtime, run the task graphs, assess the fit, and write the
// output files (rank 0 only, atomically). Every rank of a distributed run
// calls the same entry point; results come back on every rank, and the
// per-rank reports (memory, trace events) are gathered on rank 0.
package job

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/distribution"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/mle"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/stop"
	"github.com/exageostat/exageostat/pkg/strategy"
	"github.com/exageostat/exageostat/pkg/tile"
	"github.com/exageostat/exageostat/pkg/tlr"
)

// Env is what a job runs in besides its configuration.
type Env struct {
	// Comm connects the ranks of the run (nil: one rank).
	Comm comm.Comm
	// Log receives notes while the job runs: the set-up, a start outside
	// the bounds, the simulated data (nil: discarded).
	Log io.Writer
	// Step, if not nil, is called after every evaluation of a fit.
	Step func(mle.Step)
	// Progress, if not nil, receives a progress line of each evaluation
	// under way (rank 0; tasks done / given, ETA) every ProgressEvery,
	// redrawn in place when ProgressTTY (a terminal).
	Progress    io.Writer
	ProgressTTY bool
	// ProgressHead, if not nil, gives the text drawn before the progress
	// on a terminal's line (the last evaluation's summary).
	ProgressHead func() string
	// Quiet keeps Log to warnings (-q): the notes of logf are dropped,
	// those of warnf kept.
	Quiet bool
	// Stdout receives an output named "-" (--out -; nil: os.Stdout).
	Stdout io.Writer
	// Command is the command line (os.Args), recorded in the results
	// (provenance; the files read are Inputs').
	Command []string
	// Stop, if not nil, is the run's request to stop (the signal handler
	// asks it): a fit ends early, writing its best so far, and returns an
	// *Interrupted (stopping.go); StopGrace is how long an evaluation
	// under way may go on after the request (0: StopGrace, or less under
	// mpirun).
	Stop      *stop.Request
	StopGrace time.Duration
	// Inputs, if not nil, reads the input files (rank 0 reads, every rank
	// gets the bytes); the command gives it the files it read already
	// (the configuration), for the run's record. Nil: the job makes one.
	Inputs *Inputs
	// GPUs, if not nil, opens count GPUs as runtime devices with tiles of
	// nb (the CUDA build); nil: this build has none.
	GPUs func(count, nb int) ([]runtime.Device, error)
	// HeapLimit, if not nil, holds the process's Go heap to the given
	// bytes (the command's runtime/debug.SetMemoryLimit: process-wide
	// state, the command's to set). A Vecchia fit calls it once its
	// memory check has passed, with the heap its bound allows
	// (vecchia.FitMemory.Heap): the collector then works harder near
	// the bound instead of letting the heap grow to twice what is live.
	HeapLimit func(bytes int64)
}

// heapLimit holds the Go heap to bytes through e.HeapLimit (nothing
// without one).
func (e Env) heapLimit(bytes int64) {
	if e.HeapLimit != nil {
		e.HeapLimit(bytes)
	}
}

// inputs returns the run's reader of input files.
func (e Env) inputs() *Inputs {
	if e.Inputs != nil {
		return e.Inputs
	}
	return NewInputs(e.comm(), e.Stop.Asked(), e.Stop.Number)
}

func (e Env) comm() comm.Comm {
	if e.Comm == nil {
		return comm.Self{}
	}
	return e.Comm
}

// stdout is where an output named "-" goes.
func (e Env) stdout() io.Writer {
	if e.Stdout == nil {
		return os.Stdout
	}
	return e.Stdout
}

// tileSize is the tile size of a matrix of order n: the one given (nb),
// at most n (a larger tile is the whole matrix, and would be budgeted
// as nb x nb), or tile.AutoNB when 0.
func tileSize(nb, n int) int {
	if nb == 0 {
		return tile.AutoNB(n)
	}
	return min(nb, max(n, 1))
}

// StdoutPath is the output path that means standard output (--out -).
const StdoutPath = "-"

// warnf writes a warning on Log, quiet or not.
func (e Env) warnf(format string, a ...any) {
	if e.Log != nil {
		fmt.Fprintf(e.Log, format, a...)
	}
}

func (e Env) logf(format string, a ...any) {
	if e.Log != nil && !e.Quiet {
		fmt.Fprintf(e.Log, format, a...)
	}
}

// InputError is an error caused by the user's input (files, values, a run
// that does not fit in memory): the command exits with status 2.
type InputError struct {
	Err error
	// Agreed is set when every rank of the run returns this error, having
	// agreed on it with a collective: rank 0 alone reports it and the
	// ranks end together.
	Agreed bool
}

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// BadInput returns an *InputError with the message fmt.Errorf makes of
// format and a.
func BadInput(format string, a ...any) error { return &InputError{Err: fmt.Errorf(format, a...)} }

func badInput(format string, a ...any) error { return BadInput(format, a...) }

// IsInput reports whether err is caused by the user's input: an
// *InputError, a *config.Error, a *dataset.InputError, or a
// *tlr.RankError (a tile that needs a rank above --max-rank: raise it).
func IsInput(err error) bool {
	var ie *InputError
	var ce *config.Error
	var de *dataset.InputError
	var re *tlr.RankError
	return errors.As(err, &ie) || errors.As(err, &ce) || errors.As(err, &de) || errors.As(err, &re)
}

// Agreed reports whether every rank of a distributed run returns err
// alike: a task error (runtime.Wait agrees on it), an input error the
// ranks agreed on (the inputs, the memory check), an *Interrupted (the
// ranks agree on stopping after every evaluation), or another error a
// collective agreed on (agreement, agreeOwners).
func Agreed(err error) bool {
	var te *runtime.TaskError
	var ie *InputError
	var in *Interrupted
	var ae *agreedErr
	return errors.As(err, &te) || (errors.As(err, &ie) && ie.Agreed) || errors.As(err, &in) || errors.As(err, &ae)
}

// FailTaskEnv names a task to fail on purpose, as RANK:TASK (e.g.
// 1:potrf(2,2,2)): a test hook for the error path of distributed runs.
const FailTaskEnv = "EXAGEOSTAT_FAIL_TASK"

// newRuntime starts the runtime of a job on w's ranks (workers 0: one
// per core), with the forced failure of FailTaskEnv if set.
func newRuntime(w comm.Comm, workers int, trace bool) (*runtime.Runtime, error) {
	return newRuntimeWith(w, workers, trace, nil)
}

// newRuntimeWith is newRuntime with the runtime part of the
// phase-overlap switches ov (nil: all on) and options pl (placement,
// trace).
func newRuntimeWith(w comm.Comm, workers int, trace bool, ov *likelihood.Overlap, pl ...runtimeOption) (*runtime.Runtime, error) {
	// A traced job reports its busy times in CPU time too (TaskCPU).
	ro := runtime.Options{Workers: workers, Trace: trace, TaskCPU: trace, Comm: w}
	for _, p := range pl {
		p.apply(&ro)
	}
	if ov == nil {
		all := likelihood.AllOverlap()
		ov = &all
	}
	ro = ov.RuntimeOptions(ro)
	if v := os.Getenv(FailTaskEnv); v != "" {
		r, name, ok := strings.Cut(v, ":")
		if _, err := fmt.Sscan(r, &ro.FailRank); err != nil || !ok {
			return nil, &InputError{Err: fmt.Errorf("%s=%q: want RANK:TASK, e.g. 1:potrf(2,2,2)", FailTaskEnv, v), Agreed: true}
		}
		if ro.FailRank < 0 || ro.FailRank >= w.Size() {
			// Agreed: every rank has the same setting (settingsOf).
			return nil, &InputError{Err: fmt.Errorf("%s=%q: there is no rank %d (the run has %d)", FailTaskEnv, v, ro.FailRank, w.Size()), Agreed: true}
		}
		ro.FailTask = name
	}
	return runtime.New(ro), nil
}

// Metric maps a distance name to a metric: "auto" is great-circle for
// geographic (lon,lat) data and Euclidean otherwise.
func Metric(name string, coords dataset.Coords) (matern.Metric, error) {
	if name == "auto" {
		if coords == dataset.Geographic {
			return matern.GreatCircle, nil
		}
		return matern.Euclidean, nil
	}
	if m, ok := matern.ParseMetric(name); ok {
		return m, nil
	}
	return 0, fmt.Errorf("unknown distance %q (want euclidean, great-circle or auto)", name)
}

// checkDegrees refuses great-circle distances (m) over locations d that
// are not in degrees: a longitude x outside [-180, 360] or a latitude y
// outside [-90, 90], as projected coordinates (UTM metres) are; what names
// the input in the message.
func checkDegrees(what string, d *dataset.Data, m matern.Metric) error {
	if m != matern.GreatCircle || d == nil {
		return nil
	}
	for i := range d.X {
		if x, y := d.X[i], d.Y[i]; x < -180 || x > 360 || y < -90 || y > 90 {
			return badInput("%s: --distance great-circle needs longitude and latitude in degrees, but location %d has x=%g, y=%g (projected coordinates such as UTM metres need --distance euclidean)", what, i+1, x, y)
		}
	}
	return nil
}

// Owners returns the tile distributions of an MPI run: the
// factorisation's and, when the generation phase differs from it, the
// generation's (nil otherwise); and a name for the log. lp and bc-fast are
// built from cl's node groups by pkg/strategy, as simulate-cluster builds
// them.
func Owners(cl config.Cluster, n, nb int, excludeCPUOnly bool) (fact, gen tile.OwnerFunc, name string, err error) {
	nt := tile.NewLayout(n, nb).NT
	fp, gp := cl.Phases()
	if config.Derived(fp.Distribution) {
		p, err := strategy.Build(fp.Distribution, cl, nt, strategy.Options{ExcludeCPUOnly: excludeCPUOnly})
		if err != nil {
			return nil, nil, "", err
		}
		name = p.Fact.Name()
		if p.Note != "" {
			name += " (" + p.Note + ")"
		}
		if p.Gen == p.Fact {
			return p.Fact.Owner, nil, name, nil
		}
		return p.Fact.Owner, p.Gen.Owner, fmt.Sprintf("%s, %s, %d tiles move", name, p.Gen.Name(), p.Moved), nil
	}
	fd, err := distribution.NewBanded(fp.Distribution, cl.Nodes, fp.P, fp.Q, fp.Band, fp.Powers, nt)
	if err != nil {
		return nil, nil, "", err
	}
	name = fd.Name()
	if fp.Distribution == gp.Distribution && fp.P == gp.P && fp.Q == gp.Q && fp.Band == gp.Band && slices.Equal(fp.Powers, gp.Powers) {
		return fd.Owner, nil, name, nil
	}
	gd, err := distribution.NewBanded(gp.Distribution, cl.Nodes, gp.P, gp.Q, gp.Band, gp.Powers, nt)
	if err != nil {
		return nil, nil, "", err
	}
	moved := distribution.Moves(fd, gd, nt)
	return fd.Owner, gd.Owner, fmt.Sprintf("%s (generation %s, %d tiles move)", name, gd.Name(), moved), nil
}

// distribute returns the distributions of n points with tile size nb over
// the ranks of cl (nil owners on one rank: every tile on rank 0). Every
// rank computes them; they compare the owner tables (agreeOwners).
func distribute(w comm.Comm, cl config.Cluster, n, nb int, excludeCPUOnly bool) (fact, gen tile.OwnerFunc, name string, err error) {
	if cl.Nodes <= 1 {
		return nil, nil, "", nil
	}
	fact, gen, name, err = Owners(cl, n, nb, excludeCPUOnly)
	if err != nil {
		return nil, nil, "", &InputError{Err: err}
	}
	if err := agreeOwners(w, tile.NewLayout(n, nb).NT, fact, gen); err != nil {
		return nil, nil, "", err
	}
	return fact, gen, name, nil
}

// phaseCluster checks the distribution keys of a command without a
// cluster file over w's ranks (src names the command in errors).
func phaseCluster(src string, nodes int, p config.Phase) (config.Cluster, error) {
	cl := config.Cluster{Nodes: nodes, Phase: p}
	if nodes > 1 {
		if err := cl.Validate(src); err != nil {
			return cl, err
		}
	}
	return cl, nil
}

// points returns d's locations.
func points(d *dataset.Data) matern.Points { return matern.Points{X: d.X, Y: d.Y, Z: d.Z, T: d.T} }

// subset returns the rows idx of d.
func subset(d *dataset.Data, idx []int) *dataset.Data {
	s := &dataset.Data{Coords: d.Coords}
	for _, i := range idx {
		s.X = append(s.X, d.X[i])
		s.Y = append(s.Y, d.Y[i])
		if d.Obs != nil {
			s.Obs = append(s.Obs, d.Obs[i])
		}
		if d.Z != nil {
			s.Z = append(s.Z, d.Z[i])
		}
		if d.T != nil {
			s.T = append(s.T, d.T[i])
		}
		if d.Obs2 != nil {
			s.Obs2 = append(s.Obs2, d.Obs2[i])
		}
	}
	for _, c := range d.Columns {
		v := make([]float64, len(idx))
		for k, i := range idx {
			v[k] = c.Values[i]
		}
		s.Columns = append(s.Columns, dataset.Column{Name: c.Name, Values: v})
	}
	return s
}

// checkFailTask ends a job whose FailTaskEnv named no task that ran: a
// fault test that injected nothing must not pass (collective; the ranks
// agree on the setting, settingsOf). Call it after the job's graphs.
func checkFailTask(rt *runtime.Runtime, w comm.Comm) error {
	v := os.Getenv(FailTaskEnv)
	if v == "" {
		return nil
	}
	hits := []int64{rt.FailTaskHits()}
	if err := w.AllreduceSum(hits); err != nil {
		return err
	}
	if hits[0] > 0 {
		return nil
	}
	r, name, _ := strings.Cut(v, ":")
	return &InputError{Err: fmt.Errorf("%s=%s: no task %s ran on rank %s, so no failure was injected (tasks are named kind(tile indices), e.g. potrf(1,1,1), trmm(2,1,1), gemm(3,2,1), dcmg(2,1): see a run's --trace)",
		FailTaskEnv, v, name, r), Agreed: true}
}
