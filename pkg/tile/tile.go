// Package tile describes tiled matrices and vectors: the data layout every
// algorithm submits tasks on.
//
// An N x N symmetric matrix A with tile size nb is cut into NT = ceil(N/nb)
// tile rows and columns; tile (m, n) covers rows [m nb, min((m+1) nb, N)) and
// columns [n nb, min((n+1) nb, N)), so the last tile row and column may be
// smaller than nb. Sym stores only the lower tiles m >= n, each column-major
// and contiguous with leading dimension equal to its number of rows: about
// half the memory of the full matrix. Every tile is registered with the
// runtime as a handle owned by one rank.
package tile

import (
	"fmt"

	"github.com/exageostat/exageostat/pkg/runtime"
)

// OwnerFunc says which rank owns tile (m, n).
type OwnerFunc func(m, n int) int

// Local is the OwnerFunc of a single-process run: rank 0 owns everything.
func Local(m, n int) int { return 0 }

// Layout is the tiling of one dimension of length N by tiles of size NB.
type Layout struct {
	N  int // global size
	NB int // tile size
	NT int // number of tiles, ceil(N/NB)
}

// NewLayout returns the tiling of n by nb. n >= 0 and nb >= 1.
func NewLayout(n, nb int) Layout {
	if n < 0 || nb < 1 {
		panic(fmt.Sprintf("tile: invalid layout n=%d nb=%d", n, nb))
	}
	return Layout{N: n, NB: nb, NT: (n + nb - 1) / nb}
}

// Rows returns the number of rows of tile row m: nb, or less for the last.
func (l Layout) Rows(m int) int {
	if m == l.NT-1 {
		return l.N - m*l.NB
	}
	return l.NB
}

// Offset returns the first global index of tile m.
func (l Layout) Offset(m int) int { return m * l.NB }

// Sym is a tiled symmetric matrix storing its lower tiles.
type Sym struct {
	Layout
	data    []float64   // all tiles, one allocation
	tiles   [][]float64 // lower tiles, index m(m+1)/2 + n
	handles []*runtime.Handle
	owner   OwnerFunc
	// Per-diagonal-tile workspace (e.g. the inverse of a Cholesky diagonal
	// block), allocated on first use and reused.
	work        [][]float64
	workHandles []*runtime.Handle
	virtual     bool // NewSymShape: handles only, no storage
}

func lowerIndex(m, n int) int { return m*(m+1)/2 + n }

// NewSym allocates an N x N tiled symmetric matrix with tile size nb whose
// tile (m, n) is owned by owner(m, n) (nil means Local).
func NewSym(n, nb int, owner OwnerFunc) *Sym {
	if owner == nil {
		owner = Local
	}
	l := NewLayout(n, nb)
	s := &Sym{Layout: l, owner: owner}
	total := 0
	for m := 0; m < l.NT; m++ {
		for k := 0; k <= m; k++ {
			total += l.Rows(m) * l.Rows(k)
		}
	}
	s.data = make([]float64, total)
	s.tiles = make([][]float64, l.NT*(l.NT+1)/2)
	s.handles = make([]*runtime.Handle, len(s.tiles))
	off := 0
	for m := 0; m < l.NT; m++ {
		for k := 0; k <= m; k++ {
			sz := l.Rows(m) * l.Rows(k)
			i := lowerIndex(m, k)
			s.tiles[i] = s.data[off : off+sz : off+sz]
			s.handles[i] = runtime.NewData(fmt.Sprintf("A(%d,%d)", m, k), owner(m, k), s.tiles[i])
			off += sz
		}
	}
	return s
}

