package insert

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/runtime"
)

// hierFactor runs the hierarchical potrf of the n x n column-major matrix
// a (sub-tiles of size s, with col0 as the tile's first global column) on
// a runtime of the given workers and returns the tile afterwards.
func hierFactor(t *testing.T, a []float64, n, s, workers, col0 int) ([]float64, error) {
	t.Helper()
	rt := runtime.New(runtime.Options{Workers: workers})
	defer rt.Close()
	ts := New(rt, kernels.Default())
	h := rt.Register("A", 0, runtime.Dense{M: n, N: n})
	rt.Submit(runtime.Task{Kind: "fill", Tile: [3]int{-1, -1, -1}, Access: []runtime.Access{{H: h, Mode: runtime.W}},
		Run: func(c runtime.Context) error { copy(c.Dense(0), a); return nil }})
	b := SubTiles(n, s)
	var sub []*runtime.Handle
	for i := 0; i+1 < len(b); i++ {
		for j := 0; j <= i; j++ {
			sub = append(sub, rt.Register(fmt.Sprintf("S(%d,%d)", i, j), 0, runtime.Dense{M: b[i+1] - b[i], N: b[j+1] - b[j]}))
		}
	}
	ts.HierPotrf(At(3, 3, 3, 10), h, sub, b, 3, col0)
	err := rt.Wait()
	return append([]float64(nil), rt.Local(h)...), err
}

// spd returns a random n x n symmetric positive-definite matrix
// (column-major): B B^T / n + I.
func spd(n int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 9))
	b := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			b.Set(i, j, rng.NormFloat64())
		}
	}
	var s mat.Dense
	s.Mul(b, b.T())
	a := make([]float64, n*n)
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			a[j*n+i] = s.At(i, j) / float64(n)
		}
		a[j*n+j]++
	}
	return a
}

// TestHierPotrf: the hierarchical potrf's lower triangle is gonum's
// Cholesky factor of the tile within 1e-12 (relative to the largest
// entry), its strict upper triangle is the input's (as dpotrf leaves it),
// for sub-tiles that cut the tile evenly, raggedly and not at all, and the
// factor is bitwise the same with 1 and 3 workers.
func TestHierPotrf(t *testing.T) {
	for _, c := range []struct{ n, s int }{{64, 16}, {70, 16}, {50, 7}, {40, 40}, {33, 100}} {
		t.Run(fmt.Sprintf("n=%d/s=%d", c.n, c.s), func(t *testing.T) {
			a := spd(c.n, uint64(c.n))
			sym := mat.NewSymDense(c.n, nil)
			for j := 0; j < c.n; j++ {
				for i := j; i < c.n; i++ {
					sym.SetSym(i, j, a[j*c.n+i])
				}
			}
			var ch mat.Cholesky
			if !ch.Factorize(sym) {
				t.Fatal("gonum: not positive definite")
			}
			var l mat.TriDense
			ch.LTo(&l)
			got1, err := hierFactor(t, a, c.n, c.s, 1, 0)
			if err != nil {
				t.Fatal(err)
			}
			got3, err := hierFactor(t, a, c.n, c.s, 3, 0)
			if err != nil {
				t.Fatal(err)
			}
			worst := 0.0
			for j := 0; j < c.n; j++ {
				for i := 0; i < c.n; i++ {
					v := got1[j*c.n+i]
					if got3[j*c.n+i] != v {
						t.Fatalf("entry (%d,%d): %.17g with 1 worker, %.17g with 3", i, j, v, got3[j*c.n+i])
					}
					if i < j {
						if v != a[j*c.n+i] {
							t.Fatalf("upper entry (%d,%d) changed: %g, was %g", i, j, v, a[j*c.n+i])
						}
						continue
					}
					worst = max(worst, math.Abs(v-l.At(i, j)))
				}
			}
			if worst > 1e-12 {
				t.Errorf("largest difference from gonum's factor %.3g > 1e-12", worst)
			}
		})
	}
}

// TestHierPotrfNotPosDef: a tile whose leading minor of order 23 is not
// positive fails with the global column col0 + 22, as one potrf reports it.
func TestHierPotrfNotPosDef(t *testing.T) {
	const n = 40
	a := spd(n, 3)
	a[22*n+22] = -50
	_, err := hierFactor(t, a, n, 8, 2, 400)
	var npd *NotPosDefError
	if !errors.As(err, &npd) || npd.Column != 422 || npd.Tile != 3 {
		t.Fatalf("error %v, want a NotPosDefError on tile 3 at column 422", err)
	}
}
