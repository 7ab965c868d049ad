package solve

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/tile"
)

// lower returns a random well-conditioned lower-triangular n x n matrix in
// a tiled matrix whose tile (m, k) is owned by owner(m, k).
func lower(n, nb int, owner tile.OwnerFunc, seed uint64) (*tile.Sym, *mat.TriDense) {
	rng := rand.New(rand.NewPCG(seed, 5))
	s := tile.NewSym(n, nb, owner)
	ref := mat.NewTriDense(n, mat.Lower, nil)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			v := rng.Float64() - 0.5
			if i == j {
				v = 1 + rng.Float64()
			} else {
				v /= float64(n)
			}
			s.Set(i, j, v)
			ref.SetTri(i, j, v)
		}
	}
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
						l, ref := lower(n, nb, own, uint64(n))
						z := tile.NewVector("z", n, nb, nil)
						rng := rand.New(rand.NewPCG(9, 9))
						b := make([]float64, n)
						for i := range b {
							b[i] = rng.NormFloat64()
							z.Data()[i] = b[i]
						}
						rt := runtime.New(runtime.Options{Workers: w})
						defer rt.Close()
						acc := NewAccum(l, mode)
						det := NewScalars("det", l.NT, nil)
						dot := NewScalars("dot", l.NT, nil)
						kern := kernels.Default()
						for rep := 0; rep < 2; rep++ { // reuse: G vectors must restart from zero
							copy(z.Data(), b)
							SubmitLogDet(rt, l, det)
							SubmitLocalSolve(rt, l, z, acc, kern)
							SubmitDot(rt, z, dot, kern)
							if err := rt.Wait(); err != nil {
								t.Fatal(err)
							}
							var x mat.VecDense
							if err := x.SolveVec(ref, mat.NewVecDense(n, b)); err != nil {
								t.Fatal(err)
							}
							for i := 0; i < n; i++ {
								if math.Abs(z.Data()[i]-x.AtVec(i)) > 1e-13*(1+math.Abs(x.AtVec(i))) {
									t.Fatalf("w[%d] = %g, dense %g", i, z.Data()[i], x.AtVec(i))
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
	l := tile.NewSym(20, 5, func(m, k int) int { return (m + k) % 3 })
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
