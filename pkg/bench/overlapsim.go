package bench

import (
	"fmt"
	"math"

	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/sim"
	"github.com/exageostat/exageostat/pkg/strategy"
	"github.com/exageostat/exageostat/pkg/trace"
)

// OverlapSimStep is one step of Figure 5's ablation on a modelled cluster:
// the simulated makespan of one evaluation, its gains, seed 000's
// utilisation of every worker of every node (whole and first 90 %), the
// megabytes sent, and whether the simulator models what the step adds.
type OverlapSimStep struct {
	Name        string  `json:"name"`
	Switches    string  `json:"switches"`
	Seconds     float64 `json:"seconds"`
	GainPrev    float64 `json:"gain_vs_previous"`
	GainSync    float64 `json:"gain_vs_sync"`
	Utilization float64 `json:"utilization"`
	First90     float64 `json:"utilization_first90"`
	MB          float64 `json:"mb_sent"`
	// NotModelled names what the step adds that the simulator does not
	// model (the buffer pool's allocation costs, the extra worker sharing
	// a core): the step then has the previous step's graph.
	NotModelled string `json:"not_modelled,omitempty"`
}

// OverlapSimResult is Figure 5's ablation simulated on a cluster file.
type OverlapSimResult struct {
	N       int              `json:"n"`
	NB      int              `json:"nb"`
	NT      int              `json:"nt"`
	Nodes   int              `json:"nodes"`
	Workers int              `json:"workers"` // CPU and GPU workers of all nodes
	Dist    string           `json:"distribution"`
	Steps   []OverlapSimStep `json:"steps"`
}

// OverlapSim simulates one evaluation of n points with tile size nb on
// cluster cl (distribution dist: a strategy of pkg/strategy) for each step
// of likelihood.Ablation: the graph each step's submission code records
// (barriers between phases with async off, tiles of L moving for the solve
// with local solve off, priorities and submission order as the switches
// say), replayed by pkg/sim. Memory and oversubscription change only the
// runtime, which the simulator does not model.
func OverlapSim(cl config.Cluster, n, nb int, dist string) (*OverlapSimResult, error) {
	nt := (n + nb - 1) / nb
	p, err := strategy.Build(dist, cl, nt, strategy.Options{})
	if err != nil {
		return nil, err
	}
	res := &OverlapSimResult{N: n, NB: nb, NT: nt, Nodes: cl.GroupNodes(), Dist: dist}
	for _, g := range cl.RankGroups() {
		res.Workers += cl.Groups[g].CPUs + cl.Groups[g].GPUs
	}
	var prev likelihood.Overlap
	for i, s := range likelihood.Ablation() {
		st := OverlapSimStep{Name: s.Name, Switches: s.Overlap.String()}
		switch {
		case s.Overlap.Memory && !prev.Memory:
			st.NotModelled = "the buffer pool (allocation costs)"
		case s.Overlap.Oversubscribe && !prev.Oversubscribe:
			st.NotModelled = "the extra worker sharing a core: the same graph as the previous step"
		}
		ov := s.Overlap
		g, err := strategy.RecordOverlap(p, n, nb, &ov)
		if err != nil {
			return nil, err
		}
		r, err := sim.Run(g, cl, sim.Options{})
		if err != nil {
			return nil, err
		}
		st.Seconds, st.MB = r.Makespan, float64(r.Bytes)/1e6
		t1 := int64(math.Round(r.Makespan * 1e9))
		u := trace.UtilizationOf(r.Events, res.Workers, 0, t1)
		st.Utilization, st.First90 = u.Whole, u.First90
		if i > 0 {
			st.GainPrev = 1 - st.Seconds/res.Steps[i-1].Seconds
			st.GainSync = 1 - st.Seconds/res.Steps[0].Seconds
		}
		res.Steps = append(res.Steps, st)
		prev = s.Overlap
	}
	if len(res.Steps) == 0 {
		return nil, fmt.Errorf("bench overlap: no ablation step")
	}
	return res, nil
}
