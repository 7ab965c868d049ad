// Package tile describes tiled matrices and vectors: the data layout every
// algorithm submits tasks on.
//
// An N x N symmetric matrix A with tile size nb is cut into NT = ceil(N/nb)
// tile rows and columns; tile (m, n) covers rows [m nb, min((m+1) nb, N)) and
// columns [n nb, min((n+1) nb, N)), so the last tile row and column may be
// smaller than nb. Sym stores only the lower tiles m >= n, each column-major
// and contiguous with leading dimension equal to its number of rows: about
// half the memory of the full matrix. Each tile has a Class (dense
// float64, low-rank U V^T, float32 or dropped) and is registered with the
// runtime as a handle of its class's format owned by one rank: a
// descriptor holds no data, the runtime allocates each tile's buffer where
// a task writes it (Chameleon's descriptors over StarPU handles).
package tile

import (
	"fmt"

	"github.com/exageostat/exageostat/pkg/insert"
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

// Class is how one tile of a Sym is stored.
type Class uint8

// The tile classes: the exact computation keeps every tile Dense; the
// approximate ones keep the diagonal (and a band) Dense and the others
// LowRank (TLR), Single (mixed precision) or Dropped (diagonal
// super-tile).
const (
	Dense   Class = iota // float64, runtime.Dense
	LowRank              // U V^T, runtime.LowRank (dense when it needs more than the maximum rank)
	Single               // float32, runtime.Single
	Dropped              // zero: no handle, no task reads or writes it
)

var classNames = [...]string{Dense: "dense", LowRank: "low-rank", Single: "single", Dropped: "dropped"}

func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return fmt.Sprintf("Class(%d)", int(c))
}

// Classes chooses the class of each lower tile of a Sym.
type Classes struct {
	// Of returns the class of off-diagonal tile (m, n), m > n (nil: all
	// Dense). The diagonal tiles are always Dense: the factorisation and
	// the solves factor and invert them.
	Of func(m, n int) Class
	// MaxRank is the largest rank of a LowRank tile held as U V^T.
	MaxRank int
}

// Sym is a tiled symmetric matrix storing its lower tiles, each of a
// Class.
type Sym struct {
	Layout
	rt      *runtime.Runtime
	handles []*runtime.Handle // lower tiles, index m(m+1)/2 + n; nil when Dropped
	class   []Class           // lower tiles, same index
	owner   OwnerFunc
	work    []*runtime.Handle // per diagonal tile workspace, registered on first use
	// sub holds the sub-tile handles of a diagonal tile per owner rank,
	// tile order and sub-tile size (SubTiles); signal the ordering-only
	// handle of each lower tile (Signal).
	sub    map[[3]int][]*runtime.Handle
	signal []*runtime.Handle
}

func lowerIndex(m, n int) int { return m*(m+1)/2 + n }

// NewSym registers with rt an N x N tiled symmetric matrix with tile size nb
// whose tile (m, n) is owned by owner(m, n) (nil means Local), every tile
// Dense. No tile data is allocated.
func NewSym(rt *runtime.Runtime, n, nb int, owner OwnerFunc) *Sym {
	return NewSymClasses(rt, n, nb, owner, Classes{})
}

// NewSymClasses is NewSym with the tiles of the classes cl, each
// registered in its class's format (none for a Dropped tile).
func NewSymClasses(rt *runtime.Runtime, n, nb int, owner OwnerFunc, cl Classes) *Sym {
	if owner == nil {
		owner = Local
	}
	l := NewLayout(n, nb)
	s := &Sym{Layout: l, rt: rt, owner: owner}
	s.handles = make([]*runtime.Handle, l.NT*(l.NT+1)/2)
	s.class = make([]Class, len(s.handles))
	for m := 0; m < l.NT; m++ {
		for k := 0; k <= m; k++ {
			c := Dense
			if m != k && cl.Of != nil {
				c = cl.Of(m, k)
			}
			var f runtime.Format
			switch c {
			case Dense:
				f = runtime.Dense{M: l.Rows(m), N: l.Rows(k)}
			case LowRank:
				if cl.MaxRank < 1 {
					panic(fmt.Sprintf("tile: low-rank tile (%d,%d) with maximum rank %d", m, k, cl.MaxRank))
				}
				f = runtime.LowRank{M: l.Rows(m), N: l.Rows(k), MaxRank: cl.MaxRank}
			case Single:
				f = runtime.Single{M: l.Rows(m), N: l.Rows(k)}
			case Dropped:
			default:
				panic(fmt.Sprintf("tile: tile (%d,%d) of %v", m, k, c))
			}
			s.class[lowerIndex(m, k)] = c
			if f != nil {
				s.handles[lowerIndex(m, k)] = rt.Register(fmt.Sprintf("A(%d,%d)", m, k), owner(m, k), f)
			}
		}
	}
	return s
}

