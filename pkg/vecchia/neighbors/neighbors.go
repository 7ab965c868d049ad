// Package neighbors finds the conditioning sets of Vecchia's
// approximation: for the point at position i of an ordering, the m points
// nearest to it among positions 0..i-1 (all of them when i <= m), nearest
// first, ties broken by the smaller position. The likelihood then
// factors as prod_i p(z_i | z_{c(i)}) over these sets c(i).
//
// The search runs on a k-d tree (package kdtree) whose nodes also keep
// the smallest position below them, so a subtree of later points only is
// never entered, and the Sets are stored flat: N rows of M int32 positions
// (4 N M bytes, no per-point slices).
package neighbors

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/exageostat/exageostat/pkg/vecchia/embed"
	"github.com/exageostat/exageostat/pkg/vecchia/kdtree"
)

// Sets holds the conditioning sets of N points in an ordering: row i, the
// set of the point at position i, is Idx[i*M : (i+1)*M], positions j < i
// nearest first, padded with -1 after the last.
type Sets struct {
	N, M int
	Idx  []int32
}

// NewSets returns n empty rows of width m.
func NewSets(n, m int) *Sets {
	s := &Sets{N: n, M: m, Idx: make([]int32, n*m)}
	for k := range s.Idx {
		s.Idx[k] = -1
	}
	return s
}

// Row returns the conditioning set of the point at position i (a slice
// of Idx: do not modify).
func (s *Sets) Row(i int) []int32 {
	r := s.Idx[i*s.M : (i+1)*s.M : (i+1)*s.M]
	for k, j := range r {
		if j < 0 {
			return r[:k]
		}
	}
	return r
}

// Prefix returns the sets cut to their first m entries (m <= s.M). For
// the sets of Conditioning, whose rows hold the nearest earlier positions
// in a strict order (squared distance, then position), they are bitwise
// the sets that Conditioning finds with m: the m nearest of the M
// nearest are the m nearest.
func (s *Sets) Prefix(m int) *Sets {
	out := &Sets{N: s.N, M: m, Idx: make([]int32, s.N*m)}
	for i := 0; i < s.N; i++ {
		copy(out.Idx[i*m:(i+1)*m], s.Idx[i*s.M:i*s.M+m])
	}
	return out
}

// Check reports the first row that is not a conditioning set: an entry
// that is not an earlier position, a repeated entry, or an entry after
// the padding.
func (s *Sets) Check() error {
	if s.N < 0 || s.M < 0 || len(s.Idx) != s.N*s.M {
		return fmt.Errorf("neighbors: %d entries for %d rows of %d", len(s.Idx), s.N, s.M)
	}
	for i := range s.N {
		r := s.Idx[i*s.M : (i+1)*s.M]
		row := s.Row(i)
		for k, j := range row {
			if int(j) >= i {
				return fmt.Errorf("neighbors: row %d: position %d is not earlier", i, j)
			}
			for _, o := range row[:k] {
				if o == j {
					return fmt.Errorf("neighbors: row %d: position %d twice", i, j)
				}
			}
		}
		for _, j := range r[len(row):] {
			if j != -1 {
				return fmt.Errorf("neighbors: row %d: entry %d after the padding", i, j)
			}
		}
	}
	return nil
}

// MaxM is the largest set size the searches accept.
const MaxM = 1 << 16

// checkArgs checks a search over n points for sets of size m.
func checkArgs(n, m int) error {
	if m < 0 || m > MaxM {
		return fmt.Errorf("neighbors: m = %d: want 0 <= m <= %d", m, MaxM)
	}
	if n > math.MaxInt32 {
		return errors.New("neighbors: more than 2^31-1 points")
	}
	return nil
}

// Conditioning returns the conditioning sets of size m of the points of c,
// given in the ordering (point i is at position i): row i holds the
// min(i, m) positions j < i nearest to point i, by increasing squared
// distance (embed.Coords.Dist2) and, among equal distances, increasing
// position. workers goroutines share the rows (0: one per core); the
// result does not depend on their number.
func Conditioning(c embed.Coords, m, workers int) (*Sets, error) {
	return ConditioningOf(c, nil, m, workers)
}

// ConditioningOf returns the rows of the positions rows (increasing; nil:
// every position) of Conditioning(c, m, workers), bitwise: row k of the
// result is position rows[k]'s set. A rank of a distributed run finds
// the sets of its own locations so, from the coordinates of every point.
func ConditioningOf(c embed.Coords, rows []int32, m, workers int) (*Sets, error) {
	return conditioningOf(c, rows, m, workers, nil, nil)
}

// ConditioningWhile is Conditioning(c, m, workers) over coordinates that
// another goroutine is still writing in the ordering (the ordering's
// points as it finds them: order.MaxminEmit). Before it reads the first
// hi positions of c, it calls ready(hi), which must return once they are
// written (with a happens-before edge: a mutex or a channel); the writer
// closes done once every position is written. Until then the search
// runs on workers-1 threads (at least one), leaving the writer a core;
// the last thread joins the search under way when done closes. The sets
// are Conditioning's, bitwise.
func ConditioningWhile(c embed.Coords, m, workers int, ready func(hi int), done <-chan struct{}) (*Sets, error) {
	return conditioningOf(c, nil, m, workers, ready, done)
}

