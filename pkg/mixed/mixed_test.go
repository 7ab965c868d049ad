package mixed

import "testing"

// TestGemvAndConversions: Gemv accumulates in float64; ToSingle/ToDouble
// round-trip float32 values exactly.
func TestGemvAndConversions(t *testing.T) {
	const m, n = 5, 4
	a := []float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}
	x := []float64{1, -1, 0.5, 2}
	y := []float64{1, 1, 1, 1, 1}
	Gemv(m, n, -2, a, x, y)
	for i := 0; i < m; i++ {
		s := 0.0
		for j := 0; j < n; j++ {
			s += float64(a[i+j*m]) * x[j]
		}
		if want := 1 - 2*s; y[i] != want {
			t.Errorf("y[%d] = %g, want %g", i, y[i], want)
		}
	}
	d := make([]float64, m*n)
	ToDouble(m, n, a, d)
	back := make([]float32, m*n)
	ToSingle(m, n, d, back)
	for i := range a {
		if back[i] != a[i] {
			t.Fatalf("round trip changed %g to %g", a[i], back[i])
		}
	}
}

// TestLowerToSingle: the lower triangle is rounded to float32, the strict
// upper triangle zeroed whatever it held.
func TestLowerToSingle(t *testing.T) {
	const n = 3
	src := []float64{1.1, 2.2, 3.3, 99, 5.5, 6.6, 99, 99, 9.9}
	dst := []float32{7, 7, 7, 7, 7, 7, 7, 7, 7}
	LowerToSingle(n, src, dst)
	want := []float32{1.1, 2.2, 3.3, 0, 5.5, 6.6, 0, 0, 9.9}
	for i := range want {
		if dst[i] != want[i] {
			t.Fatalf("dst = %v, want %v", dst, want)
		}
	}
}