// Handle returns the runtime handle of lower tile (m, n), m >= n: nil for
// a Dropped tile.
func (s *Sym) Handle(m, n int) *runtime.Handle {
	if n > m {
		panic(fmt.Sprintf("tile: (%d,%d) is not a lower tile", m, n))
	}
	return s.handles[lowerIndex(m, n)]
}

// Class returns the class of lower tile (m, n), m >= n.
func (s *Sym) Class(m, n int) Class {
	if n > m {
		panic(fmt.Sprintf("tile: (%d,%d) is not a lower tile", m, n))
	}
	return s.class[lowerIndex(m, n)]
}

// Tile returns this rank's copy of lower tile (m, n), in its format's
// layout (column-major with leading dimension Rows(m) for a Dense tile),
// once the tasks writing it are done (after Wait), or nil when this rank
// does not hold its latest version or the tile is Dropped.
func (s *Sym) Tile(m, n int) []float64 {
	h := s.Handle(m, n)
	if h == nil {
		return nil
	}
	return s.rt.Local(h)
}

// DiagWork returns the handle of a workspace the size of diagonal tile
// (k, k), owned by the tile's owner (e.g. for the inverse of a Cholesky
// diagonal block). It is registered on the first call; an algorithm
// invalidates it after its last reader (runtime.Invalidate) so that its
// buffer goes back to the pool.
func (s *Sym) DiagWork(k int) *runtime.Handle {
	if s.work == nil {
		s.work = make([]*runtime.Handle, s.NT)
	}
	if s.work[k] == nil {
		s.work[k] = s.rt.Register(fmt.Sprintf("W(%d)", k), s.owner(k, k), runtime.Dense{M: s.Rows(k), N: s.Rows(k)})
	}
	return s.work[k]
}

// SubTiles returns the handles of the lower sub-tiles of diagonal tile
// (k, k) cut at multiples of size (index i(i+1)/2 + j, with the
// boundaries cuts: 0 = cuts[0] < ... < cuts[len-1] = Rows(k)), owned by
// the tile's owner, for a nested factorisation of the tile. They are
// registered on the first call and shared by the diagonal tiles of the
// same order on one rank.
func (s *Sym) SubTiles(k, size int) (handles []*runtime.Handle, cuts []int) {
	n := s.Rows(k)
	r := 0
	if s.rt.Size() > 1 {
		r = s.owner(k, k)
	}
	cuts = Cuts(n, size)
	key := [3]int{r, n, size}
	if hs := s.sub[key]; hs != nil {
		return hs, cuts
	}
	for i := 0; i+1 < len(cuts); i++ {
		for j := 0; j <= i; j++ {
			handles = append(handles, s.rt.Register(fmt.Sprintf("hsub%d(%d,%d)", n, i, j), r,
				runtime.Dense{M: cuts[i+1] - cuts[i], N: cuts[j+1] - cuts[j]}))
		}
	}
	if s.sub == nil {
		s.sub = map[[3]int][]*runtime.Handle{}
	}
	s.sub[key] = handles
	return handles, cuts
}

// Cuts returns the boundaries of an n x n tile cut at multiples of s:
// 0 = b[0] < b[1] < ... < b[len-1] = n.
func Cuts(n, s int) []int {
	b := []int{0}
	for o := s; o < n; o += s {
		b = append(b, o)
	}
	return append(b, n)
}

