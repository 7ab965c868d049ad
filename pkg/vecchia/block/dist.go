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

// distTriGo writes the distances between the n = len(x) planar points
// below the diagonal, packed (column 0's n-1 rows, then column 1's n-2,
// ...), into out (n(n-1)/2 values): dist2 column by column.
func distTriGo(x, y []float64, out []float64) {
	n, o := len(x), 0
	for j := 0; j < n-1; j++ {
		dist2(x[j+1:n], y[j+1:n], x[j], y[j], out[o:o+n-1-j])
		o += n - 1 - j
	}
}

// unpackGo moves the n(n-1)/2 values packed at the start of the n x n
// matrix a (as distTri packs them) to a's lower triangle below the
// diagonal, column by column from the last (no column's place overlaps
// a packed column before it), and sets the diagonal to diag.
func unpackGo(n int, a []float64, diag float64) {
	for j := n - 1; j >= 0; j-- {
		o := j*(n-1) - j*(j-1)/2 // column j's packed start
		copy(a[j*n+j+1:(j+1)*n], a[o:o+n-1-j])
		a[j*n+j] = diag
	}
}

// distTriSqGo is distTriGo's squared distances (distTriSq), column by
// column.
func distTriSqGo(x, y []float64, out []float64) {
	n, o := len(x), 0
	for j := 0; j < n-1; j++ {
		for i := j + 1; i < n; i++ {
			dx, dy := x[i]-x[j], y[i]-y[j]
			out[o] = float64(dx*dx) + float64(dy*dy) // rounded apart, never fused
			o++
		}
	}
}
