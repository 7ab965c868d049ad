package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/exageostat/exageostat/pkg/bench"
	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/plot"
	"github.com/exageostat/exageostat/pkg/strategy"
	"github.com/exageostat/exageostat/pkg/tile"
)

// maxOverlapReps bounds bench overlap's --reps.
const maxOverlapReps = 100

func newBenchOverlapCmd(w comm.Comm) *cobra.Command {
	var o bench.OverlapOptions
	var thetaS, plotPath, clusterPath, dist string
	var asJSON bool
	c := &cobra.Command{
		Use:   "overlap",
		Short: "Seed 000's Figure 5: the phase-overlap optimisations switched on one by one",
		Long: `Runs the cumulative ablation of seed 000's Figure 5 on N synthetic locations:

  sync                 every optimisation off: a barrier after each phase
                       (generation, Cholesky, determinant, solve, dot), Chameleon's
                       solve (tiles travel to z's owner), no buffer pool, only the
                       Cholesky's priorities, generation in loop order, no extra worker
  async                no barriers
  +local-solve+memory  Algorithm 1's local solve; the buffer pool (reuse, pre-allocation)
  +priorities          generation and solve priorities (Equations 2, 7-9)
  +submission-order    generation submitted in priority order
  +oversubscription    one extra worker that never generates (all on: fit's default)

Each step has its own runtime and evaluator; after a warm-up each, the steps
are timed in turn, --reps rounds, so that the shared machine's drift falls on
all. The table gives per step the median seconds of an evaluation (min, max),
the gain 1 - t/t_previous and 1 - t/t_sync, seed 000's utilisation (time in
tasks / (workers x wall), the extra worker counted; whole evaluation and its
first 90 %), and the floor: the Cholesky's flops at the dgemm rate measured in
this run on --workers threads plus the generation's busy time spread over the
workers, with wall / floor. l is checked to be bitwise the same at every step.
Under mpirun the tiles are 2D block-cyclic over the ranks, the time of an
evaluation is its slowest rank's and the utilisation rank 0's.

--cluster FILE simulates the ablation on a modelled cluster instead (a
cluster file with [[group]] tables, see simulate-cluster): each step's
graph, recorded by the same submission code (with async off, the barriers
between phases), replayed by the simulator with --dist (default bc); the
utilisation counts every worker of every node. The simulator does not
model the buffer pool's allocation costs nor an extra worker sharing a
core, so the memory and oversubscription steps change nothing there (said
in the table). configs/cluster-4chifflet.toml is seed 000's four Chifflet
nodes; with --n 96960 (101 x 101 tiles of 960) the paper measured about
103 s for sync and 66 s with every optimisation (36 % less), and
utilisations of 83.76 %, 94.92 % and 95.28 % (first 90 %: 93.03 %, 99.09 %,
99.13 %) for async, + local solve + memory, and all.`,
		Example: `  exageostat bench overlap --n 3600 --workers 2
  exageostat bench overlap --n 8192 --nb 512 --workers 2 --reps 5 --plot fig5.svg
  mpirun -np 2 exageostat bench overlap --n 3600 --workers 1 --json
  exageostat bench overlap --cluster configs/cluster-4chifflet.toml --n 96960 --plot fig5-sim.svg`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			th, err := parseMaternTheta("bench overlap", thetaS)
			if err != nil {
				return err
			}
			o.Theta = th
			if clusterPath != "" {
				return runOverlapSim(c, clusterPath, dist, o.N, o.NB, plotPath, asJSON)
			}
			if c.Flags().Changed("dist") {
				return badInput("bench overlap: --dist goes with --cluster")
			}
			if err := checkInts("bench overlap", atLeast("n", o.N, 3), autoNBFlag(o.NB), workersFlag(o.Workers), within("reps", o.Reps, 1, maxOverlapReps)); err != nil {
				return err
			}
			if plotPath != "" {
				switch strings.ToLower(filepath.Ext(plotPath)) {
				case ".svg", ".png":
				default:
					return badInput("bench overlap: --plot %q: want a .svg or .png file name", plotPath)
				}
				if fi, err := os.Stat(filepath.Dir(plotPath)); err != nil || !fi.IsDir() {
					return badInput("bench overlap: --plot %q: no directory %s", plotPath, filepath.Dir(plotPath))
				}
			}
			if o.NB == 0 {
				o.NB = tile.AutoNB(o.N)
			}
			kernels.DefaultThreads().SetThreads(1)
			o.Comm = w
			if w.Rank() == 0 {
				o.Progress = benchProgress(asJSON)
			}
			r, err := bench.OverlapBench(o)
			if err != nil {
				return err
			}
			if w.Rank() != 0 {
				return nil
			}
			if plotPath != "" {
				if err := plotOverlap(plotPath, r); err != nil {
					return err
				}
			}
			return emitBench(asJSON, r, w.Size(), o.Workers, func() error {
				printOverlap(os.Stdout, r)
				return nil
			})
		},
	}
	f := c.Flags()
	problemFlags(f, &o.Problem, &thetaS, problemDefaults{n: 3600, nb: 0, reps: 5, theta: "1,0.1,0.73",
		nbHelp:      "tile size (0: automatic, as fit: about N/6, a multiple of 16 within [160, 960])",
		workersHelp: "runtime workers per rank (oversubscription adds one)",
		repsHelp:    "timed evaluations per step (medians, min and max are reported)"})
	f.StringVar(&plotPath, "plot", "", "also draw the medians as bars with min-max error bars: FILE.svg or FILE.png (both are written)")
	f.BoolVar(&asJSON, "json", false, "print one JSON object; its steps list holds, from sync to all on, each step's name, median seconds and utilization")
	f.StringVar(&clusterPath, "cluster", "", "simulate the ablation on this modelled cluster (TOML with [[group]] tables) instead of running it")
	f.StringVar(&dist, "dist", "bc", "with --cluster: the distribution strategy (bc, bc-fast, 1d1d, lp)")
	return c
}

