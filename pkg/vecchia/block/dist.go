package block

import "math"

// dist2Go sets out[i] = sqrt((x[i]-x0)^2 + (y[i]-y0)^2), the squares
// added as they are rounded (no fused multiply-add), for i < len(out).
func dist2Go(x, y []float64, x0, y0 float64, out []float64) {
	x, y = x[:len(out)], y[:len(out)]
	for i := range out {
		dx, dy := x[i]-x0, y[i]-y0
		out[i] = math.Sqrt(dx*dx + dy*dy)
	}
}
