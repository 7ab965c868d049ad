package block

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestGemv checks gemv and gemv2 (two right-hand sides, each its own
// number of columns) bitwise against colUpdateGo, and against plain sums
// to 1e-13 relative to the sum of the terms' magnitudes, for sizes across
// the vector codes' 4 and 8 rows and 48-row chunks, a leading dimension
// above m, kn from 0 to above m.
func TestGemv(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 33))
	for _, m := range []int{1, 3, 8, 9, 13, 45, 48, 49, 85, 96} {
		for _, kn := range [][2]int{{0, 1}, {m / 2, m}, {m, m}, {m + 2, 1}, {1, 0}} {
			ld := m + 3
			kmax := max(kn[0], kn[1], 1)
			m4 := (m + 3) &^ 3
			l := make([]float64, (kmax-1)*ld+m4)
			a := make([]float64, m4)
			x := [2][]float64{make([]float64, kmax), make([]float64, kmax)}
			for _, v := range [][]float64{l, a, x[0], x[1]} {
				for i := range v {
					v[i] = rng.NormFloat64()
				}
			}
			var want, two, one [2][]float64
			for c := range 2 {
				want[c], two[c], one[c] = make([]float64, m), make([]float64, m4), make([]float64, m4)
				colUpdateGo(m, kn[c], a, l, ld, x[c], 1, want[c])
				gemv(m, kn[c], a, l, ld, x[c], one[c])
			}
			gemv2(m, kn[0], kn[1], a, l, ld, x[0], x[1], two[0], two[1])
			for c := range 2 {
				for i := range m {
					if w := want[c][i]; math.Float64bits(one[c][i]) != math.Float64bits(w) || math.Float64bits(two[c][i]) != math.Float64bits(w) {
						t.Fatalf("m %d kn %v: t%d[%d]: gemv %v, gemv2 %v, scalar code %v", m, kn, c+1, i, one[c][i], two[c][i], w)
					}
					s, mag := a[i], math.Abs(a[i])
					for k := range kn[c] {
						s -= l[i+k*ld] * x[c][k]
						mag += math.Abs(l[i+k*ld] * x[c][k])
					}
					if d := math.Abs(two[c][i] - s); d > 1e-13*mag {
						t.Errorf("m %d kn %v: t%d[%d] %v, plain sum %v", m, kn, c+1, i, two[c][i], s)
					}
				}
			}
		}
	}
}

// TestProd checks prodVec (AVX-512 where the CPU has it) bitwise against
// colUpdateGo with a = 0 and x negated (dsigC's other path), for 1 to 4
// right-hand sides with non-decreasing column counts (0, equal, up to m),
// sizes across the 8-row vectors and the 48-row chunks, leading
// dimensions above m.
func TestProd(t *testing.T) {
	if !hasCholZ {
		t.Skip("no AVX-512")
	}
	rng := rand.New(rand.NewPCG(29, 35))
	for _, m := range []int{1, 3, 8, 9, 13, 39, 45, 48, 49, 85, 96} {
		for _, kn := range [][4]int{{0, 1, 1, m}, {m, m, m, m}, {m - 1, m, m, m}, {1, m / 2, m - 1, m}, {0, 0, 0, 0}, {2, 3, 5, 7}} {
			for c := range kn { // non-decreasing, at most m
				kn[c] = min(max(kn[c], kn[max(c-1, 0)]), m)
			}
			for q := 1; q <= 4; q++ {
				ld, ldx, ldt := m+3, m+1, m+2
				l := make([]float64, m*ld+m)
				x := make([]float64, 4*ldx)
				for _, v := range [][]float64{l, x} {
					for i := range v {
						v[i] = rng.NormFloat64()
					}
				}
				got := make([]float64, 4*ldt)
				for i := range got {
					got[i] = 7
				}
				prodVec(m, q, &kn, l, ld, x, ldx, got, ldt)
				zero, neg, want := make([]float64, m), make([]float64, ldx), make([]float64, m)
				for c := range 4 {
					for i := range ldt {
						g := got[c*ldt+i]
						if c >= q || i >= m {
							if g != 7 {
								t.Fatalf("m %d q %d kn %v: entry %d of column %d written", m, q, kn, i, c)
							}
							continue
						}
						if i == 0 {
							for k := range neg {
								neg[k] = -x[c*ldx+k]
							}
							colUpdateGo(m, kn[c], zero, l, ld, neg, 1, want)
						}
						if math.Float64bits(g) != math.Float64bits(want[i]) {
							t.Fatalf("m %d q %d kn %v: t[%d, %d] %v, scalar code %v", m, q, kn, i, c, g, want[i])
						}
					}
				}
			}
		}
	}
}

// BenchmarkProd times dSigma_j C (prodVec, AVX-512) at the mean block of
// N = 10^6, m = 30 (u = 39) with r = 2 and 3 responses in the last rows,
// in thread CPU nanoseconds a call.
func BenchmarkProd(b *testing.B) {
	if !hasCholZ {
		b.Skip("no AVX-512")
	}
	const u = 39
	l, x, t := make([]float64, u*u), make([]float64, 4*u), make([]float64, 4*u)
	for i := range l {
		l[i] = float64(i%7) - 3
	}
	for i := range x {
		x[i] = float64(i%5) - 2
	}
	for _, q := range []int{2, 3} {
		var kn [4]int
		for c := range q {
			kn[c] = u - q + c + 1
		}
		b.Run(fmt.Sprintf("q=%d", q), func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			c0 := threadCPU()
			for i := 0; i < b.N; i++ {
				prodVec(u, q, &kn, l, u, x, u, t, u)
			}
			b.ReportMetric((threadCPU()-c0)*1e9/float64(b.N), "cpu-ns/op")
		})
	}
}
