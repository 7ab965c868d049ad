//go:build !cgo || purego

package kernels

func defaultImpl() Impl { return Gonum{} }
func allImpls() []Impl  { return []Impl{Gonum{}} }

// DefaultThreads returns the threading control of the default
// implementation.
func DefaultThreads() Threads { return Gonum{} }

// SetThreads implements Threads; gonum's kernels are single-threaded.
func (Gonum) SetThreads(int) {}

// CoreName implements Threads.
func (Gonum) CoreName() string { return "gonum (pure Go)" }