// NewSymShape returns the tiling of NewSym with handles sized like the tiles
// but no storage (every Tile is nil): for task graphs that are recorded, not
// run (runtime.Options.Record), at any N.
func NewSymShape(n, nb int, owner OwnerFunc) *Sym {
	if owner == nil {
		owner = Local
	}
	l := NewLayout(n, nb)
	s := &Sym{Layout: l, owner: owner, virtual: true}
	s.tiles = make([][]float64, l.NT*(l.NT+1)/2)
	s.handles = make([]*runtime.Handle, len(s.tiles))
	for m := 0; m < l.NT; m++ {
		for k := 0; k <= m; k++ {
			s.handles[lowerIndex(m, k)] = runtime.NewSized(fmt.Sprintf("A(%d,%d)", m, k), owner(m, k), l.Rows(m)*l.Rows(k))
		}
	}
	return s
}

// Tile returns the column-major storage of lower tile (m, n), m >= n; its
// leading dimension is Rows(m).
func (s *Sym) Tile(m, n int) []float64 {
	if n > m {
		panic(fmt.Sprintf("tile: (%d,%d) is not a lower tile", m, n))
	}
	return s.tiles[lowerIndex(m, n)]
}

// Handle returns the runtime handle of lower tile (m, n).
func (s *Sym) Handle(m, n int) *runtime.Handle { return s.handles[lowerIndex(m, n)] }

// DiagWork returns a workspace the size of diagonal tile (k, k), with its
// own runtime handle owned by the tile's owner. It is allocated on the first
// call and the same buffer is returned afterwards.
func (s *Sym) DiagWork(k int) ([]float64, *runtime.Handle) {
	if s.work == nil {
		s.work = make([][]float64, s.NT)
		s.workHandles = make([]*runtime.Handle, s.NT)
	}
	if s.workHandles[k] == nil {
		name, words := fmt.Sprintf("W(%d)", k), s.Rows(k)*s.Rows(k)
		if s.virtual {
			s.workHandles[k] = runtime.NewSized(name, s.owner(k, k), words)
		} else {
			s.work[k] = make([]float64, words)
			s.workHandles[k] = runtime.NewData(name, s.owner(k, k), s.work[k])
		}
	}
	return s.work[k], s.workHandles[k]
}

// Owner returns the OwnerFunc of the tiles.
func (s *Sym) Owner() OwnerFunc { return s.owner }

// Words returns the number of float64 values stored.
func (s *Sym) Words() int { return len(s.data) }

// At returns A(i, j) for global indices, using symmetry for i < j.
func (s *Sym) At(i, j int) float64 {
	if i < j {
		i, j = j, i
	}
	m, n := i/s.NB, j/s.NB
	return s.Tile(m, n)[(i-m*s.NB)+(j-n*s.NB)*s.Rows(m)]
}

// Set sets A(i, j) (and so A(j, i)).
func (s *Sym) Set(i, j int, v float64) {
	if i < j {
		i, j = j, i
	}
	m, n := i/s.NB, j/s.NB
	s.Tile(m, n)[(i-m*s.NB)+(j-n*s.NB)*s.Rows(m)] = v
}

// FromDense copies the lower triangle of the column-major N x N matrix a
// (leading dimension lda) into the lower tiles.
func (s *Sym) FromDense(a []float64, lda int) {
	for m := 0; m < s.NT; m++ {
		for n := 0; n <= m; n++ {
			t, rows, cols := s.Tile(m, n), s.Rows(m), s.Rows(n)
			for j := 0; j < cols; j++ {
				src := a[(s.Offset(n)+j)*lda+s.Offset(m):]
				copy(t[j*rows:(j+1)*rows], src[:rows])
			}
		}
	}
}

// ToDense copies the lower tiles into the lower triangle (and the diagonal
// tiles' upper parts) of the column-major N x N matrix a with leading
// dimension lda.
func (s *Sym) ToDense(a []float64, lda int) {
	for m := 0; m < s.NT; m++ {
		for n := 0; n <= m; n++ {
			t, rows, cols := s.Tile(m, n), s.Rows(m), s.Rows(n)
			for j := 0; j < cols; j++ {
				dst := a[(s.Offset(n)+j)*lda+s.Offset(m):]
				copy(dst[:rows], t[j*rows:(j+1)*rows])
			}
		}
	}
}

