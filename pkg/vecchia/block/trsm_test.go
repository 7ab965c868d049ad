package block

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestSolve checks the blocks' triangular solves against the textbook
// substitutions (plain sums, divisions) to 1e-12 relative to the
// solution's largest entry, and the vector code bitwise against the
// scalar code (solveStepGo), for sizes across the vector code's 4 and 8
// rows (the left-looking panels and their masked last 1-3 rows) and 1
// to 17 right-hand sides (one left-looking call up to 9, two for 12;
// with AVX-512 one up to 16, two for 17) with a leading dimension above
// n, solveLower and solveUpperT (AVX-512 where the CPU has it: for the
// backward one up to 96 rows, 4, 3 or 2 right-hand sides a call) bitwise against
// their AVX2 code too.
func TestSolve(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 31))
	for _, n := range []int{1, 2, 3, 5, 7, 8, 9, 11, 13, 16, 17, 39, 45, 47, 48, 49, 50, 61, 64, 65, 86, 96, 97, 101} {
		for _, q := range []int{1, 2, 3, 4, 5, 6, 9, 12, 17} {
			ld, ldb := n+1, n+2
			l := make([]float64, n*ld)
			for j := 0; j < n; j++ {
				l[j+j*ld] = 1 + rng.Float64()
				for i := j + 1; i < n; i++ {
					l[i+j*ld] = (rng.Float64() - 0.5) / float64(n)
					l[j+i*ld] = math.NaN() // the upper triangle is not read
				}
			}
			b := make([]float64, q*ldb)
			for i := range b {
				b[i] = rng.NormFloat64()
			}
			for _, back := range []bool{false, true} {
				got, sca := append([]float64(nil), b...), append([]float64(nil), b...)
				want := refSolve(n, q, l, ld, b, ldb, back)
				if back {
					ymm := append([]float64(nil), b...)
					solveUpperT(n, q, l, ld, got, ldb, make([]float64, n))
					solveUpperTYMM(n, q, l, ld, ymm, ldb, make([]float64, n))
					for i, v := range ymm {
						if math.Float64bits(v) != math.Float64bits(got[i]) {
							t.Fatalf("n %d q %d: entry %d: AVX2 code %v, solveUpperT %v", n, q, i, v, got[i])
						}
					}
					for j := n - 1; j >= 0; j-- {
						row := make([]float64, j) // L[j, 0:j]
						for i := range row {
							row[i] = l[j+i*ld]
						}
						solveStepGo(j, q, 1/l[j+j*ld], sca, ldb, row, true)
					}
				} else {
					ymm := append([]float64(nil), b...)
					solveLower(n, q, l, ld, got, ldb)
					solveLowerYMM(n, q, l, ld, ymm, ldb)
					for i, v := range ymm {
						if math.Float64bits(v) != math.Float64bits(got[i]) {
							t.Fatalf("n %d q %d: entry %d: AVX2 code %v, solveLower %v", n, q, i, v, got[i])
						}
					}
					for j := 0; j < n; j++ {
						solveStepGo(n-j-1, q, 1/l[j+j*ld], sca[j:], ldb, l[j+j*ld+1:j*ld+n], false)
					}
				}
				big := 0.0
				for _, v := range want {
					big = max(big, math.Abs(v))
				}
				for i, v := range got {
					if math.Float64bits(v) != math.Float64bits(sca[i]) {
						t.Fatalf("n %d q %d back %v: entry %d %v, scalar code %v", n, q, back, i, v, sca[i])
					}
					if i%ldb < n && math.Abs(v-want[i]) > 1e-12*big {
						t.Errorf("n %d q %d back %v: entry %d %v, textbook %v", n, q, back, i, v, want[i])
					}
					if i%ldb >= n && v != b[i] {
						t.Fatalf("n %d q %d back %v: padding entry %d written", n, q, back, i)
					}
				}
			}
		}
	}
}

