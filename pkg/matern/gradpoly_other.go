//go:build !amd64 || purego

package matern

// polyRow is polyRowGo (no vector code on this platform or build).
func polyRow(coef []float64, off []int32, t []float64, c, db, dn []float64) {
	polyRowGo(coef, off, t, c, db, dn)
}

// covRowChunk: no vector code on this platform or build (Row runs locate
// and polyRowCGo).
func (m *Grad) covRowChunk(r, c []float64, slow *[rowChunk]uint8, xs *[rowChunk]float64) (int, bool) {
	return 0, false
}
