package tlr

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/linalg"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/runtime"
)

// maternTile returns the (row, col) tile of size nb of the Matérn
// covariance of n Morton-ordered grid points (column-major, no nugget) and
// the points.
func maternTile(t testing.TB, n, nb, row, col int, th matern.Theta) []float64 {
	t.Helper()
	d := dataset.Grid(n, 1)
	p := matern.Points{X: d.X, Y: d.Y}
	k, err := matern.NewMatern(th, matern.MaxDistance(matern.Euclidean, p))
	if err != nil {
		t.Fatal(err)
	}
	a := make([]float64, nb*nb)
	matern.FillTile(k, 0, matern.Euclidean, p, row*nb, nb, p, col*nb, nb, row == col, a, nb)
	return a
}

// denseOf returns the m x n gonum matrix of the column-major a.
func denseOf(m, n int, a []float64) *mat.Dense {
	d := mat.NewDense(m, n, nil)
	for j := 0; j < n; j++ {
		for i := 0; i < m; i++ {
			d.Set(i, j, a[i+j*m])
		}
	}
	return d
}

// expand returns U V^T (or the dense tile) computed by plain loops.
func expand(f runtime.LowRank, buf []float64) *mat.Dense {
	if f.IsDense(buf) {
		return denseOf(f.M, f.N, buf[1:1+f.M*f.N])
	}
	k := f.Rank(buf)
	u, v := f.Factors(buf, k)
	d := mat.NewDense(f.M, f.N, nil)
	for i := 0; i < f.M; i++ {
		for j := 0; j < f.N; j++ {
			s := 0.0
			for p := 0; p < k; p++ {
				s += u[i+p*f.M] * v[j+p*f.N]
			}
			d.Set(i, j, s)
		}
	}
	return d
}

func frobDiff(a, b mat.Matrix) float64 {
	var d mat.Dense
	d.Sub(a, b)
	return mat.Norm(&d, 2)
}

// minRank returns the smallest k with sqrt(sum_{i>=k} s_i^2) <= acc from
// gonum's SVD of a.
func minRank(a *mat.Dense, acc float64) int {
	var svd mat.SVD
	if !svd.Factorize(a, mat.SVDNone) {
		panic("svd")
	}
	s := svd.Values(nil)
	t, k := 0.0, len(s)
	for k > 0 && t+s[k-1]*s[k-1] <= acc*acc {
		t += s[k-1] * s[k-1]
		k--
	}
	return k
}

func compressors(acc float64) []Compressor {
	var out []Compressor
	for _, l := range linalg.All() {
		for _, m := range []Method{SVD, RRQR, ACA} {
			out = append(out, Compressor{L: l, K: kernels.Default(), Method: m, Acc: acc})
		}
	}
	return out
}

func name(c Compressor) string { return c.L.Name() + "/" + c.Method.String() }

