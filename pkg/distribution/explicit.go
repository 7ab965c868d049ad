package distribution

import "fmt"

// Explicit is a distribution given by a table: owner[m][n] for the lower
// tiles 0 <= n <= m < NT of an NT x NT tile matrix.
type Explicit struct {
	name  string
	nodes int
	owner [][]int // row m has m+1 entries
}

// NewExplicit returns the distribution over nodes nodes whose lower tile
// (m, n) belongs to owner[m][n]. Row m of owner must have m+1 entries (the
// lower triangle, diagonal included) with values in [0, nodes); the table is
// copied.
func NewExplicit(name string, nodes int, owner [][]int) (*Explicit, error) {
	if nodes < 1 {
		return nil, fmt.Errorf("distribution: need at least one node, got %d", nodes)
	}
	t := make([][]int, len(owner))
	for m, row := range owner {
		if len(row) != m+1 {
			return nil, fmt.Errorf("distribution: row %d of the owner table has %d entries, want %d", m, len(row), m+1)
		}
		for n, o := range row {
			if o < 0 || o >= nodes {
				return nil, fmt.Errorf("distribution: tile (%d, %d) belongs to node %d, outside [0, %d)", m, n, o, nodes)
			}
		}
		t[m] = append([]int(nil), row...)
	}
	return &Explicit{name: name, nodes: nodes, owner: t}, nil
}

// Tabulate returns d's owners of the lower tiles of an nt x nt tile matrix as
// an Explicit distribution named like d, for instance to edit it.
func Tabulate(d Distribution, nt int) *Explicit {
	t := make([][]int, nt)
	for m := range t {
		t[m] = make([]int, m+1)
		for n := 0; n <= m; n++ {
			t[m][n] = d.Owner(m, n)
		}
	}
	return &Explicit{name: d.Name(), nodes: d.Nodes(), owner: t}
}

// Owner returns the table's owner of lower tile (m, n); Owner(n, m) is
// Owner(m, n). It panics outside the table.
func (e *Explicit) Owner(m, n int) int {
	if m < n {
		m, n = n, m
	}
	return e.owner[m][n]
}

// Nodes returns the number of nodes.
func (e *Explicit) Nodes() int { return e.nodes }

// Name returns the name given to NewExplicit.
func (e *Explicit) Name() string { return e.name }

// NT returns the number of tile rows of the table.
func (e *Explicit) NT() int { return len(e.owner) }

// Table returns a copy of the owner table: row m holds the owners of tiles
// (m, 0) ... (m, m).
func (e *Explicit) Table() [][]int {
	t := make([][]int, len(e.owner))
	for m, row := range e.owner {
		t[m] = append([]int(nil), row...)
	}
	return t
}
