package vecchia

import (
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/vecchia/embed"
	"github.com/exageostat/exageostat/pkg/vecchia/kdtree"
)

// cellsOf returns the cell of each of the ordered locations locs and the
// number of cells: the nodes of a k-d tree over the locations (kdtree.New
// on their coordinates in metric's plain frame, embed.Embed) at the first
// depth where each holds at most size locations, numbered from left to
// right (neighbouring cells are near in space). The cells depend only on
// the locations and size: every rank of a run computes the same.
func cellsOf(locs matern.Points, metric matern.Metric, size int) ([]int32, int, error) {
	n := locs.Len()
	cell := make([]int32, n)
	nc := 1
	for n > nc*size {
		nc *= 2
	}
	if nc == 1 {
		return cell, 1, nil
	}
	c, err := embed.Embed(locs, metric, embed.Frame{})
	if err != nil {
		return nil, 0, err
	}
	t := kdtree.New(c)
	for j := range nc {
		lo, hi := t.Range(nc - 1 + j)
		for _, i := range t.Perm[lo:hi] {
			cell[i] = int32(j)
		}
	}
	return cell, nc, nil
}
