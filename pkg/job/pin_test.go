package job

import (
	"slices"
	"strings"
	"testing"

	"github.com/exageostat/exageostat/pkg/topology"
)

// TestPlanPins: the CPUs of a 2-node, 2-core, 2-thread machine for 1 and 2
// ranks of a node (unbound: they split the mask; bound by the launcher:
// each keeps its own), more workers than CPUs, and pinning off.
func TestPlanPins(t *testing.T) {
	var topo topology.Topology
	topo.Nodes = 2
	for id := range 8 {
		topo.CPUs = append(topo.CPUs, topology.CPU{ID: id, Core: id % 2, Package: id % 4 / 2, Node: id % 4 / 2})
	}
	all := []int{0, 1, 2, 3, 4, 5, 6, 7}
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	ids := func(p *pinPlan) []int {
		var out []int
		for _, c := range p.cpus {
			out = append(out, c.ID)
		}
		return out
	}
	for _, c := range []struct {
		name    string
		on      bool
		workers int
		mask    []int
		env     func(string) string
		want    []int
		note    string
	}{
		{"one rank", true, 4, all, env(), []int{0, 1, 2, 3}, "4 worker(s) pinned to CPU(s) 0-3 of 2 NUMA node(s)"},
		{"rank 1 of 2, unbound", true, 2, all, env("OMPI_COMM_WORLD_LOCAL_RANK", "1", "OMPI_COMM_WORLD_LOCAL_SIZE", "2"), []int{2, 3}, "CPU(s) 2-3"},
		{"rank 1 of 2, bound", true, 2, []int{2, 6}, env("OMPI_COMM_WORLD_LOCAL_RANK", "1", "OMPI_COMM_WORLD_LOCAL_SIZE", "2"), []int{2, 6}, "CPU(s) 2,6"},
		{"9 ranks on 8 CPUs", true, 1, all, env("MPI_LOCALRANKID", "3", "MPI_LOCALNRANKS", "9"), nil, "9 ranks on this node share 8 CPUs"},
		{"more workers", true, 10, []int{0, 1}, env(), []int{0, 1}, "8 more not pinned"},
		{"off", false, 2, all, env(), nil, "--pin off"},
		{"no mask", true, 2, nil, env(), nil, "cannot be read"},
	} {
		p := planPins(c.on, c.workers, topo, c.mask, all, c.env)
		if !slices.Equal(ids(p), c.want) || !strings.Contains(p.note, c.note) {
			t.Errorf("%s: CPUs %v (%s); want %v and a note with %q", c.name, ids(p), p.note, c.want, c.note)
		}
	}
}

// TestQuiet: pin auto pins under a load average of half the CPUs.
func TestQuiet(t *testing.T) {
	for _, c := range []struct {
		load float64
		cpus int
		want bool
	}{{0.1, 2, true}, {0.99, 2, true}, {1, 2, false}, {28, 2, false}, {20, 64, true}} {
		if got := quiet(c.load, c.cpus); got != c.want {
			t.Errorf("quiet(%g, %d) = %v", c.load, c.cpus, got)
		}
	}
}
