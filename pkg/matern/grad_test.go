package matern

import (
	"math"
	"testing"
)

// TestGradMpmath checks C, dC/dbeta and dC/dnu of Grad against mpmath
// (testdata/grad.csv, gen_grad.py) for sigma2 = 2, beta = 0.25, through
// both the interpolated pieces and, for x below 2^-40, the direct path;
// errors are relative to C (the size of the covariance entries).
func TestGradMpmath(t *testing.T) {
	const sigma2, beta = 2.0, 0.25
	rows := readTable(t, "grad.csv", 5)
	byNu := map[float64][][]float64{}
	var nus []float64
	for _, r := range rows {
		if _, ok := byNu[r[0]]; !ok {
			nus = append(nus, r[0])
		}
		byNu[r[0]] = append(byNu[r[0]], r)
	}
	for _, nu := range nus {
		for _, withNu := range []bool{false, true} {
			g, err := NewGrad(Theta{Sigma2: sigma2, Beta: beta, Nu: nu}, 0, 400*beta, withNu)
			if err != nil {
				t.Fatal(err)
			}
			var worst [3]float64
			for _, row := range byNu[nu] {
				x, rho, gx, dn := row[1], row[2], row[3], row[4]
				r := []float64{x * beta}
				c, db, dv := make([]float64, 1), make([]float64, 1), make([]float64, 1)
				g.Row(r, c, db, dv)
				scale := sigma2 * rho
				errs := [3]float64{
					math.Abs(c[0]-sigma2*rho) / scale,
					math.Abs(db[0]-sigma2*gx/beta) / (scale / beta * math.Max(1, x)),
					math.Abs(dv[0]-sigma2*dn) / (scale * math.Max(1, math.Abs(math.Log(x)))),
				}
				for k, e := range errs {
					if k == 2 && !withNu {
						continue
					}
					worst[k] = math.Max(worst[k], e)
				}
			}
			if worst[0] > 1e-12 || worst[1] > 1e-12 || worst[2] > 1e-11 {
				t.Errorf("nu %g (derivative in nu %v): worst relative errors C %.2g, dC/dbeta %.2g, dC/dnu %.2g", nu, withNu, worst[0], worst[1], worst[2])
			}
		}
	}
}

// TestGradMatchesKernel checks that Grad's C is NewMatern's covariance to
// 1e-13 relative and that dC/dbeta is a central difference of NewMatern in
// beta, over a range of distances including 0 and beyond rmax.
func TestGradMatchesKernel(t *testing.T) {
	for _, nu := range []float64{0.5, 0.83, 1.5, 2.5, 4.2} {
		th := Theta{Sigma2: 1.3, Beta: 0.2, Nu: nu}
		g, err := NewGrad(th, 1e-3, 2, false)
		if err != nil {
			t.Fatal(err)
		}
		k, _ := NewMatern(th, 3)
		h := 1e-5 * th.Beta
		kp, _ := NewMatern(Theta{Sigma2: th.Sigma2, Beta: th.Beta + h, Nu: nu}, 3)
		km, _ := NewMatern(Theta{Sigma2: th.Sigma2, Beta: th.Beta - h, Nu: nu}, 3)
		r := []float64{0, 1e-14, 1e-6, 0.01, 0.1, 0.35, 1, 1.9, 2.5}
		c, db := make([]float64, len(r)), make([]float64, len(r))
		g.Row(r, c, db, nil)
		for i, ri := range r {
			if e := relErr(c[i], k.Cov(ri)); e > 1e-13 {
				t.Errorf("nu %g r %g: C %v, NewMatern %v (rel %.2g)", nu, ri, c[i], k.Cov(ri), e)
			}
			fd := (kp.Cov(ri) - km.Cov(ri)) / (2 * h)
			if math.Abs(db[i]-fd) > 1e-7*th.Sigma2/th.Beta {
				t.Errorf("nu %g r %g: dC/dbeta %v, central difference %v", nu, ri, db[i], fd)
			}
		}
	}
}
