package vecchia

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/vecchia/block"
)

// finish turns the summed block terms into the log-likelihood, its
// gradient and the information (GpGp's synthesize): with A = X^T Sigma~^-1 X,
// b = X^T Sigma~^-1 y, beta = A^-1 b (likelihood.SolveGLS) and the
// derivatives of the block sums (dA_j, db_j, d(y^T Sigma~^-1 y)_j and
// dlog|Sigma~|_j, stored negated but the last),
//
//	l      = -1/2 (n log(2 pi) + log|Sigma~| + y^T Sigma~^-1 y - b^T beta)
//	l_R    = l - 1/2 log|A| + (p/2) log(2 pi)   (REML)
//	dl_j   = -1/2 dlog|Sigma~|_j + 1/2 dyy_j - beta^T db_j + 1/2 beta^T dA_j beta
//	dl_R_j = dl_j + 1/2 tr(A^-1 dA_j)
//
// (the mean's terms vanish from the gradient at the GLS beta). The
// information is the block sums' (the expected information of the
// covariance parameters; the mean's is A, block-diagonal to it).
func (p *Plan) finish(acc []float64, lay block.Layout, free []bool) (*Result, error) {
	n := float64(p.N)
	np := p.NCov
	res := &Result{LogDet: acc[lay.LogDet()], Quad: acc[lay.YSY()]}
	var ainv *mat.SymDense
	var logDetA float64
	if np > 0 {
		a := make([][]float64, np)
		b := acc[lay.YSX() : lay.YSX()+np]
		for i := range a {
			a[i] = acc[lay.XSX()+i*np : lay.XSX()+i*np+i+1]
		}
		g, err := likelihood.SolveGLS(a, b)
		if err != nil {
			return nil, err
		}
		res.Beta, res.BetaCov = g.Beta, g.Cov
		res.Quad -= g.Fit
		logDetA = g.LogDet
		ainv = mat.NewSymDense(np, nil)
		for i := range np {
			for j := 0; j <= i; j++ {
				ainv.SetSym(i, j, g.Cov[i][j])
			}
		}
	}
	res.L = -0.5 * (n*math.Log(2*math.Pi) + res.LogDet + res.Quad)
	if p.REML && np > 0 {
		res.L += -0.5*logDetA + 0.5*float64(np)*math.Log(2*math.Pi)
	}
	if math.IsNaN(res.L) || math.IsInf(res.L, 0) {
		return nil, fmt.Errorf("vecchia: the log-likelihood is %v (log-determinant %v, quadratic form %v)", res.L, res.LogDet, res.Quad)
	}
	if !lay.Grad {
		return res, nil
	}
	P := lay.P
	res.Grad = make([]float64, P)
	res.Info = make([][]float64, P)
	for j := 0; j < P; j++ {
		res.Info[j] = make([]float64, P)
	}
	for j := 0; j < P; j++ {
		if !free[j] {
			continue
		}
		gj := -0.5*acc[lay.DLogDet()+j] + 0.5*acc[lay.DYSY()+j]
		for a := 0; a < np; a++ {
			ba := res.Beta[a]
			gj -= ba * acc[lay.DYSX()+a*P+j]
			for c := 0; c < np; c++ {
				gj += 0.5 * ba * acc[lay.DXSX()+(a*np+c)*P+j] * res.Beta[c]
				if p.REML {
					gj += 0.5 * ainv.At(c, a) * acc[lay.DXSX()+(a*np+c)*P+j]
				}
			}
		}
		res.Grad[j] = gj
		for m := 0; m <= j; m++ {
			if free[m] {
				v := acc[lay.Info()+j*P+m]
				res.Info[j][m], res.Info[m][j] = v, v
			}
		}
	}
	for j, v := range res.Grad {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("vecchia: the gradient in %s is %v", p.Model.ParamNamesFor(P)[j], v)
		}
	}
	return res, nil
}

// localData returns the points, observations and covariates the blocks
// b0 .. b1-1 read, in local arrays with the blocks' indices renumbered
// (or the plan's own arrays when the range is every block), and b0.
func (p *Plan) localData(b0, b1 int) (*block.Data, int) {
	bl := p.Blocks
	if b0 == 0 && b1 == bl.Len() {
		return block.NewData(p.Pts, p.Obs, p.X, p.NCov, bl.Idx, bl.Start), 0
	}
	src := source{n: p.N, pts: p.Pts, obs: p.Obs, ncov: p.NCov, at: func(q int32) int { return int(q) },
		x: func(q int32, dst []float64) { copy(dst, p.X[int(q)*p.NCov:(int(q)+1)*p.NCov]) }}
	return src.data(bl, b0, b1), b0
}

// source says where the values of an ordered point are: point q's
// coordinates and observation are pts's and obs's at(q), its covariates
// x(q, dst).
type source struct {
	n    int // points of the problem
	pts  matern.Points
	obs  []float64
	ncov int
	at   func(q int32) int
	x    func(q int32, dst []float64)
}

// data returns the points, observations and covariates the blocks
// b0 .. b1-1 of bl read, in local arrays in the order of their first
// use, with the blocks' indices renumbered.
func (s source) data(bl *Blocks, b0, b1 int) *block.Data {
	idx := bl.Idx[bl.Start[b0]:bl.Start[b1]]
	// local[g]-1 is point g's local index (0: none yet): 4 bytes a point
	// of the problem, a fraction of a map's over the blocks' members.
	local := make([]int32, s.n)
	var order []int32
	lidx := make([]int32, len(idx))
	for i, v := range idx {
		g, resp := block.Response(v)
		l := local[g] - 1
		if l < 0 {
			l = int32(len(order))
			local[g] = l + 1
			order = append(order, g)
		}
		if resp {
			l = ^l
		}
		lidx[i] = l
	}
	start := make([]int64, b1-b0+1)
	for k := range start {
		start[k] = bl.Start[b0+k] - bl.Start[b0]
	}
	pick := func(v []float64) []float64 {
		if v == nil {
			return nil
		}
		out := make([]float64, len(order))
		for i, g := range order {
			out[i] = v[s.at(g)]
		}
		return out
	}
	pts := matern.Points{X: pick(s.pts.X), Y: pick(s.pts.Y), Z: pick(s.pts.Z), T: pick(s.pts.T)}
	x := make([]float64, len(order)*s.ncov)
	for i, g := range order {
		s.x(g, x[i*s.ncov:(i+1)*s.ncov])
	}
	d := block.NewData(pts, pick(s.obs), x, s.ncov, lidx, start)
	d.First, d.Global = b0, order
	return d
}
