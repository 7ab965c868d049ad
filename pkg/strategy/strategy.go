// Package strategy builds the data distributions of a likelihood evaluation
// on a modelled heterogeneous cluster, one per strategy of Figure 7 of the
// multi-phase ExaGeoStat paper (seed 000, section 5.3), and simulates them:
//
//	bc       2D block-cyclic over all nodes, for both phases;
//	bc-fast  2D block-cyclic over the fastest group of identical nodes only;
//	1d1d     1D-1D over all nodes with powers from their dgemm speed
//	         (cpus / d_cpu(gemm) + gpus / d_gpu(gemm) tiles per second);
//	lp       the linear program of equations (12)-(18): the factorisation
//	         by 1D-1D with the LP's factorisation shares, the generation by
//	         Algorithm 2 from it and the LP's generation tile counts.
//
// Simulate records the evaluation's task graph with the same submission code
// as a real run (pkg/likelihood on a recording runtime) and replays it with
// pkg/sim. Compare simulates the four side by side, Subsets does capacity
// planning (the fastest choice of at most k nodes), and Memory gives each
// node's tile memory during the recorded evaluation.
package strategy

import (
	"fmt"
	"math"

	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/distribution"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/lp"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/sim"
)

// Names lists the strategies in the order of Figure 7.
func Names() []string { return []string{"bc", "bc-fast", "1d1d", "lp"} }

// Plan is one strategy's pair of distributions over the cluster's ranks.
type Plan struct {
	Name string
	Fact distribution.Distribution // factorisation
	Gen  distribution.Distribution // generation (== Fact when shared)
	// Ideal is the LP's makespan (lp only), in the durations' unit.
	Ideal float64
	// Moved is the number of tiles that move between the phases.
	Moved int
	Note  string
}

// Options change Build.
type Options struct {
	// ExcludeCPUOnly keeps nodes without GPUs out of the factorisation of
	// the lp strategy (the paper's "only the GPU nodes in the
	// factorisation").
	ExcludeCPUOnly bool
}

// NodePower returns the dgemm throughput of one node of g: tiles per second,
// cpus / d_cpu(gemm) + gpus / d_gpu(gemm) (a resource without a gemm
// duration adds nothing).
func NodePower(g config.Group) float64 {
	p := 0.0
	if d := g.CPU["gemm"]; d > 0 {
		p += float64(g.CPUs) / d
	}
	if d := g.GPU["gemm"]; d > 0 {
		p += float64(g.GPUs) / d
	}
	return p
}

// Build returns the distributions of strategy name for an nt x nt tile
// matrix on cluster c (which must have groups).
func Build(name string, c config.Cluster, nt int, o Options) (*Plan, error) {
	if len(c.Groups) == 0 {
		return nil, fmt.Errorf("strategy: the cluster has no [[group]] tables")
	}
	nodes := c.GroupNodes()
	rg := c.RankGroups()
	power := make([]float64, nodes)
	for r := range power {
		power[r] = NodePower(c.Groups[rg[r]])
	}
	p := &Plan{Name: name}
	switch name {
	case "bc":
		pp, q := distribution.SquareGrid(nodes)
		p.Fact = distribution.BlockCyclic{P: pp, Q: q}
	case "bc-fast":
		best := 0
		for i, g := range c.Groups {
			if NodePower(g) > NodePower(c.Groups[best]) {
				best = i
			}
		}
		var ranks []int
		for r := range rg {
			if rg[r] == best {
				ranks = append(ranks, r)
			}
		}
		pp, q := distribution.SquareGrid(len(ranks))
		d, err := onRanks("bc-fast", distribution.BlockCyclic{P: pp, Q: q}, ranks, nodes, nt)
		if err != nil {
			return nil, err
		}
		p.Fact, p.Note = d, fmt.Sprintf("%d %s node", len(ranks), c.Groups[best].Name)
		if len(ranks) > 1 {
			p.Note += "s"
		}
	case "1d1d":
		d, err := distribution.NewOneDOneD(nt, power)
		if err != nil {
			return nil, err
		}
		p.Fact = d
	case "lp":
		groups, err := lp.FromCluster(c)
		if err != nil {
			return nil, err
		}
		res, err := lp.Solve(nt, groups, lp.Options{ExcludeCPUOnly: o.ExcludeCPUOnly})
		if err != nil {
			return nil, err
		}
		p.Ideal = res.Makespan
		fact := make([]float64, nodes)
		gen := make([]float64, nodes)
		for r := range fact {
			g := res.Groups[rg[r]]
			fact[r] = g.FactShare / float64(g.Nodes)
			gen[r] = g.GenShare / float64(g.Nodes)
		}
		var ranks []int
		var powers []float64
		for r, f := range fact {
			if f > 1e-9 {
				ranks = append(ranks, r)
				powers = append(powers, f)
			}
		}
		d1, err := distribution.NewOneDOneD(nt, powers)
		if err != nil {
			return nil, err
		}
		fd, err := onRanks("1d1d-lp", d1, ranks, nodes, nt)
		if err != nil {
			return nil, err
		}
		gd, err := distribution.Generation(fd, nt, distribution.Quotas(gen, nt))
		if err != nil {
			return nil, err
		}
		p.Fact, p.Gen = fd, gd
		p.Note = fmt.Sprintf("LP makespan %.3g s", res.Makespan)
		if o.ExcludeCPUOnly {
			p.Note += ", GPU nodes only in the factorisation"
		}
	default:
		return nil, fmt.Errorf("strategy: unknown distribution %q (want bc, bc-fast, 1d1d or lp)", name)
	}
	if p.Gen == nil {
		p.Gen = p.Fact
	}
	p.Moved = distribution.Moves(p.Fact, p.Gen, nt)
	return p, nil
}