// Signal returns the ordering-only handle (runtime.NewHandle: no data) of
// lower tile (m, n), owned by the tile's owner, made on the first call:
// for the control dependencies of an algorithm (insert.Place.Signal and
// After).
func (s *Sym) Signal(m, n int) *runtime.Handle {
	if s.signal == nil {
		s.signal = make([]*runtime.Handle, len(s.handles))
	}
	i := lowerIndex(m, n)
	if s.signal[i] == nil {
		s.signal[i] = runtime.NewHandle(fmt.Sprintf("ctl(%d,%d)", m, n), s.owner(m, n))
	}
	return s.signal[i]
}

// Owner returns the OwnerFunc of the tiles.
func (s *Sym) Owner() OwnerFunc { return s.owner }

// Runtime returns the runtime the tiles are registered with.
func (s *Sym) Runtime() *runtime.Runtime { return s.rt }

// Words returns the number of float64 words of the lower tiles' buffers
// in their formats (a LowRank tile's at its maximum rank).
func (s *Sym) Words() int { return s.OwnedWords(-1) }

// OwnedWords returns the number of float64 words of the lower tiles rank
// r owns (every tile for r < 0), as Words.
func (s *Sym) OwnedWords(r int) int {
	total := 0
	for m := 0; m < s.NT; m++ {
		for k := 0; k <= m; k++ {
			if h := s.Handle(m, k); h != nil && (r < 0 || s.owner(m, k) == r) {
				total += h.Format().Words()
			}
		}
	}
	return total
}

// Invalidate drops the content of every tile (runtime.Invalidate): their
// buffers go back to the pool once the tasks submitted so far are done.
func (s *Sym) Invalidate() {
	for _, h := range s.handles {
		if h != nil {
			s.rt.Invalidate(h)
		}
	}
}

// FromDense submits one task per lower tile that copies the lower triangle
// of the column-major N x N matrix a (leading dimension lda; every rank
// passes the same) into the tile, on the tile's owner. Every tile must be
// Dense.
func (s *Sym) FromDense(a []float64, lda int) {
	ts := insert.New(s.rt, nil)
	for m := 0; m < s.NT; m++ {
		for n := 0; n <= m; n++ {
			ts.CopyIn(insert.At(m, n, -1, insert.GenPriority(s.NT, m, n)), a, lda, s.Offset(m), s.Offset(n), s.Handle(m, n))
		}
	}
}

// ToDense brings every lower tile to this rank, waits, and copies them into
// the lower triangle (and the diagonal tiles' upper parts) of the
// column-major N x N matrix a with leading dimension lda. In a distributed
// run every rank must call it (the tiles travel like task data). Every
// tile must be Dense.
func (s *Sym) ToDense(a []float64, lda int) error {
	for i, h := range s.handles {
		if s.class[i] != Dense {
			return fmt.Errorf("tile: ToDense of a matrix with %v tiles", s.class[i])
		}
		s.rt.FetchOn(h, s.rt.Rank())
	}
	if err := s.rt.Wait(); err != nil {
		return err
	}
	for m := 0; m < s.NT; m++ {
		for n := 0; n <= m; n++ {
			t, rows, cols := s.Tile(m, n), s.Rows(m), s.Rows(n)
			if t == nil {
				return fmt.Errorf("tile: (%d,%d) was never written", m, n)
			}
			for j := 0; j < cols; j++ {
				copy(a[(s.Offset(n)+j)*lda+s.Offset(m):][:rows], t[j*rows:(j+1)*rows])
			}
		}
	}
	return nil
}

// Vector is a tiled vector of length N with the same tiling as a matrix,
// each tile a handle of format runtime.Vector.
type Vector struct {
	Layout
	rt      *runtime.Runtime
	handles []*runtime.Handle
}

// NewVector registers with rt a tiled vector of length n, tile size nb,
// whose tile m is owned by owner(m) (nil: rank 0).
func NewVector(rt *runtime.Runtime, name string, n, nb int, owner func(m int) int) *Vector {
	l := NewLayout(n, nb)
	v := &Vector{Layout: l, rt: rt, handles: make([]*runtime.Handle, l.NT)}
	for m := 0; m < l.NT; m++ {
		o := 0
		if owner != nil {
			o = owner(m)
		}
		v.handles[m] = rt.Register(fmt.Sprintf("%s(%d)", name, m), o, runtime.Vector{N: l.Rows(m)})
	}
	return v
}