// TestCompress: on Matérn tiles the compression meets the accuracy in
// Frobenius norm; the SVD's rank is the minimal one (from gonum's SVD) and
// the RRQR's at most a few above it.
func TestCompress(t *testing.T) {
	const nb = 100
	cases := []struct {
		th       matern.Theta
		row, col int
		acc      float64
	}{
		{matern.Theta{Sigma2: 1, Beta: 0.1, Nu: 0.5}, 1, 0, 1e-9},
		{matern.Theta{Sigma2: 1, Beta: 0.1, Nu: 0.5}, 8, 0, 1e-9},
		{matern.Theta{Sigma2: 1, Beta: 0.1, Nu: 0.5}, 4, 1, 1e-9},
		{matern.Theta{Sigma2: 1, Beta: 0.05, Nu: 1.5}, 7, 2, 1e-9},
		{matern.Theta{Sigma2: 1, Beta: 0.05, Nu: 1.5}, 3, 2, 1e-9},
		{matern.Theta{Sigma2: 2, Beta: 0.1, Nu: 0.5}, 1, 0, 1e-5},
	}
	for _, c := range cases {
		a := maternTile(t, 900, nb, c.row, c.col, c.th)
		want := denseOf(nb, nb, a)
		kmin := minRank(want, c.acc)
		for _, cp := range compressors(c.acc) {
			t.Run(fmt.Sprintf("%v/%d,%d/%g/%s", c.th, c.row, c.col, c.acc, name(cp)), func(t *testing.T) {
				f := runtime.LowRank{M: nb, N: nb, MaxRank: nb / 2}
				buf := make([]float64, f.Words())
				work := append([]float64(nil), a...)
				k, err := cp.Compress(f, work, buf)
				if err != nil {
					t.Fatal(err)
				}
				if k < 0 {
					// Dense is right when the rank exceeds MaxRank.
					if kmin <= f.MaxRank && (cp.Method == SVD || kmin+kmin/4+2 <= f.MaxRank) {
						t.Fatalf("tile stayed dense (min rank %d)", kmin)
					}
					return
				}
				if e := frobDiff(expand(f, buf), want); e > c.acc*(1+1e-6) {
					t.Errorf("rank %d: ||A - U V^T||_F = %.3g > %g", k, e, c.acc)
				}
				if cp.Method == SVD && k != kmin {
					t.Errorf("SVD rank %d, minimal rank %d", k, kmin)
				}
				if k < kmin || k > kmin+kmin/4+2 {
					t.Errorf("rank %d, minimal rank %d", k, kmin)
				}
				t.Logf("rank %d (minimal %d)", k, kmin)
			})
		}
	}
}

// forMaxRanks runs check for each compressor on nb x nb tiles of two
// formats: MaxRank nb/2, whose buffer holds a dense tile (holdsDense), and
// nb/2 - 1, whose does not.
func forMaxRanks(t *testing.T, nb int, check func(t *testing.T, cp Compressor, f runtime.LowRank, holdsDense bool)) {
	for _, cp := range compressors(1e-9) {
		for _, maxRank := range []int{nb / 2, nb/2 - 1} {
			f := runtime.LowRank{M: nb, N: nb, MaxRank: maxRank}
			if f.HoldsDense() != (maxRank == nb/2) {
				t.Fatalf("%v: HoldsDense %v", f, f.HoldsDense())
			}
			t.Run(fmt.Sprintf("%s/maxrank=%d", name(cp), maxRank), func(t *testing.T) { check(t, cp, f, f.HoldsDense()) })
		}
	}
}

// TestCompressDenseFallback: a tile needing more than MaxRank stays dense
// (bitwise) when the format holds it, else the compression fails with a
// RankError.
func TestCompressDenseFallback(t *testing.T) {
	const nb = 40
	rng := rand.New(rand.NewPCG(3, 4))
	a := make([]float64, nb*nb)
	for i := range a {
		a[i] = rng.NormFloat64()
	}
	forMaxRanks(t, nb, func(t *testing.T, cp Compressor, f runtime.LowRank, holdsDense bool) {
		buf := make([]float64, f.Words())
		k, err := cp.Compress(f, append([]float64(nil), a...), buf)
		if !holdsDense {
			var re *RankError
			if !errors.As(err, &re) || re.Rank <= f.MaxRank {
				t.Fatalf("got rank %d, err %v; want a RankError", k, err)
			}
			return
		}
		if err != nil || k != -1 {
			t.Fatalf("got rank %d, err %v; want dense", k, err)
		}
		for i, v := range buf[1 : 1+nb*nb] {
			if v != a[i] {
				t.Fatalf("dense tile differs at %d", i)
			}
		}
	})
}

// lrTile returns a LowRank buffer holding a compressed Matérn tile (dense
// when asked) and its exact dense value U V^T.
func lrTile(t *testing.T, cp Compressor, nb, row, col int, th matern.Theta, dense bool) (runtime.LowRank, []float64, *mat.Dense) {
	t.Helper()
	f := runtime.LowRank{M: nb, N: nb, MaxRank: nb / 2}
	buf := make([]float64, f.Words())
	a := maternTile(t, 1600, nb, row, col, th)
	if dense {
		copy(f.SetDense(buf), a)
	} else if _, err := cp.Compress(f, a, buf); err != nil {
		t.Fatal(err)
	}
	return f, buf, expand(f, buf)
}

