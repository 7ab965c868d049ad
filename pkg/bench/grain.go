package bench

import (
	"fmt"
	"math"

	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/kind"
	"github.com/exageostat/exageostat/pkg/perfmodel"
	"github.com/exageostat/exageostat/pkg/sim"
	"github.com/exageostat/exageostat/pkg/strategy"
)

// GrainNode is one node type of the tile-size (grain) study: its workers
// and the seconds one task of each kind takes on one worker at the anchor
// tile size (GrainOptions.AnchorNB), and the GPU's half-performance tile
// size Half (Hockney's n_1/2: the GPU runs its tile kernels at
// R nb / (nb + Half) flop/s, R the asymptotic rate).
type GrainNode struct {
	Name       string
	CPUs, GPUs int
	CPU, GPU   config.Durations
	Half       float64
}

// GrainOptions configure GrainModel and GrainSweep.
type GrainOptions struct {
	N        int   // matrix size (GrainSweep)
	NBs      []int // tile sizes
	AnchorNB int   // tile size of the nodes' duration tables
	// Shape holds measured CPU durations (arch cpu) at AnchorNB and at
	// every tile size of NBs: the CPU durations at nb are the node's at
	// AnchorNB times Shape's t(nb) / t(AnchorNB), kind by kind. Nil: the
	// kernels run at the same rate at every tile size, t(nb) = t(AnchorNB)
	// (nb / AnchorNB)^p with p the kind's order (CPUOrder).
	Shape *perfmodel.Model
	// PCIe, if > 0, adds the time to move one nb x nb tile over the host
	// link (8 nb^2 / PCIe seconds) to every GPU task: as if each task
	// fetched one input tile (a runtime that keeps tiles on the GPU moves
	// fewer).
	PCIe float64
	// DcmgScale, if > 0, multiplies the dcmg durations (e.g. the closed
	// form of nu = 0.5 against K_nu for a general nu).
	DcmgScale float64
}

// GPUDuration returns the seconds of a level-3 tile task at tile size nb
// on a GPU that takes t0 seconds at nb0, with Hockney's rate
// R nb / (nb + half) and nb^3 flops:
//
//	t(nb) = t0 (nb/nb0)^3 (nb0/(nb0+half)) / (nb/(nb+half))
//	      = t0 (nb/nb0)^2 (nb+half)/(nb0+half).
func GPUDuration(t0 float64, nb0, nb int, half float64) float64 {
	r := float64(nb) / float64(nb0)
	return t0 * r * r * (float64(nb) + half) / (float64(nb0) + half)
}

// CPUOrder returns p such that a task of kind k on nb x nb tiles does
// O(nb^p) work: 3 for the tile factorisation kernels (potrf, trtri,
// trmm, syrk, gemm), 2 for those that read or write a whole tile once
// (dcmg, trsv, gemv), 1 for the vector kinds and det (a diagonal).
func CPUOrder(k string) int {
	switch k {
	case kind.Potrf, kind.Trtri, kind.Trmm, kind.Syrk, kind.Gemm:
		return 3
	case kind.Dcmg, kind.Trsv, kind.Gemv:
		return 2
	}
	return 1
}

