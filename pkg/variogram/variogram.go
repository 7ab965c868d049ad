// Package variogram estimates sample semivariograms with gstat's
// conventions (its variogram() of R): the classical estimator in distance
// bins up to a cutoff, by direction, and as a map over lag vectors, of
// values that may be the residuals of a mean model (OLSResiduals).
package variogram

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/exageostat/exageostat/pkg/matern"
)

// DefaultMinPairs is the least number of pairs a bin needs to be reported
// (Journel and Huijbregts' rule of thumb, gstat's guidance: 30).
const DefaultMinPairs = 30

// Options are the bins of a sample semivariogram.
type Options struct {
	// Cutoff is the largest distance of a pair counted; 0 means gstat's
	// default, a third of the diagonal of the points' bounding box
	// (DefaultCutoff).
	Cutoff float64
	// Width is the bins' width; 0 means gstat's default, Cutoff/15.
	Width float64
	// MinPairs is the least number of pairs of a reported bin: the bins
	// with 1 to MinPairs-1 pairs go to Sample.Sparse instead of
	// Sample.Bins. 0 reports every bin with a pair.
	MinPairs int
	// MaxPairs, when > 0 and below the number of pairs N(N-1)/2, bounds
	// the work: MaxPairs pairs are drawn uniformly with replacement, by a
	// PCG generator seeded with Seed (a deterministic function of the
	// arguments), and the bins are those of the pairs drawn.
	MaxPairs int
	Seed     uint64
}

// Bin is one distance class of a sample semivariogram: the pairs whose
// distance d lies in (Lo, Hi] (the first bin also holds d = 0), their
// number Pairs, mean distance Dist and semivariance
//
//	Gamma = 1/(2 Pairs) * sum over the pairs {i, j} of (z_i - z_j)^2.
type Bin struct {
	Lo, Hi float64
	Dist   float64
	Gamma  float64
	Pairs  int
}

// Sample is a sample semivariogram: the bins of width Width up to Cutoff
// with at least MinPairs pairs (Bins, in increasing distance) and those
// with fewer but at least one (Sparse, left out of Bins). Directional
// samples hold the direction Alpha and tolerance Tol in degrees (gstat's
// alpha and tol.hor); an omnidirectional one has Tol = 90.
type Sample struct {
	Cutoff, Width float64
	MinPairs      int
	Alpha, Tol    float64
	Bins          []Bin
	Sparse        []Bin
}

// DefaultCutoff returns gstat's default cutoff for the points p: a third
// of the length of the diagonal of their bounding box, the Euclidean
// length sqrt(dx^2 + dy^2 [+ dz^2]), or for GreatCircle the larger
// great-circle distance (km) between the box's opposite corners.
func DefaultCutoff(p matern.Points, metric matern.Metric) float64 {
	x0, x1 := bounds(p.X)
	y0, y1 := bounds(p.Y)
	if metric == matern.GreatCircle {
		c := matern.Points{X: []float64{x0, x1, x0, x1}, Y: []float64{y0, y1, y1, y0}}
		return max(matern.Distance(metric, c, 0, c, 1), matern.Distance(metric, c, 2, c, 3)) * (1.0 / 3)
	}
	dx, dy := x1-x0, y1-y0
	s := dx*dx + dy*dy
	if p.Z != nil {
		z0, z1 := bounds(p.Z)
		s += (z1 - z0) * (z1 - z0)
	}
	return math.Sqrt(s) * (1.0 / 3)
}

// bounds returns the smallest and largest of v.
func bounds(v []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
	}
	return lo, hi
}

// resolve fills o's defaults for the points p and checks them.
func (o Options) resolve(p matern.Points, metric matern.Metric) (Options, error) {
	if o.Cutoff == 0 {
		o.Cutoff = DefaultCutoff(p, metric)
	}
	if !(o.Cutoff > 0) || math.IsInf(o.Cutoff, 0) {
		return o, fmt.Errorf("variogram: cutoff %g: want a positive distance (the points all coincide?)", o.Cutoff)
	}
	if o.Width == 0 {
		o.Width = o.Cutoff / 15
	}
	if !(o.Width > 0) || math.IsInf(o.Width, 0) {
		return o, fmt.Errorf("variogram: width %g: want a positive distance", o.Width)
	}
	if o.Cutoff/o.Width > 1e6 {
		return o, fmt.Errorf("variogram: cutoff %g over width %g is more than 10^6 bins", o.Cutoff, o.Width)
	}
	if o.MinPairs < 0 || o.MaxPairs < 0 {
		return o, fmt.Errorf("variogram: min pairs %d, max pairs %d: want >= 0", o.MinPairs, o.MaxPairs)
	}
	return o, nil
}

// checkPoints panics unless z and p's coordinates have one value per point.
func checkPoints(what string, p matern.Points, z []float64) {
	n := p.Len()
	if len(z) != n || len(p.Y) != n || (p.Z != nil && len(p.Z) != n) {
		panic(fmt.Sprintf("variogram: %s: %d values for %d x, %d y, %d z coordinates", what, len(z), len(p.X), len(p.Y), len(p.Z)))
	}
}

