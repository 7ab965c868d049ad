package vecchia

import (
	"fmt"
	"math"

	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/vecchia/block"
)

// diffStep is the relative step of the finite differences that give the
// covariance derivatives of the kernels without derivatives of their own
// (anisotropic and space-time Matérn in their shape parameters, the
// bivariate Matérn in all): fourth-order differences (central; one-sided
// at the edge of a parameter's domain) with h = 1e-3 |theta_j| (1e-3 for
// a parameter at 0), accurate to about 1e-9 relative.
const diffStep = 1e-3

// spec returns what the block kernel computes at theta: the covariance of
// the model (with the derivatives of the parameters marked in free when
// grad is set) and the kind of each parameter.
func (p *Plan) spec(theta []float64, free []bool, grad bool) (*block.Spec, error) {
	m := p.Model
	k, err := m.Kernel(theta, p.RMax)
	if err != nil {
		return nil, fmt.Errorf("%w (theta %v): %v", likelihood.ErrBadTheta, theta, err)
	}
	tau2 := p.problem().Tau2(theta)
	s := &block.Spec{NCov: p.NCov, Grad: grad, Tau2: tau2, Sigma2: theta[0], Kinds: make([]block.Kind, len(theta))}
	base := block.KernelCov{K: k, Nugget: tau2, Metric: p.Metric}
	s.Cov = base
	if !grad {
		if m == likelihood.Matern { // the covariance alone, one polynomial an entry
			g, err := matern.NewGrad(matern.Theta{Sigma2: theta[0], Beta: theta[1], Nu: theta[2]}, p.RMin, p.RMax, false)
			if err != nil {
				return nil, fmt.Errorf("%w (theta %v): %v", likelihood.ErrBadTheta, theta, err)
			}
			s.Cov = block.MaternCov{G: g, Nugget: tau2, Metric: p.Metric}
		}
		return s, nil
	}
	if len(free) != len(theta) {
		return nil, fmt.Errorf("vecchia: %d free flags for %d parameters", len(free), len(theta))
	}
	scale := m != likelihood.BivariateMatern // Sigma = sigma2 R + tau2 I
	var gen []int
	for j := range theta {
		switch {
		case !free[j]:
			s.Kinds[j] = block.Fixed
		case m.HasTau2(len(theta)) && j == len(theta)-1:
			s.Kinds[j] = block.Nugget
		case j == 0 && scale:
			s.Kinds[j] = block.Scale
		default:
			s.Kinds[j] = block.Generated
			gen = append(gen, j)
		}
	}
	if len(gen) == 0 {
		return s, nil
	}
	switch m {
	case likelihood.Matern:
		g, err := matern.NewGrad(matern.Theta{Sigma2: theta[0], Beta: theta[1], Nu: theta[2]}, p.RMin, p.RMax, free[2])
		if err != nil {
			return nil, fmt.Errorf("%w (theta %v): %v", likelihood.ErrBadTheta, theta, err)
		}
		s.Cov = block.MaternCov{G: g, Nugget: tau2, Metric: p.Metric, Beta: free[1], Nu: free[2]}
	case likelihood.PowExp:
		s.Cov = block.PowExpCov{K: matern.PowExp{Sigma2: theta[0], Beta: theta[1], Delta: theta[2]},
			Nugget: tau2, Metric: p.Metric, Beta: free[1], Delta: free[2]}
	default:
		dc := block.DiffCov{KernelCov: base}
		for _, j := range gen {
			terms, err := p.diffTerms(theta, j)
			if err != nil {
				return nil, err
			}
			dc.Derivs = append(dc.Derivs, terms)
		}
		s.Cov = dc
	}
	return s, nil
}

// diffTerms returns the kernels and weights of the finite difference of
// the model's covariance in parameter j (the nugget excluded: it is on
// the diagonal only).
func (p *Plan) diffTerms(theta []float64, j int) ([]block.Term, error) {
	h := diffStep * math.Abs(theta[j])
	if h == 0 {
		h = diffStep
	}
	th := theta
	if p.Model.HasTau2(len(theta)) {
		th = theta[:len(theta)-1]
	}
	// Fourth-order rules: steps (in h) and weights (over 12 h).
	rules := [][][2]float64{
		{{1, 8}, {-1, -8}, {2, -1}, {-2, 1}},
		{{0, 25}, {-1, -48}, {-2, 36}, {-3, -16}, {-4, 3}},
		{{0, -25}, {1, 48}, {2, -36}, {3, 16}, {4, -3}},
	}
	var last error
	for _, rule := range rules {
		terms := make([]block.Term, 0, len(rule))
		for _, sw := range rule {
			t := append([]float64(nil), th...)
			t[j] += sw[0] * h
			k, err := p.Model.Kernel(t, p.RMax)
			if err != nil {
				last = err
				terms = nil
				break
			}
			terms = append(terms, block.Term{K: k, Weight: sw[1] / (12 * h)})
		}
		if terms != nil {
			return terms, nil
		}
	}
	return nil, fmt.Errorf("vecchia: no finite difference of %s in %s at %v: %v", p.Model, p.Model.ParamNamesFor(len(theta))[j], theta, last)
}
