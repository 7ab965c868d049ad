package cholesky

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/exageostat/exageostat/pkg/insert"
	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/tile"
)

// hierFactor runs the hierarchical potrf (sub-tiles of size s) of the
// n x n column-major matrix a held as diagonal tile (k, k) of a tiled
// matrix with tile size n, on a runtime of the given workers, and returns
// the tile afterwards.
func hierFactor(t *testing.T, a []float64, n, s, k, workers int) ([]float64, error) {
	t.Helper()
	rt := runtime.New(runtime.Options{Workers: workers})
	defer rt.Close()
	big := (k + 1) * n
	full := make([]float64, big*big)
	for j := 0; j < n; j++ {
		copy(full[(k*n+j)*big+k*n:][:n], a[j*n:(j+1)*n])
	}
	sym := tile.NewSym(rt, big, n, nil)
	sym.FromDense(full, big)
	HierPotrf(insert.New(rt, kernels.Default()), insert.At(k, k, k, 10), sym, k, s)
	err := rt.Wait()
	return append([]float64(nil), sym.Tile(k, k)...), err
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
			l := denseFactor(t, a, c.n)
			got1, err := hierFactor(t, a, c.n, c.s, 0, 1)
			if err != nil {
				t.Fatal(err)
			}
			got3, err := hierFactor(t, a, c.n, c.s, 0, 3)
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

// TestHierPotrfNotPosDef: diagonal tile 3 (first column 120) whose
// leading minor of order 23 is not positive fails with the global column
// 142, as one potrf reports it.
func TestHierPotrfNotPosDef(t *testing.T) {
	const n = 40
	a := spd(n, 3)
	a[22*n+22] = -50
	_, err := hierFactor(t, a, n, 8, 3, 2)
	var npd *NotPosDefError
	if !errors.As(err, &npd) || npd.Column != 142 || npd.Tile != 3 {
		t.Fatalf("error %v, want a NotPosDefError on tile 3 at column 142", err)
	}
}
