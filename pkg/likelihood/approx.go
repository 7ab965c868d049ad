package likelihood

import (
	"fmt"
	"math"

	"github.com/exageostat/exageostat/pkg/cholesky"
	"github.com/exageostat/exageostat/pkg/insert"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/tile"
	"github.com/exageostat/exageostat/pkg/tlr"
)

// Computation selects how an Evaluator computes l(theta).
type Computation string

// The computations.
const (
	// Exact is the dense tiled Cholesky in float64 (the default).
	Exact Computation = "exact"
	// TLR is the tile low-rank Cholesky of seed 002 (HiCMA): dense
	// diagonal tiles, every off-diagonal tile compressed to U V^T at an
	// absolute accuracy per tile.
	TLR Computation = "tlr"
	// MP is mixed precision: tiles within the band of the diagonal in
	// float64, the others in float32.
	MP Computation = "mp"
	// DST is the diagonal super-tile: tiles beyond the band are zero.
	DST Computation = "dst"
)

// ParseComputation returns the computation named s ("" means Exact).
func ParseComputation(s string) (Computation, error) {
	switch Computation(s) {
	case "", Exact:
		return Exact, nil
	case TLR, MP, DST:
		return Computation(s), nil
	}
	return "", fmt.Errorf("unknown computation %q (want exact, tlr, mp or dst)", s)
}

// Approx configures the approximate computations (Options.Approx).
type Approx struct {
	Computation Computation // "" or Exact: the exact likelihood
	// Accuracy is TLR's absolute Frobenius accuracy per tile (see package
	// tlr); 0 means 1e-9.
	Accuracy float64
	// MaxRank is TLR's largest rank of a tile held as U V^T (a tile that
	// needs more stays dense); 0 means nb/2.
	MaxRank int
	// Band is, for MP and DST, the number of tile sub-diagonals kept in
	// float64 (0: the diagonal tiles only); a negative Band means the
	// smallest band that holds at least 10 % of the lower tiles,
	// ceil(0.05 (NT+1)) - 1.
	Band int
	// Method is TLR's compression (default tlr.ACA, chosen by BenchmarkCompress).
	Method tlr.Method
	// Lookahead is the depth D of seed 002's lookahead (0: off): at step
	// k of the Cholesky, the updates of the columns k+1 .. k+D (those the
	// next D panels read) run as soon as their data is ready, and every
	// later update of step k on tile row m waits, by a control dependency
	// (no data), for the panel task of step k+1 on that row (the trsm of
	// tile (m, k+1)), so that the next panel runs before the trailing
	// update. Across MPI ranks a control dependency is kept only between
	// tasks of one rank. It changes the order of the tasks, not of the
	// operations on any tile: l is bitwise the same.
	Lookahead int
	// HPotrf is the sub-tile size of seed 002's hierarchical potrf (0:
	// off): each dense diagonal potrf runs as a nested graph of tasks on
	// HPotrf x HPotrf sub-tiles (cholesky.HierPotrf), so that all workers
	// help on the critical path. A diagonal tile no larger than HPotrf is
	// factored by one potrf.
	HPotrf int
	// RankEstimate is, for MemoryNeed only, the rank to budget for each of
	// TLR's off-diagonal tiles (e.g. twice the mean rank of sampled tiles,
	// tlr.SampleRank); 0 budgets them dense (the ranks are not known).
	RankEstimate float64
}

// class returns the class of lower tile (m, c) of an nt x nt tiling in
// a's computation (a normalised: Band >= 0 for MP and DST): the diagonal,
// every tile of Exact and the band of MP and DST are dense; TLR holds the
// others low-rank, MP in float32, DST drops them.
func (a Approx) class(m, c int) tile.Class {
	if m == c || a.Computation == "" || a.Computation == Exact {
		return tile.Dense
	}
	switch a.Computation {
	case TLR:
		return tile.LowRank
	case MP:
		if m-c > a.Band {
			return tile.Single
		}
	case DST:
		if m-c > a.Band {
			return tile.Dropped
		}
	}
	return tile.Dense
}

