//go:build !amd64 || purego

package block

// useVec: no vector code on this platform or build.
const useVec = false

// hasCholZ: no AVX-512 code on this platform or build.
const hasCholZ = false

// cholZ is never called: hasCholZ is false.
func cholZ(n int, a []float64, ld int, y []float64, ldy, q int) int {
	panic("block: no vector code")
}

// cholRHS: cholZ is never called.
const cholRHS = 0

// colUpdate is colUpdateGo (no vector code on this platform or build).
func colUpdate(m, kn int, a, l []float64, ld int, x []float64, xs int, t []float64) {
	colUpdateGo(m, kn, a, l, ld, x, xs, t)
}

// cholVec is never called: useVec is false.
func cholVec(n int, a []float64, ld int, t []float64) int { panic("block: no vector code") }

// gemv2Vec is never called: hasCholZ is false.
func gemv2Vec(m, kn1, kn2 int, a, l []float64, ld int, x1, x2, t1, t2 []float64) {
	panic("block: no vector code")
}

// prodVec is never called: hasCholZ is false.
func prodVec(m, q int, kn *[4]int, l []float64, ld int, x []float64, ldx int, t []float64, ldt int) {
	panic("block: no vector code")
}
