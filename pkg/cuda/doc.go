// Package cuda runs the factorisation's tile kernels on an NVIDIA GPU:
// device memory, streams and the context through gorgonia.org/cu (the
// driver API, libcuda.so.1), and cuBLAS/cuSOLVER through package cudalib
// (loaded at run time, so the same binary runs with CUDA 11 or 13).
//
// Importing this package needs a GPU: gorgonia.org/cu's package init calls
// cuInit and exits the process when it fails. Only the CUDA build (tag
// cuda, bin/exageostat-cuda) imports it, and the plain binary checks for a
// device first (package gpu).
//
// A Worker implements kernels.Impl for one runtime worker: each call
// uploads its tiles into device buffers allocated once, runs cuBLAS or
// cuSOLVER on the worker's stream, downloads the result and waits for it.
// The operations are those of package kernels (column-major, reference
// BLAS/LAPACK definitions). RuntimeDevice is the other way: a GPU as a
// memory node of the runtime, whose tiles stay resident in device memory
// between tasks (the runtime moves and evicts them) and whose worker runs
// Resident's kernels on them.
//
// Without the cuda build tag the package is empty.
package cuda