// conditioningOf is ConditioningOf, with ready and done (nil: c is
// final) as ConditioningWhile's.
func conditioningOf(c embed.Coords, rows []int32, m, workers int, ready func(hi int), done <-chan struct{}) (*Sets, error) {
	n := c.Len()
	if err := checkArgs(n, m); err != nil {
		return nil, err
	}
	at := func(i int32) int { return int(i) } // the result's row of position i (-1: none)
	nr := n
	if rows != nil {
		nr = len(rows)
		idx := make([]int32, n)
		for k := range idx {
			idx[k] = -1
		}
		for k, i := range rows {
			if i < 0 || int(i) >= n || (k > 0 && i <= rows[k-1]) {
				return nil, fmt.Errorf("neighbors: rows %d after %d of %d points: want increasing positions", i, rows[max(k-1, 0)], n)
			}
			idx[i] = int32(k)
		}
		at = func(i int32) int { return int(idx[i]) }
	}
	s := &Sets{N: nr, M: m, Idx: make([]int32, nr*m)}
	for i := range min(n, m) { // only the first m positions' rows are short
		if k := at(int32(i)); k >= 0 {
			for j := range m {
				s.Idx[k*m+j] = -1
			}
		}
	}
	if nr == 0 || m == 0 {
		return s, nil
	}
	// The rows of positions [lo, hi) search a tree over the prefix
	// [0, hi) with hi = 2 lo: at least half its points are candidates, so
	// an early point does not walk down subtrees of later points only.
	// The trees are built one after the other (peak memory: the last,
	// over all points; time: about twice one tree's).
	for lo := 0; lo < n; {
		hi := min(n, max(2*lo, firstPrefix))
		if rows != nil && !anyIn(rows, lo, hi) {
			lo = hi
			continue
		}
		w, late := threads(workers), done
		if ready != nil {
			ready(hi)
		}
		select {
		case <-late: // nil: never; closed: the writer is done
			late = nil
		default:
		}
		tw := w
		if late != nil {
			tw = max(w-1, 1)
		}
		t := kdtree.NewOn(embed.Coords{Dim: c.Dim, V: c.V[:hi*c.Dim]}, tw)
		// In tree order: consecutive queries are neighbours in space and
		// walk the same nodes (far fewer cache misses than in the
		// ordering, which jumps across the domain).
		forEach(t, hi, m, w, late, func(q *query, p int) {
			i := t.Perm[p]
			if k := at(i); int(i) >= lo && k >= 0 {
				q.run(t.At(p), i, -1, min(int(i), m))
				fill(s, k, q.best)
			}
		})
		lo = hi
	}
	return s, nil
}

// anyIn reports whether increasing rows hold a position in [lo, hi).
func anyIn(rows []int32, lo, hi int) bool {
	k, _ := slices.BinarySearch(rows, int32(lo))
	return k < len(rows) && int(rows[k]) < hi
}

// firstPrefix is the number of points of Conditioning's first tree.
const firstPrefix = 256

// fill writes the positions of best into row i of s.
func fill(s *Sets, i int, best []cand) {
	row := s.Idx[i*s.M : (i+1)*s.M]
	for k, b := range best {
		row[k] = b.pos
	}
}

// forEach calls fn(q, j) for j = 0..count-1 on workers goroutines (0: one
// per core), each with its own query over t, in chunks. With late not
// nil, one of them (when there are two or more) starts only once late is
// closed, taking the chunks left then.
func forEach(t *kdtree.Tree, count, m, workers int, late <-chan struct{}, fn func(q *query, j int)) {
	workers = threads(workers)
	minPos := make([]int32, t.Nodes())
	setMinPos(t, minPos, 0, 0, t.Len())
	const chunk = 2048
	var next atomic.Int64
	run := func() {
		q := &query{t: t, minPos: minPos, best: make([]cand, 0, m)}
		for {
			start := int(next.Add(chunk)) - chunk
			if start >= count {
				return
			}
			for j := start; j < min(start+chunk, count); j++ {
				fn(q, j)
			}
		}
	}
	eager := workers
	if workers < 2 {
		late = nil
	} else if late != nil {
		eager--
	}
	var wg sync.WaitGroup
	for range eager {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run()
		}()
	}
	if late == nil {
		wg.Wait()
		return
	}
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		select {
		case <-late:
			run()
		case <-stop:
		}
	}()
	wg.Wait()
	close(stop)
	<-stopped
}

// threads returns workers, or one per core when workers <= 0.
func threads(workers int) int {
	if workers <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return workers
}

