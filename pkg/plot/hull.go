package plot

import (
	"math"
	"sort"
)

// ConvexHull returns the indices of the vertices of the convex hull of
// the points (x[i], y[i]) in counter-clockwise order (Andrew's monotone
// chain), without collinear points; fewer than 3 indices when the points
// are fewer than 3 or all on a line.
func ConvexHull(x, y []float64) []int {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool {
		i, j := idx[a], idx[b]
		return x[i] < x[j] || (x[i] == x[j] && y[i] < y[j])
	})
	cross := func(o, a, b int) float64 {
		return (x[a]-x[o])*(y[b]-y[o]) - (y[a]-y[o])*(x[b]-x[o])
	}
	var h []int
	for _, i := range idx { // lower hull
		for len(h) >= 2 && cross(h[len(h)-2], h[len(h)-1], i) <= 0 {
			h = h[:len(h)-1]
		}
		h = append(h, i)
	}
	lower := len(h) + 1
	for k := len(idx) - 2; k >= 0; k-- { // upper hull
		i := idx[k]
		for len(h) >= lower && cross(h[len(h)-2], h[len(h)-1], i) <= 0 {
			h = h[:len(h)-1]
		}
		h = append(h, i)
	}
	if len(h) > 1 {
		h = h[:len(h)-1] // the first point closes the loop
	}
	return h
}

// MaskOutsideHull sets v[k] to NaN for every point (gx[k], gy[k]) outside
// the convex hull of the points (x, y) (on its edges counts as inside,
// within a relative 1e-12 of the hull's size): a map of predictions then
// shows only where the data are, not the corners of their bounding box,
// which Grid leaves blank. With fewer than 3 points off one line it
// masks nothing.
func MaskOutsideHull(x, y, gx, gy, v []float64) {
	h := ConvexHull(x, y)
	if len(h) < 3 {
		return
	}
	size := 0.0
	for _, i := range h {
		size = max(size, math.Abs(x[i]-x[h[0]])+math.Abs(y[i]-y[h[0]]))
	}
	tol := 1e-12 * size * size
	for k := range v {
		for e := range h {
			a, b := h[e], h[(e+1)%len(h)]
			// Counter-clockwise: inside is left of every edge.
			if (x[b]-x[a])*(gy[k]-y[a])-(y[b]-y[a])*(gx[k]-x[a]) < -tol {
				v[k] = math.NaN()
				break
			}
		}
	}
}
