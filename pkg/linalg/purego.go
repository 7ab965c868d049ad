//go:build !cgo || purego

package linalg

func defaultRaw() raw { return gonumRaw{} }
func allRaw() []raw   { return []raw{gonumRaw{}} }
