package tlr

import (
	"math"
	"testing"

	"github.com/exageostat/exageostat/pkg/matern"
)

// TestModelNB: equation (2) of seed 002 by hand: N = 16000, k = 50 on one
// node gives sqrt(3 16000 50 (3 + sqrt(41)) / 4) = 2375.26...; on 4 nodes
// sqrt(3 16000 50 (3 + sqrt(137)) / 16) = 1445.9...
func TestModelNB(t *testing.T) {
	for _, c := range []struct {
		n     int
		k     float64
		nodes int
		want  float64
	}{
		{16000, 50, 1, math.Sqrt(3 * 16000 * 50 * (3 + math.Sqrt(41)) / 4)},
		{16000, 50, 4, math.Sqrt(3 * 16000 * 50 * (3 + math.Sqrt(137)) / 16)},
		{100000, 30, 16, math.Sqrt(3 * 100000 * 30 * (3 + math.Sqrt(521)) / 64)},
	} {
		if got := ModelNB(c.n, c.k, c.nodes); math.Abs(got-c.want) > 1e-9*c.want {
			t.Errorf("ModelNB(%d, %g, %d) = %g, want %g", c.n, c.k, c.nodes, got, c.want)
		}
	}
	if got := ModelNB(16000, 50, 1); math.Abs(got-2375.26) > 0.01 {
		t.Errorf("ModelNB(16000, 50, 1) = %g, want about 2375.26", got)
	}
}

// TestSampleRank: the sampled mean rank of ACA equals, to one unit, the
// mean over the same tiles of the truncated SVD's rank (the smallest
// rank meeting the accuracy), and it grows with the tile size.
// TestFullTiles: 4000 points near 976 are 4 tiles of 1000; 16000 near
// 1929 are 8 of 2000; 1000 near 300 are 3 tiles of 334 (the last 332).
func TestFullTiles(t *testing.T) {
	for _, c := range []struct{ n, nb, want int }{{4000, 976, 1000}, {16000, 1929, 2000}, {1000, 300, 334}, {100, 500, 100}} {
		if got := FullTiles(c.n, c.nb); got != c.want {
			t.Errorf("FullTiles(%d, %d) = %d, want %d", c.n, c.nb, got, c.want)
		}
	}
}

func TestSampleRank(t *testing.T) {
	const n = 2048
	pts := matern.Points{X: make([]float64, n), Y: make([]float64, n)}
	side := 64
	for i := range n {
		pts.X[i], pts.Y[i] = float64(i%side)/float64(side), float64(i/side)/float64(2*side)
	}
	k, err := matern.NewMatern(matern.Theta{Sigma2: 1, Beta: 0.1, Nu: 0.5}, 2)
	if err != nil {
		t.Fatal(err)
	}
	aca, svd := New(ACA, 1e-9), New(SVD, 1e-9)
	ra := SampleRank(aca, k, matern.Euclidean, pts, 256, 12, 3)
	rs := SampleRank(svd, k, matern.Euclidean, pts, 256, 12, 3)
	if !(ra > 0) || math.Abs(ra-rs) > 1+0.05*rs {
		t.Errorf("mean rank at nb = 256: ACA %g, SVD %g", ra, rs)
	}
	if r128 := SampleRank(svd, k, matern.Euclidean, pts, 128, 12, 3); !(r128 < rs) {
		t.Errorf("mean rank at nb = 128 %g, at 256 %g: want it to grow with the tile", r128, rs)
	}
	// AutoNB: the model's nb of the mean rank sampled at 4 sqrt(N) = 181
	// -> 176, the rank SampleRank gives there, clamped to [160, min(1024,
	// n/2)] and cut into equal tiles.
	if got := SampleNB(n); got != 176 {
		t.Errorf("SampleNB(%d) = %d, want 176", n, got)
	}
	nb, r := AutoNB(aca, k, matern.Euclidean, pts, 1, 160, 1024, 8, 3)
	want := FullTiles(n, min(max(int(math.Round(ModelNB(n, r, 1))), 160), 1024, n/2))
	if r != SampleRank(aca, k, matern.Euclidean, pts, 176, 8, 3) || nb != want {
		t.Errorf("AutoNB = %d from mean rank %g, want %d", nb, r, want)
	}
}
