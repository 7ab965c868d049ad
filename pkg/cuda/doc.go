// Package cuda is a GPU under package gpu's device and kernel set: Driver
// implements gpu.Driver with device memory, streams and the context
// through gorgonia.org/cu (the driver API, libcuda.so.1), and cuBLAS and
// cuSOLVER through package cudalib (loaded at run time, so that the same
// binary runs with CUDA 11 or 13). NewRuntimeDevice opens a GPU as the
// runtime's memory node whose worker runs gpu.Kernels on the resident
// tiles (fit --gpus); gpu.Staged over the same device runs that kernel
// set on host tiles (calibrate --gpus, the kernel suite of the GPU
// checks). All the code above the CUDA calls is package gpu's, which make
// test runs over the host emulation (gpu.Emulator).
//
// Importing this package needs a GPU: gorgonia.org/cu's package init calls
// cuInit and exits the process when it fails. Only the CUDA build (tag
// cuda, bin/exageostat-cuda) imports it, and the plain binary checks for a
// device first (package gpu).
//
// Without the cuda build tag the package is empty.
package cuda
