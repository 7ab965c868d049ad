// Command exageostat fits Gaussian-process (Matérn) models to spatial data by
// exact maximum likelihood over a task runtime, and benchmarks that runtime.
//
// Run `exageostat --help` for the commands.
package main

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/exageostat/exageostat/pkg/kernels"
)

// exitCode is the process status for err: 2 for bad input (flags, files,
// configuration), 1 for failures while computing.
func exitCode(err error) int {
	var ie *inputError
	if errors.As(err, &ie) {
		return 2
	}
	return 1
}

// inputError marks an error caused by the user's input.
type inputError struct{ err error }

func (e *inputError) Error() string { return e.err.Error() }
func (e *inputError) Unwrap() error { return e.err }

func badInput(format string, a ...any) error { return &inputError{fmt.Errorf(format, a...)} }

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
	// The runtime owns the cores: one task per worker, BLAS single-threaded.
	kernels.DefaultThreads().SetThreads(1)
	cmd := newRootCmd()
	if err := cmd.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "exageostat:", err)
		os.Exit(exitCode(err))
	}
}
