//go:build !amd64 || purego

package matern

// rowChunk: no vector code on this platform or build (Row runs locate
// and the polynomials).
func (m *Grad) rowChunk(r, c, db, dn []float64, slow *[rowChunk]uint8, xs *[rowChunk]float64) (int, bool) {
	return 0, false
}