// Handle returns the runtime handle of tile m.
func (v *Vector) Handle(m int) *runtime.Handle { return v.handles[m] }

// Tile returns this rank's copy of tile m after Wait (nil if it does not
// hold the latest version).
func (v *Vector) Tile(m int) []float64 { return v.rt.Local(v.handles[m]) }

// Fetch makes every tile valid on every rank once Wait returns.
func (v *Vector) Fetch() {
	for _, h := range v.handles {
		v.rt.Fetch(h)
	}
}

// FetchOn makes every tile valid on rank q once Wait returns.
func (v *Vector) FetchOn(q int) {
	for _, h := range v.handles {
		v.rt.FetchOn(h, q)
	}
}

// Values returns the whole vector from this rank's copies after Wait, or
// nil if this rank lacks a tile (see Fetch).
func (v *Vector) Values() []float64 {
	out := make([]float64, 0, v.N)
	for m := range v.handles {
		t := v.Tile(m)
		if t == nil {
			return nil
		}
		out = append(out, t...)
	}
	return out
}

// Invalidate drops the content of every tile (runtime.Invalidate).
func (v *Vector) Invalidate() {
	for _, h := range v.handles {
		v.rt.Invalidate(h)
	}
}

// General is a tiled general (rectangular) matrix: row tiling RowLayout and
// column tiling ColLayout, every tile a runtime.Dense handle, column-major
// with leading dimension equal to its number of rows.
type General struct {
	RowLayout, ColLayout Layout
	rt                   *runtime.Runtime
	handles              []*runtime.Handle // index m + n*RowLayout.NT
}

// NewGeneral registers with rt an m x n tiled matrix with tiles of mb rows
// and nb columns whose tile (i, j) is owned by owner(i, j) (nil means
// Local).
func NewGeneral(rt *runtime.Runtime, name string, m, n, mb, nb int, owner OwnerFunc) *General {
	if owner == nil {
		owner = Local
	}
	g := &General{RowLayout: NewLayout(m, mb), ColLayout: NewLayout(n, nb), rt: rt}
	mt, nt := g.RowLayout.NT, g.ColLayout.NT
	g.handles = make([]*runtime.Handle, mt*nt)
	for j := 0; j < nt; j++ {
		for i := 0; i < mt; i++ {
			g.handles[i+j*mt] = rt.Register(fmt.Sprintf("%s(%d,%d)", name, i, j), owner(i, j),
				runtime.Dense{M: g.RowLayout.Rows(i), N: g.ColLayout.Rows(j)})
		}
	}
	return g
}

// Handle returns the runtime handle of tile (i, j).
func (g *General) Handle(i, j int) *runtime.Handle { return g.handles[i+j*g.RowLayout.NT] }

// Tile returns this rank's copy of tile (i, j) after Wait, or nil; its
// leading dimension is RowLayout.Rows(i).
func (g *General) Tile(i, j int) []float64 { return g.rt.Local(g.Handle(i, j)) }

// Invalidate drops the content of every tile (runtime.Invalidate).
func (g *General) Invalidate() {
	for _, h := range g.handles {
		g.rt.Invalidate(h)
	}
}

// SymOwner extends the owner of a symmetric matrix's lower tiles to a
// full tiling: tile (m, n) of the upper part goes with tile (n, m).
func SymOwner(owner OwnerFunc) OwnerFunc {
	if owner == nil {
		owner = Local
	}
	return func(m, n int) int {
		if m < n {
			m, n = n, m
		}
		return owner(m, n)
	}
}

// AutoNB returns a tile size for an n x n covariance matrix on the CPU:
// about n/6 (enough tiles for the phases to overlap on a few workers), a
// multiple of 16, within [160, 960] (small tiles run the BLAS kernels
// slowly, large ones leave workers idle).
func AutoNB(n int) int {
	nb := (n/6 + 15) / 16 * 16
	return min(960, max(160, nb))
}
