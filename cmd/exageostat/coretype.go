package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"golang.org/x/sys/cpu"

	"github.com/exageostat/exageostat/pkg/kernels"
)

// raisedCoretypeEnv names, in a process that fixWeakCore re-executed, the
// kernels OpenBLAS had picked on its own.
const raisedCoretypeEnv = "EXAGEOSTAT_RAISED_CORETYPE"

// cpuVector is what the CPU and the OS support of the x86 vector
// extensions OpenBLAS's fast kernels use.
type cpuVector struct {
	avx512 bool // AVX-512 F, CD, BW, DQ and VL (SkylakeX's kernels)
	avx2   bool // AVX2 and FMA (Haswell's)
}

// hostVector reads cpuVector from the CPU (golang.org/x/sys/cpu checks
// that the OS saves the registers too).
func hostVector() cpuVector {
	x := cpu.X86
	return cpuVector{
		avx512: x.HasAVX512F && x.HasAVX512CD && x.HasAVX512BW && x.HasAVX512DQ && x.HasAVX512VL,
		avx2:   x.HasAVX2 && x.HasFMA,
	}
}

// betterCore returns the OpenBLAS core type to force when the one it
// picked, core, predates the CPU's vector extensions v, or "". OpenBLAS
// 0.3.21 picks its kernels by CPU model, and falls back to Prescott's (SSE3)
// on a model it does not know: on the GPU machines' Xeon (a VM) it did, and
// 16 cores factored at 40 GFLOP/s.
func betterCore(core string, v cpuVector) string {
	switch strings.ToLower(core) {
	case "prescott", "core2", "penryn", "dunnington", "nehalem", "atom", "katmai", "coppermine",
		"northwood", "banias", "opteron", "opteron_sse3", "barcelona", "bobcat", "sandybridge", "bulldozer",
		"piledriver", "steamroller", "excavator":
	default:
		return ""
	}
	switch {
	case v.avx512:
		return "SkylakeX"
	case v.avx2:
		return "Haswell"
	}
	return ""
}

// fixWeakCore re-executes the binary with OPENBLAS_CORETYPE set to
// betterCore's choice when OpenBLAS picked kernels older than the CPU
// (OpenBLAS picks them in a library constructor, before main: only a new
// process reads the variable). A user's OPENBLAS_CORETYPE is left alone.
func fixWeakCore() {
	if _, set := os.LookupEnv("OPENBLAS_CORETYPE"); set {
		return
	}
	core := kernels.DefaultThreads().CoreName()
	want := betterCore(core, hostVector())
	if want == "" {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	env := append(os.Environ(), "OPENBLAS_CORETYPE="+want, keepCoretypeEnv+"=1", raisedCoretypeEnv+"="+core)
	_ = syscall.Exec(exe, os.Args, env) // returns only on failure: carry on with the slow kernels
}

// coretypeNotes writes what fixCoretype and fixWeakCore changed, one note
// a line (the benchmarks and calibrate print them beside their rates).
func coretypeNotes(w io.Writer) {
	if ct := os.Getenv(droppedCoretypeEnv); ct != "" {
		fmt.Fprintf(w, "note: ignored OPENBLAS_CORETYPE=%s (set %s=1 to keep it)\n", ct, keepCoretypeEnv)
	}
	if ct := os.Getenv(raisedCoretypeEnv); ct != "" {
		fmt.Fprintf(w, "note: OpenBLAS picked %s kernels on a CPU with newer vector extensions: using %s's (OPENBLAS_CORETYPE chooses)\n",
			ct, os.Getenv("OPENBLAS_CORETYPE"))
	}
}