// setMinPos sets minPos[v] to the smallest point index (position) under
// node v, positions [lo, hi) of the tree order.
func setMinPos(t *kdtree.Tree, minPos []int32, v, lo, hi int) int32 {
	mp := int32(1<<31 - 1)
	if t.IsLeaf(v) {
		for _, i := range t.Perm[lo:hi] {
			mp = min(mp, i)
		}
	} else {
		mid := (lo + hi) / 2
		mp = min(setMinPos(t, minPos, 2*v+1, lo, mid), setMinPos(t, minPos, 2*v+2, mid, hi))
	}
	minPos[v] = mp
	return mp
}

// cand is a candidate neighbour: its squared distance and position.
type cand struct {
	d2  float64
	pos int32
}

func (a cand) less(b cand) bool { return a.d2 < b.d2 || (a.d2 == b.d2 && a.pos < b.pos) }

// query is one worker's search state: best holds the k best candidates
// so far, sorted (nearest first).
type query struct {
	t      *kdtree.Tree
	minPos []int32
	best   []cand
	k      int
	limit  int32 // only positions < limit are candidates
	skip   int32 // nor this one (-1: none)
	q      []float64
}

// run finds the k nearest points to q among positions < limit other
// than skip.
func (s *query) run(q []float64, limit, skip int32, k int) {
	s.q, s.limit, s.skip, s.k, s.best = q, limit, skip, k, s.best[:0]
	if k > 0 && s.minPos[0] < limit {
		s.visit(0, 0, s.t.Len())
	}
}

// visit searches node v (tree positions [lo, hi)), nearer child first; a
// child is skipped when it holds only later positions or when its box is
// farther than the k-th best (equal distances are visited: a tie with a
// smaller position wins).
func (s *query) visit(v, lo, hi int) {
	t := s.t
	if t.IsLeaf(v) {
		for p := lo; p < hi; p++ {
			if pos := t.Perm[p]; pos < s.limit && pos != s.skip {
				s.offer(cand{t.Dist2(s.q, p), pos})
			}
		}
		return
	}
	mid := (lo + hi) / 2
	l, r := 2*v+1, 2*v+2
	dl, dr := t.MinDist2(s.q, l), t.MinDist2(s.q, r)
	if dr < dl {
		if s.open(r, dr) {
			s.visit(r, mid, hi)
		}
		if s.open(l, dl) {
			s.visit(l, lo, mid)
		}
		return
	}
	if s.open(l, dl) {
		s.visit(l, lo, mid)
	}
	if s.open(r, dr) {
		s.visit(r, mid, hi)
	}
}

// open reports whether node v, at squared distance d2 from the query,
// can hold a better candidate.
func (s *query) open(v int, d2 float64) bool {
	return s.minPos[v] < s.limit && (len(s.best) < s.k || d2 <= s.best[s.k-1].d2)
}

// offer inserts c into the sorted best list if it is among the k best.
func (s *query) offer(c cand) {
	b := s.best
	if len(b) == s.k {
		if w := b[s.k-1]; c.d2 > w.d2 || !c.less(w) {
			return
		}
		b = b[:s.k-1]
	}
	k := len(b)
	b = append(b, c)
	for k > 0 && c.less(b[k-1]) {
		b[k] = b[k-1]
		k--
	}
	b[k] = c
	s.best = b
}

// Nearest returns, for each point k of queries, the min(m, data.Len())
// points of data nearest to it: row k holds their indices into data by
// increasing squared distance, ties by the smaller index (the sets of
// prediction at new locations). The rows are not conditioning sets
// (Sets.Check does not apply).
func Nearest(data, queries embed.Coords, m, workers int) (*Sets, error) {
	if err := checkArgs(data.Len(), m); err != nil {
		return nil, err
	}
	if queries.Dim != data.Dim && queries.Len() > 0 {
		return nil, fmt.Errorf("neighbors: query points of dimension %d, data of %d", queries.Dim, data.Dim)
	}
	nq := queries.Len()
	s := NewSets(nq, m)
	k := min(m, data.Len())
	if k == 0 {
		return s, nil
	}
	t := kdtree.NewOn(data, threads(workers))
	forEach(t, nq, m, workers, nil, func(q *query, j int) {
		q.run(queries.At(j), math.MaxInt32, -1, k)
		fill(s, j, q.best)
	})
	return s, nil
}

// NearestOthers returns, for each point i of c, the min(m, n-1) other
// points of c nearest to it (indices into c, by increasing squared
// distance, ties by the smaller index): the sets of leave-one-out
// prediction. Rows are not conditioning sets (Sets.Check does not apply).
func NearestOthers(c embed.Coords, m, workers int) (*Sets, error) {
	n := c.Len()
	if err := checkArgs(n, m); err != nil {
		return nil, err
	}
	s := NewSets(n, m)
	k := min(m, n-1)
	if k <= 0 {
		return s, nil
	}
	t := kdtree.NewOn(c, threads(workers))
	forEach(t, n, m, workers, nil, func(q *query, p int) {
		i := t.Perm[p] // in tree order, for locality
		q.run(t.At(p), math.MaxInt32, i, k)
		fill(s, int(i), q.best)
	})
	return s, nil
}
