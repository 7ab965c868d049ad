package bench

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/exageostat/exageostat/pkg/cholesky"
	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/tile"
)

func TestExpCovariance(t *testing.T) {
	a := ExpCovariance(5, 0.1, 1, 2)
	for j := 0; j < 5; j++ {
		if a[j+j*5] != 1 {
			t.Fatalf("diagonal %d = %v, want 1", j, a[j+j*5])
		}
		for i := j + 1; i < 5; i++ {
			if !(a[i+j*5] > 0 && a[i+j*5] < 1) {
				t.Fatalf("A(%d,%d) = %v outside (0,1)", i, j, a[i+j*5])
			}
		}
	}
}

// TestResidualMatchesDense perturbs a correct factor and checks Residual
// against ||A - L L^T||_F / ||A||_F computed densely with gonum.
func TestResidualMatchesDense(t *testing.T) {
	const n, nb = 37, 8
	a := ExpCovariance(n, 0.1, 3, 1)
	rt := runtime.New(runtime.Options{Workers: 2})
	defer rt.Close()
	l := tile.NewSym(rt, n, nb, nil)
	l.FromDense(a, n)
	if err := cholesky.Factor(l, kernels.Default()); err != nil {
		t.Fatal(err)
	}
	f := make([]float64, n*n)
	if err := l.ToDense(f, n); err != nil {
		t.Fatal(err)
	}
	f[20+3*n] += 1e-3
	f[30+30*n] *= 1.01
	l.FromDense(f, n)
	got, err := Residual(kernels.Default(), a, l)
	if err != nil {
		t.Fatal(err)
	}
	A := mat.NewDense(n, n, nil)
	L := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			A.Set(i, j, a[i+j*n])
			A.Set(j, i, a[i+j*n])
			L.Set(i, j, f[i+j*n])
		}
	}
	var r mat.Dense
	r.Mul(L, L.T())
	r.Sub(A, &r)
	want := frob(&r) / frob(A)
	if math.Abs(got-want) > 1e-10*want {
		t.Fatalf("Residual %g, dense %g", got, want)
	}
}

func frob(m *mat.Dense) float64 {
	r, c := m.Dims()
	var s float64
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			s += m.At(i, j) * m.At(i, j)
		}
	}
	return math.Sqrt(s)
}

func TestCholeskyBenchSmall(t *testing.T) {
	r, err := CholeskyBench(CholeskyOptions{N: 300, NB: 64, Workers: 2, Reps: 1, Seed: 1, Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Residual > 1e-14 || r.LapackResid > 1e-14 || !(r.Gflops > 0) || !(r.LapackGflops > 0) || r.Tasks != 5+4+10+10+10 {
		t.Fatalf("unexpected result %+v", r)
	}
}

// TestCholeskyBenchAutoNB: without a tile size the bench uses fit's,
// tile.AutoNB: N = 1000 gives (1000/6 + 15)/16 16 = 176, so 6 x 6 tiles and
// 6 potrf, 5 trtri, 15 trmm, 15 syrk and 20 gemm tasks, and reports it.
func TestCholeskyBenchAutoNB(t *testing.T) {
	r, err := CholeskyBench(CholeskyOptions{N: 1000, Workers: 2, Reps: 1, Seed: 1, Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.NB != 176 || r.Tasks != 6+5+15+15+20 || r.Residual > 1e-14 {
		t.Fatalf("nb %d, %d tasks, residual %g; want 176, 61, < 1e-14", r.NB, r.Tasks, r.Residual)
	}
}

// TestCholeskyBenchNoReference: without the LAPACK reference the tiled run
// is timed Reps times and checked as before, and no LAPACK figure is made
// up (times, rate, ratio and its residual stay empty).
func TestCholeskyBenchNoReference(t *testing.T) {
	r, err := CholeskyBench(CholeskyOptions{N: 300, NB: 64, Workers: 2, Reps: 2, Seed: 1, Check: true, NoReference: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Seconds) != 2 || len(r.LapackSecs) != 0 || r.LapackGflops != 0 || r.Ratio != 0 || r.LapackResid != 0 {
		t.Fatalf("times %v, LAPACK %v %g %g %g: want 2 tiled times and no LAPACK figure", r.Seconds, r.LapackSecs, r.LapackGflops, r.Ratio, r.LapackResid)
	}
	if r.Residual > 1e-14 || !(r.Gflops > 0) {
		t.Fatalf("residual %g, %g GFLOP/s", r.Residual, r.Gflops)
	}
}
