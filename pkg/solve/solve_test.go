package solve

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/exageostat/exageostat/pkg/insert"
	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/tile"
)

// lower returns a random well-conditioned lower-triangular n x n matrix in
// a tiled matrix whose tile (m, k) is owned by owner(m, k).
func lower(rt *runtime.Runtime, n, nb int, owner tile.OwnerFunc, seed uint64) (*tile.Sym, *mat.TriDense) {
	rng := rand.New(rand.NewPCG(seed, 5))
	s := tile.NewSym(rt, n, nb, owner)
	ref := mat.NewTriDense(n, mat.Lower, nil)
	a := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			v := rng.Float64() - 0.5
			if i == j {
				v = 1 + rng.Float64()
			} else {
				v /= float64(n)
			}
			a[i+j*n] = v
			ref.SetTri(i, j, v)
		}
	}
	s.FromDense(a, n)
	return s, ref
}

func TestLocalSolveDetDot(t *testing.T) {
	owners := map[string]tile.OwnerFunc{
		"local":        nil,
		"block-cyclic": func(m, k int) int { return (m%2)*2 + k%2 },
		"by-column":    func(m, k int) int { return k % 3 },
	}
	for name, own := range owners {
		for _, n := range []int{1, 9, 10, 37} {
			for _, w := range []int{1, 4} {
				for _, mode := range []Mode{Chained, PerRank, MoveTiles} {
					t.Run(fmt.Sprintf("%s/n=%d/w=%d/%s", name, n, w, mode), func(t *testing.T) {
						const nb = 5
						rt := runtime.New(runtime.Options{Workers: w})
						defer rt.Close()
						l, ref := lower(rt, n, nb, own, uint64(n))
						z := tile.NewVector(rt, "z", n, nb, nil)
						rng := rand.New(rand.NewPCG(9, 9))
						b := make([]float64, n)
						for i := range b {
							b[i] = rng.NormFloat64()
						}
						acc := NewAccum(l, mode)
						det := NewScalars(rt, "det", l.NT, nil)
						dot := NewScalars(rt, "dot", l.NT, nil)
						kern := kernels.Default()
						ts := insert.New(rt, kern)
						for rep := 0; rep < 2; rep++ { // reuse: G vectors must restart from zero
							for m := 0; m < z.NT; m++ {
								ts.Zcpy(insert.At(m, -1, -1, 0), b[z.Offset(m):z.Offset(m)+z.Rows(m)], z.Handle(m))
							}
							SubmitLogDet(l, det)
							SubmitLocalSolve(l, z, acc, kern)
							SubmitDot(z, dot, kern)
							if err := rt.Wait(); err != nil {
								t.Fatal(err)
							}
							w := z.Values()
							var x mat.VecDense
							if err := x.SolveVec(ref, mat.NewVecDense(n, b)); err != nil {
								t.Fatal(err)
							}
							for i := 0; i < n; i++ {
								if math.Abs(w[i]-x.AtVec(i)) > 1e-13*(1+math.Abs(x.AtVec(i))) {
									t.Fatalf("w[%d] = %g, dense %g", i, w[i], x.AtVec(i))
								}
							}
							var wantDet, wantDot float64
							for i := 0; i < n; i++ {
								wantDet += math.Log(ref.At(i, i))
								wantDot += x.AtVec(i) * x.AtVec(i)
							}
							if math.Abs(det.Sum()-wantDet) > 1e-12*(1+math.Abs(wantDet)) || math.Abs(dot.Sum()-wantDot) > 1e-12*wantDot {
								t.Fatalf("logdet %g want %g; dot %g want %g", det.Sum(), wantDet, dot.Sum(), wantDot)
							}
						}
					})
				}
			}
		}
	}
}

func TestAccumRanks(t *testing.T) {
	l := tile.NewSym(runtime.New(runtime.Options{Record: true, Ranks: 3}), 20, 5, func(m, k int) int { return (m + k) % 3 })
	a := NewAccum(l, PerRank)
	// Row 3 has tiles (3,0),(3,1),(3,2) owned by 0, 1, 2.
	if fmt.Sprint(a.ranks[3]) != "[0 1 2]" || len(a.ranks[0]) != 0 || fmt.Sprint(a.ranks[1]) != "[1]" {
		t.Fatalf("per-rank: ranks %v", a.ranks)
	}
	// Chained: one accumulator per row, on the owner of L(m,m), 2m mod 3.
	a = NewAccum(l, Chained)
	if fmt.Sprint(a.ranks[3]) != "[0]" || fmt.Sprint(a.ranks[2]) != "[1]" || len(a.ranks[0]) != 0 {
		t.Fatalf("chained: ranks %v", a.ranks)
	}
}