// onRanks maps the k-node distribution d onto ranks[0..k-1] of a cluster of
// nodes nodes.
func onRanks(name string, d distribution.Distribution, ranks []int, nodes, nt int) (distribution.Distribution, error) {
	tab := distribution.Tabulate(d, nt).Table()
	for m := range tab {
		for n := range tab[m] {
			tab[m][n] = ranks[tab[m][n]]
		}
	}
	return distribution.NewExplicit(name, nodes, tab)
}

// Record returns the task graph of one log-likelihood evaluation of n
// points with tile size nb, distributed by p: the graph a real run with
// these distributions submits (pkg/likelihood, pkg/cholesky, pkg/solve), with
// the messages its runtime would send.
func Record(p *Plan, n, nb int) (*runtime.Graph, error) {
	return RecordOverlap(p, n, nb, nil)
}

// RecordOverlap is Record with seed 000's phase-overlap switches ov (nil:
// all on): with async off the graph holds the barriers between phases.
// The runtime's part of the switches (memory, oversubscription) leaves no
// trace in a recorded graph.
func RecordOverlap(p *Plan, n, nb int, ov *likelihood.Overlap) (*runtime.Graph, error) {
	pts := gridPoints(n)
	prob := likelihood.Problem{Points: pts, Metric: matern.Euclidean, Obs: make([]float64, n), Model: likelihood.Matern}
	rt := runtime.New(runtime.Options{Record: true, Ranks: p.Fact.Nodes()})
	defer rt.Close()
	o := likelihood.Options{NB: nb, Owner: p.Fact.Owner, Overlap: ov}
	if p.Gen != p.Fact {
		o.GenOwner = p.Gen.Owner
	}
	ev, err := likelihood.NewWith(prob, rt, o)
	if err != nil {
		return nil, err
	}
	rt.Graph()
	if _, _, err := ev.LogLik([]float64{1, 0.1, 0.5}); err != nil {
		return nil, err
	}
	return rt.Graph(), nil
}

// gridPoints returns n points on a square grid of the unit square: the
// recorded graph depends only on n and nb, not on the locations.
func gridPoints(n int) matern.Points {
	side := int(math.Ceil(math.Sqrt(float64(n))))
	p := matern.Points{X: make([]float64, n), Y: make([]float64, n)}
	for i := 0; i < n; i++ {
		p.X[i] = float64(i%side) / float64(side)
		p.Y[i] = float64(i/side) / float64(side)
	}
	return p
}

// Simulate records p's evaluation graph and replays it on c.
func Simulate(p *Plan, c config.Cluster, n, nb int, o sim.Options) (*sim.Result, error) {
	res, _, err := simulate(p, c, n, nb, o)
	return res, err
}

// simulate is Simulate that also returns the recorded graph.
func simulate(p *Plan, c config.Cluster, n, nb int, o sim.Options) (*sim.Result, *runtime.Graph, error) {
	g, err := Record(p, n, nb)
	if err != nil {
		return nil, nil, err
	}
	res, err := sim.Run(g, c, o)
	return res, g, err
}

// Best builds and simulates strategy name; for lp on a cluster with both
// CPU-only and GPU nodes it also tries the LP that keeps the CPU-only nodes
// out of the factorisation (the paper's best set-up with Chifflot nodes,
// Figure 8) and returns the faster of the two.
func Best(name string, c config.Cluster, n, nb int, o Options) (*Plan, *sim.Result, error) {
	p, res, _, err := best(name, c, n, nb, o)
	return p, res, err
}

// best is Best that also returns the recorded graph of the plan it returns.
func best(name string, c config.Cluster, n, nb int, o Options) (*Plan, *sim.Result, *runtime.Graph, error) {
	nt := (n + nb - 1) / nb
	p, err := Build(name, c, nt, o)
	if err != nil {
		return nil, nil, nil, err
	}
	res, g, err := simulate(p, c, n, nb, sim.Options{})
	if err != nil {
		return nil, nil, nil, err
	}
	if name != "lp" || o.ExcludeCPUOnly || !mixed(c) {
		return p, res, g, nil
	}
	q, err := Build(name, c, nt, Options{ExcludeCPUOnly: true})
	if err != nil {
		return p, res, g, nil
	}
	r2, g2, err := simulate(q, c, n, nb, sim.Options{})
	if err != nil || r2.Makespan >= res.Makespan {
		return p, res, g, nil
	}
	return q, r2, g2, nil
}

// mixed reports whether c has both CPU-only and GPU groups.
func mixed(c config.Cluster) bool {
	cpuOnly, gpu := false, false
	for _, g := range c.Groups {
		if g.GPUs > 0 {
			gpu = true
		} else {
			cpuOnly = true
		}
	}
	return cpuOnly && gpu
}
