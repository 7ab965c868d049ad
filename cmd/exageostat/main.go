// Command exageostat fits Gaussian-process (Matérn) models to spatial data by
// exact maximum likelihood over a task runtime, and benchmarks that runtime.
//
// Run `exageostat --help` for the commands.
package main

import (
	"errors"
	"fmt"
	"os"
	goruntime "runtime"
	"syscall"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/job"
	"github.com/exageostat/exageostat/pkg/kernels"
)

// exitCode is the process status for err: 2 for bad input (flags, files,
// configuration, a run that does not fit in memory), 1 for failures while
// computing; a fit that SIGINT or SIGTERM stopped says so with 128 + the
// signal's number (130, 143).
func exitCode(err error) int {
	var in *job.Interrupted
	if errors.As(err, &in) {
		return in.ExitCode()
	}
	if job.IsInput(err) {
		return 2
	}
	return 1
}

// badInput is an error caused by the user's input (exit status 2):
// job.InputError, the one such type of the commands.
func badInput(format string, a ...any) error { return job.BadInput(format, a...) }

// The environment variable that keeps a user's OPENBLAS_CORETYPE, and the one
// the re-executed process reads to report what was dropped.
const (
	keepCoretypeEnv    = "EXAGEOSTAT_KEEP_CORETYPE"
	droppedCoretypeEnv = "EXAGEOSTAT_DROPPED_CORETYPE"
)

// fixCoretype re-executes the binary without OPENBLAS_CORETYPE. OpenBLAS
// picks its kernels in a library constructor before main runs, so unsetting
// the variable in-process is too late; a value such as Haswell forces AVX2
// kernels at half the speed of the detected AVX-512 ones.
func fixCoretype() {
	ct, ok := os.LookupEnv("OPENBLAS_CORETYPE")
	if !ok || os.Getenv(keepCoretypeEnv) != "" {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	env := []string{droppedCoretypeEnv + "=" + ct}
	for _, kv := range os.Environ() {
		if len(kv) >= 18 && kv[:18] == "OPENBLAS_CORETYPE=" {
			continue
		}
		env = append(env, kv)
	}
	_ = syscall.Exec(exe, os.Args, env) // returns only on failure: carry on as we are
}

func main() {
	fixCoretype()
	fixWeakCore()
	// MPI_Finalize must run on the thread that initialised MPI.
	goruntime.LockOSThread()
	// The runtime owns the cores: one task per worker, BLAS single-threaded.
	kernels.DefaultThreads().SetThreads(1)
	w, err := comm.World()
	if err != nil {
		fmt.Fprintln(os.Stderr, "exageostat: MPI:", err)
		os.Exit(1)
	}
	errOut := os.Stderr
	if w.Rank() != 0 {
		// Only rank 0 prints; the others keep stderr for their own errors.
		if null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0); err == nil {
			os.Stdout, os.Stderr = null, null
		}
	}
	err = newRootCmd(w).Execute()
	if err == nil {
		comm.Finalize(w)
		return
	}
	// A task error, or an input error the ranks agreed on (the memory
	// check), came back from every rank alike: rank 0 reports it and all
	// ranks end together. Any other error is this rank's: it says so and
	// exits, which makes the MPI launcher end the others.
	agreed := job.Agreed(err)
	switch {
	case w.Rank() == 0:
		fmt.Fprintln(errOut, "exageostat:", err)
	case !agreed:
		fmt.Fprintf(errOut, "exageostat: rank %d: %v\n", w.Rank(), err)
	}
	if agreed || w.Size() == 1 {
		comm.Finalize(w)
	}
	os.Exit(exitCode(err))
}
