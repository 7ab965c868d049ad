// Package lp estimates, with a linear program, how the two phases of the
// ExaGeoStat likelihood (the generation of the covariance tiles by dcmg
// tasks, then their tiled Cholesky factorisation) should be shared between
// groups of heterogeneous nodes, and the makespan this sharing achieves: the
// model of Section 4.3 of "Multi-phase task-based ExaGeoStat on system-level
// heterogeneous nodes", equations (12)-(18), solved with GLPK.
//
// The matrix has NT x NT tiles, of which the T = NT(NT+1)/2 lower ones are
// generated and factorised. Its work is cut into NT virtual steps s = 0 ...
// NT-1 (the paper's s = 1 ... N): step s holds the tiles of the two
// anti-diagonals m + n = 2s and 2s + 1 (the tiles with floor((m + n)/2) = s,
// the generation order of ExaGeoStat's priorities). A task of the tiled
// Cholesky belongs to the step of the tile it writes, which is also the last
// generated of the tiles it touches, so it is a factorisation task "directly
// dependent on blocks generated at generation step s" (TaskCounts gives the
// exact mapping). Q(s, t) is the number of tasks of type t in step s.
//
// Each Group of identical nodes gives the LP up to two resources r, its CPU
// workers and its GPU workers (those that have workers and can run at least
// one task type). The LP sees a resource as one processor: w(t, r) =
// d(t, r) / W_r, with d(t, r) the duration of one task of type t on one
// worker of r and W_r = nodes x workers per node its worker count (a task
// type r cannot run has no alpha(s, t, r) variable: w = +Inf).
//
// Variables, all >= 0: alpha(s, t, r) the number of tasks of type t of step s
// placed on r, G_s and F_s the ends of generation step s and factorisation
// step s. Solve transcribes, with S = {0 ... NT-1} and T the task types:
//
//	(12) minimise  sum_s (G_s + F_s)
//	(13) for all t, s:       sum_r alpha(s, t, r) = Q(s, t)
//	(14) for all s > 0, r:   G_{s-1} + alpha(s, dcmg, r) w(dcmg, r) <= G_s
//	(15) for all s, r:       G_s + sum_{t != dcmg} alpha(s, t, r) w(t, r) <= F_s
//	(16) for all s > 0, r:   F_{s-1} + sum_{t != dcmg} alpha(s, t, r) w(t, r) <= F_s
//	(17) for all r, s:       sum_{z <= s, t in T} alpha(z, t, r) w(t, r) <= F_s
//	(18)                     min_r d(dcmg, r) <= G_0
//
// (18) bounds the first generation step by one whole dcmg task on the best
// resource, d rather than w: the LP splits tasks, and the paper's point is
// that the first step "cannot be faster than its best resource
// implementation". The makespan is F_{NT-1}.
package lp

import (
	"fmt"
	"math"

	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/kind"
)

// Task is a task type of the ExaGeoStat likelihood: the generation of one
// covariance tile (dcmg) and the four kernels of the tiled Cholesky.
type Task int

// The task types.
const (
	DCMG  Task = iota // generate one tile of the covariance matrix
	POTRF             // Cholesky factorisation of a diagonal tile
	TRSM              // the panel update of an off-diagonal tile (the paper's trsm; kind.Trmm here)
	SYRK              // symmetric rank-nb update of a diagonal tile
	GEMM              // general update of an off-diagonal tile
	NumTasks
)

var taskNames = [NumTasks]string{kind.Dcmg, kind.Potrf, kind.Trmm, kind.Syrk, kind.Gemm}

// String returns the kind of the tasks of this type (package kind), such
// as "gemm"; the panel update TRSM is "trmm", the kernel it runs.
func (t Task) String() string {
	if t < 0 || t >= NumTasks {
		return fmt.Sprintf("task(%d)", int(t))
	}
	return taskNames[t]
}

// Flops returns the floating-point operations of one factorisation task in
// units of nb^3 (nb the tile size): potrf 1/3, trsm 1, syrk 1, gemm 2; and 0
// for dcmg, which is not factorisation work. Result.FactShare weighs the
// tasks with them.
func (t Task) Flops() float64 {
	switch t {
	case POTRF:
		return 1.0 / 3
	case TRSM, SYRK:
		return 1
	case GEMM:
		return 2
	}
	return 0
}

// Resource is a type of worker of a node, config.Resource: a CPU core or
// a GPU.
type Resource = config.Resource

// The resource types, as config states them.
const (
	CPU          = config.CPU
	GPU          = config.GPU
	NumResources = config.NumResources
)

// Group is a set of identical nodes.
type Group struct {
	// Name labels the group in the results and errors.
	Name string
	// Nodes is the number of nodes, >= 1.
	Nodes int
	// Workers[k] is the number of workers of kind k per node (CPU cores
	// running tasks, GPUs); 0 for none. The group has Nodes x Workers[k]
	// workers of kind k.
	Workers [NumResources]int
	// Durations[k][t] is the time of one task of type t on one worker of
	// kind k, in any unit (seconds) shared by all groups; 0 (absent) or +Inf
	// means that the task cannot run there.
	Durations [NumResources][NumTasks]float64
}

