package neighbors

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/vecchia/embed"
	"github.com/exageostat/exageostat/pkg/vecchia/order"
)

var update = flag.Bool("update", false, "rewrite testdata/r/vecchia_*_sets.txt")

// TestGpGpSetsFiles checks that the sets files of the GpGp references
// (testdata/r/vecchia_loglik.R reads them as GpGp's NNarray) are what the
// maxmin ordering and the m = 30 conditioning sets of their data give, so
// pkg/vecchia's comparisons with GpGp run on our sets; -update writes
// them. The R script checks them independently: it recomputes the maxmin
// ordering and the sets by brute force in base R and stops unless they
// are the file's.
func TestGpGpSetsFiles(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "testdata", "r")
	for _, name := range []string{"n500"} {
		d, err := dataset.ReadCSV(filepath.Join(dir, "vecchia_"+name+".csv"))
		if err != nil {
			t.Fatal(err)
		}
		c, err := embed.Embed(matern.Points{X: d.X, Y: d.Y}, matern.Euclidean, embed.Frame{})
		if err != nil {
			t.Fatal(err)
		}
		perm, err := order.Order(c, order.MaxMin, 0)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Conditioning(c.Permute(perm), 30, 0)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := Write(&b, perm, s); err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(dir, "vecchia_"+name+"_sets.txt")
		if *update {
			if err := os.WriteFile(f, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		old, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(old, b.Bytes()) {
			t.Errorf("%s differs from the ordering and sets of its data (go test -run TestGpGpSetsFiles -update rewrites it)", f)
		}
	}
}
