package order

import (
	"testing"

	"github.com/exageostat/exageostat/pkg/vecchia/internal/cloud"
)

// BenchmarkMaxmin measures the maxmin ordering of n uniform 2D points:
//
//	go test -run '^$' -bench 'Maxmin/n=1e6$' -benchtime 1x ./pkg/vecchia/order
//
// alloc_MB is what the ordering allocates (the tree, the distances and the
// permutation: O(N)).
func BenchmarkMaxmin(b *testing.B) {
	for _, sz := range []struct {
		name string
		n    int
	}{{"1e5", 100_000}, {"1e6", 1_000_000}, {"1e7", 10_000_000}} {
		b.Run("n="+sz.name, func(b *testing.B) {
			c := cloud.Points("uniform", sz.n, 2, 1)
			cloud.AllocMB(b, func() { Maxmin(c) })
		})
	}
}
