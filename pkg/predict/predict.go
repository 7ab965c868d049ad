// Package predict krigs a Gaussian field at new locations: simple kriging
// with zero mean. For observed locations X1 with values z1 and new locations
// X2, with Sigma11 = L L^T, w = L^-1 z1 and V = L^-1 Sigma12,
//
//	z2_hat = Sigma21 Sigma11^-1 z1 = V^T w,
//	var_i  = C(0) + tau2 - (Sigma21 Sigma11^-1 Sigma12)_ii = C(0) + tau2 - ||V(:, i)||^2,
//
// the variance of a new observation at X2_i given z1 (tau2 is the nugget;
// drop it for the latent field). Everything runs as tile tasks on the
// runtime: generation of the cross-covariance tiles of Sigma12, the
// triangular solve V = L^-1 Sigma12 (trsm and gemm per tile, reusing the
// Cholesky factor of the likelihood evaluator when it holds theta), and per
// column tile of X2 the products V^T w and the column sums of squares.
//
// The package also computes the uncertainty of the estimates: the Fisher
// information of theta and the MLOE/MMOM criteria (fisher.go).
package predict

import (
	"fmt"
	"math"
	"slices"
	"time"

	"gonum.org/v1/gonum/blas"

	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/tile"
)

// colTile is the width of the column tiles of the cross-covariance.
const colTile = 1024

// Result holds predictions at new locations, in their given order.
type Result struct {
	Z        []float64 // kriging predictor
	Var      []float64 // prediction variance (of a new observation: includes the nugget)
	Seconds  float64   // wall time of the prediction DAG (cross-covariance, solve, products)
	Factored bool      // whether the Cholesky factor had to be computed
}

// Krige predicts at the points at from the observations of ev's problem with
// parameters theta. If ev's tiles do not hold the factor for theta, one
// likelihood evaluation computes it first.
func Krige(ev *likelihood.Evaluator, theta []float64, at matern.Points) (*Result, error) {
	return krige(ev, theta, at, colTile)
}

