package greedy

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestColumnKernels: colSub and row.tail (AVX-512 where the CPU has it)
// bitwise equal to their Go loops (colSubGo, tailGo: the products and
// differences written out) and the same next pick, for every number of
// candidates up to 70 (the chunks of 8 and 32 and their tails), up to 6
// earlier columns, some candidates picked, ties and non-positive
// variances planted.
func TestColumnKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	for k := 1; k <= 70; k++ {
		for _, nt := range []int{0, 1, 6} {
			stride := k + 3
			g := make([]float64, stride*(nt+1))
			for q := range g {
				g[q] = rng.NormFloat64()
			}
			b := rng.IntN(k)
			want := slices.Clone(g[nt*stride : nt*stride+k])
			got := slices.Clone(want)
			colSubGo(g, stride, nt, b, want)
			colSub(g, stride, nt, b, got)
			for j := range want {
				if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
					t.Fatalf("colSub k=%d t=%d: entry %d = %v, want %v", k, nt, j, got[j], want[j])
				}
			}

			rz, rg := newRow(k, 1, nil), newRow(k, 1, nil)
			for j := range k {
				rz.resid[j], rz.cv[j] = 1+rng.Float64(), rng.NormFloat64()
				if rng.IntN(5) == 0 {
					rz.resid[j] = 0.1 * rng.NormFloat64() // some fall to 0 or below
				}
				if j > 0 && rng.IntN(6) == 0 { // a tie with the previous one
					rz.resid[j], rz.cv[j], got[j] = rz.resid[j-1], rz.cv[j-1], got[j-1]
				}
				if rng.IntN(4) != 0 {
					rz.act = append(rz.act, j)
					rz.mask[j>>3] |= 1 << (j & 7)
				}
			}
			rg.resid, rg.cv, rg.act = slices.Clone(rz.resid), slices.Clone(rz.cv), slices.Clone(rz.act)
			gz, gg := slices.Clone(got), slices.Clone(got)
			sq, gi := 1+rng.Float64(), rng.NormFloat64()
			nz, ng := rz.tail(gz, sq, gi), rg.tailGo(gg, sq, gi)
			if nz != ng {
				t.Fatalf("tail k=%d: next pick %d, want %d", k, nz, ng)
			}
			for _, j := range rg.act {
				for _, p := range [][2]float64{{gz[j], gg[j]}, {rz.resid[j], rg.resid[j]}, {rz.cv[j], rg.cv[j]}} {
					if math.Float64bits(p[0]) != math.Float64bits(p[1]) {
						t.Fatalf("tail k=%d: candidate %d: %v, want %v", k, j, p[0], p[1])
					}
				}
			}
		}
	}
}
