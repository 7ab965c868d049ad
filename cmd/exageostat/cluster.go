package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/job"
	"github.com/exageostat/exageostat/pkg/perfmodel"
	"github.com/exageostat/exageostat/pkg/sim"
	"github.com/exageostat/exageostat/pkg/strategy"
	"github.com/exageostat/exageostat/pkg/tile"
	"github.com/exageostat/exageostat/pkg/trace"
)

type simFlags struct {
	cfg, dist, trace string
	n, nb            int
	excludeCPU       bool
	asJSON           bool
}

func newSimulateClusterCmd() *cobra.Command {
	var sf simFlags
	c := &cobra.Command{
		Use:   "simulate-cluster",
		Short: "Simulate one likelihood evaluation on a modelled heterogeneous cluster",
		Long: `Records the task graph of one log-likelihood evaluation (the same task
submission code as a real run, on a recording runtime) with the tiles
distributed by --dist over the nodes of the cluster described by --config
([[group]] tables with per-task durations, [network]; see
configs/cluster-chetemi-chifflet*.toml and 'exageostat calibrate'), and
replays it with a discrete-event simulation: workers per node and type
(CPU/GPU), task priorities, owner-computes placement, and messages with the
network's bandwidth and latency. Prints the makespan, the utilisation of each
group's CPUs and GPUs and the bytes moved; --trace writes the simulated run in
the format of real traces.

Distributions (Figure 7 of the multi-phase ExaGeoStat paper): bc (2D
block-cyclic over all nodes), bc-fast (block-cyclic over the fastest group),
1d1d (1D-1D with the nodes' dgemm powers), lp (the linear program's
factorisation and generation distributions).`,
		Example: `  exageostat simulate-cluster --config configs/cluster-chetemi-chifflet.toml --n 96960 --nb 960 --dist lp
  exageostat simulate-cluster --config this-machine.toml --n 8192 --nb 512 --dist bc --trace sim.json`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error { return runSimulateCluster(c, &sf) },
	}
	f := c.Flags()
	f.StringVar(&sf.cfg, "config", "", "cluster TOML with [[group]] tables (required)")
	f.IntVar(&sf.n, "n", 0, "matrix size N")
	f.IntVar(&sf.nb, "nb", 0, "tile size (default: the config's nb, at which its durations were measured)")
	f.StringVar(&sf.dist, "dist", "lp", "distribution: bc, bc-fast, 1d1d or lp")
	f.BoolVar(&sf.excludeCPU, "exclude-cpu-only", false, "lp: keep CPU-only nodes out of the factorisation")
	f.StringVar(&sf.trace, "trace", "", "write the simulated trace (Chrome JSON, or .csv)")
	f.BoolVar(&sf.asJSON, "json", false, "print the result as JSON")
	return c
}

// loadModel reads a cluster file that must have groups, with the durations
// of its perfmodel groups at nb (perfmodel.LoadCluster), and checks n and
// nb (nb 0: the file's).
func loadModel(cmd, path string, n int, nb *int) (config.Cluster, error) {
	if path == "" {
		return config.Cluster{}, badInput("%s: --config cluster.toml (with [[group]] tables) is required", cmd)
	}
	cl, err := perfmodel.LoadCluster(path, *nb)
	if err != nil {
		return cl, &job.InputError{Err: err}
	}
	if len(cl.Groups) == 0 {
		return cl, badInput("%s: %s has no [[group]] tables: the simulation needs node groups with task durations", cmd, path)
	}
	if *nb == 0 {
		*nb = cl.NB
	}
	if n < 1 || *nb < 1 {
		return cl, badInput("%s: need --n >= 1 and --nb >= 1 (got %d, %d)", cmd, n, *nb)
	}
	if nt := tile.NewLayout(n, *nb).NT; nt > 400 {
		return cl, badInput("%s: %d x %d tiles is too many to simulate (at most 400 per side); raise --nb", cmd, nt, nt)
	}
	return cl, nil
}