// Options change the model.
type Options struct {
	// ExcludeCPUOnly keeps the groups without GPU workers out of the
	// factorisation: their alpha(s, t, r) for t != dcmg are 0 (they only
	// generate tiles), as in the paper's "4+4+1 with only the GPU nodes in
	// the factorisation".
	ExcludeCPUOnly bool
}

// TaskCounts returns Q, Q[s][t] the number of tasks of type t in step s
// (s = 0 ... nt-1) of an nt x nt tile matrix. With step(m, n) = floor((m +
// n)/2), the step of lower tile (m, n), each task counts in the step of the
// tile it writes:
//
//	dcmg(m, n)     generates (m, n), m >= n     step(m, n)
//	potrf(k)       factorises (k, k)            k
//	trsm(m, k)     solves (m, k), m > k         step(m, k)
//	syrk(m, k)     updates (m, m) with (m, k)   m
//	gemm(m, n, k)  updates (m, n), m > n > k    step(m, n)
//
// which is also the largest step of the tiles the task reads, so a task of
// step s waits for no tile generated after step s. In all: T = nt(nt+1)/2
// dcmg, nt potrf, nt(nt-1)/2 trsm and syrk, nt(nt-1)(nt-2)/6 gemm.
func TaskCounts(nt int) [][NumTasks]int {
	q := make([][NumTasks]int, max(nt, 0))
	for m := 0; m < nt; m++ {
		for n := 0; n <= m; n++ {
			s := (m + n) / 2
			q[s][DCMG]++
			if m == n {
				q[s][POTRF]++
				continue
			}
			q[s][TRSM]++
			q[m][SYRK]++
			q[s][GEMM] += n // k = 0 ... n-1
		}
	}
	return q
}

// canRun reports whether a duration means a task that can run: finite and
// positive.
func canRun(d float64) bool { return d > 0 && !math.IsInf(d, 1) }

// resource is one LP resource r: the workers of one kind of one group.
type resource struct {
	group int
	kind  Resource
	w     [NumTasks]float64 // w(t, r) = d(t, r) / W_r; 0 when t cannot run
}

// resources checks the groups and returns the LP resources, in group order,
// CPU before GPU.
func resources(nt int, groups []Group, opt Options) ([]resource, error) {
	if nt < 1 {
		return nil, fmt.Errorf("lp: need at least one tile, got nt = %d", nt)
	}
	if len(groups) == 0 {
		return nil, fmt.Errorf("lp: no resource groups")
	}
	var rs []resource
	for g, gr := range groups {
		if gr.Nodes < 1 {
			return nil, fmt.Errorf("lp: group %d (%s): need at least one node, got %d", g, gr.Name, gr.Nodes)
		}
		for k := Resource(0); k < NumResources; k++ {
			if gr.Workers[k] < 0 {
				return nil, fmt.Errorf("lp: group %d (%s): negative number of %s workers (%d)", g, gr.Name, k, gr.Workers[k])
			}
			for t := Task(0); t < NumTasks; t++ {
				if d := gr.Durations[k][t]; d < 0 || math.IsNaN(d) || math.IsInf(d, -1) {
					return nil, fmt.Errorf("lp: group %d (%s): %s duration on %s is %g (want > 0, or 0 or +Inf when it cannot run)", g, gr.Name, t, k, d)
				}
			}
		}
		cpuOnly := gr.Workers[GPU] == 0
		for k := Resource(0); k < NumResources; k++ {
			if gr.Workers[k] == 0 {
				continue
			}
			r := resource{group: g, kind: k}
			workers := float64(gr.Nodes * gr.Workers[k])
			runs := false
			for t := Task(0); t < NumTasks; t++ {
				if t != DCMG && cpuOnly && opt.ExcludeCPUOnly {
					continue
				}
				if d := gr.Durations[k][t]; canRun(d) {
					r.w[t] = d / workers
					runs = true
				}
			}
			if runs {
				rs = append(rs, r)
			}
		}
	}
	var total [NumTasks]int
	for _, row := range TaskCounts(nt) {
		for t, c := range row {
			total[t] += c
		}
	}
	for t := Task(0); t < NumTasks; t++ {
		if total[t] == 0 {
			continue
		}
		ok := false
		for _, r := range rs {
			ok = ok || r.w[t] > 0
		}
		if !ok {
			why := ""
			if t != DCMG && opt.ExcludeCPUOnly {
				why = " with the CPU-only groups excluded from the factorisation"
			}
			return nil, fmt.Errorf("lp: no group can run %s tasks%s", t, why)
		}
	}
	return rs, nil
}
