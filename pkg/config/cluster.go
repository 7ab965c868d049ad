package config

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/exageostat/exageostat/pkg/kind"
)

// Phase is the data distribution of one phase of the likelihood: which node
// owns which tile.
type Phase struct {
	// bc (2D block-cyclic) | 1d1d (heterogeneous, powers) | lp (both
	// phases from the linear program over the node groups: 1D-1D with the
	// LP's factorisation shares, Algorithm 2 for the generation) | bc-fast
	// (block-cyclic over the fastest group only).
	Distribution string    `toml:"distribution"`
	P            int       `toml:"p"`      // bc: grid rows (0: the most square grid)
	Q            int       `toml:"q"`      // bc: grid columns (0: the most square grid)
	Powers       []float64 `toml:"powers"` // 1d1d: relative node powers, one per node (empty: equal)
	// Band is, for hybrid (seed 002's two intertwined block-cyclic grids:
	// the tiles within Band sub-diagonals on a nodes x 1 grid, the others
	// on the p x q grid), the number of sub-diagonals of the dense band.
	Band int `toml:"band"`
}

// Cluster configures the nodes a run is spread over (`exageostat plan`, the
// MPI runs, the simulator): the top-level keys are the distribution of the
// factorisation, the [generation] table the one of the matrix generation.
//
//	nodes = 4
//	distribution = "1d1d"
//	powers = [1, 1, 4, 4]
//	[generation]
//	distribution = "bc"
//
// A key missing from [generation] takes the factorisation's value when both
// phases use the same distribution (so no [generation] table means the same
// distribution for both phases); p, q and powers are not carried over from a
// phase of the other kind.
//
// A heterogeneous cluster is described by [[group]] tables of identical
// nodes, each with its workers and the time one task of each kind takes on
// one worker of each type at the tile size nb, and a [network] table:
//
//	nb = 960
//	[network]
//	bandwidth = 1.25e9    # bytes/s of each node's link, each way
//	latency = 5e-6        # seconds per message
//	[[group]]
//	name = "chifflet"
//	nodes = 4
//	cpus = 26             # CPU workers per node
//	gpus = 2              # GPU workers per node
//	[group.cpu]           # seconds per task on one CPU worker
//	dcmg = 0.05
//	gemm = 0.04
//	[group.gpu]
//	gemm = 0.003          # a kind absent from a table cannot run there
//
// A group may instead take its durations from a performance-model file
// (pkg/perfmodel: `exageostat calibrate --perfmodel`, or the runtime's
// history): arch "cpu" entries for [group.cpu], arch "cuda" for
// [group.gpu], at the run's tile size (or the group's nb, which must equal
// it); the kinds a table gives keep the table's values:
//
//	[[group]]
//	name = "chifflot"
//	nodes = 1
//	cpus = 20
//	gpus = 2
//	perfmodel = "chifflot.json"   # relative to the cluster file
//
// With groups, nodes may be left out: it is the sum of the groups' nodes
// (given, it must equal that sum). Ranks are numbered group by group in file
// order: the first group's nodes are ranks 0 ... nodes-1, and so on.
type Cluster struct {
	Nodes int `toml:"nodes"`
	Phase
	Generation Phase `toml:"generation"`
	// NB is the tile size the groups' durations were measured at (required
	// with groups).
	NB      int     `toml:"nb"`
	Network Network `toml:"network"`
	Groups  []Group `toml:"group"`
}

// Network models the interconnect: every node has one full-duplex link of
// the given bandwidth, and a message of b bytes occupies the sender's
// outgoing and the receiver's incoming link for Latency + b/Bandwidth
// seconds.
type Network struct {
	Bandwidth float64 `toml:"bandwidth"` // bytes per second, each way
	Latency   float64 `toml:"latency"`   // seconds per message
	// CPUPerMessage and CPUPerByte model the CPU time a message of b
	// bytes takes on each of its two ranks, CPUPerMessage + CPUPerByte b
	// seconds (packing and copying it, the runtime's progress calls): the
	// runtime's progress goroutine runs on the cores of the rank's
	// workers, so pkg/sim takes it from them (0: messages cost the
	// workers nothing). bench simulator measures it.
	CPUPerMessage float64 `toml:"cpu_per_message,omitzero"`
	CPUPerByte    float64 `toml:"cpu_per_byte,omitzero"`
}

