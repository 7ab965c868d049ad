package likelihood_test

// The task-order test: the graph of one exact evaluation (generation,
// observations' copies, Cholesky, log-determinant, local solve, dot
// products; with and without a mean) is, node for node, the graph the
// program submitted at commit 228d8a6, before the priority policy was
// stated once in pkg/insert (issue 25): the same kinds and tiles in the
// same submission order, the same priorities and the same dependencies.
// The runtime orders ready tasks by priority, then submission order, so
// the exact computation runs its tasks in 228d8a6's order. The graphs
// were written by this same test at that commit:
//
//	git worktree add /tmp/old 228d8a6 && cp pkg/likelihood/order_test.go /tmp/old/pkg/likelihood/
//	cd /tmp/old && go test ./pkg/likelihood -run TestTaskOrder -order.update
//
// and copied into testdata/order/.

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/runtime"
)

var orderUpdate = flag.Bool("order.update", false, "write the task graphs of TestTaskOrder")

// recordedOrder records the graph of one exact evaluation of n grid
// locations in tiles of nb (with a constant mean if mean) and returns one
// line per node: index, kind, tile, priority, dependencies.
func recordedOrder(t *testing.T, n, nb int, mean bool) string {
	t.Helper()
	d := dataset.Grid(n, 1)
	p := likelihood.Problem{Points: matern.Points{X: d.X, Y: d.Y}, Obs: dataset.StandardNormal(n, 1), Model: likelihood.Matern}
	if mean {
		ones := make([]float64, n)
		for i := range ones {
			ones[i] = 1
		}
		p.Covariates = [][]float64{ones}
	}
	rt := runtime.New(runtime.Options{Record: true, Ranks: 1})
	defer rt.Close()
	e, err := likelihood.NewWith(p, rt, likelihood.Options{NB: nb})
	if err != nil {
		t.Fatal(err)
	}
	rt.Graph()
	// A recording runtime computes nothing: l (and, with a mean, the
	// GLS estimate) comes out of no data, so its error says nothing.
	e.LogLik([]float64{1, 0.1, 0.73})
	var b strings.Builder
	for i, nd := range rt.Graph().Nodes {
		fmt.Fprintf(&b, "%d %s%v p=%d deps=%v\n", i, nd.Kind, nd.Tile, nd.Priority, nd.Deps)
	}
	return b.String()
}

func TestTaskOrder(t *testing.T) {
	for _, c := range []struct {
		n, nb int
		mean  bool
	}{{900, 150, false}, {900, 150, true}, {1000, 160, false}} {
		name := fmt.Sprintf("exact-n%d-nb%d-mean%v.txt", c.n, c.nb, c.mean)
		got := recordedOrder(t, c.n, c.nb, c.mean)
		path := filepath.Join("testdata", "order", name)
		if *orderUpdate {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		g, w := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		if len(g) != len(w) {
			t.Errorf("%s: %d graph nodes, 228d8a6 had %d", name, len(g)-1, len(w)-1)
		}
		for i := range min(len(g), len(w)) {
			if g[i] != w[i] {
				t.Errorf("%s: node %s, 228d8a6's was %s", name, g[i], w[i])
				break
			}
		}
	}
}
