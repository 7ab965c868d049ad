// Package topology reads which CPUs a process may run on, how they group
// into cores and NUMA nodes, and pins threads to CPUs and memory to nodes
// (what hwloc reports and does, read from Linux's sysfs and done with
// sched_setaffinity and mbind): the runtime pins each worker to one core
// of the process's affinity mask and places a worker's tile buffers on its
// NUMA node.
package topology

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// CPU is one logical CPU (a hardware thread): its id, the core it belongs
// to (id within its package), its package, and its NUMA node.
type CPU struct {
	ID, Core, Package, Node int
}

// Topology is the machine's CPUs, in id order, and its number of NUMA
// nodes (1 where the system shows none).
type Topology struct {
	CPUs  []CPU
	Nodes int
}

// Sysfs is where Linux shows the topology.
const Sysfs = "/sys/devices/system"

// Read reads the topology under root (Sysfs; another root in tests):
// root/cpu/online, root/cpu/cpuN/topology/{core_id,physical_package_id}
// and root/node/nodeK/cpulist.
func Read(root string) (Topology, error) {
	on, err := os.ReadFile(filepath.Join(root, "cpu", "online"))
	if err != nil {
		return Topology{}, fmt.Errorf("topology: %w", err)
	}
	ids, err := ParseList(strings.TrimSpace(string(on)))
	if err != nil {
		return Topology{}, fmt.Errorf("topology: %s/cpu/online: %v", root, err)
	}
	t := Topology{Nodes: 1}
	node := map[int]int{}
	nodes, _ := filepath.Glob(filepath.Join(root, "node", "node[0-9]*"))
	for _, d := range nodes {
		k, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(d), "node"))
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(d, "cpulist"))
		if err != nil {
			continue
		}
		cs, err := ParseList(strings.TrimSpace(string(b)))
		if err != nil {
			return Topology{}, fmt.Errorf("topology: %s/cpulist: %v", d, err)
		}
		for _, c := range cs {
			node[c] = k
		}
		t.Nodes = max(t.Nodes, k+1)
	}
	for _, id := range ids {
		c := CPU{ID: id, Core: id, Node: node[id]}
		dir := filepath.Join(root, "cpu", fmt.Sprintf("cpu%d", id), "topology")
		if v, ok := readInt(filepath.Join(dir, "core_id")); ok {
			c.Core = v
		}
		if v, ok := readInt(filepath.Join(dir, "physical_package_id")); ok {
			c.Package = v
		}
		t.CPUs = append(t.CPUs, c)
	}
	return t, nil
}

func readInt(path string) (int, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	v, err := strconv.Atoi(strings.TrimSpace(string(b)))
	return v, err == nil
}

// ParseList parses a CPU list as Linux writes it ("0-3,8,10-11").
func ParseList(s string) ([]int, error) {
	var out []int
	if s == "" {
		return nil, nil
	}
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 {
			return nil, fmt.Errorf("bad CPU list %q", s)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("bad CPU list %q", s)
			}
		}
		for c := a; c <= b; c++ {
			out = append(out, c)
		}
	}
	return out, nil
}

// Compact returns the CPUs of mask ordered by locality: node, package,
// core, then id (the threads of a core together), the order in which to
// split a node's CPUs between processes.
func (t Topology) Compact(mask []int) []CPU {
	cpus := t.cpusOf(mask)
	slices.SortFunc(cpus, func(a, b CPU) int {
		for _, d := range [...]int{a.Node - b.Node, a.Package - b.Package, a.Core - b.Core, a.ID - b.ID} {
			if d != 0 {
				return d
			}
		}
		return 0
	})
	return cpus
}

// cpusOf returns the CPUs of the ids of mask, in id order (an id the
// topology does not know on node 0, its own core).
func (t Topology) cpusOf(mask []int) []CPU {
	byID := map[int]CPU{}
	for _, c := range t.CPUs {
		byID[c.ID] = c
	}
	cpus := make([]CPU, 0, len(mask))
	for _, id := range mask {
		c, ok := byID[id]
		if !ok {
			c = CPU{ID: id, Core: id}
		}
		cpus = append(cpus, c)
	}
	slices.SortFunc(cpus, func(a, b CPU) int { return a.ID - b.ID })
	return cpus
}

// Plan returns the CPUs for n workers among those of mask (CPU ids; the
// process's affinity mask): the first hardware thread of every core, node
// by node (then package and core order), before the second thread of any,
// so that workers do not share a core while another is free, and fill one
// node's cores before the next node's. Worker i gets the i-th; with fewer CPUs than
// workers, the plan has len(mask) entries (the rest stay unpinned). A
// CPU of mask the topology does not know is placed on node 0.
func (t Topology) Plan(mask []int, n int) []CPU {
	cpus := t.cpusOf(mask)
	// The rank of each CPU within its core: 0 for the first thread.
	thread := map[CPU]int{}
	seen := map[[3]int]int{}
	for _, c := range cpus {
		k := [3]int{c.Node, c.Package, c.Core}
		thread[c] = seen[k]
		seen[k]++
	}
	slices.SortStableFunc(cpus, func(a, b CPU) int {
		for _, d := range [...]int{thread[a] - thread[b], a.Node - b.Node, a.Package - b.Package, a.Core - b.Core, a.ID - b.ID} {
			if d != 0 {
				return d
			}
		}
		return 0
	})
	return cpus[:min(n, len(cpus))]
}
