// Package transform holds the transforms an observation is modelled on
// (log, log1p, sqrt, Box-Cox) and the way back: a Gaussian prediction
// Y ~ N(m, v) on the transformed scale gives the mean and variance of
// Z = g^-1(Y) on the original scale, and a draw y gives g^-1(y).
//
// Closed forms (Y ~ N(m, v)):
//
//	log:    Z = e^Y,      E Z = exp(m + v/2),  Var Z = (e^v - 1) exp(2m + v)   (lognormal)
//	log1p:  Z = e^Y - 1,  E Z = exp(m + v/2) - 1, Var Z as for log
//	sqrt:   Z = Y^2,      E Z = m^2 + v,       Var Z = 4 m^2 v + 2 v^2
//
// Box-Cox with lambda != 0, Y = (Z^lambda - 1)/lambda, has Z = (1 +
// lambda Y)^(1/lambda) where 1 + lambda Y > 0 and 0 elsewhere; its mean
// and variance are integrals over the normal density, by 64-point
// Gauss-Hermite quadrature (exact for polynomials of degree up to 127:
// 1/lambda a small integer; within 1e-12 relative for smooth g^-1 and
// v/m^2 small). lambda = 0 is the log.
package transform

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/integrate/quad"
)

// Kind is the kind of a transform.
type Kind int

// The transforms.
const (
	None   Kind = iota // z itself
	Log                // log z, z > 0
	Log1p              // log(1 + z), z > -1
	Sqrt               // sqrt z, z >= 0
	BoxCox             // (z^lambda - 1)/lambda, z > 0
)

// T is a transform of the observations.
type T struct {
	Kind   Kind
	Lambda float64 // Box-Cox's lambda
}

// Parse reads a transform: "" or "none", "log", "log1p", "sqrt" or
// "boxcox:LAMBDA" (LAMBDA finite; boxcox:0 is log).
func Parse(s string) (T, error) {
	switch k := strings.ToLower(strings.TrimSpace(s)); k {
	case "", "none":
		return T{}, nil
	case "log":
		return T{Kind: Log}, nil
	case "log1p":
		return T{Kind: Log1p}, nil
	case "sqrt":
		return T{Kind: Sqrt}, nil
	default:
		rest, ok := strings.CutPrefix(k, "boxcox:")
		if !ok {
			return T{}, fmt.Errorf("unknown transform %q (want log, log1p, sqrt or boxcox:LAMBDA)", s)
		}
		l, err := strconv.ParseFloat(rest, 64)
		if err != nil || math.IsNaN(l) || math.IsInf(l, 0) || math.Abs(l) > 10 {
			return T{}, fmt.Errorf("transform %q: LAMBDA must be a number in [-10, 10]", s)
		}
		if l == 0 {
			return T{Kind: Log}, nil
		}
		return T{Kind: BoxCox, Lambda: l}, nil
	}
}

// String returns the transform as Parse reads it ("" for None).
func (t T) String() string {
	switch t.Kind {
	case Log:
		return "log"
	case Log1p:
		return "log1p"
	case Sqrt:
		return "sqrt"
	case BoxCox:
		return "boxcox:" + strconv.FormatFloat(t.Lambda, 'g', -1, 64)
	}
	return ""
}

// Prefix is the prefix of the columns on the transformed scale: "log",
// "log1p", "sqrt" or "boxcox" ("" for None).
func (t T) Prefix() string {
	if t.Kind == BoxCox {
		return "boxcox"
	}
	return t.String()
}

// domain returns a description of the values t takes, and whether z is
// one of them.
func (t T) domain(z float64) (string, bool) {
	switch t.Kind {
	case Log, BoxCox:
		return "> 0", z > 0
	case Log1p:
		return "> -1", z > -1
	case Sqrt:
		return ">= 0", z >= 0
	}
	return "", true
}

// Forward returns g(z), or an error when z is outside t's domain.
func (t T) Forward(z float64) (float64, error) {
	if what, ok := t.domain(z); !ok {
		return 0, fmt.Errorf("%g is outside the domain of the %s transform (values %s)", z, t, what)
	}
	switch t.Kind {
	case Log:
		return math.Log(z), nil
	case Log1p:
		return math.Log1p(z), nil
	case Sqrt:
		return math.Sqrt(z), nil
	case BoxCox:
		return (math.Pow(z, t.Lambda) - 1) / t.Lambda, nil
	}
	return z, nil
}

// Apply transforms z in place; the error names the first value (row from
// 1) outside the domain.
func (t T) Apply(z []float64) error {
	for i, v := range z {
		g, err := t.Forward(v)
		if err != nil {
			return fmt.Errorf("row %d: %w", i+1, err)
		}
		z[i] = g
	}
	return nil
}

// Inverse returns g^-1(y): a draw on the transformed scale taken back.
func (t T) Inverse(y float64) float64 {
	switch t.Kind {
	case Log:
		return math.Exp(y)
	case Log1p:
		return math.Expm1(y)
	case Sqrt:
		return y * y
	case BoxCox:
		b := 1 + t.Lambda*y
		if b <= 0 {
			return 0
		}
		return math.Pow(b, 1/t.Lambda)
	}
	return y
}

// hermiteN is the number of Gauss-Hermite nodes of the Box-Cox moments.
const hermiteN = 64

// Back returns the mean and variance of g^-1(Y) for Y ~ N(m, v): the
// prediction and its variance on the original scale (see the package
// comment). v < 0 is taken as 0.
func (t T) Back(m, v float64) (mean, variance float64) {
	v = math.Max(v, 0)
	switch t.Kind {
	case Log, Log1p:
		mean = math.Exp(m + v/2)
		variance = math.Expm1(v) * math.Exp(2*m+v)
		if t.Kind == Log1p {
			mean--
		}
		return mean, variance
	case Sqrt:
		return m*m + v, 4*m*m*v + 2*v*v
	case BoxCox:
		x := make([]float64, hermiteN)
		w := make([]float64, hermiteN)
		quad.Hermite{}.FixedLocations(x, w, math.Inf(-1), math.Inf(1))
		s := math.Sqrt(2 * v)
		var e1, e2 float64
		for i := range x {
			z := t.Inverse(m + s*x[i])
			e1 += w[i] * z
			e2 += w[i] * z * z
		}
		e1 /= math.SqrtPi
		e2 /= math.SqrtPi
		return e1, math.Max(e2-e1*e1, 0)
	}
	return m, v
}
