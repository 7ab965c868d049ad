package likelihood

import (
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/blas"

	"github.com/exageostat/exageostat/pkg/insert"
	"github.com/exageostat/exageostat/pkg/kind"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/solve"
	"github.com/exageostat/exageostat/pkg/tile"
	"github.com/exageostat/exageostat/pkg/tlr"
	"github.com/exageostat/exageostat/pkg/trace"
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
	// HPotrf x HPotrf sub-tiles (insert.HierPotrf), so that all workers
	// help on the critical path. A diagonal tile no larger than HPotrf is
	// factored by one potrf.
	HPotrf int
	// RankEstimate is, for MemoryNeed only, the rank to budget for each of
	// TLR's off-diagonal tiles (e.g. twice the mean rank of sampled tiles,
	// tlr.SampleRank); 0 budgets them dense (the ranks are not known).
	RankEstimate float64
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
	if m == c {
		return dense
	}
	switch a.Computation {
	case TLR:
		if !(a.RankEstimate > 0) {
			return dense
		}
		maxr := a.MaxRank
		if maxr == 0 {
			maxr = max(1, nb/2)
		}
		k := min((int(math.Ceil(a.RankEstimate))+7)/8*8, maxr)
		return min(dense, int64(8*(1+(rows+cols)*k)))
	case MP, DST:
		band := a.Band
		if band < 0 {
			band = autoBand(nt)
		}
		if m-c <= band {
			return dense
		}
		if a.Computation == DST {
			return 0
		}
		return int64(8 * runtime.Single{M: rows, N: cols}.Words())
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

type tileClass uint8

const (
	clDense tileClass = iota
	clLowRank
	clSingle
	clZero
)

// approx is an Evaluator's state for a computation other than Exact.
type approx struct {
	a       Approx
	cp      tlr.Compressor
	band    int
	class   []tileClass       // per lower tile, index m(m+1)/2 + n
	h       []*runtime.Handle // per lower tile: dense tiles are the Evaluator's sigma's
	scratch *runtime.Handle   // a dense tile per worker, for generation
	lr      *runtime.Handle   // a low-rank tile of the largest rank per worker (tlr)
	kEst    float64
	// ctl holds, per lower off-diagonal tile (m, k), the ordering-only
	// handle its panel task signals (Lookahead > 0).
	ctl []*runtime.Handle
	// hsub holds the sub-tile handles of the hierarchical potrf, per rank
	// and diagonal tile size, and hcut their boundaries per tile size.
	hsub map[[2]int][]*runtime.Handle
	hcut map[int][]int
}

func lower(m, n int) int { return m*(m+1)/2 + n }

// autoBand returns ceil(0.05 (nt+1)) - 1.
func autoBand(nt int) int { return max(0, int(math.Ceil(0.05*float64(nt+1)))-1) }

// newApprox sets up the tiles of a computation other than Exact.
func (e *Evaluator) newApprox(a Approx) error {
	s := e.sigma
	nt, nb := s.NT, s.NB
	x := &approx{a: a, class: make([]tileClass, nt*(nt+1)/2), h: make([]*runtime.Handle, nt*(nt+1)/2)}
	if x.a.Accuracy == 0 {
		x.a.Accuracy = 1e-9
	}
	if !(x.a.Accuracy > 0) || math.IsInf(x.a.Accuracy, 0) {
		return fmt.Errorf("tlr accuracy must be positive and finite, got %g", x.a.Accuracy)
	}
	if x.a.MaxRank == 0 {
		x.a.MaxRank = max(1, nb/2)
	}
	if x.a.MaxRank < 1 {
		return fmt.Errorf("max rank must be >= 1, got %d", x.a.MaxRank)
	}
	x.band = a.Band
	if a.Computation == TLR {
		x.band = 0
	} else if x.band < 0 {
		x.band = autoBand(nt)
	}
	x.cp = tlr.Compressor{L: tlr.DefaultLAPACK(), K: e.kern, Method: a.Method, Acc: x.a.Accuracy}
	if a.Lookahead < 0 {
		return fmt.Errorf("lookahead must be >= 0, got %d", a.Lookahead)
	}
	if a.HPotrf < 0 {
		return fmt.Errorf("hierarchical potrf sub-tile size must be >= 0, got %d", a.HPotrf)
	}
	own := s.Owner()
	if a.Lookahead > 0 {
		x.ctl = make([]*runtime.Handle, nt*(nt+1)/2)
		for m := 1; m < nt; m++ {
			for k := 0; k < m; k++ {
				x.ctl[lower(m, k)] = runtime.NewHandle(fmt.Sprintf("ctl(%d,%d)", m, k), own(m, k))
			}
		}
	}
	if a.HPotrf > 0 {
		x.hsub, x.hcut = map[[2]int][]*runtime.Handle{}, map[int][]int{}
		for k := 0; k < nt; k++ {
			r, n := e.rankOf(k, k), s.Rows(k)
			if n <= a.HPotrf || x.hsub[[2]int{r, n}] != nil {
				continue
			}
			b := insert.SubTiles(n, a.HPotrf)
			var hs []*runtime.Handle
			for i := 0; i+1 < len(b); i++ {
				for j := 0; j <= i; j++ {
					hs = append(hs, e.rt.Register(fmt.Sprintf("hsub%d(%d,%d)", n, i, j), r, runtime.Dense{M: b[i+1] - b[i], N: b[j+1] - b[j]}))
				}
			}
			x.hsub[[2]int{r, n}], x.hcut[n] = hs, b
		}
	}
	counts := map[runtime.Dense]int{}
	for m := 0; m < nt; m++ {
		for n := 0; n <= m; n++ {
			i := lower(m, n)
			if m-n <= x.band {
				x.class[i], x.h[i] = clDense, s.Handle(m, n)
				if e.rt.Size() == 1 || own(m, n) == e.rt.Rank() {
					counts[runtime.Dense{M: s.Rows(m), N: s.Rows(n)}]++
				}
				continue
			}
			name := fmt.Sprintf("A(%d,%d)", m, n)
			switch a.Computation {
			case TLR:
				x.class[i] = clLowRank
				x.h[i] = e.rt.Register(name, own(m, n), runtime.LowRank{M: s.Rows(m), N: s.Rows(n), MaxRank: x.a.MaxRank})
			case MP:
				x.class[i] = clSingle
				x.h[i] = e.rt.Register(name, own(m, n), runtime.Single{M: s.Rows(m), N: s.Rows(n)})
			default:
				x.class[i] = clZero
			}
		}
	}
	for f, k := range counts {
		e.rt.Reserve(f, k)
	}
	x.scratch = e.rt.Register("scratch", 0, runtime.Dense{M: nb, N: nb})
	x.lr = e.rt.Register("lr-scratch", 0, runtime.LowRank{M: nb, N: nb, MaxRank: x.a.MaxRank})
	x.kEst = float64(max(1, nb/8))
	e.ax = x
	return nil
}

// logLikApprox is LogLik for a computation other than Exact: the same
// phases as the exact graph, on tiles of the computation's formats.
func (e *Evaluator) logLikApprox(theta []float64, k matern.Kernel, st Stats) (float64, Stats, error) {
	rt, x := e.rt, e.ax
	t0 := time.Now()
	sent0 := rt.SentBytes()
	rt.Events()
	rt.Traffic()
	rt.SetIteration(e.evals)
	e.submitApproxGeneration(k, e.p.Tau2(theta))
	e.submitObservations()
	e.submitApproxCholesky()
	ts := insert.New(rt, e.kern)
	nt := e.sigma.NT
	for kk := 0; kk < nt; kk++ {
		ts.Det(insert.At(kk, kk, -1, 0), x.h[lower(kk, kk)], e.det.Handle(kk))
	}
	e.submitApproxSolve(e.z)
	solve.SubmitDot(e.z, e.dot, e.kern)
	e.submitCovariatesWith(func(_ int, x *tile.Vector) { e.submitApproxSolve(x) })
	e.det.Fetch()
	e.dot.Fetch()
	err := rt.Wait()
	st.Comm = CommStats(rt.Traffic())
	st.SentBytes = rt.SentBytes() - sent0
	st.Wall = time.Since(t0).Seconds()
	ev := rt.Events()
	for _, v := range ev {
		d := v.Duration()
		switch kind.Phase(v.Kind) {
		case "generation":
			st.Gen += d
		case "cholesky":
			st.Chol += d
			if v.Kind != kind.Trtri {
				st.Flops += v.Flops
			}
		case "solve":
			st.Solve += d
		}
		if v.Kind != trace.MemoryKind {
			st.Tasks++
		}
	}
	if st.Wall > 0 {
		st.Gflops = st.Flops / st.Wall * 1e-9
	}
	if e.keep {
		e.ev = append(e.ev, ev...)
	}
	st.Approx = e.approxStats()
	if st.Approx.MeanRank > 0 {
		x.kEst = st.Approx.MeanRank
	}
	return e.finish(theta, st, err)
}

func (e *Evaluator) submitApproxGeneration(k matern.Kernel, tau2 float64) {
	s, p, x := e.sigma, e.p, e.ax
	ts := insert.New(e.rt, e.kern)
	for _, g := range e.gen {
		m, c := g.m, g.n
		at := insert.At(m, c, -1, g.prio)
		cv := insert.Cov{K: k, Nugget: tau2, Metric: p.Metric, Rows: p.Points, Row0: s.Offset(m),
			Cols: p.Points, Col0: s.Offset(c), Diag: m == c}
		h := x.h[lower(m, c)]
		switch x.class[lower(m, c)] {
		case clDense:
			ts.Dcmg(at, cv, h)
		case clLowRank:
			ts.DcmgLR(at, cv, x.cp, h, x.scratch, x.lr)
		case clSingle:
			ts.DcmgS(at, cv, h, x.scratch)
		}
	}
}

// Priorities of the exact Cholesky (package cholesky, Equations (3)-(6)).
func potrfPrio(nt, k int) int      { return 3 * (nt - k) }
func trsmPrio(nt, k, m int) int    { return 3*(nt-k) - (m - k) }
func syrkPrio(nt, k, n int) int    { return 3*(nt-k) - 2*(n-k) }
func gemmPrio(nt, k, m, n int) int { return 3*(nt-k) - (n - k) - (m - k) }

// rankOf returns the rank that owns tile (m, n): 0 on one rank.
func (e *Evaluator) rankOf(m, n int) int {
	if e.rt.Size() == 1 {
		return 0
	}
	return e.sigma.Owner()(m, n)
}

// submitApproxCholesky inserts the tiled Cholesky on the computation's
// tiles: the loop of package cholesky, each task's kernel chosen by the
// formats of its tiles, and no task on a zero tile. With a lookahead of
// depth D the panel of step k+1 is submitted after step k's updates of
// columns k+1 .. k+D and before the others, which wait for it (see
// Approx.Lookahead); every tile receives its updates in the same order.
func (e *Evaluator) submitApproxCholesky() {
	x := e.ax
	ts := insert.New(e.rt, e.kern)
	nt := e.sigma.NT
	d := x.a.Lookahead
	if d <= 0 {
		for k := 0; k < nt; k++ {
			e.approxPanel(ts, k)
			e.approxUpdate(ts, k, k+1, nt, false)
		}
		return
	}
	e.approxPanel(ts, 0)
	for k := 0; k < nt; k++ {
		hi := min(k+d+1, nt)
		e.approxUpdate(ts, k, k+1, hi, false)
		if k+1 < nt {
			e.approxPanel(ts, k+1)
		}
		e.approxUpdate(ts, k, hi, nt, true)
	}
}

// approxPanel inserts step k's potrf (hierarchical with Approx.HPotrf)
// and panel tasks; with a lookahead each panel task signals its tile's
// ordering handle.
func (e *Evaluator) approxPanel(ts insert.Tasks, k int) {
	s, x, rt := e.sigma, e.ax, e.rt
	nt := s.NT
	cl := func(m, n int) tileClass { return x.class[lower(m, n)] }
	h := func(m, n int) *runtime.Handle { return x.h[lower(m, n)] }
	if sub := x.hsub[[2]int{e.rankOf(k, k), s.Rows(k)}]; sub != nil {
		ts.HierPotrf(insert.At(k, k, k, potrfPrio(nt, k)), h(k, k), sub, x.hcut[s.Rows(k)], k, s.Offset(k))
	} else {
		ts.Potrf(insert.At(k, k, k, potrfPrio(nt, k)), h(k, k), s.Offset(k))
	}
	var w *runtime.Handle
	if k+1 < nt && cl(k+1, k) == clDense {
		w = s.DiagWork(k)
		ts.Trtri(insert.At(k, k, k, potrfPrio(nt, k)), h(k, k), w, s.Offset(k))
	}
	for m := k + 1; m < nt; m++ {
		at := insert.At(m, k, k, trsmPrio(nt, k, m))
		if x.ctl != nil {
			at = at.Signal(x.ctl[lower(m, k)])
		}
		switch cl(m, k) {
		case clDense:
			ts.Trmm(at, blas.Right, blas.Trans, w, h(m, k))
		case clLowRank:
			ts.TrsmLR(at, x.cp, h(k, k), h(m, k), x.kEst)
		case clSingle:
			ts.STrsm(at, h(k, k), h(m, k))
		}
	}
	if w != nil {
		rt.Invalidate(w)
	}
}

// approxUpdate inserts step k's updates of the columns n0 <= n < n1; with
// wait, each update of a tile (m, n) waits for the panel task of step k+1
// on row m when both run on one rank (the lookahead's control dependency).
func (e *Evaluator) approxUpdate(ts insert.Tasks, k, n0, n1 int, wait bool) {
	s, x, rt := e.sigma, e.ax, e.rt
	nt := s.NT
	cl := func(m, n int) tileClass { return x.class[lower(m, n)] }
	h := func(m, n int) *runtime.Handle { return x.h[lower(m, n)] }
	after := func(at insert.Place, m, n int) insert.Place {
		if !wait || cl(m, k+1) == clZero || e.rankOf(m, k+1) != e.rankOf(m, n) {
			return at
		}
		return at.After(x.ctl[lower(m, k+1)])
	}
	for n := n0; n < n1; n++ {
		if cl(n, k) == clZero {
			continue
		}
		at := after(insert.At(n, n, k, syrkPrio(nt, k, n)), n, n)
		switch cl(n, k) {
		case clDense:
			ts.Syrk(at, h(n, k), h(n, n))
		case clLowRank:
			ts.SyrkLR(at, x.cp, h(n, k), h(n, n), x.kEst)
		case clSingle:
			ts.SSyrk(at, h(n, k), h(n, n))
		}
		for m := n + 1; m < nt; m++ {
			if cl(m, k) == clZero || cl(m, n) == clZero {
				continue
			}
			at := after(insert.At(m, n, k, gemmPrio(nt, k, m, n)), m, n)
			switch {
			case cl(m, n) == clLowRank:
				ts.GemmLR(at, x.cp, h(m, k), h(n, k), h(m, n), x.lr, x.kEst)
			case cl(m, k) == clDense && cl(n, k) == clDense && cl(m, n) == clDense:
				ts.Gemm(at, blas.NoTrans, blas.Trans, -1, h(m, k), h(n, k), 1, h(m, n))
			default:
				ts.SGemm(at, h(m, k), h(n, k), h(m, n))
			}
		}
		rt.Flush(h(n, k))
	}
}

// submitApproxSolve inserts z = L^-1 z, right-looking: z_k = L_kk^-1 z_k,
// then z_m -= L_mk z_k for m > k, each z_m updated in submission order.
func (e *Evaluator) submitApproxSolve(z *tile.Vector) {
	x := e.ax
	ts := insert.New(e.rt, e.kern)
	nt := e.sigma.NT
	for k := 0; k < nt; k++ {
		ts.Trsv(insert.At(k, k, -1, 2*nt), x.h[lower(k, k)], z.Handle(k))
		for m := k + 1; m < nt; m++ {
			at := insert.At(m, k, -1, 2*nt-(m-k))
			h := x.h[lower(m, k)]
			switch x.class[lower(m, k)] {
			case clDense:
				ts.Gemv(at, blas.NoTrans, -1, h, z.Handle(k), 1, z.Handle(m))
			case clLowRank:
				ts.GemvLR(at, x.cp, blas.NoTrans, -1, h, z.Handle(k), z.Handle(m), x.kEst)
			case clSingle:
				ts.SGemv(at, -1, h, z.Handle(k), z.Handle(m))
			}
		}
	}
}

// approxStats counts the tiles this rank holds by format, and the ranks.
func (e *Evaluator) approxStats() *ApproxStats {
	x := e.ax
	st := &ApproxStats{Computation: x.a.Computation, Band: x.band}
	var sum float64
	nt := e.sigma.NT
	for m := 0; m < nt; m++ {
		for n := 0; n <= m; n++ {
			i := lower(m, n)
			if x.class[i] == clZero {
				st.Zero++
				continue
			}
			buf := e.rt.Local(x.h[i])
			if buf == nil {
				continue
			}
			f := x.h[i].Format()
			st.Bytes += 8 * int64(len(f.Pack(buf)))
			switch x.class[i] {
			case clDense:
				if m != n {
					st.DenseOff++
				}
			case clSingle:
				st.Single++
			case clLowRank:
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
	x := e.ax
	if x == nil || x.a.Computation != TLR {
		return 0, nil
	}
	nt = e.sigma.NT
	ranks = make([]int, nt*nt)
	for i := range ranks {
		ranks[i] = -2
	}
	for m := 1; m < nt; m++ {
		for n := 0; n < m; n++ {
			i := lower(m, n)
			if x.class[i] != clLowRank {
				continue
			}
			buf := e.rt.Local(x.h[i])
			if buf == nil {
				continue
			}
			lr := x.h[i].Format().(runtime.LowRank)
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

// FactorTile returns the handle of the lower tile (m, n), m >= n, of the
// Cholesky factor held after a successful evaluation, in the format of the
// computation: runtime.Dense (every tile of Exact; the diagonal, and the
// band of MP and DST), runtime.LowRank (the off-diagonal tiles of TLR:
// U V^T, or dense past the maximum rank), runtime.Single (MP's tiles off
// the band), or nil for a tile DST dropped (zero). The solves and products
// of package predict and Simulate work on these tiles, so prediction,
// the Fisher information and simulation use the approximate factor.
func (e *Evaluator) FactorTile(m, n int) *runtime.Handle {
	if e.ax == nil {
		return e.sigma.Handle(m, n)
	}
	if e.ax.class[lower(m, n)] == clZero {
		return nil
	}
	return e.ax.h[lower(m, n)]
}

// Compressor returns the compressor of a TLR evaluator (its accuracy and
// kernels run the low-rank products), and the mean rank of the last
// evaluation's low-rank tiles (an estimate before the first), for the flop
// counts; the zero Compressor and 0 for the other computations.
func (e *Evaluator) Compressor() (tlr.Compressor, float64) {
	if e.ax == nil || e.ax.a.Computation != TLR {
		return tlr.Compressor{}, 0
	}
	return e.ax.cp, e.ax.kEst
}