// krige is Krige with column tiles of width max(nb, colWidth).
func krige(ev *likelihood.Evaluator, theta []float64, at matern.Points, colWidth int) (*Result, error) {
	res := &Result{}
	if cur := ev.Current(); cur == nil || !slices.Equal(cur, theta) {
		if _, _, err := ev.LogLik(theta); err != nil {
			return nil, err
		}
		res.Factored = true
	}
	p := ev.Problem()
	n2 := len(at.X)
	if n2 == 0 {
		return nil, fmt.Errorf("predict: no new locations")
	}
	rmax := math.Max(ev.RMax(), crossMax(p.Metric, p.Points, at))
	k, err := p.Model.Kernel(theta, rmax)
	if err != nil {
		return nil, err
	}
	rt, kern := ev.Runtime(), ev.Kernels()
	l, w := ev.Factor(), ev.Whitened()
	nb := l.NB
	n1 := l.N
	t0 := time.Now()
	// Wide column tiles make the solve's gemm tasks efficient; the row
	// tiles (the factor's) give the parallelism.
	cw := min(n2, max(nb, colWidth))
	v := tile.NewGeneral("V", n1, n2, nb, cw, nil)
	mt, nt := v.RowLayout.NT, v.ColLayout.NT
	pred := tile.NewVector("zhat", n2, cw, nil)
	sq := tile.NewVector("ss", n2, cw, nil)
	// Cross-covariance tiles Sigma12(m, j).
	for m := 0; m < mt; m++ {
		for j := 0; j < nt; j++ {
			dst, rows, cols := v.Tile(m, j), v.RowLayout.Rows(m), v.ColLayout.Rows(j)
			r0, c0 := v.RowLayout.Offset(m), v.ColLayout.Offset(j)
			rt.Submit(runtime.Task{Kind: "dcmg", Tile: [3]int{m, j, -1}, Priority: 3*mt - m,
				Access: []runtime.Access{{H: v.Handle(m, j), Mode: runtime.W}},
				Run: func(runtime.Context) error {
					matern.FillTile(k, 0, p.Metric, p.Points, r0, rows, at, c0, cols, false, dst, rows)
					return nil
				}})
		}
	}
	// V = L^-1 Sigma12, tile by tile (left-looking order of a tiled trsm),
	// multiplying by the inverses of the diagonal blocks (dtrmm is about
	// twice as fast as dtrsm on tiles).
	for kk := 0; kk < mt; kk++ {
		lkk, nbk := l.Tile(kk, kk), l.Rows(kk)
		inv, invH := l.DiagWork(kk)
		rt.Submit(runtime.Task{Kind: "trtri", Tile: [3]int{kk, kk, kk}, Priority: 2*(mt-kk) + 1,
			Access: []runtime.Access{{H: l.Handle(kk, kk), Mode: runtime.R}, {H: invH, Mode: runtime.W}},
			Run: func(runtime.Context) error {
				for j := 0; j < nbk; j++ {
					copy(inv[j*nbk+j:(j+1)*nbk], lkk[j*nbk+j:(j+1)*nbk])
				}
				if info := kernels.LowerInverse(kern, nbk, inv, nbk); info != 0 {
					return fmt.Errorf("predict: singular diagonal block %d", kk)
				}
				return nil
			}})
		for j := 0; j < nt; j++ {
			vkj, cols := v.Tile(kk, j), v.ColLayout.Rows(j)
			rt.Submit(runtime.Task{Kind: "trsm", Tile: [3]int{kk, j, kk}, Priority: 2 * (mt - kk),
				Flops:  float64(nbk) * float64(nbk) * float64(cols),
				Access: []runtime.Access{{H: invH, Mode: runtime.R}, {H: v.Handle(kk, j), Mode: runtime.RW}},
				Run: func(runtime.Context) error {
					kern.Dtrmm(blas.Left, blas.Lower, blas.NoTrans, blas.NonUnit, nbk, cols, 1, inv, nbk, vkj, nbk)
					return nil
				}})
			for m := kk + 1; m < mt; m++ {
				lmk, vmj, rows := l.Tile(m, kk), v.Tile(m, j), l.Rows(m)
				rt.Submit(runtime.Task{Kind: "gemm", Tile: [3]int{m, j, kk}, Priority: 2*(mt-kk) - (m - kk),
					Flops: 2 * float64(rows) * float64(cols) * float64(nbk),
					Access: []runtime.Access{{H: l.Handle(m, kk), Mode: runtime.R}, {H: v.Handle(kk, j), Mode: runtime.R},
						{H: v.Handle(m, j), Mode: runtime.RW}},
					Run: func(runtime.Context) error {
						kern.Dgemm(blas.NoTrans, blas.NoTrans, rows, cols, nbk, -1, lmk, rows, vkj, nbk, 1, vmj, rows)
						return nil
					}})
			}
		}
	}
	// z2_hat(j) = sum_k V(k,j)^T w(k); ss(j) = column sums of V(:,j)^2.
	for j := 0; j < nt; j++ {
		pj, sj, cols := pred.Tile(j), sq.Tile(j), v.ColLayout.Rows(j)
		for kk := 0; kk < mt; kk++ {
			vkj, rows, wk := v.Tile(kk, j), v.RowLayout.Rows(kk), w.Tile(kk)
			beta, mode := 1.0, runtime.RW
			if kk == 0 {
				beta, mode = 0, runtime.W
			}
			rt.Submit(runtime.Task{Kind: "gemv", Tile: [3]int{kk, j, -1}, Flops: 2 * float64(rows) * float64(cols),
				Access: []runtime.Access{{H: v.Handle(kk, j), Mode: runtime.R}, {H: w.Handle(kk), Mode: runtime.R},
					{H: pred.Handle(j), Mode: mode}},
				Run: func(runtime.Context) error {
					kern.Dgemv(blas.Trans, rows, cols, 1, vkj, rows, wk, 1, beta, pj, 1)
					return nil
				}})
			first := kk == 0
			rt.Submit(runtime.Task{Kind: "colss", Tile: [3]int{kk, j, -1}, Flops: 2 * float64(rows) * float64(cols),
				Access: []runtime.Access{{H: v.Handle(kk, j), Mode: runtime.R}, {H: sq.Handle(j), Mode: mode}},
				Run: func(runtime.Context) error {
					for c := 0; c < cols; c++ {
						col := vkj[c*rows : (c+1)*rows]
						var s float64
						for _, x := range col {
							s += x * x
						}
						if first {
							sj[c] = s
						} else {
							sj[c] += s
						}
					}
					return nil
				}})
		}
	}
	if err := rt.Wait(); err != nil {
		return nil, err
	}
	res.Seconds = time.Since(t0).Seconds()
	c0 := k.Cov(0) + p.Nugget
	res.Z = append([]float64(nil), pred.Data()...)
	res.Var = make([]float64, n2)
	for i, s := range sq.Data() {
		res.Var[i] = math.Max(c0-s, 0)
	}
	return res, nil
}

// crossMax bounds the distances between two point sets.
func crossMax(m matern.Metric, a, b matern.Points) float64 {
	all := matern.Points{X: append(slices.Clone(a.X), b.X...), Y: append(slices.Clone(a.Y), b.Y...)}
	if a.Z != nil && b.Z != nil {
		all.Z = append(slices.Clone(a.Z), b.Z...)
	}
	return matern.MaxDistance(m, all)
}

// Score compares predictions with the held-out truth: the mean squared
// prediction error mean((z - zhat)^2) and the share of z inside the 95 %
// prediction intervals zhat +- 1.959964 sqrt(var).
func Score(z, zhat, variance []float64) (mspe, coverage float64) {
	for i := range z {
		d := z[i] - zhat[i]
		mspe += d * d
		if math.Abs(d) <= 1.959963984540054*math.Sqrt(variance[i]) {
			coverage++
		}
	}
	n := float64(len(z))
	return mspe / n, coverage / n
}
