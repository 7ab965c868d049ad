//go:build cuda

// These tests need a CUDA device: gorgonia.org/cu exits the test binary in
// its init without one. Run them on a GPU machine (scripts/gpu-checks.sh).
// Each compares a CUDA kernel with the OpenBLAS kernel on the same random
// tiles; the tolerance is on max|gpu - cpu| / max|cpu| over the output.
package cuda

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"

	"github.com/exageostat/exageostat/pkg/linalg"
)

func newWorker(t testing.TB, nb int) *Worker {
	t.Helper()
	d, err := OpenDevice(0)
	if err != nil {
		t.Fatal(err)
	}
	w, err := d.NewWorker(nb)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := w.Close(); err != nil {
			t.Error(err)
		}
	})
	return w
}

func randTile(r *rand.Rand, rows, cols, ld int) []float64 {
	a := make([]float64, ld*(cols-1)+rows)
	for i := range a {
		a[i] = 2*r.Float64() - 1
	}
	return a
}

// spd returns an n x n symmetric positive definite matrix B B^T / n + I
// (leading dimension ld), well conditioned.
func spd(r *rand.Rand, n, ld int) []float64 {
	b := randTile(r, n, n, n)
	a := make([]float64, ld*(n-1)+n)
	linalg.OpenBLAS().Dgemm(blas.NoTrans, blas.Trans, n, n, n, 1/float64(n), b, n, b, n, 0, a, ld)
	for i := 0; i < n; i++ {
		a[i+i*ld]++
	}
	return a
}

// relErr is max|got - want| / max|want| over the rows x cols matrix, and
// whether every element outside it (between columns, ld > rows) is
// bitwise unchanged from orig.
func relErr(got, want, orig []float64, rows, cols, ld int, inside func(i, j int) bool) (float64, bool) {
	var d, m float64
	same := true
	for j := 0; j < cols; j++ {
		for i := 0; i < ld && j*ld+i < len(got); i++ {
			k := j*ld + i
			if i < rows && inside(i, j) {
				d = math.Max(d, math.Abs(got[k]-want[k]))
				m = math.Max(m, math.Abs(want[k]))
			} else if math.Float64bits(got[k]) != math.Float64bits(orig[k]) {
				same = false
			}
		}
	}
	if m == 0 {
		return d, same
	}
	return d / m, same
}

func all(i, j int) bool   { return true }
func lower(i, j int) bool { return i >= j }

const nb = 960

func TestDgemm(t *testing.T) {
	cases := []struct {
		name    string
		tA, tB  blas.Transpose
		m, n, k int
		pad     int // ld = rows + pad
	}{
		{"NN nb", blas.NoTrans, blas.NoTrans, nb, nb, nb, 0},
		{"NT nb (the factorisation's update)", blas.NoTrans, blas.Trans, nb, nb, nb, 0},
		{"TN odd strided", blas.Trans, blas.NoTrans, 37, 53, 29, 5},
		{"TT odd", blas.Trans, blas.Trans, 61, 17, 40, 0},
	}
	w := newWorker(t, nb)
	cpu := linalg.OpenBLAS()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			ar, ac := c.m, c.k
			if c.tA == blas.Trans {
				ar, ac = c.k, c.m
			}
			br, bc := c.k, c.n
			if c.tB == blas.Trans {
				br, bc = c.n, c.k
			}
			a := randTile(r, ar, ac, ar+c.pad)
			b := randTile(r, br, bc, br+c.pad)
			orig := randTile(r, c.m, c.n, c.m+c.pad)
			want := append([]float64(nil), orig...)
			got := append([]float64(nil), orig...)
			cpu.Dgemm(c.tA, c.tB, c.m, c.n, c.k, -1, a, ar+c.pad, b, br+c.pad, 0.5, want, c.m+c.pad)
			w.Dgemm(c.tA, c.tB, c.m, c.n, c.k, -1, a, ar+c.pad, b, br+c.pad, 0.5, got, c.m+c.pad)
			e, same := relErr(got, want, orig, c.m, c.n, c.m+c.pad, all)
			if e > 1e-12 || !same {
				t.Errorf("relative error %.3g (want <= 1e-12), padding unchanged %v", e, same)
			}
		})
	}
}

