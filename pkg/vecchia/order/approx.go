package order

import (
	"math"
	"math/rand/v2"

	"github.com/exageostat/exageostat/pkg/vecchia/embed"
)

// ApproxNeighbors caps the neighbours ApproxMaxmin looks at: k =
// min(round(sqrt(N)), ApproxNeighbors), so its lists hold at most 400
// bytes a point (GpGp's order_maxmin takes round(sqrt(N)) at every N).
const ApproxNeighbors = 100

// ApproxMaxmin returns an approximate maxmin ordering of c's points in
// the manner of GpGp's order_maxmin (Guinness 2018): start from a
// uniformly random permutation (a PCG seeded by seed) as a queue and walk
// it; a point whose nearest k_j other points include one kept before it
// is moved to the end of the queue, otherwise it keeps its place; k_j =
// round(N / (a + 2)) within [1, k], with a the points kept so far and k =
// min(round(sqrt(N)), ApproxNeighbors): early points keep their place
// only where no earlier point lies among their N/a nearest (about the
// spacing of a well spread set of a points), so they spread over the
// domain as maxmin's do, at the cost of one k-nearest-neighbour search.
// The walk stops after 2N queue positions; the points kept, then those
// still waiting, in queue order, are the ordering. The neighbour lists'
// ties go by the smaller index, so the ordering is a function of the
// coordinates and the seed.
func ApproxMaxmin(c embed.Coords, seed uint64) []int {
	n := c.Len()
	if n < 3 {
		return identity(n)
	}
	k := min(int(math.Round(math.Sqrt(float64(n)))), ApproxNeighbors, n-1)
	nn := nearestOthers(c, k)
	queue := identity(n)
	r := rand.New(rand.NewPCG(seed, 0x6170786d6d))
	r.Shuffle(n, func(i, j int) { queue[i], queue[j] = queue[j], queue[i] })
	return approxFrom(queue, k, func(p int) []int32 { return nn[p*k : (p+1)*k] })
}

// approxFrom walks the queue (a permutation of 0..n-1) as ApproxMaxmin
// describes, near(p) listing p's nearest other points, nearest first.
func approxFrom(queue []int, k int, near func(p int) []int32) []int {
	n := len(queue)
	pos := make([]int, n)
	for j, p := range queue {
		pos[p] = j
	}
	kept := make([]bool, 0, 2*n)
	kept = append(kept, true)
	a := 1
	for j := 1; j < len(queue) && j < 2*n; j++ {
		p := queue[j]
		kj := min(max(int(math.Round(float64(n)/float64(a+2))), 1), k)
		earlier := false
		row := near(p)
		for _, q := range row[:min(kj, len(row))] {
			if pos[q] < j {
				earlier = true
				break
			}
		}
		if earlier {
			pos[p] = len(queue)
			queue = append(queue, p)
		} else {
			a++
		}
		kept = append(kept, !earlier)
	}
	perm := make([]int, 0, n)
	for j, p := range queue {
		if j >= len(kept) || kept[j] {
			perm = append(perm, p)
		}
	}
	return perm
}
