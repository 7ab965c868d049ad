package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/exageostat/exageostat/pkg/atomicfile"
	"github.com/exageostat/exageostat/pkg/distribution"
	"github.com/exageostat/exageostat/pkg/job"
	"github.com/exageostat/exageostat/pkg/kind"
	"github.com/exageostat/exageostat/pkg/plot"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/strategy"
	"github.com/exageostat/exageostat/pkg/trace"
)

// maxDAGNodes bounds trace dag: Graphviz lays out a few thousand nodes.
const maxDAGNodes = 5000

func newTraceCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "trace",
		Short: "Draw a trace (view), merge the ranks' trace files of a run (merge), or write the task graph of an evaluation as Graphviz DOT (dag)",
		Args:  noArgs,
		RunE:  func(c *cobra.Command, args []string) error { return c.Help() },
	}
	c.AddCommand(newTraceViewCmd(), newTraceMergeCmd(), newTraceDAGCmd())
	return c
}

func newTraceViewCmd() *cobra.Command {
	var out string
	var iter int
	var asJSON bool
	var dpi float64
	c := &cobra.Command{
		Use:   "view TRACE --out FILE.svg|png",
		Short: "StarVZ-style panels of a real or simulated trace",
		Long: `Draws a trace written by fit, predict or simulate --trace (the merged
Chrome JSON or Paje file, or one rank's Paje file) or by simulate-cluster
--trace as four panels on one time axis:

  1. node occupation: one lane per worker of each rank, each task a box
     coloured by phase (generation green, Cholesky blue, solve orange), the
     potrf chain - the Cholesky's critical path - in red and outlined, and
     under each rank's workers its comm lane, with a line per transfer from
     the sender's comm lane to the receiver's; the makespan and the
     resource utilisation (time in tasks / (workers x makespan), over the
     whole and over its first 90 %) in the title;
  2. the iteration panel (seed 000, Figure 3): each task at the height of
     its Cholesky step k (generation at 0, step k at k + 1, the solve and
     products after the Cholesky at NT + 1);
  3. tasks submitted and not started, and ready and not started, over time
     (a simulated trace has no submission);
  4. the tile memory held by each rank over time.

--iteration K draws one likelihood evaluation of a fit (its iteration
mark). It prints the makespan, the utilisation and the task counts (--json:
one object). The legends sit beside the panels, off the data.`,
		Example: `  exageostat fit --n 3600 --trace t.json --max-evals 3 && exageostat trace view t.json --iteration 2 --out t.svg
  mpirun -np 2 exageostat fit --n 3600 --workers 1 --trace t2.json && exageostat trace view t2.json --out t2.png
  exageostat simulate-cluster --config configs/cluster-chetemi-chifflet.toml --n 48000 --trace sim.json && exageostat trace view sim.json --out sim.svg`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return badInput("trace view: give one trace file (see 'exageostat trace view --help')")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			in := args[0]
			if out == "" {
				return badInput("trace view: --out FILE.svg or FILE.png is required")
			}
			if ext := strings.ToLower(filepath.Ext(out)); ext != ".svg" && ext != ".png" {
				return badInput("trace view: --out %s: the picture is an .svg or a .png file", out)
			}
			if iter < 0 {
				return badInput("trace view: --iteration must be >= 1 (got %d)", iter)
			}
			if !(dpi > 0 && dpi <= 1200) {
				return badInput("trace view: --dpi must be in (0, 1200] (got %g)", dpi)
			}
			if err := checkOutputs("trace view", []job.File{{Flag: "out", Path: out}}, job.File{Flag: "trace", Path: in}); err != nil {
				return err
			}
			ev, err := trace.ReadFile(in)
			if err != nil {
				return badInput("trace view: %v", err)
			}
			sum, err := plot.TraceView(out, ev, plot.TraceViewOptions{Iteration: iter, Title: filepath.Base(in), DPI: dpi})
			if err != nil {
				return badInput("trace view: %s: %v", in, err)
			}
			if asJSON {
				enc := json.NewEncoder(c.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(sum)
			}
			fmt.Fprintf(c.OutOrStdout(), "%s: %d tasks on %d workers of %d rank(s), %d potrf; makespan %.4g s, utilisation %.1f %% (first 90 %%: %.1f %%)\n",
				in, sum.Tasks, sum.Workers, sum.Ranks, sum.Potrf, sum.Makespan, 100*sum.Utilization, 100*sum.Utilization90)
			fmt.Fprintf(c.ErrOrStderr(), "wrote %s\n", out)
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&out, "out", "", "the picture: FILE.svg or FILE.png")
	f.IntVar(&iter, "iteration", 0, "draw only this iteration (likelihood evaluation) of the trace")
	f.Float64Var(&dpi, "dpi", 150, "resolution of a PNG")
	f.BoolVar(&asJSON, "json", false, "print the summary as JSON")
	return c
}

func newTraceMergeCmd() *cobra.Command {
	var out string
	c := &cobra.Command{
		Use:   "merge RANK.paje... --out FILE.json|paje|csv",
		Short: "Merge the per-rank trace files of a run into one trace (Perfetto JSON and Paje)",
		Long: `A run given --trace T.json writes each rank's trace to T.rank<R>.paje as it
goes (a Paje file of whole lines: readable even after the run was killed)
and merges them at its end into T.json (Perfetto, chrome://tracing) and
T.paje (ViTE, pajeng's pj_dump, StarVZ). merge does the same on demand,
from the rank files of a run that did not end, or of ranks that wrote on
their own nodes' disks: --out FILE.json writes Chrome JSON and FILE.paje
beside it, FILE.paje Paje only, FILE.csv CSV and FILE.paje. In the Paje
file, the transfers whose two sides are in the files are links between
the ranks' comm containers.`,
		Example: `  exageostat trace merge t.rank0.paje t.rank1.paje --out t.json
  vite t.paje; pj_dump t.paje | head`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return badInput("trace merge: give the ranks' trace files (T.rank0.paje ...)")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			if out == "" {
				return badInput("trace merge: --out FILE.json, FILE.paje or FILE.csv is required")
			}
			ins := make([]job.File, len(args))
			for i, a := range args {
				ins[i] = job.File{Flag: "rank file", Path: a}
			}
			outs := []job.File{{Flag: "out", Path: out}}
			if !strings.EqualFold(filepath.Ext(out), ".paje") {
				outs = append(outs, job.File{Flag: "out", Path: trace.PajePath(out)})
			}
			if err := checkOutputs("trace merge", outs, ins...); err != nil {
				return err
			}
			var ev []trace.Event
			for _, a := range args {
				e, err := trace.ReadFile(a)
				if err != nil {
					return badInput("trace merge: %v", err)
				}
				ev = append(ev, e...)
			}
			trace.Sort(ev)
			files, err := trace.WriteOutputs(out, ev)
			if err != nil {
				return badInput("trace merge: --out: %v", err)
			}
			fmt.Fprintf(c.ErrOrStderr(), "wrote %s: %d events from %d file(s)\n", strings.Join(files, ", "), len(ev), len(args))
			return nil
		},
	}
	c.Flags().StringVar(&out, "out", "", "the merged trace: FILE.json (and FILE.paje beside it), FILE.paje or FILE.csv")
	return c
}