func TestDsyrk(t *testing.T) {
	cases := []struct {
		name string
		tA   blas.Transpose
		n, k int
		pad  int
	}{
		{"N nb (the factorisation's update)", blas.NoTrans, nb, nb, 0},
		{"T odd strided", blas.Trans, 45, 31, 3},
	}
	w := newWorker(t, nb)
	cpu := linalg.OpenBLAS()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(3, 4))
			ar, ac := c.n, c.k
			if c.tA == blas.Trans {
				ar, ac = c.k, c.n
			}
			a := randTile(r, ar, ac, ar+c.pad)
			orig := randTile(r, c.n, c.n, c.n+c.pad)
			want := append([]float64(nil), orig...)
			got := append([]float64(nil), orig...)
			cpu.Dsyrk(blas.Lower, c.tA, c.n, c.k, -1, a, ar+c.pad, 1, want, c.n+c.pad)
			w.Dsyrk(blas.Lower, c.tA, c.n, c.k, -1, a, ar+c.pad, 1, got, c.n+c.pad)
			// The strict upper triangle must stay bitwise as it was.
			e, same := relErr(got, want, orig, c.n, c.n, c.n+c.pad, lower)
			if e > 1e-12 || !same {
				t.Errorf("relative error %.3g (want <= 1e-12), upper triangle and padding unchanged %v", e, same)
			}
		})
	}
}

// TestTriangular covers dtrsm and dtrmm with L the Cholesky factor of a
// well-conditioned SPD tile, as the factorisation and the CPU Trmm task
// (lower, non-unit, either side, either transpose) use them.
func TestTriangular(t *testing.T) {
	cases := []struct {
		name  string
		trsm  bool
		side  blas.Side
		tA    blas.Transpose
		m, n  int
		alpha float64
	}{
		{"trsm right lower trans nb (the panel solve)", true, blas.Right, blas.Trans, nb, nb, 1},
		{"trsm left lower notrans", true, blas.Left, blas.NoTrans, 70, 33, 2},
		{"trmm right lower trans nb", false, blas.Right, blas.Trans, nb, nb, 1},
		{"trmm left lower notrans", false, blas.Left, blas.NoTrans, 70, 33, 1},
		{"trmm left lower trans", false, blas.Left, blas.Trans, 41, 66, 1},
	}
	w := newWorker(t, nb)
	cpu := linalg.OpenBLAS()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(5, 6))
			k := c.m
			if c.side == blas.Right {
				k = c.n
			}
			l := spd(r, k, k)
			if info := cpu.Dpotrf(k, l, k); info != 0 {
				t.Fatalf("test matrix: dpotrf info %d", info)
			}
			orig := randTile(r, c.m, c.n, c.m)
			want := append([]float64(nil), orig...)
			got := append([]float64(nil), orig...)
			if c.trsm {
				cpu.Dtrsm(c.side, blas.Lower, c.tA, blas.NonUnit, c.m, c.n, c.alpha, l, k, want, c.m)
				w.Dtrsm(c.side, blas.Lower, c.tA, blas.NonUnit, c.m, c.n, c.alpha, l, k, got, c.m)
			} else {
				cpu.Dtrmm(c.side, blas.Lower, c.tA, blas.NonUnit, c.m, c.n, c.alpha, l, k, want, c.m)
				w.Dtrmm(c.side, blas.Lower, c.tA, blas.NonUnit, c.m, c.n, c.alpha, l, k, got, c.m)
			}
			if e, _ := relErr(got, want, orig, c.m, c.n, c.m, all); e > 1e-12 {
				t.Errorf("relative error %.3g, want <= 1e-12", e)
			}
		})
	}
}

