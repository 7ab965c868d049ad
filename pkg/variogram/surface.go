package variogram

import (
	"fmt"
	"math"

	"github.com/exageostat/exageostat/pkg/matern"
)

// Map is a semivariogram map (gstat's variogram(..., map = TRUE)): the
// semivariance of the pairs by lag vector, on the (2K+1) x (2K+1) square
// cells of side Width centred on the lags (a Width, b Width), a, b = -K ..
// K. Gamma and Pairs are row-major from the bottom row, x fastest: cell
// (a, b) is at index (b+K)(2K+1) + a+K. A cell with fewer than MinPairs
// pairs (none included) has Gamma NaN; its count stays in Pairs.
type Map struct {
	Width    float64
	K        int
	MinPairs int
	Gamma    []float64
	Pairs    []int
}

// Side returns the number of cells along each axis, 2K+1.
func (m *Map) Side() int { return 2*m.K + 1 }

// Centre returns the lag (dx, dy) at the centre of cell index c.
func (m *Map) Centre(c int) (dx, dy float64) {
	s := m.Side()
	return float64(c%s-m.K) * m.Width, float64(c/s-m.K) * m.Width
}

// SemivariogramMap returns the semivariogram map of z at the planar
// points p (Euclidean, 2D) up to the lag cutoff in x and y with cells of
// side width: K = round(cutoff/width) (gstat's map when cutoff is a
// multiple of width). Each ordered pair (i, j), i != j, with a lag
// (dx, dy) = p_i - p_j inside the map counts in the cell that holds it: a
// cell's Pairs is its number of ordered pairs and its
// Gamma = sum (z_i - z_j)^2 / (2 Pairs). The cells are gstat's: the cell
// centred on (cx, cy) holds the lags with cx - width/2 <= dx < cx +
// width/2 and cy - width/2 < dy <= cy + width/2, the map's right and
// bottom edges included (so the map is symmetric about the origin but for
// the lags on a cell's edge). Pairs with a NaN value are left out; cells
// with fewer than minPairs pairs have a NaN Gamma. It returns an error for
// a cutoff or width that is not positive and finite, more than 1001 cells
// a side, or 3D points.
func SemivariogramMap(p matern.Points, z []float64, cutoff, width float64, minPairs int) (*Map, error) {
	checkPoints("SemivariogramMap", p, z)
	if p.Z != nil {
		return nil, fmt.Errorf("variogram: a semivariogram map is for planar x,y points (the data have a third coordinate)")
	}
	if !(cutoff > 0 && width > 0) || math.IsInf(cutoff, 0) || math.IsInf(width, 0) {
		return nil, fmt.Errorf("variogram: map cutoff %g, width %g: want positive distances", cutoff, width)
	}
	if cutoff/width > 500 {
		return nil, fmt.Errorf("variogram: map cutoff %g over width %g gives more than 1001 cells a side", cutoff, width)
	}
	k := int(math.Round(cutoff / width))
	s := 2*k + 1
	m := &Map{Width: width, K: k, MinPairs: minPairs, Gamma: make([]float64, s*s), Pairs: make([]int, s*s)}
	left := -(float64(k) + 0.5) * width // the map's edges: [left, -left] in x and y
	top := -left
	n := p.Len()
	for i := range n {
		for j := range n {
			dx, dy := p.X[i]-p.X[j], p.Y[i]-p.Y[j]
			dz := z[i] - z[j]
			if i == j || math.IsNaN(dz) || dx < left || dx > top || dy < left || dy > top {
				continue
			}
			col := min(int(math.Floor((dx-left)/width)), s-1)
			row := min(int(math.Floor((top-dy)/width)), s-1) // from the top, as gstat's rows
			c := (s-1-row)*s + col
			m.Gamma[c] += dz * dz
			m.Pairs[c]++
		}
	}
	for c, np := range m.Pairs {
		if np == 0 || np < minPairs {
			m.Gamma[c] = math.NaN()
			continue
		}
		m.Gamma[c] /= 2 * float64(np)
	}
	return m, nil
}
