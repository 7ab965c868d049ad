package mle

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"
)

// OneStep is one Fisher-scoring step of MaximizeFisher's parametrisation
// taken from a point theta with the gradient g and the information I of
// another objective (a better approximation of the same likelihood).
type OneStep struct {
	// Step is s = I_A^-1 g_A in the search variable u (u = log(theta)
	// for a parameter with a positive lower bound, theta otherwise),
	// over the free parameters A that are not held at a bound (a
	// parameter at its lower bound with g < 0, or at its upper bound
	// with g > 0); 0 for the others and for fixed ones (lb = ub).
	Step []float64
	// StdErr is sqrt((I_F^-1)_jj) in u over the free parameters F (0
	// for fixed ones): the objective's standard errors on the search
	// scale.
	StdErr []float64
	// StepSE is |Step_j| / StdErr_j (0 for fixed ones). It does not
	// depend on the scale of u: a parameter's step and its standard
	// error scale alike.
	StepSE []float64
	// Theta is the one-step estimate theta(u + s), kept in the box.
	Theta []float64
	// Gain is g' s / 2, the rise of the objective the quadratic model
	// predicts for the step.
	Gain float64
}

// NewOneStep returns the Fisher-scoring step from theta for the
// objective whose gradient g and information info (theta scale, full
// vectors, as a GradObjective returns them) are given, with the bounds
// lower and upper. It fails when the information over the free
// parameters is not positive definite.
func NewOneStep(theta, g []float64, info [][]float64, lower, upper []float64) (*OneStep, error) {
	o := Options{Lower: lower, Upper: upper}
	fs := &fisher{o: o, start: append([]float64(nil), theta...)}
	for i := range theta {
		if lower[i] != upper[i] {
			fs.free = append(fs.free, i)
		}
	}
	n, d := len(fs.free), len(theta)
	u := make([]float64, n)
	for j, i := range fs.free {
		u[j] = fs.toU(i, theta[i])
	}
	out := &OneStep{Step: make([]float64, d), StdErr: make([]float64, d), StepSE: make([]float64, d), Theta: append([]float64(nil), theta...)}
	if n == 0 {
		return out, nil
	}
	p := fs.mapped(u, theta, 0, g, info)
	inv, err := symInverse(p.info, seq(n))
	if err != nil {
		return nil, err
	}
	var act []int
	for j := range n {
		lo, hi := fs.bounds(j)
		if (u[j] <= lo && p.g[j] < 0) || (u[j] >= hi && p.g[j] > 0) {
			continue
		}
		act = append(act, j)
	}
	s := make([]float64, n)
	if len(act) > 0 {
		ia, err := symInverse(p.info, act)
		if err != nil {
			return nil, err
		}
		for x, j := range act {
			for y, k := range act {
				s[j] += ia.At(x, y) * p.g[k]
			}
		}
	}
	for j, i := range fs.free {
		out.Step[i] = s[j]
		out.StdErr[i] = math.Sqrt(inv.At(j, j))
		out.StepSE[i] = math.Abs(s[j]) / out.StdErr[i]
		out.Gain += 0.5 * p.g[j] * s[j]
		lo, hi := fs.bounds(j)
		u[j] = math.Min(math.Max(u[j]+s[j], lo), hi)
	}
	out.Theta = fs.thetaOf(u)
	return out, nil
}

// symInverse returns the inverse of a's rows and columns idx.
func symInverse(a *mat.SymDense, idx []int) (*mat.SymDense, error) {
	b := mat.NewSymDense(len(idx), nil)
	for x, j := range idx {
		for y, k := range idx[:x+1] {
			b.SetSym(x, y, a.At(j, k))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(b) {
		return nil, errors.New("the information is not positive definite")
	}
	var inv mat.SymDense
	if err := ch.InverseTo(&inv); err != nil {
		return nil, err
	}
	return &inv, nil
}

// seq returns 0, 1, ..., n-1.
func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