// normalised returns a with the defaults of an nt x nt tiling with tile
// size nb filled in: MaxRank nb/2 (at least 1) when 0, Band 0 for TLR and
// autoBand(nt) when negative.
func (a Approx) normalised(nt, nb int) Approx {
	if a.MaxRank == 0 {
		a.MaxRank = max(1, nb/2)
	}
	if a.Computation == TLR {
		a.Band = 0
	} else if a.Band < 0 {
		a.Band = autoBand(nt)
	}
	return a
}

// tileBytes returns the bytes of lower tile (m, c), rows x cols, of an
// nt x nt tiling with tile size nb held in a's format: 8 rows cols for a
// dense tile (exact, the diagonal, the band of MP and DST, and TLR
// without a RankEstimate); for TLR 8 (1 + (rows + cols) k) with k the
// RankEstimate rounded up to a multiple of 8 as the tiles are stored, at
// most the maximum rank (and at most the dense tile); 4 rows cols (and
// a word) for MP's float32 tiles; nothing for the tiles DST drops.
func (a Approx) tileBytes(m, c, rows, cols, nt, nb int) int64 {
	dense := int64(8 * rows * cols)
	a = a.normalised(nt, nb)
	switch a.class(m, c) {
	case tile.LowRank:
		if !(a.RankEstimate > 0) {
			return dense
		}
		k := min((int(math.Ceil(a.RankEstimate))+7)/8*8, a.MaxRank)
		return min(dense, int64(8*(1+(rows+cols)*k)))
	case tile.Single:
		return int64(8 * runtime.Single{M: rows, N: cols}.Words())
	case tile.Dropped:
		return 0
	}
	return dense
}

// ApproxStats describes the tiles of one approximate evaluation (on this
// rank: the tiles it holds).
type ApproxStats struct {
	Computation Computation `json:"computation"`
	Band        int         `json:"band,omitempty"`
	LowRank     int         `json:"low_rank_tiles,omitempty"` // off-diagonal tiles held as U V^T
	DenseOff    int         `json:"dense_off_diagonal_tiles"` // off-diagonal tiles in float64, dense
	Single      int         `json:"single_tiles,omitempty"`   // tiles in float32
	Zero        int         `json:"zero_tiles,omitempty"`     // tiles dropped
	MeanRank    float64     `json:"mean_rank,omitempty"`      // over the low-rank tiles
	MaxRank     int         `json:"max_rank,omitempty"`
	Bytes       int64       `json:"bytes"` // bytes of the tiles' content (packed)
}

// approx is an Evaluator's state for a computation other than Exact: the
// tiles' classes are in the evaluator's tile.Sym.
type approx struct {
	a  Approx // normalised
	cp tlr.Compressor
	// scratch is a dense tile per worker, for generation; lr a low-rank
	// tile of the largest rank per worker (tlr).
	scratch, lr *runtime.Handle
	kEst        float64 // the rank estimate of the low-rank tasks' flops
}

// autoBand returns ceil(0.05 (nt+1)) - 1.
func autoBand(nt int) int { return max(0, int(math.Ceil(0.05*float64(nt+1)))-1) }

// newApprox checks and normalises the options of a computation other than
// Exact for an nt x nt tiling with tile size nb.
func (e *Evaluator) newApprox(a Approx, nt, nb int) error {
	x := &approx{a: a.normalised(nt, nb)}
	if x.a.Accuracy == 0 {
		x.a.Accuracy = 1e-9
	}
	if !(x.a.Accuracy > 0) || math.IsInf(x.a.Accuracy, 0) {
		return fmt.Errorf("tlr accuracy must be positive and finite, got %g", x.a.Accuracy)
	}
	if x.a.MaxRank < 1 {
		return fmt.Errorf("max rank must be >= 1, got %d", x.a.MaxRank)
	}
	if a.Lookahead < 0 {
		return fmt.Errorf("lookahead must be >= 0, got %d", a.Lookahead)
	}
	if a.HPotrf < 0 {
		return fmt.Errorf("hierarchical potrf sub-tile size must be >= 0, got %d", a.HPotrf)
	}
	x.cp = tlr.Compressor{L: tlr.DefaultLAPACK(), K: e.kern, Method: a.Method, Acc: x.a.Accuracy}
	x.kEst = float64(max(1, nb/8))
	e.ax = x
	return nil
}

