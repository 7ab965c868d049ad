package order

import (
	"math"

	"github.com/exageostat/exageostat/pkg/vecchia/embed"
	"github.com/exageostat/exageostat/pkg/vecchia/kdtree"
)

// nearestOthers returns, for each point i of c, its min(k, n-1) nearest
// other points (indices into c), nearest first, ties by the smaller
// index: row i is out[i*k : (i+1)*k]. (neighbors.NearestOthers computes
// the same rows; package neighbors imports this one in its tests.)
func nearestOthers(c embed.Coords, k int) []int32 {
	n := c.Len()
	k = min(k, n-1)
	out := make([]int32, 0, n*k)
	if k <= 0 {
		return out
	}
	t := kdtree.New(c)
	s := &knn{t: t, k: k}
	for i := range n {
		s.best = s.best[:0]
		s.q, s.skip = c.At(i), int32(i)
		s.visit(0, 0, n)
		for _, b := range s.best {
			out = append(out, b.idx)
		}
	}
	return out
}

// knn is one k-nearest query over a tree: best holds the candidates
// sorted by (squared distance, index).
type knn struct {
	t    *kdtree.Tree
	k    int
	q    []float64
	skip int32
	best []knnCand
}

type knnCand struct {
	d2  float64
	idx int32
}

// bound returns the squared distance a point must not exceed to enter.
func (s *knn) bound() float64 {
	if len(s.best) < s.k {
		return math.Inf(1)
	}
	return s.best[len(s.best)-1].d2
}

// visit searches node v (tree positions [lo, hi)), the nearer child first.
func (s *knn) visit(v, lo, hi int) {
	if s.t.MinDist2(s.q, v) > s.bound() {
		return
	}
	if s.t.IsLeaf(v) {
		for p := lo; p < hi; p++ {
			if i := s.t.Perm[p]; i != s.skip {
				s.offer(knnCand{s.t.Dist2(s.q, p), i})
			}
		}
		return
	}
	mid := (lo + hi) / 2
	l, r := 2*v+1, 2*v+2
	if s.t.MinDist2(s.q, r) < s.t.MinDist2(s.q, l) {
		s.visit(r, mid, hi)
		s.visit(l, lo, mid)
		return
	}
	s.visit(l, lo, mid)
	s.visit(r, mid, hi)
}

// offer inserts c in order when it beats the k-th candidate.
func (s *knn) offer(c knnCand) {
	less := func(a, b knnCand) bool { return a.d2 < b.d2 || (a.d2 == b.d2 && a.idx < b.idx) }
	if len(s.best) == s.k && !less(c, s.best[s.k-1]) {
		return
	}
	if len(s.best) < s.k {
		s.best = append(s.best, c)
	}
	j := len(s.best) - 1
	for j > 0 && less(c, s.best[j-1]) {
		s.best[j] = s.best[j-1]
		j--
	}
	s.best[j] = c
}
