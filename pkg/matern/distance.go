package matern

import (
	"fmt"
	"math"
)

// EarthRadiusKm is the Earth radius of the great-circle distance, in km
// (ExaGeoStat's value).
const EarthRadiusKm = 6371.0

// Metric selects how Distance measures the distance between two points.
type Metric int

const (
	// Euclidean is the straight-line distance sqrt(dx^2 + dy^2), or
	// sqrt(dx^2 + dy^2 + dz^2) when the points have Z coordinates.
	Euclidean Metric = iota
	// GreatCircle is the distance in km along the Earth's surface, a
	// sphere of radius EarthRadiusKm, between points given as X =
	// longitude and Y = latitude in degrees (haversine formula).
	GreatCircle
)

// String returns "euclidean" or "great-circle".
func (m Metric) String() string {
	if m >= 0 && int(m) < len(metricNames) {
		return metricNames[m]
	}
	return fmt.Sprintf("Metric(%d)", int(m))
}

// metricNames are the Metrics' names in results and in the distance key.
var metricNames = [...]string{Euclidean: "euclidean", GreatCircle: "great-circle"}

// ParseMetric returns the metric a distance name names: "euclidean",
// "great-circle" or its short form "gc"; false for any other name.
func ParseMetric(name string) (Metric, bool) {
	if name == "gc" {
		return GreatCircle, true
	}
	for m, s := range metricNames {
		if s == name {
			return Metric(m), true
		}
	}
	return 0, false
}

// Points is a set of locations, point i being (X[i], Y[i]) or, when Z is
// not nil, (X[i], Y[i], Z[i]). Z is nil for 2D points and ignored by
// GreatCircle, for which X is the longitude and Y the latitude in degrees.
// Two point sets measured against each other must both be 2D or both 3D.
// T, when not nil, is the time of each point: Distance ignores it, the
// space-time kernels (SpaceTime) read it.
type Points struct{ X, Y, Z, T []float64 }

// Len returns the number of points, len(p.X).
func (p Points) Len() int { return len(p.X) }

// Distance returns the distance between point i of p and point j of q:
//
//	Euclidean:   sqrt((p.X[i]-q.X[j])^2 + (p.Y[i]-q.Y[j])^2 [+ (p.Z[i]-q.Z[j])^2])
//	GreatCircle: 2 R asin(sqrt(a)),  R = 6371 km,
//	             a = sin^2(dlat/2) + cos(lat_i) cos(lat_j) sin^2(dlon/2),
//
// the haversine formula, with the longitude difference reduced to
// [-180, 180] degrees (a rounding improvement only) and a capped at 1. The
// result of GreatCircle is in km. Distance panics for an unknown metric or
// an index out of range.
func Distance(m Metric, p Points, i int, q Points, j int) float64 {
	switch m {
	case Euclidean:
		dx := p.X[i] - q.X[j]
		dy := p.Y[i] - q.Y[j]
		if p.Z != nil || q.Z != nil {
			dz := p.Z[i] - q.Z[j]
			return math.Sqrt(dx*dx + dy*dy + dz*dz)
		}
		return math.Sqrt(dx*dx + dy*dy)
	case GreatCircle:
		return haversine(p.X[i], p.Y[i], cosDeg(p.Y[i]), q.X[j], q.Y[j], cosDeg(q.Y[j]))
	}
	panic(fmt.Sprintf("matern: unknown metric %d", int(m)))
}

const degToRad = math.Pi / 180

// cosDeg returns the cosine of an angle in degrees.
func cosDeg(d float64) float64 { return math.Cos(d * degToRad) }

// haversine returns the great-circle distance in km between (lon1, lat1)
// and (lon2, lat2) in degrees, given cos1 = cosDeg(lat1) and cos2 =
// cosDeg(lat2).
func haversine(lon1, lat1, cos1, lon2, lat2, cos2 float64) float64 {
	dlat := (lat2 - lat1) * degToRad
	dlon := lon2 - lon1
	if dlon > 180 {
		dlon -= 360
	} else if dlon < -180 {
		dlon += 360
	}
	dlon *= degToRad
	s1 := math.Sin(0.5 * dlat)
	s2 := math.Sin(0.5 * dlon)
	a := min(s1*s1+cos1*cos2*(s2*s2), 1)
	return 2 * EarthRadiusKm * math.Asin(math.Sqrt(a))
}

// MaxDistance returns an upper bound of the distances between any two
// points of p (and, for a NewMatern built from it, a safe rmax): for
// Euclidean the diagonal of p's bounding box, rounded up by a few units in
// the last place; for GreatCircle half the Earth's circumference,
// pi*6371 km, likewise rounded up. It returns 0 for fewer than two points.
func MaxDistance(m Metric, p Points) float64 {
	if len(p.X) < 2 {
		return 0
	}
	switch m {
	case Euclidean:
		s := sq(span(p.X)) + sq(span(p.Y))
		if p.Z != nil {
			s += sq(span(p.Z))
		}
		return math.Sqrt(s) * (1 + 0x1p-50)
	case GreatCircle:
		return math.Pi * EarthRadiusKm * (1 + 0x1p-50)
	}
	panic(fmt.Sprintf("matern: unknown metric %d", int(m)))
}

func sq(x float64) float64 { return x * x }

func span(v []float64) float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range v {
		lo = min(lo, x)
		hi = max(hi, x)
	}
	return hi - lo
}
