// Package embed maps locations into a Euclidean frame in which "nearest"
// and "farthest" mean what the covariance kernel's distance means, so that
// the Vecchia ordering (package order) and the conditioning sets (package
// neighbors) need only squared Euclidean distances in up to 4 dimensions:
//
//   - Euclidean 2D/3D: the coordinates themselves.
//   - Great-circle (X = longitude, Y = latitude in degrees): the 3D chordal
//     coordinates R (cos lat cos lon, cos lat sin lon, sin lat), R = 6371
//     km. The chord 2 R sin(g / 2R) is increasing in the great-circle
//     distance g (g <= pi R), so both give the same nearest neighbours.
//   - Anisotropic (angle a, ratio r): (u, r v) with u = cos(a) x + sin(a) y,
//     v = -sin(a) x + cos(a) y, the frame of matern.Aniso in which its
//     scaled lag r' is the Euclidean distance.
//   - Space-time: the spatial coordinates (either of the above) and s t,
//     the time scaled by s (distance units per time unit; see
//     SpaceTimeScale).
package embed

import (
	"errors"
	"fmt"
	"math"

	"github.com/exageostat/exageostat/pkg/matern"
)

// MaxDim is the largest dimension of a frame (3D chordal + time).
const MaxDim = 4

// Coords holds N points of a Dim-dimensional Euclidean frame, flat: point
// i is V[i*Dim : (i+1)*Dim] (O(N Dim) memory, no per-point slices).
type Coords struct {
	Dim int
	V   []float64
}

// Len returns the number of points, len(V)/Dim.
func (c Coords) Len() int {
	if c.Dim == 0 {
		return 0
	}
	return len(c.V) / c.Dim
}

// At returns point i (a slice of V: do not modify).
func (c Coords) At(i int) []float64 { return c.V[i*c.Dim : (i+1)*c.Dim : (i+1)*c.Dim] }

// Dist2 returns the squared distance between points i and j, summed over
// the dimensions in order (sum_k (V_ik - V_jk)^2; every package of the
// Vecchia path computes it this way, so ties compare bitwise).
func (c Coords) Dist2(i, j int) float64 {
	a, b := c.At(i), c.At(j)
	var s float64
	for k := range a {
		d := a[k] - b[k]
		s += d * d
	}
	return s
}

// Permute returns the points in the order perm: point k of the result is
// point perm[k] of c.
func (c Coords) Permute(perm []int) Coords {
	out := Coords{Dim: c.Dim, V: make([]float64, len(perm)*c.Dim)}
	for k, i := range perm {
		copy(out.V[k*c.Dim:(k+1)*c.Dim], c.At(i))
	}
	return out
}

// PermuteInPlace puts c's points in the order perm in place, as Permute
// does into a copy (point k becomes the point perm[k] was, bitwise),
// following the permutation's cycles: one bit a point of work space
// instead of a second copy of the coordinates.
func PermuteInPlace[I ~int | ~int32](c Coords, perm []I) {
	done := make([]uint64, (len(perm)+63)/64)
	tmp := make([]float64, c.Dim)
	for s := range perm {
		if done[s/64]&(1<<(s%64)) != 0 {
			continue
		}
		copy(tmp, c.At(s))
		k := s
		for {
			done[k/64] |= 1 << (k % 64)
			next := int(perm[k])
			if next == s {
				copy(c.V[k*c.Dim:(k+1)*c.Dim], tmp)
				break
			}
			copy(c.V[k*c.Dim:(k+1)*c.Dim], c.At(next))
			k = next
		}
	}
}

// Frame says how the kernel measures distance beyond the metric: the
// anisotropy (Ratio > 0; Ratio = 1 is isotropic) and, for space-time
// kernels, the scale of time (TimeScale > 0: a time lag u counts as the
// spatial distance TimeScale u; 0 ignores the times). The zero Frame is the
// metric alone.
type Frame struct {
	Angle, Ratio float64 // matern.Aniso's angle (radians) and major/minor range ratio
	TimeScale    float64 // distance units per time unit
}