// Group is a set of identical nodes of a heterogeneous cluster.
type Group struct {
	Name  string `toml:"name"`
	Nodes int    `toml:"nodes"` // >= 1
	CPUs  int    `toml:"cpus"`  // CPU workers per node (cores running tasks)
	GPUs  int    `toml:"gpus"`  // GPU workers per node
	// Hosts optionally names the group's nodes (host names as mpirun and
	// srun know them), one per node in rank order; `plan --nodes-max
	// --hostfile` writes the chosen ones as a host file.
	Hosts []string `toml:"hosts,omitempty"`
	// Bandwidth and Latency override the [network] values for the links
	// of this group's nodes (0: the [network] value). A message between
	// two nodes goes at the smaller bandwidth and the larger latency of
	// the two.
	Bandwidth float64 `toml:"bandwidth,omitzero"`
	Latency   float64 `toml:"latency,omitzero"`
	// TaskCPU is the CPU time, in seconds, the runtime spends per task of
	// a node outside its workers (submission, the progress goroutine, the
	// Go runtime): with as many workers as cores, pkg/sim takes it from
	// the CPU workers, adding it to each task they run (0: nothing).
	// bench simulator measures it.
	TaskCPU float64 `toml:"task_cpu,omitzero"`
	// CPU and GPU give, per task kind, the seconds one task of that kind
	// takes on one worker of the type at the cluster's tile size nb. A
	// kind absent from a table cannot run on that type of worker.
	CPU Durations `toml:"cpu"`
	GPU Durations `toml:"gpu,omitempty"`
	// Perfmodel names a performance-model file (pkg/perfmodel; a relative
	// path is taken from the cluster file's directory) from which the
	// durations come: its arch "cpu" entries fill [group.cpu] and its arch
	// "cuda" entries [group.gpu], at the tile size NB; a kind given in
	// a table keeps the table's value. perfmodel.ResolveCluster loads it.
	Perfmodel string `toml:"perfmodel,omitempty"`
	// NB is the tile size of the perfmodel entries to take (0: the run's
	// tile size); given, it must equal the run's.
	NB int `toml:"nb,omitzero"`
	// PerfmodelNB is the tile size the durations were taken from the
	// perfmodel file at, once perfmodel.ResolveCluster has loaded it (0:
	// not loaded).
	PerfmodelNB int `toml:"-"`
}

// Durations maps a task kind (see TaskKinds) to the seconds one task of
// that kind takes on one worker.
type Durations map[string]float64

// TaskKinds returns the task kinds a duration table may name (package
// kind), in the order of one likelihood evaluation: dcmg (generate a
// covariance tile), zcpy (copy observations), potrf, trtri (invert the
// diagonal factor), trmm (the panel update, a multiplication by that
// inverse), syrk, gemm, det (log of a diagonal), trsv, gemv, geadd (the
// local solve) and dot.
func TaskKinds() []string { return kind.Durations() }

// oldTrsm is the name the panel update had before it was named after its
// kernel (trmm); files that use it still load.
const oldTrsm = "trsm"

// renameOld moves a duration given under the panel update's old name to
// its kind, unless both are given.
func (d Durations) renameOld() {
	if v, ok := d[oldTrsm]; ok {
		if _, both := d[kind.Trmm]; !both {
			d[kind.Trmm] = v
			delete(d, oldTrsm)
		}
	}
}

// Resource is a type of worker of a node: a CPU core or a GPU. The
// simulator (pkg/sim) and the linear program (pkg/lp) index a group's
// workers and durations by it.
type Resource int

// The resource types, in the order of a node's workers: its CPU workers
// first, then its GPU workers.
const (
	CPU Resource = iota
	GPU
	NumResources
)

// String returns "cpu" or "gpu".
func (r Resource) String() string {
	switch r {
	case CPU:
		return "cpu"
	case GPU:
		return "gpu"
	}
	return fmt.Sprintf("resource(%d)", int(r))
}

// Workers returns the group's workers per node of each resource type
// (CPUs, GPUs).
func (g Group) Workers() [NumResources]int {
	return [NumResources]int{CPU: g.CPUs, GPU: g.GPUs}
}

// Tables returns the group's duration table of each resource type (CPU,
// GPU).
func (g Group) Tables() [NumResources]Durations {
	return [NumResources]Durations{CPU: g.CPU, GPU: g.GPU}
}

// Link returns the bandwidth (bytes/s) and latency (s) of the links of g's
// nodes: g's own values where given, else net's.
func (g Group) Link(net Network) (bandwidth, latency float64) {
	bandwidth, latency = net.Bandwidth, net.Latency
	if g.Bandwidth > 0 {
		bandwidth = g.Bandwidth
	}
	if g.Latency > 0 {
		latency = g.Latency
	}
	return bandwidth, latency
}