// Omnidirectional returns the sample semivariogram of the values z at the
// points p (gstat's variogram(z ~ 1) of z given as is), distances by
// metric (km for GreatCircle): the pairs {i, j}, i != j, at distance d <=
// Cutoff, in the bins (k w, (k+1) w] of width w = Width, k = 0 ..
// floor(Cutoff/w) (the first also holding d = 0, the last ending at
// Cutoff). Pairs with a NaN value are left out. It returns an error for
// options out of their domain or points that all coincide (with the
// default cutoff), and panics if z or p's coordinates differ in length.
func Omnidirectional(p matern.Points, metric matern.Metric, z []float64, o Options) (*Sample, error) {
	checkPoints("Omnidirectional", p, z)
	o, err := o.resolve(p, metric)
	if err != nil {
		return nil, err
	}
	dist := func(i, j int) float64 { return matern.Distance(metric, p, i, p, j) }
	return binned(p.Len(), z, o, 0, 90, dist), nil
}

// Directional returns the sample semivariogram of z at the planar points p
// (Euclidean, 2D) in the direction alpha, gstat's convention: alpha in
// degrees clockwise from north (the +y axis: 0 is north, 90 east), the
// pairs {i, j} whose lag (dx, dy) = p_i - p_j makes an angle of at most
// tol degrees with the direction either way, that is
//
//	|dx sin(alpha) + dy cos(alpha)| / sqrt(dx^2 + dy^2) >= cos(tol),
//
// binned as Omnidirectional (tol >= 90 keeps every pair). gstat's default
// tol for k directions is 90/k. It returns an error for tol outside
// (0, 180], options out of their domain or 3D points.
func Directional(p matern.Points, z []float64, alpha, tol float64, o Options) (*Sample, error) {
	checkPoints("Directional", p, z)
	if p.Z != nil {
		return nil, fmt.Errorf("variogram: directions are for planar x,y points (the data have a third coordinate)")
	}
	if !(tol > 0 && tol <= 180) || math.IsNaN(alpha) || math.IsInf(alpha, 0) {
		return nil, fmt.Errorf("variogram: direction %g, tolerance %g: want a finite direction and a tolerance in (0, 180] degrees", alpha, tol)
	}
	o, err := o.resolve(p, matern.Euclidean)
	if err != nil {
		return nil, err
	}
	a := alpha * math.Pi / 180
	sa, ca := math.Sin(a), math.Cos(a)
	ct := math.Cos(tol * math.Pi / 180)
	all := tol >= 90
	dist := func(i, j int) float64 {
		dx, dy := p.X[i]-p.X[j], p.Y[i]-p.Y[j]
		norm := math.Sqrt(dx*dx + dy*dy)
		if !all && norm > 0 && math.Abs(dx*sa+dy*ca)/norm < ct {
			return -1
		}
		return norm
	}
	return binned(p.Len(), z, o, alpha, min(tol, 90), dist), nil
}

// binned is the estimator of Omnidirectional and Directional: the pairs
// of the n points (all, or o.MaxPairs drawn) at distance dist(i, j) in
// [0, o.Cutoff] (a negative distance leaves the pair out) with values
// that are not NaN, in o's bins.
func binned(n int, z []float64, o Options, alpha, tol float64, dist func(i, j int) float64) *Sample {
	w := o.Width
	nb := int(math.Floor(o.Cutoff/w)) + 1
	sumD := make([]float64, nb)
	sumSq := make([]float64, nb)
	cnt := make([]int, nb)
	add := func(i, j int) {
		d := dist(i, j)
		dz := z[i] - z[j]
		if d < 0 || d > o.Cutoff || math.IsNaN(dz) {
			return
		}
		f := d / w
		k := int(math.Floor(f))
		if d > 0 && f == math.Floor(f) {
			k-- // (k w, (k+1) w]: a distance on a boundary goes down
		}
		k = min(k, nb-1)
		sumD[k] += d
		sumSq[k] += dz * dz
		cnt[k]++
	}
	eachPair(n, o.MaxPairs, o.Seed, add)
	s := &Sample{Cutoff: o.Cutoff, Width: w, MinPairs: o.MinPairs, Alpha: alpha, Tol: tol}
	for k, c := range cnt {
		if c == 0 {
			continue
		}
		b := Bin{Lo: float64(k) * w, Hi: min(float64(k+1)*w, o.Cutoff), Dist: sumD[k] / float64(c), Gamma: sumSq[k] / (2 * float64(c)), Pairs: c}
		if c < o.MinPairs {
			s.Sparse = append(s.Sparse, b)
		} else {
			s.Bins = append(s.Bins, b)
		}
	}
	return s
}

// eachPair calls add(i, j) for every pair j < i of n points, or, when
// maxPairs > 0 is below their number, for maxPairs pairs i != j drawn
// uniformly with replacement (seeded by seed).
func eachPair(n, maxPairs int, seed uint64, add func(i, j int)) {
	if pairs := int64(n) * int64(n-1) / 2; maxPairs > 0 && pairs > int64(maxPairs) {
		rng := rand.New(rand.NewPCG(seed, 0x5eed5eed5eed5eed))
		for range maxPairs {
			i := rng.IntN(n)
			j := rng.IntN(n - 1)
			if j >= i {
				j++
			}
			add(i, j)
		}
		return
	}
	for i := 1; i < n; i++ {
		for j := range i {
			add(i, j)
		}
	}
}
