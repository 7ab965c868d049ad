package block

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/exageostat/exageostat/pkg/kernels"
)

// TestChol checks the blocks' Cholesky factor against the textbook one
// (inner products summed plainly, no fused multiply-add) to 1e-13
// relative to the factor's largest entry, the vector code bitwise against
// the scalar code (AVX2 and AVX-512 where the CPU has them), the upper
// triangle untouched, and the info of a matrix that is not positive
// definite at pivot q: q+1, for sizes across the vector codes' chunks of
// 4, 8, 16, 32 and 40 rows and panels of 4 columns; and cholSolve's
// factor and L^-1 y (1 to 5 right-hand sides) bitwise against chol's
// scalar code and solveLowerGo, within 1e-12 of the textbook
// substitution.
func TestChol(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 30))
	for _, n := range []int{1, 2, 3, 4, 5, 7, 8, 13, 16, 17, 31, 32, 33, 40, 41, 45, 47, 70, 81, 86} {
		ld := n + n%3 // a leading dimension above n for some sizes
		a := make([]float64, (n-1)*ld+n+cholPad)
		g := make([]float64, n*n) // G G^T + n I is positive definite
		for i := range g {
			g[i] = rng.Float64()*2 - 1
		}
		for j := 0; j < n; j++ {
			for i := 0; i < n; i++ {
				s := 0.0
				for k := 0; k < n; k++ {
					s += g[i+k*n] * g[j+k*n]
				}
				if i == j {
					s += float64(n)
				}
				a[i+j*ld] = s
				if i < j {
					a[i+j*ld] = math.NaN() // the upper triangle is not read
				}
			}
		}
		want := refChol(n, a, ld)
		sca := append([]float64(nil), a[:(n-1)*ld+n]...)
		tt := make([]float64, n+4)
		if info := cholGo(n, sca, ld, tt); info != 0 {
			t.Fatalf("n %d: scalar info %d", n, info)
		}
		big := 0.0
		for _, v := range want {
			big = max(big, math.Abs(v))
		}
		for _, p := range cholPaths() {
			vec := append([]float64(nil), a...)
			if info := p.f(n, vec, ld, tt); info != 0 {
				t.Fatalf("n %d: %s info %d", n, p.name, info)
			}
			for j := 0; j < n; j++ {
				for i := 0; i < n; i++ {
					v := vec[i+j*ld]
					if i < j {
						if !math.IsNaN(v) || !math.IsNaN(sca[i+j*ld]) {
							t.Fatalf("n %d: %s: upper entry (%d,%d) written: %v", n, p.name, i, j, v)
						}
						continue
					}
					if math.Float64bits(v) != math.Float64bits(sca[i+j*ld]) {
						t.Fatalf("n %d: %s: L(%d,%d) %v, scalar code %v", n, p.name, i, j, v, sca[i+j*ld])
					}
					if d := math.Abs(v - want[i+j*n]); d > 1e-13*big {
						t.Errorf("n %d: %s: L(%d,%d) %v, textbook %v", n, p.name, i, j, v, want[i+j*n])
					}
				}
			}
		}
		// cholSolve: the factor and L^-1 y of 1 to 5 right-hand sides
		// (5: more than the AVX-512 code solves beside the factor).
		nq, ldy := 1+n%5, n+1
		y := make([]float64, nq*ldy)
		for i := range y {
			y[i] = rng.NormFloat64()
		}
		wantY := refSolve(n, nq, want, n, y, ldy, false)
		scaY := append([]float64(nil), y...)
		solveLowerGo(n, nq, sca, ld, scaY, ldy)
		got, gotY := append([]float64(nil), a...), append([]float64(nil), y...)
		if info := cholSolve(n, got, ld, tt, gotY, ldy, nq); info != 0 {
			t.Fatalf("n %d: cholSolve info %d", n, info)
		}
		for i := range got[:(n-1)*ld+n] {
			if math.Float64bits(got[i]) != math.Float64bits(sca[i]) && !math.IsNaN(sca[i]) {
				t.Fatalf("n %d: cholSolve: a[%d] %v, scalar code %v", n, i, got[i], sca[i])
			}
		}
		bigY := 0.0
		for _, v := range wantY {
			bigY = max(bigY, math.Abs(v))
		}
		for i, v := range gotY {
			if math.Float64bits(v) != math.Float64bits(scaY[i]) {
				t.Fatalf("n %d, %d right-hand sides: cholSolve: y[%d] %v, scalar code %v", n, nq, i, v, scaY[i])
			}
			if d := math.Abs(v - wantY[i]); d > 1e-12*bigY {
				t.Errorf("n %d: cholSolve: y[%d] %v, textbook %v", n, i, v, wantY[i])
			}
		}
		q := n / 2 // pivot q not positive: make a[q][q] too small
		a[q+q*ld] -= 2 * want[q+q*n] * want[q+q*n]
		for _, p := range cholPaths() {
			if info := p.f(n, append([]float64(nil), a...), ld, tt); info != q+1 {
				t.Errorf("n %d: %s: info %d for a minor not positive definite at %d, want %d", n, p.name, info, q, q+1)
			}
		}
		if info := cholSolve(n, a, ld, tt, y, ldy, nq); info != q+1 {
			t.Errorf("n %d: cholSolve: info %d for a minor not positive definite at %d, want %d", n, info, q, q+1)
		}
	}
}