// GroupNodes returns the sum of the groups' nodes (0 without groups).
func (c Cluster) GroupNodes() int {
	n := 0
	for _, g := range c.Groups {
		n += g.Nodes
	}
	return n
}

// RankGroups returns, for each rank 0 ... GroupNodes()-1, the index in
// c.Groups of the group it belongs to: ranks are numbered group by group
// in file order.
func (c Cluster) RankGroups() []int {
	out := make([]int, 0, c.GroupNodes())
	for i, g := range c.Groups {
		for range max(g.Nodes, 0) {
			out = append(out, i)
		}
	}
	return out
}

// DefaultCluster returns the defaults: one node, block-cyclic, the same
// distribution for the generation.
func DefaultCluster() Cluster {
	return Cluster{Nodes: 1, Phase: Phase{Distribution: "bc"}}
}

// Phases returns the factorisation and the generation phase, the generation's
// missing keys filled from the factorisation's as the Cluster doc says.
func (c Cluster) Phases() (fact, gen Phase) {
	fact, gen = c.Phase, c.Generation
	if gen.Distribution == "" {
		gen.Distribution = fact.Distribution
	}
	if gen.Distribution == fact.Distribution {
		if gen.P == 0 && gen.Q == 0 {
			gen.P, gen.Q = fact.P, fact.Q
		}
		if gen.Powers == nil {
			gen.Powers = fact.Powers
		}
		if gen.Band == 0 {
			gen.Band = fact.Band
		}
	}
	return fact, gen
}

// MaxNodes is the most nodes a cluster may have: a plan's per-node
// tables cost O(nodes) memory and time (2^20 nodes plan in about 2 s and
// 100 MB), and beyond that a mistyped count would exhaust the memory.
const MaxNodes = 1 << 20

// Validate checks c after the file (named file in the errors) and the flags
// are applied, and returns an *Error naming the first bad key: nodes >= 1;
// distribution bc, 1d1d, lp or bc-fast (the last two need groups, take no
// p, q or powers, and set the generation distribution themselves); for bc, p and q >= 0 with p q = nodes when both
// are given (one of them given must divide nodes), and no powers; for 1d1d,
// nodes positive finite powers (or none: equal powers), and no p or q. The
// keys of [generation] are checked the same way after Phases fills them, and
// named "generation.<key>".
//
// With groups: nodes equals the sum of the groups' nodes; nb >= 1; each
// group (keys named "group[i].<key>", i from 0) has a name used by no other
// group, nodes in [1, MaxNodes], cpus and gpus >= 0 and at least one worker, durations
// of known kinds (TaskKinds) that are positive and finite, and a worker
// type with workers that can run some kind, a perfmodel file that was
// loaded (perfmodel.ResolveCluster) and nb only with a perfmodel; bandwidths are positive finite
// and latencies non-negative finite, and every node's link has a bandwidth
// when there are two nodes or more. Without groups, nb, [network] and
// durations are not used and need only be non-negative.
func (c Cluster) Validate(file string) error {
	if c.Nodes < 1 || c.Nodes > MaxNodes {
		return &Error{File: file, Key: "nodes", Msg: fmt.Sprintf("must be in [1, %d], got %d", MaxNodes, c.Nodes)}
	}
	fact, gen := c.Phases()
	groups := len(c.Groups) > 0
	if err := fact.validate(file, "", c.Nodes, groups); err != nil {
		return err
	}
	if Derived(fact.Distribution) && gen.Distribution != fact.Distribution {
		return &Error{File: file, Key: "generation.distribution",
			Msg: fmt.Sprintf("%q sets the generation distribution itself; leave [generation] out", fact.Distribution)}
	}
	if err := gen.validate(file, "generation.", c.Nodes, groups); err != nil {
		return err
	}
	return c.validateGroups(file)
}

