package strategy

import (
	"fmt"
	goruntime "runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/exageostat/exageostat/pkg/config"
)

// Row is one strategy's simulated likelihood evaluation on a cluster.
type Row struct {
	Dist string `json:"distribution"`
	// Makespan is the simulated makespan of one evaluation and IdealLP the
	// linear program's (lp only), in the durations' unit (seconds).
	Makespan float64 `json:"makespan_s"`
	IdealLP  float64 `json:"lp_makespan_s,omitempty"`
	// Moved is the number of tiles that move between the generation and
	// the factorisation, MB the megabytes (1e6 bytes) of all the
	// simulated messages.
	Moved int     `json:"tiles_moved"`
	MB    float64 `json:"mb_moved"`
	Note  string  `json:"note,omitempty"`
	// Err says why the strategy could not be built or simulated (the other
	// fields are then zero).
	Err string `json:"error,omitempty"`
	// Memory is the tile data of each node during the simulated
	// evaluation (MemoryOf of its recorded graph).
	Memory []NodeMemory `json:"-"`
}

// Compare simulates one evaluation of n points with tile size nb on c with
// each strategy of Figure 7, in the order of Names (Best: lp on a mixed
// cluster is the faster of the LP with and without the CPU-only nodes in
// the factorisation, unless excludeCPU forces the latter). A strategy that
// cannot be built or simulated gets a Row with Err set.
func Compare(c config.Cluster, n, nb int, excludeCPU bool) []Row {
	var rows []Row
	for _, name := range Names() {
		p, res, g, err := best(name, c, n, nb, Options{ExcludeCPUOnly: excludeCPU})
		row := Row{Dist: name}
		if err != nil {
			row.Err = err.Error()
		} else {
			row.Makespan, row.IdealLP, row.Moved, row.MB, row.Note = res.Makespan, p.Ideal, p.Moved, float64(res.Bytes)/1e6, p.Note
			row.Memory = MemoryOf(p, n, nb, g)
		}
		rows = append(rows, row)
	}
	return rows
}

// BestRow returns the index of the row with the smallest makespan among
// those without an error (the first of equals), or -1 if every row has
// one: the recommended strategy.
func BestRow(rows []Row) int {
	best := -1
	for i, r := range rows {
		if r.Err == "" && (best < 0 || r.Makespan < rows[best].Makespan) {
			best = i
		}
	}
	return best
}

// Subset is one choice of nodes of a cluster, a count per group, with one
// strategy's simulated makespan on them.
type Subset struct {
	Nodes    []int   `json:"nodes_per_group"` // nodes taken from each group of the cluster, in its order
	Total    int     `json:"nodes"`           // their sum
	Dist     string  `json:"distribution"`
	Makespan float64 `json:"makespan_s"`
}

