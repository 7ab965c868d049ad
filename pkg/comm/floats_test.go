package comm

import (
	"math"
	"sync"
	"testing"
)

// TestBcastFloats: root's values arrive bitwise on every rank of three
// (a NaN's payload, -0, infinities, a subnormal), across the chunks'
// boundaries, whatever the receivers held; on one rank x is left alone.
func TestBcastFloats(t *testing.T) {
	special := []float64{math.Float64frombits(0x7ff8_0000_0000_0abc), math.Copysign(0, -1), math.Inf(1), math.Inf(-1), 5e-324, 1.0 / 3}
	for _, n := range []int{0, 1, floatChunk, 2*floatChunk + 7} {
		want := make([]float64, n)
		for k := range want {
			want[k] = float64(k)*0.5 - 3
			if k%97 < len(special) {
				want[k] = special[k%97]
			}
		}
		for _, root := range []int{0, 2} {
			g := NewGroup(3)
			got := make([][]float64, 3)
			errs := make([]error, 3)
			var wg sync.WaitGroup
			for r := range 3 {
				got[r] = make([]float64, n)
				if r == root {
					copy(got[r], want)
				} else {
					for k := range got[r] {
						got[r][k] = 7 // overwritten
					}
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs[r] = BcastFloats(g.Endpoint(r), root, got[r])
				}()
			}
			wg.Wait()
			for r := range 3 {
				if errs[r] != nil {
					t.Fatalf("n %d, root %d, rank %d: %v", n, root, r, errs[r])
				}
				for k := range want {
					if math.Float64bits(got[r][k]) != math.Float64bits(want[k]) {
						t.Fatalf("n %d, root %d, rank %d: value %d is %x, want %x", n, root, r, k, math.Float64bits(got[r][k]), math.Float64bits(want[k]))
					}
				}
			}
		}
	}
	x := []float64{1, 2}
	if err := BcastFloats(Self{}, 0, x); err != nil || x[0] != 1 || x[1] != 2 {
		t.Errorf("one rank: %v, %v", x, err)
	}
}