func newTraceDAGCmd() *cobra.Command {
	var n, nb, nodes int
	var out string
	c := &cobra.Command{
		Use:   "dag --n N --nb NB --out FILE.dot",
		Short: "The task graph of one likelihood evaluation as Graphviz DOT",
		Long: `Records the task graph of one log-likelihood evaluation of N points with
tile size nb (the submission code of a real run on a recording runtime, 2D
block-cyclic over --nodes ranks) and writes it as a Graphviz DOT file: one
node per task, labelled kind(m,n,k) and coloured by phase (generation
green, Cholesky blue, potrf red, solve orange), one box per message
between ranks, grouped by rank; an edge per dependency. At most 5000 nodes
(a few tiles per side): render with 'dot -Tsvg FILE.dot -o FILE.svg'.`,
		Example: `  exageostat trace dag --n 400 --nb 100 --out dag.dot
  exageostat trace dag --n 400 --nb 100 --nodes 2 --out dag2.dot`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			switch {
			case n < 1 || nb < 1:
				return badInput("trace dag: --n and --nb must be >= 1 (got %d, %d)", n, nb)
			case nodes < 1 || nodes > 64:
				return badInput("trace dag: --nodes must be in [1, 64] (got %d)", nodes)
			case out == "":
				return badInput("trace dag: --out FILE.dot is required")
			}
			if nt := (n + nb - 1) / nb; nt > 30 {
				return badInput("trace dag: %d x %d tiles is too many to draw (at most 30 per side); raise --nb", nt, nt)
			}
			if err := checkOutputs("trace dag", []job.File{{Flag: "out", Path: out}}); err != nil {
				return err
			}
			p, q := distribution.SquareGrid(nodes)
			bc := distribution.BlockCyclic{P: p, Q: q}
			g, err := strategy.Record(&strategy.Plan{Name: "bc", Fact: bc, Gen: bc}, n, nb)
			if err != nil {
				return err
			}
			if len(g.Nodes) > maxDAGNodes {
				return badInput("trace dag: %d nodes is too many to draw (at most %d); lower --n or raise --nb", len(g.Nodes), maxDAGNodes)
			}
			if err := atomicfile.Write(out, func(w io.Writer) error { return writeDOT(w, g, n, nb) }); err != nil {
				return badInput("trace dag: --out: %v", err)
			}
			fmt.Fprintf(c.ErrOrStderr(), "wrote %s: %d nodes\n", out, len(g.Nodes))
			return nil
		},
	}
	f := c.Flags()
	f.IntVar(&n, "n", 400, "number of locations")
	f.IntVar(&nb, "nb", 100, "tile size")
	f.IntVar(&nodes, "nodes", 1, "ranks (2D block-cyclic)")
	f.StringVar(&out, "out", "", "the DOT file")
	return c
}

