package perfmodel

import (
	"math"
	"slices"
)

// Regression models (StarPU's), of a task's duration t against its
// footprint n (float64 words of its largest handle).
const (
	// Regression is t = a n^b, fitted by least squares on (ln n, ln t)
	// over the sizes with a history, each weighted by its samples:
	// b = sum w (X - Xbar)(Y - Ybar) / sum w (X - Xbar)^2 and
	// ln a = Ybar - b Xbar, with X = ln n, Y = ln mean, Xbar and Ybar the
	// weighted means. It needs two sizes.
	Regression = "regression"
	// NLRegression is t = a n^b + c with a > 0, c >= 0 (a fixed cost: the
	// task's launch, its small-size floor), fitted by weighted least
	// squares on t itself: for a given b, a and c solve the 2 x 2 normal
	// equations; b minimises the residual sum of squares (a grid over
	// [0.05, 4], then a golden-section search). It needs three sizes, and
	// is used when it fits better than Regression.
	NLRegression = "nl-regression"
)

// Fit is a regression of one (arch, kind)'s durations on the footprint.
type Fit struct {
	Model   string  `json:"model"` // Regression or NLRegression
	A, B, C float64 // t = A n^B + C (C = 0 for Regression)
	Sizes   int     `json:"sizes"` // distinct footprints fitted
	// RMS is the root mean square relative error over the fitted sizes
	// (sample-weighted): sqrt(sum w (fit/mean - 1)^2 / sum w).
	RMS float64 `json:"rms"`
}

// At returns the fitted duration at footprint n.
func (f *Fit) At(n int) float64 { return f.A*math.Pow(float64(n), f.B) + f.C }

// Fit returns the regression of arch's durations of kind over the sizes
// with a history, or nil when fewer than two sizes have one.
func (m *Model) Fit(arch, kind string) *Fit {
	m.mu.Lock()
	defer m.mu.Unlock()
	if f := m.fitLocked(arch, kind); f != nil {
		g := *f
		return &g
	}
	return nil
}

// point is one size's history in a fit.
type point struct{ x, y, w float64 }

// fitLocked returns the cached fit of (arch, kind), making it (m.mu held).
func (m *Model) fitLocked(arch, kind string) *Fit {
	k := [2]string{arch, kind}
	if f, ok := m.fits[k]; ok {
		return f
	}
	var pts []point
	for e, s := range m.entries {
		if e.arch == arch && e.kind == kind && s.n > 0 && s.mean > 0 {
			pts = append(pts, point{float64(e.size), s.mean, float64(s.n)})
		}
	}
	slices.SortFunc(pts, func(a, b point) int { return int(a.x - b.x) })
	f := fitPoints(pts)
	m.fits[k] = f
	return f
}

// fitPoints fits pts (distinct sizes): NLRegression when it can be made
// and is no worse than Regression, else Regression; nil with fewer than
// two sizes.
func fitPoints(pts []point) *Fit {
	if len(pts) < 2 {
		return nil
	}
	f := powerFit(pts)
	if len(pts) >= 3 {
		if g := nlFit(pts); g != nil && g.RMS <= f.RMS {
			f = g
		}
	}
	return f
}

// powerFit is Regression over pts.
func powerFit(pts []point) *Fit {
	var sw, sx, sy float64
	for _, p := range pts {
		sw += p.w
		sx += p.w * math.Log(p.x)
		sy += p.w * math.Log(p.y)
	}
	xb, yb := sx/sw, sy/sw
	var sxy, sxx float64
	for _, p := range pts {
		dx := math.Log(p.x) - xb
		sxy += p.w * dx * (math.Log(p.y) - yb)
		sxx += p.w * dx * dx
	}
	b := sxy / sxx
	f := &Fit{Model: Regression, A: math.Exp(yb - b*xb), B: b, Sizes: len(pts)}
	f.RMS = rms(f, pts)
	return f
}

// linear returns the weighted least-squares a, c of t = a x^b + c over
// pts at a given b, with c >= 0 (c = 0 and a from the one-term problem
// when the free c is negative), and the residual sum of squares relative
// to each mean (the fit is over sizes whose durations differ by orders of
// magnitude: each size counts by its samples, not by its scale).
func linear(pts []point, b float64) (a, c, sse float64) {
	// Minimise sum w (a u + c - y)^2 / y^2 with u = x^b: the normal
	// equations in (a, c).
	var suu, su, s1, suy, sy float64
	for _, p := range pts {
		u, v := math.Pow(p.x, b), p.w/(p.y*p.y)
		suu += v * u * u
		su += v * u
		s1 += v
		suy += v * u * p.y
		sy += v * p.y
	}
	det := suu*s1 - su*su
	if det > 0 {
		a = (suy*s1 - su*sy) / det
		c = (suu*sy - su*suy) / det
	}
	if det <= 0 || c < 0 {
		a, c = suy/suu, 0
	}
	for _, p := range pts {
		r := (a*math.Pow(p.x, b) + c - p.y) / p.y
		sse += p.w * r * r
	}
	return a, c, sse
}

// nlFit is NLRegression over pts, or nil when no a > 0 fits.
func nlFit(pts []point) *Fit {
	sse := func(b float64) float64 {
		a, _, s := linear(pts, b)
		if !(a > 0) {
			return math.Inf(1)
		}
		return s
	}
	lo, hi := 0.05, 4.0
	const grid = 80
	best, bestS := lo, math.Inf(1)
	for i := 0; i <= grid; i++ {
		b := lo + (hi-lo)*float64(i)/grid
		if s := sse(b); s < bestS {
			best, bestS = b, s
		}
	}
	if math.IsInf(bestS, 1) {
		return nil
	}
	// Golden section on the grid cell around the best point.
	step := (hi - lo) / grid
	x0, x1 := max(lo, best-step), min(hi, best+step)
	g := (math.Sqrt(5) - 1) / 2
	c, d := x1-g*(x1-x0), x0+g*(x1-x0)
	fc, fd := sse(c), sse(d)
	for range 100 {
		if fc < fd {
			x1, d, fd = d, c, fc
			c = x1 - g*(x1-x0)
			fc = sse(c)
		} else {
			x0, c, fc = c, d, fd
			d = x0 + g*(x1-x0)
			fd = sse(d)
		}
	}
	b := (x0 + x1) / 2
	a, cc, _ := linear(pts, b)
	if !(a > 0) {
		return nil
	}
	f := &Fit{Model: NLRegression, A: a, B: b, C: cc, Sizes: len(pts)}
	f.RMS = rms(f, pts)
	return f
}

// rms is Fit.RMS of f over pts.
func rms(f *Fit, pts []point) float64 {
	var s, sw float64
	for _, p := range pts {
		r := f.At(int(p.x))/p.y - 1
		s += p.w * r * r
		sw += p.w
	}
	return math.Sqrt(s / sw)
}
