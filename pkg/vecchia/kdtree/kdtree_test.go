package kdtree

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/exageostat/exageostat/pkg/vecchia/embed"
)

// TestTreeInvariants checks, for several sizes and dimensions: Perm is a
// permutation and P holds the points in its order; every node's box is
// the bounding box of the points of its Range; the ranges of a node's
// children split its own at the middle; leaves hold at most LeafSize
// points; MinDist2 is 0 inside a box and the distance to it outside.
func TestTreeInvariants(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct{ n, dim int }{{0, 2}, {1, 2}, {8, 2}, {9, 3}, {1000, 2}, {777, 4}, {4096, 1}} {
		c := embed.Coords{Dim: tc.dim, V: make([]float64, tc.n*tc.dim)}
		for i := range c.V {
			c.V[i] = float64(r.IntN(50)) // many equal coordinates
		}
		tr := New(c)
		perm := make([]int, tc.n)
		for k, i := range tr.Perm {
			perm[k] = int(i)
			if !slices.Equal(tr.At(k), c.At(int(i))) {
				t.Fatalf("n=%d: P at %d is not point %d", tc.n, k, i)
			}
		}
		slices.Sort(perm)
		for i, v := range perm {
			if v != i {
				t.Fatalf("n=%d: Perm is not a permutation", tc.n)
			}
		}
		for v := range tr.Nodes() {
			lo, hi := tr.Range(v)
			if tr.IsLeaf(v) && hi-lo > LeafSize {
				t.Fatalf("n=%d: leaf %d holds %d points", tc.n, v, hi-lo)
			}
			if !tr.IsLeaf(v) {
				l0, l1 := tr.Range(2*v + 1)
				r0, r1 := tr.Range(2*v + 2)
				if l0 != lo || l1 != (lo+hi)/2 || r0 != l1 || r1 != hi {
					t.Fatalf("n=%d: node %d [%d,%d) children [%d,%d) [%d,%d)", tc.n, v, lo, hi, l0, l1, r0, r1)
				}
			}
			d := tc.dim
			box := tr.Box[2*d*v : 2*d*(v+1)]
			for p := lo; p < hi; p++ {
				if tr.MinDist2(tr.At(p), v) != 0 {
					t.Fatalf("n=%d: point at %d outside node %d's box", tc.n, p, v)
				}
				for j, x := range tr.At(p) {
					if x < box[j] || x > box[d+j] {
						t.Fatalf("n=%d: point at %d outside node %d's box", tc.n, p, v)
					}
				}
			}
			if hi > lo {
				q := make([]float64, d)
				want := 0.0
				for j := range q {
					q[j] = box[d+j] + float64(j+1)
					want += float64((j + 1) * (j + 1))
				}
				if got := tr.MinDist2(q, v); got != want {
					t.Fatalf("n=%d: MinDist2 outside node %d = %g, want %g", tc.n, v, got, want)
				}
			}
		}
	}
}

// TestNewOn checks that the tree built on several threads is the
// sequential build's, bitwise (Perm, P and every box), for sizes below
// and above parallelMin, with many equal coordinates.
func TestNewOn(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct{ n, dim int }{{0, 2}, {5, 2}, {parallelMin, 2}, {50_000, 2}, {40_001, 3}} {
		c := embed.Coords{Dim: tc.dim, V: make([]float64, tc.n*tc.dim)}
		for i := range c.V {
			c.V[i] = float64(r.IntN(1000))
		}
		want := New(c)
		for _, w := range []int{0, 2, 3, 8} {
			got := NewOn(c, w)
			if !slices.Equal(got.Perm, want.Perm) || !slices.Equal(got.P, want.P) || !slices.Equal(got.Box, want.Box) {
				t.Errorf("n=%d dim=%d: the tree on %d workers differs from the sequential one", tc.n, tc.dim, w)
			}
		}
	}
}
