package vecchia

import (
	"math"
	"sort"
)

// gridSets returns the m nearest earlier locations of each of the n
// planar points (in their order), nearest first: the earlier points are
// kept in a uniform grid of cells and each point searches rings of cells
// around it until the m-th best distance is within the ring. A test
// helper for large problems (bruteSets is O(n^2)).
func gridSets(x, y []float64, m int) []int32 {
	n := len(x)
	xmin, xmax, ymin, ymax := x[0], x[0], y[0], y[0]
	for i := range x {
		xmin, xmax = math.Min(xmin, x[i]), math.Max(xmax, x[i])
		ymin, ymax = math.Min(ymin, y[i]), math.Max(ymax, y[i])
	}
	side := int(math.Max(1, math.Sqrt(float64(n)/4)))
	w := math.Max(xmax-xmin, ymax-ymin) / float64(side) * (1 + 1e-9)
	if w == 0 {
		w = 1
	}
	cells := make([][]int32, side*side)
	cell := func(v, lo float64) int { return min(side-1, int((v-lo)/w)) }
	sets := make([]int32, n*m)
	type nd struct {
		d float64
		j int32
	}
	best := make([]nd, 0, m+1)
	for i := 0; i < n; i++ {
		cx, cy := cell(x[i], xmin), cell(y[i], ymin)
		best = best[:0]
		for ring := 0; ring <= side; ring++ {
			if len(best) == m && best[m-1].d <= (float64(ring)-1)*w {
				break
			}
			for gx := cx - ring; gx <= cx+ring; gx++ {
				for gy := cy - ring; gy <= cy+ring; gy++ {
					if gx < 0 || gy < 0 || gx >= side || gy >= side || (max(abs(gx-cx), abs(gy-cy)) != ring) {
						continue
					}
					for _, j := range cells[gx*side+gy] {
						dx, dy := x[i]-x[j], y[i]-y[j]
						d := math.Sqrt(dx*dx + dy*dy)
						if len(best) < m || d < best[len(best)-1].d {
							k := sort.Search(len(best), func(a int) bool { return best[a].d > d })
							best = append(best, nd{})
							copy(best[k+1:], best[k:])
							best[k] = nd{d, j}
							if len(best) > m {
								best = best[:m]
							}
						}
					}
				}
			}
		}
		for k := 0; k < m; k++ {
			sets[i*m+k] = -1
			if k < len(best) {
				sets[i*m+k] = best[k].j
			}
		}
		cells[cx*side+cy] = append(cells[cx*side+cy], int32(i))
	}
	return sets
}

func abs(a int) int {
	if a < 0 {
		return -a
	}
	return a
}
