// Package cloud makes the point sets of the Vecchia packages' tests and
// benchmarks.
package cloud

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/exageostat/exageostat/pkg/vecchia/embed"
)

// Points returns n points of dimension dim of a kind: "uniform" in the
// unit cube, "grid" (a regular grid: many equal distances), "cluster" (5
// tight clusters) or "dup" (coordinates in 0..6: many duplicated
// locations).
func Points(kind string, n, dim int, seed uint64) embed.Coords {
	r := rand.New(rand.NewPCG(seed, 7))
	c := embed.Coords{Dim: dim, V: make([]float64, n*dim)}
	side := int(math.Ceil(math.Pow(float64(n), 1/float64(dim))))
	for i := range n {
		v := c.V[i*dim : (i+1)*dim]
		for k := range v {
			switch kind {
			case "grid":
				v[k] = float64(i/int(math.Pow(float64(side), float64(k)))%side) / float64(side)
			case "cluster":
				v[k] = float64(i%5) + 0.01*r.NormFloat64()
			case "dup":
				v[k] = float64(r.IntN(7))
			default:
				v[k] = r.Float64()
			}
		}
	}
	return c
}

// AllocMB runs the benchmark loop over run and reports what it allocated
// per iteration, in MiB, as alloc_MB.
func AllocMB(b *testing.B, run func()) {
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	for b.Loop() {
		run()
	}
	runtime.ReadMemStats(&m1)
	b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/float64(b.N)/(1<<20), "alloc_MB")
}
