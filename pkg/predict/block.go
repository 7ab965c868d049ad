package predict

import (
	"fmt"
	"math"
	"time"

	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
)

// Blocks are areas discretised by points: block b is the mean of the
// field over Points[Start[b]:Start[b+1]], with the mean model's
// covariates X0 averaged over the same points (one column per covariate,
// one value per block).
type Blocks struct {
	Points matern.Points
	Start  []int
	X0     [][]float64
}

// Len returns the number of blocks.
func (b Blocks) Len() int { return len(b.Start) - 1 }

func (b Blocks) points(i int) matern.Points {
	s, e := b.Start[i], b.Start[i+1]
	return matern.Points{X: b.Points.X[s:e], Y: b.Points.Y[s:e]}
}

// KrigeBlocks predicts the mean of the (latent) field over each block
// from the observations of ev's problem at theta: block kriging. With c_b
// the block-averaged cross-covariance, c_b = (1/m) sum_j K(X1, s_j) over
// the block's m points, and C_bb = (1/m^2) sum_jk K(s_j, s_k),
//
//	z_b  = x0_b^T b_hat + c_b^T Sigma^-1 (z - X b_hat),
//	var_b = C_bb - c_b^T Sigma^-1 c_b + d_b^T (X^T Sigma^-1 X)^-1 d_b,  d_b = x0_b - X^T Sigma^-1 c_b,
//
// the variance of the block mean's prediction error (no nugget: the
// measurement error averages out of a block's mean). c_b is generated as
// one column of the cross-covariance tiles (each entry the mean over the
// block's points) and goes through the same tiled solve as point
// kriging's columns (V = L^-1 c_b, its products with the whitened data
// and covariates and its column sums of squares). Every rank gets the
// whole result.
func KrigeBlocks(ev *likelihood.Evaluator, theta []float64, b Blocks) (*Result, error) {
	p := ev.Problem()
	nb := b.Len()
	switch {
	case nb < 1:
		return nil, fmt.Errorf("predict: no blocks")
	case len(b.X0) != len(p.Covariates):
		return nil, fmt.Errorf("predict: %d covariates of the blocks for a mean of %d", len(b.X0), len(p.Covariates))
	case p.Model == likelihood.BivariateMatern || p.Points.T != nil || p.Points.Z != nil:
		return nil, fmt.Errorf("predict: block kriging is for 2D univariate data")
	}
	for i := 0; i < nb; i++ {
		if b.Start[i+1] <= b.Start[i] {
			return nil, fmt.Errorf("predict: block %d has no points", i+1)
		}
	}
	res := &Result{}
	var err error
	if res.Factored, err = factor(ev, theta); err != nil {
		return nil, err
	}
	rmax := math.Max(ev.RMax(), crossMax(p.Metric, p.Points, b.Points))
	k, err := p.Model.Kernel(theta, rmax)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	idx := matern.Points{X: make([]float64, nb), Y: make([]float64, nb)} // block b's column carries b
	for i := range idx.X {
		idx.X[i] = float64(i)
	}
	cr, err := whitenCross(ev, "Vb", blockColumns{k: k, b: b}, idx, min(nb, colTile), true, nil)
	if err != nil {
		return nil, err
	}
	beta, bcov := ev.GLS()
	np := len(b.X0)
	d := make([]float64, np)
	for i := 0; i < nb; i++ {
		z, v := cr.zw[i], blockVar(k, p.Metric, b.points(i))-cr.ss[i]
		for c := 0; c < np; c++ {
			d[c] = b.X0[c][i] - cr.xw[c][i]
			z += d[c] * beta[c]
		}
		for a := 0; a < np; a++ {
			for c := 0; c < np; c++ {
				v += d[a] * bcov[a][c] * d[c]
			}
		}
		res.Z, res.Var = append(res.Z, z), append(res.Var, math.Max(v, 0))
	}
	res.Seconds = time.Since(t0).Seconds()
	return res, nil
}

// blockVar returns C_bb, the mean of K over all pairs of pts.
func blockVar(k matern.Kernel, metric matern.Metric, pts matern.Points) float64 {
	m := len(pts.X)
	c := make([]float64, m*m)
	matern.FillTile(k, 0, metric, pts, 0, m, pts, 0, m, true, c, m)
	s := 0.0
	for _, v := range c {
		s += v
	}
	return s / float64(m*m)
}

// blockColumns is the block-averaged covariance as columns for crossCov:
// the entry of row r and column j is the mean of K(X1_r, s) over the
// points s of the block whose index column j's point carries in its X.
type blockColumns struct {
	k matern.Kernel
	b Blocks
}

// Cov is never called: crossCov fills tiles through Fill.
func (blockColumns) Cov(float64) float64 { return math.NaN() }

// Fill sets dst[i + j*ld] to the mean of K(rows_{row0+i}, s) over block
// cols.X[col0+j]'s points s.
func (bc blockColumns) Fill(metric matern.Metric, rows matern.Points, row0, m int, cols matern.Points, col0, n int, dst []float64, ld int) {
	for j := 0; j < n; j++ {
		pts := bc.b.points(int(cols.X[col0+j]))
		np := len(pts.X)
		tmp := make([]float64, m*np)
		matern.FillTile(bc.k, 0, metric, rows, row0, m, pts, 0, np, false, tmp, m)
		for i := 0; i < m; i++ {
			s := 0.0
			for q := 0; q < np; q++ {
				s += tmp[i+q*m]
			}
			dst[i+j*ld] = s / float64(np)
		}
	}
}
