// Package cudalib loads cuBLAS and cuSOLVER at run time (dlopen) and calls
// the double-precision routines the tile kernels need on device memory.
//
// Loading at run time rather than linking lets one binary run against
// Debian's CUDA 11 (libcublas.so.11) on the development machines and CUDA
// 13 (libcublas.so.13) on the GPU machines: the _v2 entry points keep their
// signatures across these versions. The package links neither library and
// does not import gorgonia.org/cu (whose init exits without a device), so
// its tests run on machines without a GPU. Device memory and streams come
// from the caller (package cuda); here they are opaque addresses.
//
// All matrices are column-major, as in package kernels; every routine
// follows the reference BLAS/LAPACK definition of its CPU counterpart.
//
// Without the cuda build tag the package is empty.
package cudalib
