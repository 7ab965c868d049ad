package distribution

import (
	"strings"
	"testing"
)

// TestHybrid: the band's tiles follow the nodes x 1 grid (tile (m, n),
// m - n <= band, on node m mod nodes), the others the p x q grid; the
// owner is symmetric; every node holds diagonal tiles (NT/nodes each, a
// 2 x 2 or 4 x 4 block-cyclic grid gives them to 2 or 4 of its nodes),
// as counted here tile by tile.
func TestHybrid(t *testing.T) {
	for _, c := range []struct {
		nodes, band, p, q, nt int
		bcDiagNodes           int // nodes holding diagonal tiles under bc p x q
	}{
		{4, 0, 2, 2, 12, 2},
		{4, 2, 2, 2, 12, 2},
		{16, 0, 4, 4, 32, 4},
		{6, 1, 3, 2, 18, 6},
	} {
		h, err := NewBanded("hybrid", c.nodes, c.p, c.q, c.band, nil, c.nt)
		if err != nil {
			t.Fatal(err)
		}
		bc := BlockCyclic{P: c.p, Q: c.q}
		diag := map[int]int{}
		bcDiag := map[int]bool{}
		for m := 0; m < c.nt; m++ {
			for n := 0; n <= m; n++ {
				o := h.Owner(m, n)
				if h.Owner(n, m) != o {
					t.Fatalf("%s: Owner(%d,%d) = %d, Owner(%d,%d) = %d", h.Name(), n, m, h.Owner(n, m), m, n, o)
				}
				want := (m%c.p)*c.q + n%c.q
				if m-n <= c.band {
					want = m % c.nodes
				}
				if o != want {
					t.Errorf("%s: tile (%d,%d) on node %d, want %d", h.Name(), m, n, o, want)
				}
				if m == n {
					diag[o]++
					bcDiag[bc.Owner(m, m)] = true
				}
			}
		}
		if len(bcDiag) != c.bcDiagNodes {
			t.Errorf("bc %dx%d: %d nodes hold diagonal tiles, want %d", c.p, c.q, len(bcDiag), c.bcDiagNodes)
		}
		for r := 0; r < c.nodes; r++ {
			if diag[r] != c.nt/c.nodes {
				t.Errorf("%s: node %d holds %d diagonal tiles, want %d", h.Name(), r, diag[r], c.nt/c.nodes)
			}
		}
		if h.Nodes() != c.nodes {
			t.Errorf("%s: %d nodes", h.Name(), h.Nodes())
		}
	}
	if _, err := NewBanded("bc", 4, 0, 0, 1, nil, 10); err == nil || !strings.Contains(err.Error(), "only used with the hybrid") {
		t.Errorf("bc with a band: %v", err)
	}
	if _, err := NewHybrid(4, -1, 0, 0); err == nil || !strings.Contains(err.Error(), "band must be >= 0") {
		t.Errorf("negative band: %v", err)
	}
}
