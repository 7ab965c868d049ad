package config

import (
	"fmt"
	"math"
	"slices"
)

// DefaultBounds returns the default bounds of theta for a kernel: [0.001, 5]
// for every parameter, except powexp's delta, whose upper bound is 2 (the
// largest delta for which exp(-r^delta/beta) is a covariance), and the
// space-time Matérn's alpha and sep, whose upper bound is 1, and the
// anisotropic Matérn's angle in [0, pi] (radians) and ratio in [1, 10].
func DefaultBounds(kernel string) (lb, ub []float64) {
	d := DefaultFit()
	lb, ub = slices.Clone(d.Lower), slices.Clone(d.Upper)
	if kernel == "powexp" {
		ub[2] = 2
	}
	if kernel == BivariateKernel { // rho in [-1, 1]
		lb = []float64{0.001, 0.001, 0.001, 0.001, 0.001, -1}
		ub = []float64{5, 5, 5, 5, 5, 1}
	}
	if kernel == AnisoKernel { // angle in [0, pi] radians, ratio in [1, 10]
		lb = []float64{0.001, 0.001, 0.001, 0, 1}
		ub = []float64{5, 5, 5, math.Pi, 10}
	}
	if kernel == SpaceTimeKernel { // alpha and sep at most 1
		lb = []float64{0.001, 0.001, 0.001, 0.001, 0.001, 0.001, 0.001}
		ub = []float64{5, 5, 5, 5, 1, 1, 5}
	}
	return lb, ub
}

// KernelDefaults replaces bounds left at the defaults of DefaultFit (not
// given by the file or a flag) with the kernel's (DefaultBounds): with
// kernel = "powexp", delta's upper bound becomes 2.
func (f *Fit) KernelDefaults() {
	d := DefaultFit()
	lb, ub := DefaultBounds(f.Kernel)
	if !f.Given("lb") && slices.Equal(f.Lower, d.Lower) {
		f.Lower = lb
	}
	if !f.Given("ub") && slices.Equal(f.Upper, d.Upper) {
		f.Upper = ub
	}
}

// kernelBounds reports bounds the kernel cannot take (each value already
// positive and finite, lb <= ub): powexp's delta must stay within (0, 2].
// It returns the key to blame and the message, or "" when they are fine.
func kernelBounds(kernel string, lb, ub []float64) (key, msg string) {
	if kernel == SpaceTimeKernel {
		return spaceTimeBounds(lb, ub)
	}
	if kernel == BivariateKernel {
		return bivariateBounds(lb, ub)
	}
	if kernel == AnisoKernel {
		return anisoBounds(lb, ub)
	}
	if kernel != "powexp" || len(ub) != 3 || len(lb) != 3 {
		return "", ""
	}
	if ub[2] > 2 {
		key = "ub"
		if lb[2] > 2 {
			key = "lb"
		}
		return key, fmt.Sprintf("bounds of delta must lie within (0, 2] for powexp (exp(-r^delta/beta) is no covariance for delta > 2), got [%g, %g]; the default upper bound of delta is 2", lb[2], ub[2])
	}
	return "", ""
}