// Embed returns the points of p in the frame of metric and f (see the
// package comment). It fails on a point whose coordinates are not finite
// (naming it), on an anisotropic frame with Z or great-circle points, and
// on TimeScale > 0 without times.
func Embed(p matern.Points, metric matern.Metric, f Frame) (Coords, error) {
	n := p.Len()
	if len(p.Y) != n || (p.Z != nil && len(p.Z) != n) || (p.T != nil && len(p.T) != n) {
		return Coords{}, errors.New("embed: the coordinate columns have different lengths")
	}
	if f.Ratio != 0 && (metric != matern.Euclidean || p.Z != nil) {
		return Coords{}, errors.New("embed: anisotropy needs planar 2D points (Euclidean metric, no Z)")
	}
	if f.Ratio != 0 && !(f.Ratio >= 1) || math.IsNaN(f.Angle) || math.IsInf(f.Angle, 0) || math.IsInf(f.Ratio, 0) {
		return Coords{}, fmt.Errorf("embed: anisotropy angle %g, ratio %g: want a finite angle and ratio >= 1", f.Angle, f.Ratio)
	}
	if !(f.TimeScale >= 0) || math.IsInf(f.TimeScale, 0) {
		return Coords{}, fmt.Errorf("embed: time scale %g: want finite and >= 0", f.TimeScale)
	}
	if f.TimeScale > 0 && p.T == nil {
		return Coords{}, errors.New("embed: a time scale without times")
	}
	dim := 2
	switch {
	case metric == matern.GreatCircle:
		dim = 3
	case metric != matern.Euclidean:
		return Coords{}, fmt.Errorf("embed: unknown metric %v", metric)
	case p.Z != nil:
		dim = 3
	}
	space := dim
	if f.TimeScale > 0 {
		dim++
	}
	c := Coords{Dim: dim, V: make([]float64, n*dim)}
	s, co := math.Sincos(f.Angle)
	for i := range n {
		v := c.V[i*dim : (i+1)*dim]
		switch {
		case metric == matern.GreatCircle:
			chordal(v, p.X[i], p.Y[i])
		case f.Ratio != 0:
			v[0] = co*p.X[i] + s*p.Y[i]
			v[1] = (co*p.Y[i] - s*p.X[i]) * f.Ratio
		default:
			v[0], v[1] = p.X[i], p.Y[i]
			if p.Z != nil {
				v[2] = p.Z[i]
			}
		}
		if f.TimeScale > 0 {
			v[space] = f.TimeScale * p.T[i]
		}
		for _, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return Coords{}, fmt.Errorf("embed: location %d (0-based) has a coordinate that is not finite", i)
			}
		}
	}
	return c, nil
}

// chordal sets v to the 3D chordal coordinates (km) of longitude lon and
// latitude lat in degrees.
func chordal(v []float64, lon, lat float64) {
	const rad = math.Pi / 180
	sl, cl := math.Sincos(lat * rad)
	so, co := math.Sincos(lon * rad)
	v[0] = matern.EarthRadiusKm * cl * co
	v[1] = matern.EarthRadiusKm * cl * so
	v[2] = matern.EarthRadiusKm * sl
}

// SpaceTimeScale returns the time scale (distance units per time unit) of
// the space-time Matérn s for Frame.TimeScale: Beta / u_e, where u_e is
// the time lag whose correlation at spatial distance 0 equals the spatial
// correlation at distance Beta and time lag 0,
//
//	psi(u_e)^-(Sep+Delta) = M_Nu(1),  psi(u) = |u|^(2 Alpha)/BetaT + 1,
//	u_e = (BetaT (M_Nu(1)^(-1/(Sep+Delta)) - 1))^(1/(2 Alpha)),
//
// so that one range in space and u_e in time weigh the same. The nearest
// set in this scaled metric is that of the most correlated neighbours for
// lags along either axis; for mixed lags Gneiting's kernel is not a
// function of one norm, and this is the usual approximation (GpGp scales
// space and time by fixed ranges the same way). It depends on the
// parameters being estimated: the caller picks them (the start, then the
// coarse stage's estimate). With Sep + Delta = 0 the covariance does not
// decay in time and the scale is 0 (times ignored).
func SpaceTimeScale(s matern.SpaceTime) float64 {
	e := s.Sep + s.Delta
	if !(e > 0) {
		return 0
	}
	m1 := s.Cov(s.Beta) / s.Sigma2 // M_Nu(1)
	ue := math.Pow(s.BetaT*(math.Pow(m1, -1/e)-1), 1/(2*s.Alpha))
	if !(ue > 0) || math.IsInf(ue, 0) {
		return 0
	}
	return s.Beta / ue
}
