package main

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/exageostat/exageostat/pkg/bench"
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/job"
	"github.com/exageostat/exageostat/pkg/perfmodel"
)

type grainFlags struct {
	cfg, shape, halves, nbs, outDir string
	n                               int
	pcie, dcmgScale                 float64
	asJSON                          bool
}

func newBenchGrainCmd() *cobra.Command {
	var gf grainFlags
	c := &cobra.Command{
		Use:   "grain",
		Short: "Simulated evaluation time against the tile size, one node of each group, with and without its GPUs",
		Long: `The tile-size (grain) study of seed 001 on the simulator: does one tile size
serve CPU and GPU workers? For each [[group]] of --config (its durations at
the file's nb, the anchor) and each tile size of --nb, one likelihood
evaluation of --n points is simulated on one node of the group (block-cyclic
on one node: every task there), and on the same node without its GPUs.

CPU durations at a tile size nb: the group's at the anchor times
(nb / anchor)^p, p the order of the kind's work (3 for potrf, trtri, trmm,
syrk, gemm; 2 for dcmg, trsv, gemv; 1 for the others): CPU tile kernels
run at one rate from nb = 240 up. With --shape FILE, the group's at the
anchor times the measured ratio t(nb) / t(anchor) of the same kind in FILE
(a performance model of a CPU: 'exageostat calibrate --nb 240,...,1920
--perfmodel FILE'). GPU durations: Hockney's model, a GPU running its tile
kernels at R nb / (nb + n1/2) flop/s, anchored at the group's [group.gpu]
value, t(nb) = t(anchor) (nb/anchor)^2 (nb + n1/2) / (anchor + n1/2), with
n1/2 per group from --half; --pcie B adds 8 nb^2 / B seconds (one tile over
the host link) to each GPU task. --dcmg-scale multiplies the generation's
durations (0.026: the closed-form nu = 0.5 against K_nu, shared/FACTS.md).
--out-dir writes each group's derived model (GROUP.json, arch cpu and cuda
at every --nb) for a cluster file's perfmodel key.`,
		Example: `  exageostat bench grain --n 30720 --nb 240,480,960,1920
  exageostat bench grain --pcie 12e9 --json
  exageostat bench grain --shape docs/grain/epyc-2core.json`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error { return runBenchGrain(c, &gf) },
	}
	f := c.Flags()
	f.StringVar(&gf.cfg, "config", "configs/cluster-chetemi-chifflet-chifflot1.toml", "cluster file whose groups are the node types (durations at its nb)")
	f.StringVar(&gf.shape, "shape", "", "performance model with measured arch cpu durations at the anchor nb and every --nb (default: one rate at every nb)")
	f.StringVar(&gf.halves, "half", "chifflet=40,chifflot=700", "GPU n1/2 (tile size at half the asymptotic rate) per group with GPUs, name=value")
	f.IntVar(&gf.n, "n", 30720, "matrix size N")
	f.StringVar(&gf.nbs, "nb", "240,320,480,640,960,1280,1920", "tile sizes")
	f.Float64Var(&gf.pcie, "pcie", 0, "host-GPU link in bytes/s: each GPU task also moves one tile (0: no transfer cost)")
	f.Float64Var(&gf.dcmgScale, "dcmg-scale", 1, "factor on the dcmg durations")
	f.StringVar(&gf.outDir, "out-dir", "", "write each group's derived performance model as DIR/GROUP.json")
	f.BoolVar(&gf.asJSON, "json", false, "print the rows as JSON")
	return c
}

