package cholesky

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/kind"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/tile"
)

// spd returns a random column-major n x n SPD matrix: an exponential
// covariance of random points plus a small nugget.
func spd(n int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 3))
	x, y := make([]float64, n), make([]float64, n)
	for i := range x {
		x[i], y[i] = rng.Float64(), rng.Float64()
	}
	a := make([]float64, n*n)
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			a[i+j*n] = math.Exp(-math.Hypot(x[i]-x[j], y[i]-y[j]) / 0.2)
		}
		a[j+j*n] += 0.01
	}
	return a
}

// denseFactor is the reference: gonum's dense Cholesky.
func denseFactor(t *testing.T, a []float64, n int) *mat.TriDense {
	sym := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			sym.SetSym(i, j, a[i+j*n])
		}
	}
	var c mat.Cholesky
	if !c.Factorize(sym) {
		t.Fatal("reference factorisation failed")
	}
	var l mat.TriDense
	c.LTo(&l)
	return &l
}

func TestFactorMatchesDense(t *testing.T) {
	const nb = 16
	for _, kern := range kernels.All() {
		for _, n := range []int{1, nb - 1, nb, nb + 1, 3*nb + 5, 5 * nb} {
			for _, workers := range []int{1, 3} {
				t.Run(fmt.Sprintf("%s/n=%d/w=%d", kern.Name(), n, workers), func(t *testing.T) {
					a := spd(n, uint64(n))
					ref := denseFactor(t, a, n)
					rt := runtime.New(runtime.Options{Workers: workers})
					defer rt.Close()
					s := tile.NewSym(rt, n, nb, nil)
					s.FromDense(a, n)
					if err := Factor(s, kern); err != nil {
						t.Fatal(err)
					}
					got := make([]float64, n*n)
					if err := s.ToDense(got, n); err != nil {
						t.Fatal(err)
					}
					var maxErr, norm float64
					for i := 0; i < n; i++ {
						for j := 0; j <= i; j++ {
							maxErr = math.Max(maxErr, math.Abs(got[i+j*n]-ref.At(i, j)))
							norm = math.Max(norm, math.Abs(ref.At(i, j)))
						}
					}
					if maxErr > 1e-13*norm*float64(n) {
						t.Fatalf("max |L - L_ref| = %g (|L|max %g)", maxErr, norm)
					}
				})
			}
		}
	}
}

func TestFactorBitwiseIndependentOfWorkers(t *testing.T) {
	const n, nb = 203, 24
	a := spd(n, 11)
	var first []float64
	for _, workers := range []int{1, 2, 8} {
		rt := runtime.New(runtime.Options{Workers: workers})
		s := tile.NewSym(rt, n, nb, nil)
		s.FromDense(a, n)
		if err := Factor(s, kernels.Default()); err != nil {
			t.Fatal(err)
		}
		got := make([]float64, n*n)
		if err := s.ToDense(got, n); err != nil {
			t.Fatal(err)
		}
		rt.Close()
		if first == nil {
			first = got
			continue
		}
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(first[i]) {
				t.Fatalf("workers=%d: element %d differs bitwise from 1 worker", workers, i)
			}
		}
	}
}

func TestNotPositiveDefinite(t *testing.T) {
	const n, nb = 50, 8
	for _, kern := range kernels.All() {
		for _, col := range []int{0, 7, 8, 21, 49} {
			t.Run(fmt.Sprintf("%s/col=%d", kern.Name(), col), func(t *testing.T) {
				a := spd(n, 5)
				// Zeroing row/column col below a positive leading block makes
				// the leading minor of order col+1 the first non-positive one.
				for i := 0; i < n; i++ {
					a[i+col*n], a[col+i*n] = 0, 0
				}
				a[col+col*n] = -1
				rt := runtime.New(runtime.Options{Workers: 2})
				defer rt.Close()
				s := tile.NewSym(rt, n, nb, nil)
				s.FromDense(a, n)
				err := Factor(s, kern)
				var npd *NotPosDefError
				if !errors.As(err, &npd) {
					t.Fatalf("got %v, want NotPosDefError", err)
				}
				if npd.Tile != col/nb || npd.Column != col {
					t.Fatalf("got tile %d column %d, want tile %d column %d", npd.Tile, npd.Column, col/nb, col)
				}
				want := fmt.Sprintf("task potrf(%d,%d,%d): matrix is not positive definite: potrf failed on tile (%d,%d) at global column %d",
					col/nb, col/nb, col/nb, col/nb, col/nb, col)
				if err.Error() != want {
					t.Fatalf("message %q, want %q", err.Error(), want)
				}
			})
		}
	}
}

func TestFlops(t *testing.T) {
	// Sum of the task flop counts equals n^3/3 + n^2/2 + n/6 when nb divides n.
	const n, nb = 96, 16
	rt := runtime.New(runtime.Options{Workers: 1, Trace: true})
	defer rt.Close()
	s := tile.NewSym(rt, n, nb, nil)
	s.FromDense(spd(n, 1), n)
	if err := Factor(s, kernels.Default()); err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, e := range rt.Events() {
		if e.Kind != kind.Trtri { // the inverse of the diagonal blocks is extra work by design
			sum += e.Flops
		}
	}
	// syrk is counted as k n (n+1) and potrf with its lower-order terms, so
	// the tile sum exceeds n^3/3 only by lower-order terms.
	if rel := math.Abs(sum-Flops(n)) / Flops(n); rel > 0.02 {
		t.Fatalf("task flops %g vs n^3/3 %g (rel %g)", sum, Flops(n), rel)
	}
}