// cholPaths are chol's codes this CPU runs: the scalar code, AVX2 and
// AVX-512 where it has them (a holding cholPad values past the matrix).
func cholPaths() []struct {
	name string
	f    func(n int, a []float64, ld int, t []float64) int
} {
	type path = struct {
		name string
		f    func(n int, a []float64, ld int, t []float64) int
	}
	ps := []path{{"scalar", cholGo}}
	if useVec {
		ps = append(ps, path{"AVX2", func(n int, a []float64, ld int, t []float64) int { return cholVec(n, a, ld, t) }})
	}
	if hasCholZ {
		ps = append(ps, path{"AVX-512", func(n int, a []float64, ld int, t []float64) int { return cholZ(n, a[:(n-1)*ld+n], ld, nil, 0, 0) }})
	}
	return ps
}

// refChol is the textbook Cholesky factor (n x n, leading dimension n) of
// the lower triangle of a.
func refChol(n int, a []float64, ld int) []float64 {
	l := make([]float64, n*n)
	for j := 0; j < n; j++ {
		for i := j; i < n; i++ {
			s := a[i+j*ld]
			for k := 0; k < j; k++ {
				s -= l[i+k*n] * l[j+k*n]
			}
			if i == j {
				l[j+j*n] = math.Sqrt(s)
			} else {
				l[i+j*n] = s / l[j+j*n]
			}
		}
	}
	return l
}

// BenchmarkChol times the blocks' Cholesky factor against each BLAS
// library's dpotrf on one thread at the blocks' sizes (a Matérn-like
// matrix: exp(-|i-j|/8) plus 0.1 on the diagonal), reporting GFLOP/s
// of the thread's CPU time (n^3/3 flops).
func BenchmarkChol(b *testing.B) {
	kernels.DefaultThreads().SetThreads(1)
	for _, n := range []int{16, 39, 45, 64} {
		a := make([]float64, n*n+cholPad)
		for j := 0; j < n; j++ {
			for i := 0; i < n; i++ {
				a[i+j*n] = math.Exp(-math.Abs(float64(i-j)) / 8)
			}
			a[j+j*n] += 0.1
		}
		w := make([]float64, len(a))
		tt := make([]float64, n+4)
		flops := float64(n) * float64(n) * float64(n) / 3
		run := func(name string, f func() int) {
			b.Run(fmt.Sprintf("%s/n=%d", name, n), func(b *testing.B) {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				c0 := threadCPU()
				for i := 0; i < b.N; i++ {
					copy(w, a)
					if f() != 0 {
						b.Fatal("not positive definite")
					}
				}
				b.ReportMetric(flops*float64(b.N)/(threadCPU()-c0)*1e-9, "cpu-GFLOP/s")
			})
		}
		for _, p := range cholPaths() {
			run("chol-"+p.name, func() int { return p.f(n, w, n, tt) })
		}
		for _, k := range kernels.All() {
			run(k.Name(), func() int { return k.Dpotrf(n, w, n) })
		}
	}
}
