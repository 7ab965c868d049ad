package config

import (
	"fmt"
	"math"
)

// AnisoKernel is the anisotropic 2D Matérn's name (pkg/likelihood's
// AnisoMatern): theta = (sigma2, beta, nu, angle, ratio), beta the range
// along the major axis, angle its direction in radians counter-clockwise
// from the x axis, ratio >= 1 the major over the minor range.
const AnisoKernel = "aniso-matern"

// The indices of the angle and the ratio in theta.
const (
	anisoAngle = 3
	anisoRatio = 4
)

// checkAniso reports an angle outside [0, pi] or a ratio below 1 (theta
// already finite, ratio positive). The model has period pi in the angle:
// a direction outside [0, pi] is the same as its value modulo pi.
func checkAniso(theta []float64) error {
	if a := theta[anisoAngle]; !(a >= 0 && a <= math.Pi) {
		return fmt.Errorf("angle must be in [0, pi] radians (the major axis' direction, counter-clockwise from the x axis; the model has period pi), got %g", a)
	}
	if r := theta[anisoRatio]; !(r >= 1) {
		return fmt.Errorf("ratio (major/minor range) must be >= 1, got %g", r)
	}
	return nil
}

// anisoBounds reports bounds of the angle outside [-pi, 2 pi] and bounds
// of the ratio below 1 (5 bounds, or 6 with tau2's).
func anisoBounds(lb, ub []float64) (key, msg string) {
	if len(lb) < 5 || len(ub) < 5 {
		return "", ""
	}
	l, u := lb[anisoAngle], ub[anisoAngle]
	switch {
	case !(l >= -math.Pi && l <= 2*math.Pi):
		return "lb", fmt.Sprintf("bounds of angle must lie within [-pi, 2 pi] radians for %s (its period is pi; the default bounds are [0, pi]), got [%g, %g]", AnisoKernel, l, u)
	case !(u >= -math.Pi && u <= 2*math.Pi):
		return "ub", fmt.Sprintf("bounds of angle must lie within [-pi, 2 pi] radians for %s (its period is pi; the default bounds are [0, pi]), got [%g, %g]", AnisoKernel, l, u)
	}
	if l := lb[anisoRatio]; !(l >= 1) {
		return "lb", fmt.Sprintf("bounds of ratio must be >= 1 for %s (major/minor range; the default bounds are [1, 10]), got [%g, %g]", AnisoKernel, l, ub[anisoRatio])
	}
	return "", ""
}

// anisoDistance refuses great-circle distances for the anisotropic
// Matérn: its angle and ratio describe an ellipse in the plane of x, y.
func anisoDistance(kernel, distance string) error {
	if kernel == AnisoKernel && (distance == "great-circle" || distance == "gc") {
		return fmt.Errorf("kernel %s is defined on planar x, y with Euclidean distances (its angle and ratio are an ellipse in the plane): project lon/lat data first and use --distance euclidean", AnisoKernel)
	}
	return nil
}
