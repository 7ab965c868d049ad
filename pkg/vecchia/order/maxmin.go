package order

import (
	"math"

	"github.com/exageostat/exageostat/pkg/vecchia/embed"
	"github.com/exageostat/exageostat/pkg/vecchia/kdtree"
)

// Maxmin returns the exact maxmin ordering of c's points: the first is
// First (nearest to the centroid); then, with d_j the distance from point
// j to the nearest point already ordered, the next is the unordered point
// with the largest d_j, ties broken by the smaller index. The distances are compared squared
// (embed.Coords.Dist2), so the ordering is that of the definition computed
// in O(N^2), bitwise (the tests check it).
//
// The computation is farthest-point sampling over a k-d tree (kdtree)
// whose nodes keep the largest d_j below them and where it is: after a
// point p is ordered, only the points j with |p - j| < d_j change (p's
// new Voronoi cell among the ordered points), and a subtree is skipped
// when its largest d_j is at most the distance from p to its box. The
// next point is read at the root. The cells shrink as 1/k (a quasi-uniform
// design), so the updates total O(N log N), each node visit O(1), and the
// memory is the tree: O(N) (Schäfer, Katzfuss and Owhadi 2021, "Sparse
// Cholesky factorization by Kullback-Leibler minimization", SIAM J. Sci.
// Comput. 43, reach the same bound with neighbour lists; the tree gives it
// with less memory).
func Maxmin(c embed.Coords) []int { return MaxminOn(c, 1) }

// MaxminOn is Maxmin with its k-d tree built on workers threads
// (kdtree.NewOn); the ordering itself is sequential. The result does not
// depend on workers.
func MaxminOn(c embed.Coords, workers int) []int { return MaxminEmit(c, workers, nil) }

// MaxminEmit is MaxminOn that calls emit(k, i, x) as soon as the k-th
// point of the ordering is known: point i of c, at x (the tree's copy of
// its coordinates, to be read during the call only), k = 0, 1, ... in
// turn, on the calling goroutine. It reads c only before the first call:
// emit may overwrite c (put the points in the ordering in place), and a
// search over the first points of the ordering may start while the
// ordering goes on.
func MaxminEmit(c embed.Coords, workers int, emit func(k, i int, x []float64)) []int {
	n := c.Len()
	if n == 0 {
		return []int{}
	}
	t := kdtree.NewOn(c, workers)
	m := &maxmin{t: t, d2: make([]float64, n), node: make([]top, t.Nodes())}
	for i := range m.d2 {
		m.d2[i] = math.Inf(1)
	}
	m.update(0, 0, n) // q nil: every node
	first := First(c)
	var p int
	for k, i := range t.Perm {
		if int(i) == first {
			p = k
		}
	}
	perm := make([]int, 0, n)
	for k := range n {
		perm = append(perm, int(t.Perm[p]))
		if emit != nil {
			emit(k, perm[k], t.At(p))
		}
		m.d2[p] = math.Inf(-1) // ordered: never the maximum again
		m.q = t.At(p)
		m.p = p
		m.update(0, 0, n)
		p = int(m.node[0].arg)
	}
	return perm
}

// maxmin is the state of Maxmin: d2[k] is the squared distance from the
// point at tree position k to the ordered set (-Inf once ordered), and
// node[v] the largest d2 under node v and its position.
type maxmin struct {
	t    *kdtree.Tree
	d2   []float64
	node []top
	q    []float64 // the point just ordered
	p    int       // its tree position
}

// top is a node's largest d2 and its tree position (the smallest point
// index among equal maxima; -1 for an empty node).
type top struct {
	max float64
	arg int32
}

// better reports whether position a beats position b as the next point.
func (m *maxmin) better(a, b int32) bool {
	da, db := m.d2[a], m.d2[b]
	return da > db || (da == db && m.t.Perm[a] < m.t.Perm[b])
}

// leaf recomputes a leaf's maximum.
func (m *maxmin) leaf(v, lo, hi int) {
	best := int32(-1)
	for k := lo; k < hi; k++ {
		if best < 0 || m.better(int32(k), best) {
			best = int32(k)
		}
	}
	if best < 0 { // an empty leaf (fewer points than leaves)
		m.node[v] = top{math.Inf(-1), -1}
		return
	}
	m.node[v] = top{m.d2[best], best}
}

// join sets an inner node's maximum from its children's.
func (m *maxmin) join(v int) {
	l, r := m.node[2*v+1], m.node[2*v+2]
	switch {
	case l.max > r.max || r.arg < 0:
		m.node[v] = l
	case l.max < r.max || l.arg < 0:
		m.node[v] = r
	case m.t.Perm[l.arg] < m.t.Perm[r.arg]:
		m.node[v] = l
	default:
		m.node[v] = r
	}
}

// update lowers d2 under node v (positions [lo, hi)) for the point just
// ordered (with q nil it only computes every node's maximum). A node is
// skipped when no d2 under it can drop (its maximum is
// at most the squared distance to its box) and it does not hold the
// ordered point itself.
func (m *maxmin) update(v, lo, hi int) {
	if m.q != nil && (m.p < lo || m.p >= hi) && m.node[v].max <= m.t.MinDist2(m.q, v) {
		return
	}
	if m.t.IsLeaf(v) {
		for k := lo; k < hi && m.q != nil; k++ {
			if d := m.t.Dist2(m.q, k); d < m.d2[k] {
				m.d2[k] = d
			}
		}
		m.leaf(v, lo, hi)
		return
	}
	mid := (lo + hi) / 2
	m.update(2*v+1, lo, mid)
	m.update(2*v+2, mid, hi)
	m.join(v)
}