// dotColor is a node's fill colour in the DAG: as in trace view.
func dotColor(k string) string {
	if k == kind.Potrf {
		return "#d62728"
	}
	switch kind.Phase(k) {
	case "generation":
		return "#2ca02c"
	case "cholesky":
		return "#1f77b4"
	case "solve":
		return "#ff7f0e"
	}
	return "#999999"
}

// writeDOT writes g as a Graphviz digraph, one cluster per rank.
func writeDOT(w io.Writer, g *runtime.Graph, n, nb int) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "// exageostat trace dag: one log-likelihood evaluation, N = %d, nb = %d, %d rank(s), %d nodes\n", n, nb, g.Ranks, len(g.Nodes))
	fmt.Fprintln(bw, "digraph evaluation {")
	fmt.Fprintln(bw, `  rankdir=TB; node [style=filled, fontname="Helvetica", fontsize=10, fontcolor=white];`)
	for r := range g.Ranks {
		if g.Ranks > 1 {
			fmt.Fprintf(bw, "  subgraph cluster_rank%d {\n    label=\"rank %d\";\n", r, r)
		}
		for i, nd := range g.Nodes {
			if nd.Rank != r {
				continue
			}
			if nd.Kind == runtime.XferKind {
				fmt.Fprintf(bw, "    n%d [shape=box, fillcolor=\"#7f7f7f\", label=\"%s %d->%d\"];\n", i, nd.Handle, nd.Src, nd.Rank)
				continue
			}
			fmt.Fprintf(bw, "    n%d [shape=ellipse, fillcolor=%q, label=%q];\n", i, dotColor(nd.Kind), runtime.TaskName(nd.Kind, nd.Tile))
		}
		if g.Ranks > 1 {
			fmt.Fprintln(bw, "  }")
		}
	}
	for i, nd := range g.Nodes {
		for _, d := range nd.Deps {
			fmt.Fprintf(bw, "  n%d -> n%d;\n", d, i)
		}
	}
	fmt.Fprintln(bw, "}")
	return bw.Flush()
}
