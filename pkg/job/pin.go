package job

import (
	"fmt"
	"os"
	"slices"
	"strconv"

	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/topology"
)

// pinPlan is where a rank's CPU workers run (config key pin): worker i on
// cpus[i], the machine's NUMA nodes (the runtime places a worker's tile
// buffers on its node when there are several), and a note for the log.
type pinPlan struct {
	cpus  []topology.CPU
	nodes int
	note  string
}

// apply pins the runtime's workers.
func (p *pinPlan) apply(ro *runtime.Options) {
	if p != nil && len(p.cpus) > 0 {
		ro.Pin, ro.NUMA = p.cpus, p.nodes
	}
}

// Local-rank variables of the MPI launchers: this rank's index among the
// ranks of its node, and their number.
var localRankEnv = [][2]string{
	{"OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"}, // OpenMPI
	{"MPI_LOCALRANKID", "MPI_LOCALNRANKS"},                       // MPICH, Intel MPI
}

// localRank returns this rank's index among the ranks of its node and
// their number (0, 1 when no launcher says).
func localRank(getenv func(string) string) (int, int) {
	for _, v := range localRankEnv {
		r, err1 := strconv.Atoi(getenv(v[0]))
		n, err2 := strconv.Atoi(getenv(v[1]))
		if err1 == nil && err2 == nil && n > 1 && r >= 0 && r < n {
			return r, n
		}
	}
	return 0, 1
}

// planPins returns the CPUs of workers CPU workers (nil with on false, or
// when nothing can be pinned, with the reason in the note): the CPUs of
// the process's affinity mask in topology.Plan's order. Ranks that share
// a node and the same mask (a launcher that did not bind them) split it:
// local rank r of n takes the r-th of n equal parts in locality order
// (topology.Compact: a node's cores together); with fewer CPUs than ranks,
// nothing is pinned.
func planPins(on bool, workers int, topo topology.Topology, mask []int, online []int, getenv func(string) string) *pinPlan {
	if !on {
		return &pinPlan{note: "workers not pinned (--pin off)"}
	}
	if len(mask) == 0 {
		return &pinPlan{note: "workers not pinned: the CPU affinity mask cannot be read"}
	}
	r, n := localRank(getenv)
	if n > 1 && slices.Equal(mask, online) { // not bound by the launcher: share the node
		per := len(mask) / n
		if per < 1 {
			return &pinPlan{note: fmt.Sprintf("workers not pinned: %d ranks on this node share %d CPUs", n, len(mask))}
		}
		order := topo.Compact(mask)
		mask = nil
		for _, c := range order[r*per : (r+1)*per] {
			mask = append(mask, c.ID)
		}
	}
	cpus := topo.Plan(mask, workers)
	p := &pinPlan{cpus: cpus, nodes: max(topo.Nodes, 1)}
	ids := make([]int, len(cpus))
	for i, c := range cpus {
		ids[i] = c.ID
	}
	p.note = fmt.Sprintf("%d worker(s) pinned to CPU(s) %s of %d NUMA node(s)", len(cpus), cpuList(1+slices.Max(ids), func(i int) bool { return slices.Contains(ids, i) }), p.nodes)
	if len(cpus) < workers {
		p.note += fmt.Sprintf("; %d more not pinned (more workers than CPUs)", workers-len(cpus))
	}
	return p
}

// quiet reports whether a machine of cpus CPUs with load average load is
// quiet enough to pin on (pin auto): load under half the CPUs.
func quiet(load float64, cpus int) bool { return load < 0.5*float64(cpus) }

// loadAverage reads the 1-minute load average (/proc/loadavg); false when
// it cannot.
func loadAverage() (float64, bool) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, false
	}
	var l float64
	if _, err := fmt.Sscan(string(b), &l); err != nil {
		return 0, false
	}
	return l, true
}

// pinning reads this machine's topology and affinity mask and plans the
// pins of workers CPU workers (planPins) under mode (config key pin: on,
// off, auto).
func pinning(mode string, workers int) *pinPlan {
	if mode == "off" {
		return planPins(false, workers, topology.Topology{}, nil, nil, os.Getenv)
	}
	topo, err := topology.Read(topology.Sysfs)
	if err != nil {
		return &pinPlan{note: "workers not pinned: " + err.Error()}
	}
	mask, err := topology.Affinity()
	if err != nil {
		return &pinPlan{note: "workers not pinned: " + err.Error()}
	}
	if l, ok := loadAverage(); mode == "auto" && ok && !quiet(l, len(mask)) {
		return &pinPlan{note: fmt.Sprintf("workers not pinned: load average %.1f on %d CPUs (--pin auto pins on a quiet machine; --pin on forces it)", l, len(mask))}
	}
	online := make([]int, len(topo.CPUs))
	for i, c := range topo.CPUs {
		online[i] = c.ID
	}
	return planPins(true, workers, topo, mask, online, os.Getenv)
}

// Pinning returns how to pin the workers CPU workers of a run outside
// Fit (the benchmarks) under mode (on, off, auto), as the key pin does,
// and what it did, for the log.
func Pinning(mode string, workers int) (apply func(*runtime.Options), note string) {
	p := pinning(mode, workers)
	return p.apply, p.note
}