type simOut struct {
	Dist    string      `json:"distribution"`
	Note    string      `json:"note,omitempty"`
	N       int         `json:"n"`
	NB      int         `json:"nb"`
	Moved   int         `json:"tiles_moved_between_phases"`
	IdealLP float64     `json:"lp_makespan_s,omitempty"`
	Result  *sim.Result `json:"simulation"`
}

func runSimulateCluster(c *cobra.Command, sf *simFlags) error {
	cl, err := loadModel("simulate-cluster", sf.cfg, sf.n, &sf.nb)
	if err != nil {
		return err
	}
	if err := checkOutputs("simulate-cluster", []job.File{{Flag: "trace", Path: sf.trace}}, job.File{Flag: "config", Path: sf.cfg}); err != nil {
		return err
	}
	nt := tile.NewLayout(sf.n, sf.nb).NT
	p, err := strategy.Build(sf.dist, cl, nt, strategy.Options{ExcludeCPUOnly: sf.excludeCPU})
	if err != nil {
		return badInput("simulate-cluster: %v", err)
	}
	res, err := strategy.Simulate(p, cl, sf.n, sf.nb, sim.Options{TraceTransfers: sf.trace != ""})
	if err != nil {
		return err
	}
	if sf.trace != "" {
		if err := trace.WriteFile(sf.trace, res.Events); err != nil {
			return err
		}
	}
	o := simOut{Dist: sf.dist, Note: p.Note, N: sf.n, NB: sf.nb, Moved: p.Moved, IdealLP: p.Ideal, Result: res}
	out := c.OutOrStdout()
	if sf.asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(o)
	}
	fmt.Fprintf(out, "simulated one evaluation: N = %d, nb = %d (%d x %d tiles), %d nodes, distribution %s", sf.n, sf.nb, nt, nt, cl.GroupNodes(), sf.dist)
	if p.Note != "" {
		fmt.Fprintf(out, " (%s)", p.Note)
	}
	fmt.Fprintf(out, "\nmakespan %.4g s; %d tasks; %d messages, %.1f MB; %d tiles move between the phases\n",
		res.Makespan, res.Tasks, res.Messages, float64(res.Bytes)/1e6, p.Moved)
	fmt.Fprintf(out, "%-12s %5s %9s %9s %12s\n", "group", "nodes", "cpu use", "gpu use", "MB sent")
	for _, g := range res.Groups {
		gpu := "-"
		if g.GPU.Workers > 0 {
			gpu = fmt.Sprintf("%.1f%%", 100*g.GPU.Utilisation)
		}
		fmt.Fprintf(out, "%-12s %5d %8.1f%% %9s %12.1f\n", g.Name, g.Nodes, 100*g.CPU.Utilisation, gpu, float64(g.BytesSent)/1e6)
	}
	if sf.trace != "" {
		fmt.Fprintf(os.Stderr, "wrote %s\n", sf.trace)
	}
	return nil
}

// printStrategies prints the rows of strategy.Compare and the recommended one.
func printStrategies(w io.Writer, rows []strategy.Row) {
	fmt.Fprintf(w, "%-8s %12s %12s %8s %10s  %s\n", "strategy", "makespan s", "LP ideal s", "moved", "MB sent", "note")
	for _, r := range rows {
		if r.Err != "" {
			fmt.Fprintf(w, "%-8s %12s %12s %8s %10s  %s\n", r.Dist, "-", "-", "-", "-", r.Err)
			continue
		}
		ideal := "-"
		if r.IdealLP > 0 {
			ideal = fmt.Sprintf("%.4g", r.IdealLP)
		}
		fmt.Fprintf(w, "%-8s %12.4g %12s %8d %10.1f  %s\n", r.Dist, r.Makespan, ideal, r.Moved, r.MB, r.Note)
	}
	if b := strategy.BestRow(rows); b >= 0 {
		fmt.Fprintf(w, "recommended: %s (simulated makespan %.4g s)\n", rows[b].Dist, rows[b].Makespan)
	}
}
