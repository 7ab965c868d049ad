package tile

import (
	"fmt"
	"testing"

	"github.com/exageostat/exageostat/pkg/runtime"
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
					a[i+j*n] = float64(1000*i + j) // lower triangle
				}
			}
			rt := runtime.New(runtime.Options{Workers: 2})
			defer rt.Close()
			s := NewSym(rt, n, c.nb, nil)
			if m := rt.Mem(); m.InUse != 0 {
				t.Fatalf("registration allocated %d bytes", m.InUse)
			}
			s.FromDense(a, n)
			if err := rt.Wait(); err != nil {
				t.Fatal(err)
			}
			// Lower tiles only: sum over m >= k of rows(m) rows(k).
			want := 0
			for m := 0; m < s.NT; m++ {
				for k := 0; k <= m; k++ {
					want += s.Rows(m) * s.Rows(k)
				}
			}
			if s.Words() != want || rt.Mem().InUse != int64(8*want) {
				t.Fatalf("stores %d words and holds %d bytes, want %d words", s.Words(), rt.Mem().InUse, want)
			}
			b := make([]float64, n*n)
			if err := s.ToDense(b, n); err != nil {
				t.Fatal(err)
			}
			for j := 0; j < n; j++ {
				for i := j; i < n; i++ {
					if b[i+j*n] != a[i+j*n] {
						t.Fatalf("ToDense(%d,%d)=%v want %v", i, j, b[i+j*n], a[i+j*n])
					}
				}
			}
			s.Invalidate()
			if err := rt.Wait(); err != nil {
				t.Fatal(err)
			}
			if m := rt.Mem(); m.InUse != 0 || m.Peak != int64(8*want) {
				t.Fatalf("after Invalidate: %d bytes in use, peak %d; want 0 and %d", m.InUse, m.Peak, 8*want)
			}
		})
	}
}

func TestSymHalfMemory(t *testing.T) {
	rt := runtime.New(runtime.Options{Record: true})
	s := NewSym(rt, 1000, 100, nil)
	// 10 x 10 tiles of 100 x 100: 55 lower tiles = 550,000 words, vs 1,000,000.
	if s.Words() != 550000 || s.OwnedWords(0) != 550000 {
		t.Fatalf("words %d, want 550000", s.Words())
	}
}

func TestOwners(t *testing.T) {
	rt := runtime.New(runtime.Options{Record: true, Ranks: 4})
	s := NewSym(rt, 10, 3, func(m, n int) int { return (m + n) % 3 })
	for m := 0; m < s.NT; m++ {
		for n := 0; n <= m; n++ {
			if s.Handle(m, n).Owner() != (m+n)%3 {
				t.Fatalf("tile (%d,%d) owner %d", m, n, s.Handle(m, n).Owner())
			}
		}
	}
	v := NewVector(rt, "z", 10, 3, func(m int) int { return m })
	if v.NT != 4 || v.Handle(3).Format() != (runtime.Vector{N: 1}) || v.Handle(2).Owner() != 2 {
		t.Fatalf("vector layout wrong: NT=%d last=%v", v.NT, v.Handle(3).Format())
	}
	g := NewGeneral(rt, "V", 10, 7, 4, 5, SymOwner(s.Owner()))
	if g.Handle(2, 1).Format() != (runtime.Dense{M: 2, N: 2}) || g.Handle(0, 1).Owner() != 1 {
		t.Fatalf("general tile (2,1) is %v owned by %d", g.Handle(2, 1).Format(), g.Handle(0, 1).Owner())
	}
}

func TestAutoNB(t *testing.T) {
	for _, c := range []struct{ n, want int }{{10, 160}, {1600, 272}, {3600, 608}, {8192, 960}, {100000, 960}} {
		if got := AutoNB(c.n); got != c.want {
			t.Errorf("AutoNB(%d) = %d, want %d", c.n, got, c.want)
		}
	}
}