func runBenchGrain(c *cobra.Command, gf *grainFlags) error {
	nbs, err := parseInts("bench grain", "nb", gf.nbs, "a tile size", 1, 8192)
	if err != nil {
		return err
	}
	if gf.n < 1 {
		return badInput("bench grain: --n must be >= 1 (got %d)", gf.n)
	}
	for _, nb := range nbs {
		if nt := (gf.n + nb - 1) / nb; nt > 400 {
			return badInput("bench grain: --nb %d gives %d x %d tiles, too many to simulate (at most 400 per side)", nb, nt, nt)
		}
	}
	if !(gf.pcie >= 0) || math.IsInf(gf.pcie, 0) {
		return badInput("bench grain: --pcie must be >= 0 bytes/s (got %g)", gf.pcie)
	}
	if !(gf.dcmgScale > 0) || math.IsInf(gf.dcmgScale, 0) {
		return badInput("bench grain: --dcmg-scale must be > 0 (got %g)", gf.dcmgScale)
	}
	cl, err := perfmodel.LoadCluster(gf.cfg, 0)
	if err != nil {
		return &job.InputError{Err: err}
	}
	if len(cl.Groups) == 0 {
		return badInput("bench grain: %s has no [[group]] tables", gf.cfg)
	}
	var shape *perfmodel.Model
	if gf.shape != "" {
		if shape, err = perfmodel.Load(gf.shape); err != nil {
			return badInput("bench grain: --shape: %v", err)
		}
	}
	halves := map[string]float64{}
	if strings.TrimSpace(gf.halves) != "" {
		for _, kv := range strings.Split(gf.halves, ",") {
			name, v, ok := strings.Cut(kv, "=")
			h, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if !ok || err != nil || !(h >= 0) || math.IsInf(h, 0) {
				return badInput("bench grain: --half: %q is not name=n1/2 (a tile size >= 0)", kv)
			}
			halves[strings.TrimSpace(name)] = h
		}
	}
	var nodes []bench.GrainNode
	for _, g := range cl.Groups {
		n := bench.GrainNode{Name: g.Name, CPUs: g.CPUs, GPUs: g.GPUs, CPU: g.CPU, GPU: g.GPU}
		if g.GPUs > 0 && len(g.GPU) > 0 {
			h, ok := halves[g.Name]
			if !ok {
				return badInput("bench grain: --half: no n1/2 for group %q, which has GPUs", g.Name)
			}
			n.Half = h
			nodes = append(nodes, n)
			n.Name, n.GPUs, n.GPU = g.Name+"-cpu", 0, nil
		}
		nodes = append(nodes, n)
	}
	for name := range halves {
		if !slices.ContainsFunc(cl.Groups, func(g config.Group) bool { return g.Name == name }) {
			return badInput("bench grain: --half: %s has no group %q", gf.cfg, name)
		}
	}
	o := bench.GrainOptions{N: gf.n, NBs: nbs, AnchorNB: cl.NB, Shape: shape, PCIe: gf.pcie, DcmgScale: gf.dcmgScale}
	if gf.outDir != "" {
		for _, n := range nodes {
			m, err := bench.GrainModel(n, o)
			if err != nil {
				return badInput("bench grain: %v", err)
			}
			if err := m.Save(filepath.Join(gf.outDir, n.Name+".json")); err != nil {
				return badInput("bench grain: --out-dir: %v", err)
			}
		}
	}
	rows, err := bench.GrainSweep(nodes, o)
	if err != nil {
		return badInput("bench grain: %v", err)
	}
	out := c.OutOrStdout()
	return emitBench(gf.asJSON, map[string]any{"n": gf.n, "anchor_nb": cl.NB, "pcie": gf.pcie, "dcmg_scale": gf.dcmgScale, "half": halves, "rows": rows}, 1, 0, func() error {
		shapeNote := "(nb/anchor)^p"
		if gf.shape != "" {
			shapeNote = "the ratios of " + gf.shape
		}
		fmt.Fprintf(out, "one evaluation, N = %d, one node; CPU: %s's durations at nb = %d x %s; GPU: n1/2 %v", gf.n, gf.cfg, cl.NB, shapeNote, gf.halves)
		if gf.pcie > 0 {
			fmt.Fprintf(out, ", + one tile at %.3g B/s per GPU task", gf.pcie)
		}
		if gf.dcmgScale != 1 {
			fmt.Fprintf(out, ", dcmg x %g", gf.dcmgScale)
		}
		fmt.Fprintf(out, "\n%-14s %6s %5s %12s %8s %8s %10s\n", "node", "nb", "NT", "makespan s", "cpu use", "gpu use", "gpu tasks")
		best := map[string]int{}
		for i, r := range rows {
			if b, ok := best[r.Node]; !ok || r.Makespan < rows[b].Makespan {
				best[r.Node] = i
			}
		}
		for i, r := range rows {
			gpu, mark := "-", ""
			if r.GPUTasks > 0 {
				gpu = fmt.Sprintf("%.1f%%", 100*r.GPUUse)
			}
			if best[r.Node] == i {
				mark = "  <- best"
			}
			fmt.Fprintf(out, "%-14s %6d %5d %12.4g %7.1f%% %8s %10d%s\n", r.Node, r.NB, r.NT, r.Makespan, 100*r.CPUUse, gpu, r.GPUTasks, mark)
		}
		return nil
	})
}