// refSolve returns L^-1 b (back: L^-T b) by textbook substitution, L the
// lower triangle of l.
func refSolve(n, q int, l []float64, ld int, b []float64, ldb int, back bool) []float64 {
	x := append([]float64(nil), b...)
	for c := 0; c < q; c++ {
		xc := x[c*ldb:]
		if !back {
			for i := 0; i < n; i++ {
				s := xc[i]
				for k := 0; k < i; k++ {
					s -= l[i+k*ld] * xc[k]
				}
				xc[i] = s / l[i+i*ld]
			}
			continue
		}
		for i := n - 1; i >= 0; i-- {
			s := xc[i]
			for k := i + 1; k < n; k++ {
				s -= l[k+i*ld] * xc[k]
			}
			xc[i] = s / l[i+i*ld]
		}
	}
	return x
}

// BenchmarkSolve times the forward substitution (solveLower: AVX-512
// where the CPU has it; AVX2) at the blocks' sizes and right-hand sides
// (the gradient's L^-1 [C | B_j] has about 13 at m = 30), in thread CPU
// nanoseconds a call.
func BenchmarkSolve(b *testing.B) {
	for _, n := range []int{16, 39, 45} {
		for _, q := range []int{2, 9, 13} {
			l := make([]float64, n*n)
			for j := 0; j < n; j++ {
				l[j+j*n] = 1 + float64(j%3)
				for i := j + 1; i < n; i++ {
					l[i+j*n] = 0.5 / float64(n)
				}
			}
			rhs, w := make([]float64, n*q), make([]float64, n*q)
			for i := range rhs {
				rhs[i] = float64(i%7) - 3
			}
			for _, p := range []struct {
				name string
				f    func(n, q int, l []float64, ld int, b []float64, ldb int)
			}{{"solveLower", solveLower}, {"AVX2", solveLowerYMM}} {
				b.Run(fmt.Sprintf("%s/n=%d/q=%d", p.name, n, q), func(b *testing.B) {
					runtime.LockOSThread()
					defer runtime.UnlockOSThread()
					c0 := threadCPU()
					for i := 0; i < b.N; i++ {
						copy(w, rhs)
						p.f(n, q, l, n, w, n)
					}
					b.ReportMetric((threadCPU()-c0)*1e9/float64(b.N), "cpu-ns/op")
				})
			}
		}
	}
}

// BenchmarkSolveUpperT times the backward substitution C = L^-T E_R
// (solveUpperT: AVX-512 where the CPU has it; AVX2) at the blocks' sizes
// and numbers of responses (the last rows), in thread CPU nanoseconds a
// call.
func BenchmarkSolveUpperT(b *testing.B) {
	for _, n := range []int{16, 39, 45, 60, 80} {
		for _, q := range []int{2, 3} {
			l := make([]float64, n*n)
			for j := 0; j < n; j++ {
				l[j+j*n] = 1 + float64(j%3)
				for i := j + 1; i < n; i++ {
					l[i+j*n] = 0.5 / float64(n)
				}
			}
			w, row := make([]float64, n*q), make([]float64, n+4)
			for _, p := range []struct {
				name string
				f    func(n, q int, l []float64, ld int, b []float64, ldb int, row []float64)
			}{{"solveUpperT", solveUpperT}, {"AVX2", solveUpperTYMM}} {
				b.Run(fmt.Sprintf("%s/n=%d/q=%d", p.name, n, q), func(b *testing.B) {
					runtime.LockOSThread()
					defer runtime.UnlockOSThread()
					c0 := threadCPU()
					for i := 0; i < b.N; i++ {
						clear(w)
						for c := 0; c < q; c++ {
							w[c*n+n-q+c] = 1
						}
						p.f(n, q, l, n, w, n, row)
					}
					b.ReportMetric((threadCPU()-c0)*1e9/float64(b.N), "cpu-ns/op")
				})
			}
		}
	}
}
