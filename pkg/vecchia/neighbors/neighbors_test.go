package neighbors

import (
	"slices"
	"sort"
	"testing"

	"github.com/exageostat/exageostat/pkg/vecchia/embed"
	"github.com/exageostat/exageostat/pkg/vecchia/internal/cloud"
)

// bruteSets is the definition: for each i, sort positions 0..i-1 by
// (squared distance, position) and keep the first m.
func bruteSets(c embed.Coords, m int) [][]int32 {
	out := make([][]int32, c.Len())
	for i := range out {
		js := make([]int, i)
		d := make([]float64, i)
		for j := range i {
			js[j] = j
			var s float64
			for k := range c.Dim {
				x := c.V[i*c.Dim+k] - c.V[j*c.Dim+k]
				s += x * x
			}
			d[j] = s
		}
		sort.SliceStable(js, func(a, b int) bool { return d[js[a]] < d[js[b]] })
		for _, j := range js[:min(m, i)] {
			out[i] = append(out[i], int32(j))
		}
	}
	return out
}

func TestConditioningAgainstBruteForce(t *testing.T) {
	for _, tc := range []struct {
		kind      string
		n, dim, m int
	}{
		{"uniform", 1, 2, 5}, {"uniform", 40, 2, 30}, {"uniform", 1500, 2, 30}, {"uniform", 800, 3, 10},
		{"uniform", 600, 4, 25}, {"grid", 900, 2, 30}, {"grid", 1000, 3, 12}, {"cluster", 700, 2, 30},
		{"dup", 400, 2, 20}, {"uniform", 300, 1, 7}, {"uniform", 200, 2, 0}, {"uniform", 50, 2, 80},
	} {
		c := cloud.Points(tc.kind, tc.n, tc.dim, uint64(tc.n+tc.m))
		want := bruteSets(c, tc.m)
		for _, w := range []int{1, 3} {
			s, err := Conditioning(c, tc.m, w)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Check(); err != nil {
				t.Fatal(err)
			}
			for i := range want {
				if got := s.Row(i); !slices.Equal(got, want[i]) {
					t.Fatalf("%s n=%d dim=%d m=%d workers=%d: row %d = %v, want %v", tc.kind, tc.n, tc.dim, tc.m, w, i, got, want[i])
				}
			}
		}
	}
}

// bruteNearest is the definition of Nearest (skip < 0) and NearestOthers
// (skip = the query's own index): sort the data by (squared distance,
// index) and keep the first m.
func bruteNearest(data embed.Coords, q []float64, m, skip int) []int32 {
	var js []int
	d := make([]float64, data.Len())
	for j := range data.Len() {
		if j == skip {
			continue
		}
		js = append(js, j)
		for k := range data.Dim {
			x := q[k] - data.V[j*data.Dim+k]
			d[j] += x * x
		}
	}
	sort.SliceStable(js, func(a, b int) bool { return d[js[a]] < d[js[b]] })
	var out []int32
	for _, j := range js[:min(m, len(js))] {
		out = append(out, int32(j))
	}
	return out
}

func TestNearestAgainstBruteForce(t *testing.T) {
	for _, tc := range []struct {
		kind          string
		n, nq, dim, m int
	}{
		{"uniform", 1000, 300, 2, 30}, {"grid", 900, 200, 2, 12}, {"dup", 300, 100, 3, 40},
		{"uniform", 5, 20, 2, 10}, {"uniform", 0, 3, 2, 4}, {"cluster", 500, 50, 4, 8},
	} {
		data := cloud.Points(tc.kind, tc.n, tc.dim, 3)
		queries := cloud.Points(tc.kind, tc.nq, tc.dim, 4)
		for _, w := range []int{1, 2} {
			s, err := Nearest(data, queries, tc.m, w)
			if err != nil {
				t.Fatal(err)
			}
			for k := range tc.nq {
				if got, want := s.Row(k), bruteNearest(data, queries.At(k), tc.m, -1); !slices.Equal(got, want) {
					t.Fatalf("Nearest %s n=%d m=%d: row %d = %v, want %v", tc.kind, tc.n, tc.m, k, got, want)
				}
			}
			o, err := NearestOthers(data, tc.m, w)
			if err != nil {
				t.Fatal(err)
			}
			for i := range tc.n {
				if got, want := o.Row(i), bruteNearest(data, data.At(i), tc.m, i); !slices.Equal(got, want) {
					t.Fatalf("NearestOthers %s n=%d m=%d: row %d = %v, want %v", tc.kind, tc.n, tc.m, i, got, want)
				}
			}
		}
	}
}

func TestSearchArguments(t *testing.T) {
	c := cloud.Points("uniform", 10, 2, 1)
	if _, err := Conditioning(c, -1, 1); err == nil {
		t.Error("Conditioning with m = -1: no error")
	}
	if _, err := Conditioning(c, MaxM+1, 1); err == nil {
		t.Error("Conditioning with m > MaxM: no error")
	}
	if _, err := Nearest(c, cloud.Points("uniform", 3, 3, 1), 2, 1); err == nil {
		t.Error("Nearest with 3D queries on 2D data: no error")
	}
}

// TestPrefix: the sets found at a larger m, cut to their first m entries
// (Sets.Prefix, how one search serves the fit and the approximation
// check), are the definition's sets at m (bruteSets), row by row with
// the -1 padding, on clouds with equal distances (grid, duplicates) and
// rows shorter than m.
func TestPrefix(t *testing.T) {
	for _, tc := range []struct {
		kind        string
		n, dim      int
		m, wide     int
		workers     int
		description string
	}{
		{"grid", 900, 2, 10, 30, 2, "ties on the grid"},
		{"grid", 700, 2, 30, 60, 1, "ties, one worker"},
		{"dup", 400, 2, 5, 20, 3, "repeated locations"},
		{"uniform", 300, 3, 7, 7, 2, "the same m"},
		{"cluster", 500, 2, 1, 45, 2, "m = 1"},
	} {
		c := cloud.Points(tc.kind, tc.n, tc.dim, uint64(tc.n+tc.wide))
		want := bruteSets(c, tc.m)
		w, err := Conditioning(c, tc.wide, tc.workers)
		if err != nil {
			t.Fatal(err)
		}
		s := w.Prefix(tc.m)
		if err := s.Check(); err != nil {
			t.Fatal(err)
		}
		if s.N != tc.n || s.M != tc.m {
			t.Fatalf("%s: prefix of %d rows of %d, want %d of %d", tc.description, s.N, s.M, tc.n, tc.m)
		}
		for i := range want {
			if got := s.Row(i); !slices.Equal(got, want[i]) {
				t.Fatalf("%s: row %d = %v, want %v", tc.description, i, got, want[i])
			}
			for _, v := range s.Idx[i*tc.m+len(want[i]) : (i+1)*tc.m] {
				if v != -1 {
					t.Fatalf("%s: row %d padded with %d", tc.description, i, v)
				}
			}
		}
	}
}