// Vector is a tiled vector of length N with the same tiling as a matrix.
type Vector struct {
	Layout
	data    []float64
	tiles   [][]float64
	handles []*runtime.Handle
}

// NewVector allocates a tiled vector of length n, tile size nb, whose tile m
// is owned by owner(m).
func NewVector(name string, n, nb int, owner func(m int) int) *Vector {
	l := NewLayout(n, nb)
	v := &Vector{Layout: l, data: make([]float64, n)}
	v.tiles = make([][]float64, l.NT)
	v.handles = make([]*runtime.Handle, l.NT)
	for m := 0; m < l.NT; m++ {
		o := 0
		if owner != nil {
			o = owner(m)
		}
		off := l.Offset(m)
		v.tiles[m] = v.data[off : off+l.Rows(m) : off+l.Rows(m)]
		v.handles[m] = runtime.NewData(fmt.Sprintf("%s(%d)", name, m), o, v.tiles[m])
	}
	return v
}

// Tile returns the storage of tile m.
func (v *Vector) Tile(m int) []float64 { return v.tiles[m] }

// Handle returns the runtime handle of tile m.
func (v *Vector) Handle(m int) *runtime.Handle { return v.handles[m] }

// Data returns the whole vector (tiles are contiguous, in order).
func (v *Vector) Data() []float64 { return v.data }

// General is a tiled general (rectangular) matrix: row tiling Rows and
// column tiling Cols, every tile stored column-major with leading dimension
// equal to its number of rows.
type General struct {
	RowLayout, ColLayout Layout
	data                 []float64
	tiles                [][]float64 // index m + n*RowLayout.NT
	handles              []*runtime.Handle
}

// NewGeneral allocates an m x n tiled matrix with tiles of mb rows and nb
// columns whose tile (i, j) is owned by owner(i, j) (nil means Local).
func NewGeneral(name string, m, n, mb, nb int, owner OwnerFunc) *General {
	if owner == nil {
		owner = Local
	}
	g := &General{RowLayout: NewLayout(m, mb), ColLayout: NewLayout(n, nb), data: make([]float64, m*n)}
	mt, nt := g.RowLayout.NT, g.ColLayout.NT
	g.tiles = make([][]float64, mt*nt)
	g.handles = make([]*runtime.Handle, mt*nt)
	off := 0
	for j := 0; j < nt; j++ {
		for i := 0; i < mt; i++ {
			sz := g.RowLayout.Rows(i) * g.ColLayout.Rows(j)
			g.tiles[i+j*mt] = g.data[off : off+sz : off+sz]
			g.handles[i+j*mt] = runtime.NewData(fmt.Sprintf("%s(%d,%d)", name, i, j), owner(i, j), g.tiles[i+j*mt])
			off += sz
		}
	}
	return g
}

// Tile returns the storage of tile (i, j); its leading dimension is
// RowLayout.Rows(i).
func (g *General) Tile(i, j int) []float64 { return g.tiles[i+j*g.RowLayout.NT] }

// Handle returns the runtime handle of tile (i, j).
func (g *General) Handle(i, j int) *runtime.Handle { return g.handles[i+j*g.RowLayout.NT] }

// At returns element (r, c) by global indices.
func (g *General) At(r, c int) float64 {
	i, j := r/g.RowLayout.NB, c/g.ColLayout.NB
	return g.Tile(i, j)[(r-i*g.RowLayout.NB)+(c-j*g.ColLayout.NB)*g.RowLayout.Rows(i)]
}

// AutoNB returns a tile size for an n x n covariance matrix on the CPU:
// about n/6 (enough tiles for the phases to overlap on a few workers), a
// multiple of 16, within [160, 960] (small tiles run the BLAS kernels
// slowly, large ones leave workers idle).
func AutoNB(n int) int {
	nb := (n/6 + 15) / 16 * 16
	return min(960, max(160, nb))
}