func (c Cluster) validateGroups(file string) error {
	bad := func(key, format string, a ...any) error {
		return &Error{File: file, Key: key, Msg: fmt.Sprintf(format, a...)}
	}
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	if c.NB < 0 {
		return bad("nb", "must be >= 0, got %d", c.NB)
	}
	if v := c.Network.Bandwidth; v < 0 || !finite(v) {
		return bad("network.bandwidth", "must be a positive number of bytes per second, got %g", v)
	}
	if v := c.Network.Latency; v < 0 || !finite(v) {
		return bad("network.latency", "must be a non-negative number of seconds, got %g", v)
	}
	if v := c.Network.CPUPerMessage; v < 0 || !finite(v) {
		return bad("network.cpu_per_message", "must be a non-negative number of seconds, got %g", v)
	}
	if v := c.Network.CPUPerByte; v < 0 || !finite(v) {
		return bad("network.cpu_per_byte", "must be a non-negative number of seconds per byte, got %g", v)
	}
	if len(c.Groups) == 0 {
		return nil
	}
	if sum := c.GroupNodes(); c.Nodes != sum {
		return bad("nodes", "%d, but the groups have %d nodes in all (leave nodes out to take their sum)", c.Nodes, sum)
	}
	if c.NB < 1 {
		return bad("nb", "missing: the tile size the group durations were measured at")
	}
	kinds := TaskKinds()
	for i, g := range c.Groups {
		g.CPU.renameOld()
		g.GPU.renameOld()
		key := func(k string) string { return fmt.Sprintf("group[%d].%s", i, k) }
		if strings.TrimSpace(g.Name) == "" {
			return bad(key("name"), "missing")
		}
		for j := range i {
			if c.Groups[j].Name == g.Name {
				return bad(key("name"), "%q is also the name of group[%d]", g.Name, j)
			}
		}
		if g.Nodes < 1 || g.Nodes > MaxNodes {
			return bad(key("nodes"), "must be in [1, %d], got %d", MaxNodes, g.Nodes)
		}
		if len(g.Hosts) > 0 && len(g.Hosts) != g.Nodes {
			return bad(key("hosts"), "names %d hosts for %d nodes (one host name per node)", len(g.Hosts), g.Nodes)
		}
		for h, name := range g.Hosts {
			if name == "" || strings.ContainsAny(name, " \t\r\n#=") {
				return bad(key("hosts"), "host %d: %q is not a host name", h+1, name)
			}
		}
		if g.CPUs < 0 {
			return bad(key("cpus"), "must be >= 0, got %d", g.CPUs)
		}
		if g.GPUs < 0 {
			return bad(key("gpus"), "must be >= 0, got %d", g.GPUs)
		}
		if g.Perfmodel != "" && g.PerfmodelNB == 0 {
			return bad(key("perfmodel"), "%s was not loaded (the command must call perfmodel.ResolveCluster)", g.Perfmodel)
		}
		if g.NB < 0 {
			return bad(key("nb"), "must be >= 0, got %d", g.NB)
		}
		if g.NB > 0 && g.Perfmodel == "" {
			return bad(key("nb"), "only used with perfmodel = \"file.json\" (the tile size of its entries)")
		}
		if g.CPUs+g.GPUs == 0 {
			return bad(key("cpus"), "the group has no workers (cpus = gpus = 0)")
		}
		if v := g.Bandwidth; v < 0 || !finite(v) {
			return bad(key("bandwidth"), "must be a positive number of bytes per second, got %g", v)
		}
		if v := g.Latency; v < 0 || !finite(v) {
			return bad(key("latency"), "must be a non-negative number of seconds, got %g", v)
		}
		if v := g.TaskCPU; v < 0 || !finite(v) {
			return bad(key("task_cpu"), "must be a non-negative number of seconds, got %g", v)
		}
		if bw, _ := g.Link(c.Network); bw == 0 && c.Nodes > 1 {
			return bad("network.bandwidth", "missing: group %q needs a link bandwidth (bytes/s) to talk to the other nodes", g.Name)
		}
		runs := false
		for _, tb := range []struct {
			name    string
			d       Durations
			workers int
		}{{"cpu", g.CPU, g.CPUs}, {"gpu", g.GPU, g.GPUs}} {
			names := make([]string, 0, len(tb.d))
			for k := range tb.d {
				names = append(names, k)
			}
			slices.Sort(names) // the first bad kind, whatever the map order
			for _, k := range names {
				v := tb.d[k]
				if !slices.Contains(kinds, k) {
					return bad(key(tb.name+"."+k), "unknown task kind (want one of %s)", strings.Join(kinds, ", "))
				}
				if !(v > 0) || !finite(v) {
					return bad(key(tb.name+"."+k), "must be a positive number of seconds, got %g (leave the kind out if it cannot run there)", v)
				}
			}
			runs = runs || (tb.workers > 0 && len(tb.d) > 0)
		}
		if !runs {
			return bad(key("cpu"), "no task kind can run on the group's workers (give durations in [group.cpu] or [group.gpu] for a worker type it has)")
		}
	}
	return nil
}