// Subsets is capacity planning: it simulates one evaluation of n points
// with tile size nb on every non-empty choice of at most k of c's nodes
// (0 <= count_g <= nodes_g per group g, sum_g count_g <= k) with the 1d1d
// and lp strategies (Best), on all cores, and returns one Subset per
// choice and strategy that could be simulated, by increasing makespan
// (ties in enumeration order: group counts in lexicographic order, 1d1d
// before lp). progress, if not nil, gets a line per choice done (called
// by one goroutine at a time).
func Subsets(c config.Cluster, n, nb, k int, excludeCPU bool, progress func(string)) []Subset {
	var subsets [][]int
	counts := make([]int, len(c.Groups))
	var rec func(g, total int)
	rec = func(g, total int) {
		if g == len(c.Groups) {
			if total > 0 {
				subsets = append(subsets, append([]int(nil), counts...))
			}
			return
		}
		for m := 0; m <= c.Groups[g].Nodes && total+m <= k; m++ {
			counts[g] = m
			rec(g+1, total+m)
		}
		counts[g] = 0
	}
	rec(0, 0)
	names := []string{"1d1d", "lp"}
	found := make([][]Subset, len(subsets))
	var next, done atomic.Int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range min(goruntime.NumCPU(), len(subsets)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(subsets) {
					return
				}
				sub := SubsetCluster(c, subsets[i])
				total := sub.Nodes
				for _, name := range names {
					_, res, err := Best(name, sub, n, nb, Options{ExcludeCPUOnly: excludeCPU})
					if err != nil {
						continue
					}
					found[i] = append(found[i], Subset{Nodes: subsets[i], Total: total, Dist: name, Makespan: res.Makespan})
				}
				if progress != nil {
					mu.Lock()
					progress(fmt.Sprintf("subset %d/%d: %s", done.Add(1), len(subsets), DescribeSubset(c, subsets[i])))
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	var rows []Subset
	for _, f := range found {
		rows = append(rows, f...)
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Makespan < rows[j].Makespan })
	return rows
}

// SubsetCluster returns the cluster made of the first nodes[g] nodes of
// each group g of c (groups with none left out; their host names, if
// given, are the first nodes[g] ones), numbered group by group as c is.
func SubsetCluster(c config.Cluster, nodes []int) config.Cluster {
	sub := c
	sub.Groups, sub.Nodes = nil, 0
	for g, m := range nodes {
		if m > 0 {
			gg := c.Groups[g]
			gg.Nodes = m
			if len(gg.Hosts) >= m {
				gg.Hosts = slices.Clone(gg.Hosts[:m])
			}
			sub.Groups = append(sub.Groups, gg)
			sub.Nodes += m
		}
	}
	return sub
}

// Hosts returns the host name of each node of c in rank order: a group's
// hosts key, or "<group name>-<i>" (i from 1) for a group without one; and
// whether every name came from a hosts key.
func Hosts(c config.Cluster) ([]string, bool) {
	var out []string
	named := true
	for _, g := range c.Groups {
		for i := range g.Nodes {
			if i < len(g.Hosts) {
				out = append(out, g.Hosts[i])
			} else {
				out = append(out, fmt.Sprintf("%s-%d", g.Name, i+1))
				named = false
			}
		}
	}
	return out, named
}

// GroupCounts returns the number of nodes of each group of c: the Subset
// of all its nodes.
func GroupCounts(c config.Cluster) []int {
	n := make([]int, len(c.Groups))
	for i, g := range c.Groups {
		n[i] = g.Nodes
	}
	return n
}

// DescribeSubset names a choice of nodes per group of c, such as
// "1 chetemi + 2 chifflet" (groups with no node left out).
func DescribeSubset(c config.Cluster, nodes []int) string {
	var parts []string
	for i, n := range nodes {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, c.Groups[i].Name))
		}
	}
	return strings.Join(parts, " + ")
}

// CheckFigure7 reports whether the makespans of the strategies (keyed by
// Names) order as Figure 7 of seed 000 does on its mixes of machines:
// block-cyclic (bc over all nodes, bc-fast over the fastest group) is
// slower than the better of 1d1d and lp, and lp is no slower than 1d1d.
// It returns nil when they do, else an error saying which comparison fails.
func CheckFigure7(ms map[string]float64) error {
	for _, name := range Names() {
		if _, ok := ms[name]; !ok {
			return fmt.Errorf("no makespan for %s", name)
		}
	}
	best := min(ms["1d1d"], ms["lp"])
	if ms["bc"] <= best || ms["bc-fast"] <= best {
		return fmt.Errorf("block-cyclic is the best: bc %.4g s, bc-fast %.4g s, 1d1d %.4g s, lp %.4g s", ms["bc"], ms["bc-fast"], ms["1d1d"], ms["lp"])
	}
	if ms["lp"] > ms["1d1d"] {
		return fmt.Errorf("lp %.4g s slower than 1d1d %.4g s", ms["lp"], ms["1d1d"])
	}
	return nil
}
