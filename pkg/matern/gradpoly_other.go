//go:build !amd64 || purego

package matern

// No vector code on this platform or build.
const (
	hasAVX512 = false
	sqrtInVec = false
)

// rowVec: no vector code on this platform or build (Row runs rowGo).
func (m *Grad) rowVec(r, c, db, dn []float64, slow *[rowChunk]uint8, from, ahead int) (int, bool) {
	return 0, false
}

// covRowVec: no vector code on this platform or build.
func (m *Grad) covRowVec(r, c []float64, sq bool) bool { return false }
