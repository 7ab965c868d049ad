package plot

import (
	"fmt"
	"image/color"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/exageostat/exageostat/pkg/matern"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// EmpiricalSemivariogram returns the classical (Matheron) estimate of the
// semivariogram of the values z at the points p,
//
//	gamma(h_k) = 1/(2 N_k) * sum over the N_k pairs {i, j} in bin k of (z_i - z_j)^2,
//
// with distances measured by metric (km for GreatCircle). The bins are
// bins intervals of equal width w = hmax/bins, bin k being (k w, (k+1) w],
// where hmax is half the largest distance between two points, estimated
// from the bounding box of p: half its diagonal for Euclidean; for
// GreatCircle, half the largest great-circle distance between its
// corners, or between the ends of its parallel nearest the equator, with
// the longitude span capped at 180 degrees. Pairs at distance 0
// (duplicate points) or beyond hmax, and pairs with a NaN value, are left
// out.
//
// h[k] is the mean distance of the pairs of the k-th returned bin, gamma[k]
// its estimate and counts[k] its number of pairs N_k; bins without pairs
// are dropped, so the slices may be shorter than bins (and are in
// increasing order of distance).
//
// If maxPairs > 0 and there are more than maxPairs pairs, N(N-1)/2 for N
// points, the estimate uses maxPairs pairs drawn independently and
// uniformly from them (with replacement) by a PCG generator seeded with
// seed: the result is a deterministic function of the arguments. All
// pairs are used otherwise, in O(N^2) time.
//
// It returns nil slices if bins < 1, if p has fewer than two points or if
// all points coincide, and panics if len(z), len(p.Y) or (when not nil)
// len(p.Z) differs from len(p.X), or for an unknown metric.
func EmpiricalSemivariogram(p matern.Points, metric matern.Metric, z []float64, bins int, maxPairs int, seed uint64) (h, gamma []float64, counts []int) {
	n := p.Len()
	if len(z) != n || len(p.Y) != n || (p.Z != nil && len(p.Z) != n) {
		panic(fmt.Sprintf("plot: EmpiricalSemivariogram: %d values for %d x, %d y, %d z coordinates",
			len(z), len(p.X), len(p.Y), len(p.Z)))
	}
	if metric != matern.Euclidean && metric != matern.GreatCircle {
		panic(fmt.Sprintf("plot: EmpiricalSemivariogram: unknown metric %v", metric))
	}
	if bins < 1 || n < 2 {
		return nil, nil, nil
	}
	hmax := halfMaxDistance(metric, p)
	if !(hmax > 0) || math.IsInf(hmax, 0) {
		return nil, nil, nil
	}
	return binPairs(n, hmax, bins, maxPairs, seed, func(i, j int) float64 { return matern.Distance(metric, p, i, p, j) }, z)
}

// binPairs is the estimator of EmpiricalSemivariogram and
// DirectionalSemivariogram: the pairs (i, j) of n points (all of them, or
// maxPairs drawn uniformly with replacement when there are more, seeded by
// seed) whose distance dist(i, j) lies in (0, hmax] (dist < 0 leaves a
// pair out) and whose values are not NaN, in bins of width hmax/bins; per
// non-empty bin the mean distance, half the mean squared difference and
// the pair count.
func binPairs(n int, hmax float64, bins, maxPairs int, seed uint64, dist func(i, j int) float64, z []float64) (h, gamma []float64, counts []int) {
	w := hmax / float64(bins)
	sumD := make([]float64, bins)
	sumSq := make([]float64, bins)
	cnt := make([]int, bins)
	add := func(i, j int) {
		d := dist(i, j)
		dz := z[i] - z[j]
		if !(d > 0 && d <= hmax) || math.IsNaN(dz) {
			return
		}
		k := min(max(int(math.Ceil(d/w))-1, 0), bins-1)
		sumD[k] += d
		sumSq[k] += dz * dz
		cnt[k]++
	}
	if pairs := int64(n) * int64(n-1) / 2; maxPairs > 0 && pairs > int64(maxPairs) {
		rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
		for range maxPairs {
			i := rng.IntN(n)
			j := rng.IntN(n - 1)
			if j >= i {
				j++
			}
			add(i, j)
		}
	} else {
		for i := 1; i < n; i++ {
			for j := range i {
				add(i, j)
			}
		}
	}
	for k, c := range cnt {
		if c == 0 {
			continue
		}
		h = append(h, sumD[k]/float64(c))
		gamma = append(gamma, sumSq[k]/(2*float64(c)))
		counts = append(counts, c)
	}
	return h, gamma, counts
}

// halfMaxDistance returns half an estimate of the largest distance between
// two points of p, from p's bounding box (see EmpiricalSemivariogram).
func halfMaxDistance(metric matern.Metric, p matern.Points) float64 {
	if metric == matern.Euclidean {
		return matern.MaxDistance(metric, p) / 2
	}
	lon0, lon1 := bounds(p.X)
	lat0, lat1 := bounds(p.Y)
	dlon := min(lon1-lon0, 180)
	eq := min(max(0, lat0), lat1) // the latitude of the box nearest the equator
	corners := matern.Points{
		X: []float64{0, dlon, 0, dlon, 0, dlon},
		Y: []float64{lat0, lat1, lat1, lat0, eq, eq},
	}
	d := 0.0
	for k := 0; k < 6; k += 2 {
		d = max(d, matern.Distance(metric, corners, k, corners, k+1))
	}
	return d / 2
}

// bounds returns the smallest and largest of v, ignoring NaNs.
func bounds(v []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range v {
		lo = min(lo, x)
		hi = max(hi, x)
	}
	return lo, hi
}

// Colours of the semivariogram plot (functions: no package-level state).
func gridColor() color.Color  { return color.Gray{Y: 222} }
func pointColor() color.Color { return color.RGBA{R: 31, G: 86, B: 160, A: 255} }
func lineColor() color.Color  { return color.RGBA{R: 222, G: 96, B: 22, A: 255} }

// Semivariogram draws the empirical semivariogram (h[k], gamma[k]) as
// points and, when model is not nil, the fitted semivariogram model(r) as
// a line over [0, 1.05 max(h)], into base.svg and base.png (1800 x 1350
// pixels at the default DPI; see the package documentation). For a Matérn fit, model(r) is
// sigma2 + nugget - C(r). The axes are "distance" and "semivariance" and
// both start at 0; the legend, top left, reads "empirical" and "fitted
// model".
// Points where model is NaN or infinite are left out of the line.
//
// It returns an error if h and gamma have different or zero lengths, if
// they hold a NaN or an infinite value, or if the files cannot be
// written.
func Semivariogram(base string, h, gamma []float64, model func(r float64) float64, title string) error {
	return SemivariogramWith(base, h, gamma, model, SemivariogramOptions{Title: title})
}

// SemivariogramOptions are the texts of SemivariogramWith.
type SemivariogramOptions struct {
	Title string
	// XLabel names the distance axis with its unit ("distance (km)");
	// "distance" if empty.
	XLabel string
	// Counts, if not nil (one per point), are the numbers of pairs of
	// each bin, written small above its point.
	Counts []int
	// DPI is the PNG's resolution in dots per inch; 0 means DPI.
	DPI float64
}

// SemivariogramWith is Semivariogram with an axis label and the bins' pair
// counts (opts).
func SemivariogramWith(base string, h, gamma []float64, model func(r float64) float64, opts SemivariogramOptions) error {
	title := opts.Title
	if len(h) != len(gamma) {
		return fmt.Errorf("plot: Semivariogram: %d distances but %d semivariances", len(h), len(gamma))
	}
	if len(h) == 0 {
		return fmt.Errorf("plot: Semivariogram: no points")
	}
	pts := make(plotter.XYs, len(h))
	hmax := 0.0
	for k := range h {
		if !finite(h[k]) || !finite(gamma[k]) {
			return fmt.Errorf("plot: Semivariogram: non-finite point (%g, %g)", h[k], gamma[k])
		}
		pts[k].X, pts[k].Y = h[k], gamma[k]
		hmax = max(hmax, h[k])
	}
	if hmax == 0 {
		hmax = 1
	}
	var line plotter.XYs
	if model != nil {
		const m = 400
		rmax := 1.05 * hmax
		for i := range m + 1 {
			r := rmax * float64(i) / m
			if g := model(r); finite(g) {
				line = append(line, plotter.XY{X: r, Y: g})
			}
		}
	}
	return saveDPI(base, semivarWidth, semivarHeight, opts.DPI, func(dc draw.Canvas) error {
		xl := opts.XLabel
		if xl == "" {
			xl = "distance"
		}
		p := newPlot(title, xl, "semivariance")
		grid := plotter.NewGrid()
		grid.Vertical.Color = gridColor()
		grid.Horizontal.Color = gridColor()
		p.Add(grid)

		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: pointColor(), Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
		if len(opts.Counts) == len(pts) {
			p.Legend.Add("empirical (numbers: pairs per bin)", sc)
		} else {
			p.Legend.Add("empirical", sc)
		}
		if len(line) > 1 {
			l, err := plotter.NewLine(line)
			if err != nil {
				return err
			}
			l.LineStyle = draw.LineStyle{Color: lineColor(), Width: vg.Points(1.75)}
			p.Add(l)
			p.Legend.Add("fitted model", l)
		}
		p.Add(sc)
		if err := addCounts(p, pts, opts.Counts, vg.Points(6.5), color.Gray{Y: 110}); err != nil {
			return err
		}
		// Top left, where a semivariogram is low; icons first, so that
		// text in a wider fallback font (SVG) runs into empty space.
		drawSemivariogram(p, dc, hmax, true)
		return nil
	})
}

// addCounts labels each point of pts with its number of pairs, counts[k],
// centred above it in a sans font of the given size and colour; nothing
// when counts is not one per point.
func addCounts(p *plot.Plot, pts plotter.XYs, counts []int, size vg.Length, col color.Color) error {
	if len(counts) != len(pts) {
		return nil
	}
	labels := make([]string, len(pts))
	for k, c := range counts {
		labels[k] = strconv.Itoa(c)
	}
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: pts, Labels: labels})
	if err != nil {
		return err
	}
	for k := range lb.TextStyle {
		lb.TextStyle[k].Font = sansFont(size)
		lb.TextStyle[k].Color = col
		lb.TextStyle[k].XAlign = draw.XCenter
		lb.TextStyle[k].YAlign = draw.YBottom
	}
	lb.Offset = vg.Point{Y: vg.Points(4)}
	p.Add(lb)
	return nil
}

// drawSemivariogram draws a semivariogram p on dc: distances from 0 to 5 %
// past hmax (or the data's), semivariances from 0 with 5 % of headroom,
// the legend in the top left corner (topLeft) or the bottom right one.
func drawSemivariogram(p *plot.Plot, dc draw.Canvas, hmax float64, topLeft bool) {
	p.X.Min = min(p.X.Min, 0)
	p.X.Max = max(p.X.Max, 1.05*hmax)
	p.Y.Min = min(p.Y.Min, 0)
	p.Y.Max += 0.05 * (p.Y.Max - p.Y.Min)
	p.Legend.Top, p.Legend.Left = topLeft, topLeft
	p.Legend.XOffs, p.Legend.YOffs = -vg.Points(8), vg.Points(8)
	if topLeft {
		p.Legend.XOffs, p.Legend.YOffs = vg.Points(12), -vg.Points(6)
	}
	p.Draw(draw.Crop(dc, 0, -vg.Points(12), 0, 0))
}
