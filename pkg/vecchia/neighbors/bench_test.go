package neighbors

import (
	"fmt"
	"testing"

	"gonum.org/v1/gonum/spatial/kdtree"

	"github.com/exageostat/exageostat/pkg/vecchia/embed"
	"github.com/exageostat/exageostat/pkg/vecchia/internal/cloud"
	"github.com/exageostat/exageostat/pkg/vecchia/order"
)

// sizes are the benchmarks' numbers of points, named so that a -bench
// pattern selects one: 'Conditioning/n=1e6/workers=2$'.
var sizes = []struct {
	name string
	n    int
}{{"1e5", 100_000}, {"1e6", 1_000_000}, {"1e7", 10_000_000}}

// BenchmarkConditioning measures the m = 30 conditioning sets of n
// uniform 2D points in the maxmin ordering (the ordering not timed):
//
//	go test -run '^$' -bench 'Conditioning/n=1e6/workers=2$' -benchtime 1x ./pkg/vecchia/neighbors
func BenchmarkConditioning(b *testing.B) {
	for _, sz := range sizes {
		for _, w := range []int{1, 2} {
			b.Run(fmt.Sprintf("n=%s/workers=%d", sz.name, w), func(b *testing.B) {
				c := cloud.Points("uniform", sz.n, 2, 1)
				c = c.Permute(order.Maxmin(c))
				cloud.AllocMB(b, func() {
					if _, err := Conditioning(c, 30, w); err != nil {
						b.Fatal(err)
					}
				})
			})
		}
	}
}

// BenchmarkKNN compares the k-d trees on the plain query (no ordering):
// the 30 nearest other points of every point, one goroutine, with this
// package's tree (ours) and with gonum's spatial/kdtree (the 31 nearest,
// the point itself included):
//
//	go test -run '^$' -bench 'KNN/n=1e5/' -benchtime 1x ./pkg/vecchia/neighbors
func BenchmarkKNN(b *testing.B) {
	for _, sz := range sizes[:2] {
		c := cloud.Points("uniform", sz.n, 2, 1)
		b.Run("n="+sz.name+"/ours", func(b *testing.B) {
			cloud.AllocMB(b, func() {
				if _, err := NearestOthers(c, 30, 1); err != nil {
					b.Fatal(err)
				}
			})
		})
		b.Run("n="+sz.name+"/gonum", func(b *testing.B) {
			pts := gonumPoints(c)
			cloud.AllocMB(b, func() {
				t := kdtree.New(append(kdtree.Points(nil), pts...), false)
				for _, p := range pts {
					t.NearestSet(kdtree.NewNKeeper(31), p)
				}
			})
		})
	}
}

func gonumPoints(c embed.Coords) kdtree.Points {
	pts := make(kdtree.Points, c.Len())
	for i := range pts {
		pts[i] = kdtree.Point(c.At(i))
	}
	return pts
}