func TestDpotrf(t *testing.T) {
	cases := []struct {
		name     string
		n, pad   int
		breakAt  int // > 0: make the leading minor of this order non-positive
		wantInfo int
	}{
		{"nb", nb, 0, 0, 0},
		{"odd strided", 77, 6, 0, 0},
		{"not positive definite at 300", nb, 0, 300, 300},
	}
	w := newWorker(t, nb)
	cpu := linalg.OpenBLAS()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(7, 8))
			ld := c.n + c.pad
			orig := spd(r, c.n, ld)
			if c.breakAt > 0 {
				orig[(c.breakAt-1)*(ld+1)] = -1
			}
			want := append([]float64(nil), orig...)
			got := append([]float64(nil), orig...)
			wi := cpu.Dpotrf(c.n, want, ld)
			gi := w.Dpotrf(c.n, got, ld)
			if wi != c.wantInfo || gi != c.wantInfo {
				t.Fatalf("info: cpu %d, cuda %d, want %d", wi, gi, c.wantInfo)
			}
			if c.wantInfo != 0 {
				return
			}
			if e, _ := relErr(got, want, orig, c.n, c.n, ld, lower); e > 1e-10 {
				t.Errorf("relative error %.3g, want <= 1e-10", e)
			}
		})
	}
}

func TestDgemv(t *testing.T) {
	cases := []struct {
		name       string
		tA         blas.Transpose
		m, n       int
		incX, incY int
	}{
		{"N nb", blas.NoTrans, nb, nb, 1, 1},
		{"T nb", blas.Trans, nb, nb, 1, 1},
		{"N odd strided vectors", blas.NoTrans, 50, 23, 2, 3},
		{"T odd", blas.Trans, 31, 64, 3, 2},
	}
	w := newWorker(t, nb)
	cpu := linalg.OpenBLAS()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(9, 10))
			lx, ly := c.n, c.m
			if c.tA == blas.Trans {
				lx, ly = c.m, c.n
			}
			a := randTile(r, c.m, c.n, c.m)
			x := randTile(r, 1, lx, c.incX)
			orig := randTile(r, 1, ly, c.incY)
			want := append([]float64(nil), orig...)
			got := append([]float64(nil), orig...)
			cpu.Dgemv(c.tA, c.m, c.n, 0.75, a, c.m, x, c.incX, -1, want, c.incY)
			w.Dgemv(c.tA, c.m, c.n, 0.75, a, c.m, x, c.incX, -1, got, c.incY)
			// As a 1 x ly matrix with leading dimension incY.
			if e, same := relErr(got, want, orig, 1, ly, c.incY, all); e > 1e-12 || !same {
				t.Errorf("relative error %.3g (want <= 1e-12), elements between strides unchanged %v", e, same)
			}
		})
	}
}

// BenchmarkPotrfWhole times one whole-matrix cusolverDnDpotrf at n = 32768
// (8 GiB; transfers excluded), the anchor of `bench cholesky --gpus 1`,
// and reports GFLOP/s (n^3/3 flops).
func BenchmarkPotrfWhole(b *testing.B) {
	const n = 32768
	w := newWorker(b, nb)
	r := rand.New(rand.NewPCG(11, 12))
	a0 := make([]float64, n*n)
	for j := 0; j < n; j++ { // diagonally dominant SPD: a_ij = u_ij + u_ji, a_jj = n
		for i := j + 1; i < n; i++ {
			v := r.Float64() - 0.5
			a0[i+j*n], a0[j+i*n] = v, v
		}
		a0[j+j*n] = n
	}
	a := make([]float64, n*n)
	var total float64
	for i := 0; i < b.N; i++ {
		copy(a, a0)
		info, s, err := w.PotrfWhole(n, a)
		if err != nil || info != 0 {
			b.Fatalf("info %d, %v", info, err)
		}
		total += s
	}
	b.ReportMetric(float64(n)*float64(n)*float64(n)/3/(total/float64(b.N))/1e9, "GFLOP/s")
}
