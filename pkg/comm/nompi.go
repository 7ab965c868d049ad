//go:build !mpi

package comm

// MPI reports whether this binary was built with MPI (build tag mpi).
const MPI = false

// Launched reports false: without the mpi build tag every process is a
// single rank.
func Launched() bool { return false }

// World returns Self: this binary was built without MPI (build tag mpi).
func World() (Comm, error) { return Self{}, nil }

// Finalize does nothing without MPI.
func Finalize(Comm) {}