// Derived reports whether distribution name is computed from the node
// groups (lp, bc-fast) rather than given by its keys.
func Derived(name string) bool { return name == "lp" || name == "bc-fast" }

func (p Phase) validate(file, prefix string, nodes int, groups bool) error {
	bad := func(key, format string, a ...any) error {
		return &Error{File: file, Key: prefix + key, Msg: fmt.Sprintf(format, a...)}
	}
	if Derived(p.Distribution) {
		switch {
		case !groups:
			return bad("distribution", `%q is computed from the node groups: it needs the [[group]] tables of a cluster file (fit: the cluster key or --cluster)`, p.Distribution)
		case p.P != 0 || p.Q != 0:
			return bad("p", "not used with distribution = %q (it is computed from the node groups)", p.Distribution)
		case len(p.Powers) > 0:
			return bad("powers", "not used with distribution = %q (it is computed from the node groups)", p.Distribution)
		}
		return nil
	}
	if p.Band != 0 && p.Distribution != "hybrid" {
		return bad("band", `only used with distribution = "hybrid" (the distribution is %q)`, p.Distribution)
	}
	switch p.Distribution {
	case "bc", "hybrid":
		if p.Band < 0 {
			return bad("band", "must be >= 0, got %d", p.Band)
		}
		if len(p.Powers) > 0 {
			return bad("powers", `only used with distribution = "1d1d" (the distribution is "bc")`)
		}
		if p.P < 0 {
			return bad("p", "must be >= 0, got %d", p.P)
		}
		if p.Q < 0 {
			return bad("q", "must be >= 0, got %d", p.Q)
		}
		switch {
		case nodes == 0: // not known yet: checkPhases
		case p.P > 0 && p.Q > 0 && p.P*p.Q != nodes:
			return bad("p", "a %d x %d grid holds %d nodes, need nodes = %d", p.P, p.Q, p.P*p.Q, nodes)
		case p.P > 0 && p.Q == 0 && nodes%p.P != 0:
			return bad("p", "%d grid rows do not divide nodes = %d", p.P, nodes)
		case p.Q > 0 && p.P == 0 && nodes%p.Q != 0:
			return bad("q", "%d grid columns do not divide nodes = %d", p.Q, nodes)
		}
	case "1d1d":
		if p.P != 0 {
			return bad("p", `only used with distribution = "bc" (the distribution is "1d1d")`)
		}
		if p.Q != 0 {
			return bad("q", `only used with distribution = "bc" (the distribution is "1d1d")`)
		}
		if len(p.Powers) > 0 && nodes > 0 && len(p.Powers) != nodes {
			return bad("powers", "need %d values (nodes = %d), got %d", nodes, nodes, len(p.Powers))
		}
		for i, v := range p.Powers {
			if !(v > 0) || math.IsInf(v, 0) {
				return bad("powers", "value %d (node %d) must be a positive number, got %g", i+1, i, v)
			}
		}
	case "":
		return bad("distribution", `missing (want "bc", "1d1d", "hybrid", "lp" or "bc-fast")`)
	default:
		return bad("distribution", `unknown distribution %q (want "bc", "1d1d", "hybrid", "lp" or "bc-fast")`, p.Distribution)
	}
	return nil
}

// DecodeCluster reads the cluster file path over DefaultCluster, without
// validating it (for callers that apply flags first, then Validate): keys
// present replace the defaults, and when the file has groups and no nodes
// key, nodes is the sum of the groups' nodes. A group's relative perfmodel
// path is made relative to the directory of path; the file is not read
// (perfmodel.ResolveCluster does).
func DecodeCluster(path string) (Cluster, error) {
	c := DefaultCluster()
	if err := Load(path, &c); err != nil {
		return c, err
	}
	for i, g := range c.Groups {
		g.CPU.renameOld()
		g.GPU.renameOld()
		if g.Perfmodel != "" && !filepath.IsAbs(g.Perfmodel) {
			c.Groups[i].Perfmodel = filepath.Join(filepath.Dir(path), g.Perfmodel)
		}
	}
	if len(c.Groups) > 0 {
		var probe struct {
			Nodes *int `toml:"nodes"`
		}
		if _, err := toml.DecodeFile(path, &probe); err == nil && probe.Nodes == nil {
			c.Nodes = c.GroupNodes()
		}
	}
	return c, nil
}

// LoadCluster reads the cluster file path as DecodeCluster does and
// validates it.
func LoadCluster(path string) (Cluster, error) {
	c, err := DecodeCluster(path)
	if err != nil {
		return c, err
	}
	return c, c.Validate(path)
}
