//go:build !cgo || purego

package mixed

// Default returns the fastest implementation compiled in: gonum's.
func Default() Impl { return Gonum{} }

// All returns every implementation compiled in, the default first.
func All() []Impl { return []Impl{Gonum{}} }