// printOverlap prints the ablation table.
func printOverlap(w io.Writer, r *bench.OverlapResult) {
	fmt.Fprintf(w, "overlap ablation (seed 000, Figure 5): n=%d nb=%d ranks=%d workers=%d theta=%s, core %s, dgemm %.1f GFLOP/s, median of %d\n",
		r.N, r.NB, r.Ranks, r.Workers, config.FormatFloats(r.Theta), r.Core, r.Dgemm, r.Reps)
	fmt.Fprintf(w, "  %-20s %8s %17s %9s %9s %7s %8s %8s %7s\n", "step", "seconds", "(min - max)", "vs prev", "vs sync", "util", "util90", "floor", "/floor")
	for _, s := range r.Steps {
		fmt.Fprintf(w, "  %-20s %8.4f %8.4f - %6.4f %+8.1f%% %+8.1f%% %6.1f%% %7.1f%% %8.4f %6.2fx\n",
			s.Name, s.Seconds, s.Spread.Min, s.Spread.Max, 100*s.GainPrev, 100*s.GainSync, 100*s.Utilization, 100*s.First90, s.Floor, s.FloorRatio)
	}
	if len(r.Steps) > 0 {
		fmt.Fprintf(w, "  l = %.10f at every step (bitwise)\n", r.Steps[0].LogLik)
	}
}

// barLabel breaks a step's name over two lines under its bar.
func barLabel(name string) string {
	return strings.NewReplacer("+submission-order", "+submission\norder", "+local-solve+memory", "+local solve\n+memory",
		"+oversubscription", "+oversub-\nscription").Replace(name)
}

// plotOverlap draws the ablation as bars with error bars, each labelled
// with its time relative to sync and its utilisation.
func plotOverlap(path string, r *bench.OverlapResult) error {
	var names, notes []string
	var med, lo, hi []float64
	for _, s := range r.Steps {
		names = append(names, barLabel(s.Name))
		med, lo, hi = append(med, s.Seconds), append(lo, s.Spread.Min), append(hi, s.Spread.Max)
		notes = append(notes, fmt.Sprintf("%.2fx sync\nutil %.0f%%", s.Seconds/r.Steps[0].Seconds, 100*s.Utilization))
	}
	return plot.Bars(path, names, med, lo, hi, plot.BarsOptions{
		Title:  fmt.Sprintf("Phase-overlap ablation, N=%d nb=%d, %d rank(s) x %d workers\n(median, min-max of %d evaluations)", r.N, r.NB, r.Ranks, r.Workers, r.Reps),
		YLabel: "seconds per evaluation", Notes: notes})
}

// runOverlapSim is bench overlap --cluster: the ablation simulated.
func runOverlapSim(c *cobra.Command, path, dist string, n, nb int, plotPath string, asJSON bool) error {
	if !c.Flags().Changed("n") {
		return badInput("bench overlap: --cluster needs --n (e.g. 96960: 101 x 101 tiles of 960)")
	}
	cl, err := loadModel("bench overlap", path, n, &nb)
	if err != nil {
		return err
	}
	if !slices.Contains(strategy.Names(), dist) {
		return badInput("bench overlap: --dist %q: want one of %s", dist, strings.Join(strategy.Names(), ", "))
	}
	if plotPath != "" {
		switch strings.ToLower(filepath.Ext(plotPath)) {
		case ".svg", ".png":
		default:
			return badInput("bench overlap: --plot %q: want a .svg or .png file name", plotPath)
		}
	}
	r, err := bench.OverlapSim(cl, n, nb, dist)
	if err != nil {
		return err
	}
	if plotPath != "" {
		var names, notes []string
		var med []float64
		for _, s := range r.Steps {
			names = append(names, barLabel(s.Name))
			med = append(med, s.Seconds)
			notes = append(notes, fmt.Sprintf("%.2fx sync\nutil %.0f%%", s.Seconds/r.Steps[0].Seconds, 100*s.Utilization))
		}
		if err := plot.Bars(plotPath, names, med, med, med, plot.BarsOptions{
			Title: fmt.Sprintf("Phase-overlap ablation simulated on %s\nN=%d nb=%d (%d x %d tiles), %s, %d nodes, %d workers", filepath.Base(path),
				r.N, r.NB, r.NT, r.NT, r.Dist, r.Nodes, r.Workers),
			YLabel: "simulated seconds per evaluation", Notes: notes}); err != nil {
			return err
		}
	}
	if asJSON {
		return json.NewEncoder(os.Stdout).Encode(r)
	}
	fmt.Printf("overlap ablation (seed 000, Figure 5) simulated on %s: N=%d nb=%d (%d x %d tiles), %s over %d nodes, %d workers\n",
		path, r.N, r.NB, r.NT, r.NT, r.Dist, r.Nodes, r.Workers)
	fmt.Printf("  %-20s %9s %9s %9s %7s %8s %10s  %s\n", "step", "seconds", "vs prev", "vs sync", "util", "util90", "MB sent", "")
	for _, s := range r.Steps {
		note := ""
		if s.NotModelled != "" {
			note = "not modelled: " + s.NotModelled
		}
		fmt.Printf("  %-20s %9.3f %+8.1f%% %+8.1f%% %6.1f%% %7.1f%% %10.0f  %s\n",
			s.Name, s.Seconds, 100*s.GainPrev, 100*s.GainSync, 100*s.Utilization, 100*s.First90, s.MB, note)
	}
	return nil
}
