package tile

import (
	"fmt"
	"testing"
)

func TestLayout(t *testing.T) {
	cases := []struct {
		n, nb, nt, last int
	}{
		{1, 4, 1, 1}, {4, 4, 1, 4}, {5, 4, 2, 1}, {8, 4, 2, 4}, {10, 3, 4, 1}, {0, 3, 0, 0},
	}
	for _, c := range cases {
		l := NewLayout(c.n, c.nb)
		if l.NT != c.nt {
			t.Errorf("n=%d nb=%d: NT=%d want %d", c.n, c.nb, l.NT, c.nt)
		}
		if c.nt > 0 && l.Rows(c.nt-1) != c.last {
			t.Errorf("n=%d nb=%d: last rows %d want %d", c.n, c.nb, l.Rows(c.nt-1), c.last)
		}
		sum := 0
		for m := 0; m < l.NT; m++ {
			sum += l.Rows(m)
		}
		if sum != c.n {
			t.Errorf("n=%d nb=%d: rows sum to %d", c.n, c.nb, sum)
		}
	}
}

func TestSymRoundTripAndStorage(t *testing.T) {
	for _, c := range []struct{ n, nb int }{{1, 1}, {7, 3}, {9, 3}, {10, 4}, {33, 8}} {
		t.Run(fmt.Sprintf("n=%d/nb=%d", c.n, c.nb), func(t *testing.T) {
			n := c.n
			a := make([]float64, n*n)
			for j := 0; j < n; j++ {
				for i := j; i < n; i++ {
					a[i+j*n] = float64(1000*i + j) // lower triangle; A(i,j) = A(j,i)
					a[j+i*n] = float64(1000*i + j)
				}
			}
			s := NewSym(n, c.nb, nil)
			s.FromDense(a, n)
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					if got := s.At(i, j); got != a[i+j*n] {
						t.Fatalf("At(%d,%d)=%v want %v", i, j, got, a[i+j*n])
					}
				}
			}
			// Lower tiles only: sum over m >= k of rows(m) rows(k).
			want := 0
			for m := 0; m < s.NT; m++ {
				for k := 0; k <= m; k++ {
					want += s.Rows(m) * s.Rows(k)
				}
			}
			if s.Words() != want {
				t.Fatalf("stores %d words, want %d", s.Words(), want)
			}
			b := make([]float64, n*n)
			s.ToDense(b, n)
			for j := 0; j < n; j++ {
				for i := j; i < n; i++ {
					if b[i+j*n] != a[i+j*n] {
						t.Fatalf("ToDense(%d,%d)=%v want %v", i, j, b[i+j*n], a[i+j*n])
					}
				}
			}
			s.Set(n-1, 0, -5)
			if s.At(0, n-1) != -5 {
				t.Fatal("Set is not symmetric")
			}
		})
	}
}

func TestSymHalfMemory(t *testing.T) {
	s := NewSym(1000, 100, nil)
	// 10 x 10 tiles of 100 x 100: 55 lower tiles = 550,000 words, vs 1,000,000.
	if s.Words() != 550000 {
		t.Fatalf("words %d, want 550000", s.Words())
	}
}

func TestOwners(t *testing.T) {
	s := NewSym(10, 3, func(m, n int) int { return (m + n) % 3 })
	for m := 0; m < s.NT; m++ {
		for n := 0; n <= m; n++ {
			if s.Handle(m, n).Owner() != (m+n)%3 {
				t.Fatalf("tile (%d,%d) owner %d", m, n, s.Handle(m, n).Owner())
			}
		}
	}
	v := NewVector("z", 10, 3, func(m int) int { return m })
	if v.NT != 4 || len(v.Tile(3)) != 1 || v.Handle(2).Owner() != 2 || len(v.Data()) != 10 {
		t.Fatalf("vector layout wrong: NT=%d last=%d", v.NT, len(v.Tile(3)))
	}
	v.Tile(1)[0] = 7
	if v.Data()[3] != 7 {
		t.Fatal("vector tiles do not alias the contiguous data")
	}
}

func TestAutoNB(t *testing.T) {
	for _, c := range []struct{ n, want int }{{10, 160}, {1600, 272}, {3600, 608}, {8192, 960}, {100000, 960}} {
		if got := AutoNB(c.n); got != c.want {
			t.Errorf("AutoNB(%d) = %d, want %d", c.n, got, c.want)
		}
	}
}