// GrainModel returns the performance model of node n at the tile sizes
// o.NBs: arch cpu from the node's CPU table scaled by o.Shape, arch cuda
// from its GPU table by GPUDuration (plus a tile's PCIe time), one sample
// per entry.
func GrainModel(n GrainNode, o GrainOptions) (*perfmodel.Model, error) {
	m := perfmodel.New()
	shape := "same rate at every nb"
	if o.Shape != nil {
		shape = "scaled by a measured shape"
	}
	m.SetHost(fmt.Sprintf("%s: model (bench grain), CPU anchored at nb = %d, %s; GPU n1/2 = %g", n.Name, o.AnchorNB, shape, n.Half))
	for _, nb := range o.NBs {
		for _, k := range config.TaskKinds() {
			t, ok := n.CPU[k]
			if !ok {
				continue
			}
			s0, s := 1.0, math.Pow(float64(nb)/float64(o.AnchorNB), float64(CPUOrder(k)))
			if o.Shape != nil {
				var ok0, ok1 bool
				s0, ok0 = o.Shape.Expected(perfmodel.CPU, k, perfmodel.Footprint(k, o.AnchorNB))
				s, ok1 = o.Shape.Expected(perfmodel.CPU, k, perfmodel.Footprint(k, nb))
				if !ok0 || !ok1 || !(s0 > 0) {
					return nil, fmt.Errorf("grain: the CPU shape has no %s at nb = %d and nb = %d", k, o.AnchorNB, nb)
				}
			}
			if k == kind.Dcmg && o.DcmgScale > 0 {
				t *= o.DcmgScale
			}
			if err := m.Add(perfmodel.Entry{Arch: perfmodel.CPU, Kind: k, Size: perfmodel.Footprint(k, nb), Samples: 1, Mean: t * s / s0}); err != nil {
				return nil, err
			}
		}
		for _, k := range config.TaskKinds() {
			t, ok := n.GPU[k]
			if !ok {
				continue
			}
			d := GPUDuration(t, o.AnchorNB, nb, n.Half)
			if o.PCIe > 0 {
				d += 8 * float64(nb) * float64(nb) / o.PCIe
			}
			if err := m.Add(perfmodel.Entry{Arch: perfmodel.CUDA, Kind: k, Size: perfmodel.Footprint(k, nb), Samples: 1, Mean: d}); err != nil {
				return nil, err
			}
		}
	}
	return m, nil
}

// GrainRow is the simulated evaluation of one node at one tile size.
type GrainRow struct {
	Node     string  `json:"node"`
	NB       int     `json:"nb"`
	NT       int     `json:"nt"`
	Makespan float64 `json:"makespan_s"`
	CPUUse   float64 `json:"cpu_use"`
	GPUUse   float64 `json:"gpu_use,omitempty"`
	GPUTasks int     `json:"gpu_tasks"`
}

// GrainSweep simulates one likelihood evaluation of o.N points on one node
// of each type at each tile size of o.NBs (pkg/sim, the durations of
// GrainModel), and returns the rows node by node, tile sizes in order.
func GrainSweep(nodes []GrainNode, o GrainOptions) ([]GrainRow, error) {
	var rows []GrainRow
	for _, n := range nodes {
		m, err := GrainModel(n, o)
		if err != nil {
			return nil, err
		}
		for _, nb := range o.NBs {
			g := config.Group{Name: n.Name, Nodes: 1, CPUs: n.CPUs, GPUs: n.GPUs,
				CPU: m.Durations(perfmodel.CPU, nb), GPU: m.Durations(perfmodel.CUDA, nb)}
			cl := config.Cluster{Nodes: 1, Phase: config.Phase{Distribution: "bc"}, NB: nb, Groups: []config.Group{g}}
			if err := cl.Validate("grain"); err != nil {
				return nil, err
			}
			nt := (o.N + nb - 1) / nb
			p, err := strategy.Build("bc", cl, nt, strategy.Options{})
			if err != nil {
				return nil, err
			}
			res, err := strategy.Simulate(p, cl, o.N, nb, sim.Options{})
			if err != nil {
				return nil, err
			}
			gs := res.Groups[0]
			rows = append(rows, GrainRow{Node: n.Name, NB: nb, NT: nt, Makespan: res.Makespan,
				CPUUse: gs.CPU.Utilisation, GPUUse: gs.GPU.Utilisation, GPUTasks: gpuTasks(res)})
		}
	}
	return rows, nil
}

func gpuTasks(r *sim.Result) int {
	n := 0
	for _, k := range r.Kinds {
		n += k.GPU
	}
	return n
}

// HockneyHalf returns the n_1/2 at which a GPU of asymptotic rate rInf
// runs at rate r at tile size nb: r = rInf nb / (nb + half).
func HockneyHalf(nb int, r, rInf float64) float64 {
	return math.Max(0, float64(nb)*(rInf/r-1))
}