// lowerFactor returns a well-conditioned nb x nb lower-triangular factor:
// the Cholesky factor of a Matérn diagonal tile plus a nugget.
func lowerFactor(t *testing.T, nb int) ([]float64, *mat.TriDense) {
	a := maternTile(t, 1600, nb, 0, 0, matern.Theta{Sigma2: 1, Beta: 0.1, Nu: 0.5})
	for i := 0; i < nb; i++ {
		a[i+i*nb] += 0.1
	}
	var ch mat.Cholesky
	sym := mat.NewSymDense(nb, nil)
	for i := 0; i < nb; i++ {
		for j := 0; j <= i; j++ {
			sym.SetSym(i, j, a[i+j*nb])
		}
	}
	if !ch.Factorize(sym) {
		t.Fatal("not positive definite")
	}
	var l mat.TriDense
	ch.LTo(&l)
	out := make([]float64, nb*nb)
	for j := 0; j < nb; j++ {
		for i := j; i < nb; i++ {
			out[i+j*nb] = l.At(i, j)
		}
	}
	return out, &l
}

var th05 = matern.Theta{Sigma2: 1, Beta: 0.1, Nu: 0.5}

// TestTrsm: U (L^-1 V)^T equals A L^-T computed densely (gonum solve).
func TestTrsm(t *testing.T) {
	const nb = 80
	l, lt := lowerFactor(t, nb)
	for _, cp := range compressors(1e-9) {
		for _, dense := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/dense=%v", name(cp), dense), func(t *testing.T) {
				f, buf, a := lrTile(t, cp, nb, 2, 0, th05, dense)
				cp.Trsm(f, l, buf)
				// X = A L^-T  <=>  L X^T = A^T.
				var xt mat.Dense
				if err := xt.Solve(lt, a.T()); err != nil {
					t.Fatal(err)
				}
				if e := frobDiff(expand(f, buf), xt.T()); e > 1e-10*mat.Norm(&xt, 2) {
					t.Errorf("||Trsm - dense||_F = %.3g", e)
				}
			})
		}
	}
}

// TestSyrk: C - U (V^T V) U^T on the lower triangle equals C - A A^T.
func TestSyrk(t *testing.T) {
	const nb = 80
	for _, cp := range compressors(1e-9) {
		for _, dense := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/dense=%v", name(cp), dense), func(t *testing.T) {
				f, buf, a := lrTile(t, cp, nb, 3, 1, th05, dense)
				c := maternTile(t, 1600, nb, 3, 3, th05)
				var want mat.Dense
				want.Mul(a, a.T())
				want.Sub(denseOf(nb, nb, c), &want)
				cp.Syrk(f, buf, c)
				for j := 0; j < nb; j++ {
					for i := j; i < nb; i++ {
						if d := math.Abs(c[i+j*nb] - want.At(i, j)); d > 1e-12 {
							t.Fatalf("C(%d,%d) off by %.3g", i, j, d)
						}
					}
				}
			})
		}
	}
}

// TestGemm: C - A B^T, for every mix of low-rank and dense A, B, C, equals
// the dense computation to the accuracy of the recompression.
func TestGemm(t *testing.T) {
	const nb = 80
	const acc = 1e-9
	for _, cp := range compressors(acc) {
		for mask := 0; mask < 8; mask++ {
			da, db, dc := mask&1 != 0, mask&2 != 0, mask&4 != 0
			t.Run(fmt.Sprintf("%s/dense=%v,%v,%v", name(cp), da, db, dc), func(t *testing.T) {
				fa, abuf, a := lrTile(t, cp, nb, 5, 1, th05, da)
				fb, bbuf, b := lrTile(t, cp, nb, 3, 1, th05, db)
				fc, cbuf, c := lrTile(t, cp, nb, 5, 3, th05, dc)
				var want mat.Dense
				want.Mul(a, b.T())
				want.Sub(c, &want)
				k, err := cp.Gemm(fa, abuf, fb, bbuf, fc, cbuf)
				if err != nil {
					t.Fatal(err)
				}
				if dc && k != -1 {
					t.Fatalf("a dense C became rank %d", k)
				}
				if e := frobDiff(expand(fc, cbuf), &want); e > 2*acc {
					t.Errorf("rank %d: ||Gemm - dense||_F = %.3g", k, e)
				}
				if !dc && k >= 0 {
					if kmin := minRank(&want, acc); k > kmin+1 {
						t.Errorf("recompressed rank %d, minimal %d", k, kmin)
					}
				}
			})
		}
	}
}