// registerScratch registers the per-worker scratch tiles of the
// approximate computation's generation and recompression.
func (x *approx) registerScratch(rt *runtime.Runtime, nb int) {
	x.scratch = rt.Register("scratch", 0, runtime.Dense{M: nb, N: nb})
	x.lr = rt.Register("lr-scratch", 0, runtime.LowRank{M: nb, N: nb, MaxRank: x.a.MaxRank})
}

// classes returns the tile classes of the evaluator's matrix.
func (e *Evaluator) classes() tile.Classes {
	if e.ax == nil {
		return tile.Classes{}
	}
	return tile.Classes{Of: e.ax.a.class, MaxRank: e.ax.a.MaxRank}
}

// tasks returns the inserter of the evaluator's tasks: its runtime and
// kernels and, for an approximate computation, its compressor, rank
// estimate and scratch tiles.
func (e *Evaluator) tasks() insert.Tasks {
	ts := insert.New(e.rt, e.kern)
	if x := e.ax; x != nil {
		ts.LR = insert.LowRank{Compressor: x.cp, Rank: x.kEst, Scratch: x.scratch, LRScratch: x.lr}
	}
	return ts
}

// Tasks returns the inserter of tasks on the evaluator's runtime, with its
// kernels and, for an approximate computation, what the tasks on its
// low-rank and float32 tiles need: the solves and products of package
// predict on the evaluator's factor (Factor) submit with it.
func (e *Evaluator) Tasks() insert.Tasks { return e.tasks() }

// choleskyOptions returns the factorisation's options (seed 002's, for an
// approximate computation).
func (e *Evaluator) choleskyOptions() cholesky.Options {
	if e.ax == nil {
		return cholesky.Options{}
	}
	return cholesky.Options{Lookahead: e.ax.a.Lookahead, HPotrf: e.ax.a.HPotrf}
}

// approxStats counts the tiles this rank holds by format, and the ranks.
func (e *Evaluator) approxStats() *ApproxStats {
	x, s := e.ax, e.sigma
	st := &ApproxStats{Computation: x.a.Computation, Band: x.a.Band}
	var sum float64
	for m := 0; m < s.NT; m++ {
		for n := 0; n <= m; n++ {
			if s.Class(m, n) == tile.Dropped {
				st.Zero++
				continue
			}
			buf := s.Tile(m, n)
			if buf == nil {
				continue
			}
			f := s.Handle(m, n).Format()
			st.Bytes += 8 * int64(len(f.Pack(buf)))
			switch s.Class(m, n) {
			case tile.Dense:
				if m != n {
					st.DenseOff++
				}
			case tile.Single:
				st.Single++
			case tile.LowRank:
				lr := f.(runtime.LowRank)
				if lr.IsDense(buf) {
					st.DenseOff++
					continue
				}
				r := lr.Rank(buf)
				st.LowRank++
				sum += float64(r)
				st.MaxRank = max(st.MaxRank, r)
			}
		}
	}
	if st.LowRank > 0 {
		st.MeanRank = sum / float64(st.LowRank)
	}
	return st
}

// TileRanks returns, after an evaluation of a TLR computation, the rank
// of each lower off-diagonal tile (m, n) this rank holds, in an nt x nt
// slice indexed m*nt + n: the rank of U V^T, -1 for a tile kept dense
// (it needed more than the maximum rank), -2 for the diagonal, the upper
// triangle and tiles held on other ranks. It returns nt = 0 and nil for
// the other computations.
func (e *Evaluator) TileRanks() (nt int, ranks []int) {
	x, s := e.ax, e.sigma
	if x == nil || x.a.Computation != TLR {
		return 0, nil
	}
	nt = s.NT
	ranks = make([]int, nt*nt)
	for i := range ranks {
		ranks[i] = -2
	}
	for m := 1; m < nt; m++ {
		for n := 0; n < m; n++ {
			if s.Class(m, n) != tile.LowRank {
				continue
			}
			buf := s.Tile(m, n)
			if buf == nil {
				continue
			}
			lr := s.Handle(m, n).Format().(runtime.LowRank)
			if lr.IsDense(buf) {
				ranks[m*nt+n] = -1
			} else {
				ranks[m*nt+n] = lr.Rank(buf)
			}
		}
	}
	return nt, ranks
}

// Computation returns the evaluator's computation (Exact, TLR, MP or DST).
func (e *Evaluator) Computation() Computation {
	if e.ax == nil {
		return Exact
	}
	return e.ax.a.Computation
}