// TestGemmRankAboveMax: a low-rank C of rank 12 minus a product of rank
// 12 (random factors: rank 24 < nb = 40, so the stacked factors are
// recompressed, not densified first) needs rank 24 > MaxRank. With
// MaxRank 20 the format holds a dense tile and C - A B^T is stored dense;
// with MaxRank 19 it does not and Gemm fails with a RankError of rank 24.
func TestGemmRankAboveMax(t *testing.T) {
	const nb, k = 40, 12
	rng := rand.New(rand.NewPCG(5, 6))
	lowRank := func(f runtime.LowRank) ([]float64, *mat.Dense) {
		buf := make([]float64, f.Words())
		u, v := f.Factors(buf, k)
		for i := range u {
			u[i] = rng.NormFloat64()
		}
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		return buf, expand(f, buf)
	}
	forMaxRanks(t, nb, func(t *testing.T, cp Compressor, f runtime.LowRank, holdsDense bool) {
		abuf, a := lowRank(f)
		bbuf, b := lowRank(f)
		cbuf, cm := lowRank(f)
		var want mat.Dense
		want.Mul(a, b.T())
		want.Sub(cm, &want)
		r, err := cp.Gemm(f, abuf, f, bbuf, f, cbuf)
		if !holdsDense {
			var re *RankError
			if !errors.As(err, &re) || re.Rank != 2*k {
				t.Fatalf("got rank %d, err %v; want a RankError of rank %d", r, err, 2*k)
			}
			return
		}
		if err != nil || r != -1 || !f.IsDense(cbuf) {
			t.Fatalf("got rank %d, err %v; want dense", r, err)
		}
		if e := frobDiff(expand(f, cbuf), &want); e > 1e-12*mat.Norm(&want, 2) {
			t.Errorf("||Gemm - dense||_F = %.3g of %.3g", e, mat.Norm(&want, 2))
		}
	})
}

// TestGemv: y + alpha op(A) x for a low-rank and a dense A equals the dense
// product.
func TestGemv(t *testing.T) {
	const nb = 60
	cp := compressors(1e-9)[0]
	rng := rand.New(rand.NewPCG(5, 6))
	for _, dense := range []bool{false, true} {
		for _, tr := range []bool{false, true} {
			t.Run(fmt.Sprintf("dense=%v/trans=%v", dense, tr), func(t *testing.T) {
				f, buf, a := lrTile(t, cp, nb, 4, 2, th05, dense)
				x, y := make([]float64, nb), make([]float64, nb)
				for i := range x {
					x[i], y[i] = rng.NormFloat64(), rng.NormFloat64()
				}
				var want mat.VecDense
				op := mat.Matrix(a)
				trans := blasNoTrans
				if tr {
					op, trans = a.T(), blasTrans
				}
				want.MulVec(op, mat.NewVecDense(nb, x))
				want.AddScaledVec(mat.NewVecDense(nb, append([]float64(nil), y...)), -2, &want)
				cp.Gemv(f, trans, -2, buf, x, y)
				for i := range y {
					if d := math.Abs(y[i] - want.AtVec(i)); d > 1e-12 {
						t.Fatalf("y[%d] off by %.3g", i, d)
					}
				}
			})
		}
	}
}
