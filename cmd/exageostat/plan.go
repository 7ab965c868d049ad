package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/exageostat/exageostat/pkg/atomicfile"
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/distribution"
	"github.com/exageostat/exageostat/pkg/job"
	"github.com/exageostat/exageostat/pkg/memory"
	"github.com/exageostat/exageostat/pkg/perfmodel"
	"github.com/exageostat/exageostat/pkg/strategy"
)

// maxPlanNT bounds the tiles per side of a plan: the owner tables hold
// NT(NT+1)/2 entries.
const maxPlanNT = 4096

type planFlags struct {
	cfg, svg           string
	n, nb, nodes, nt   int
	dist, powers       string
	genDist, genPowers string
	genTiles           string
	asJSON             bool
	nodesMax           int
	excludeCPU         bool
	hostfile           string
}

func newPlanCmd() *cobra.Command {
	var pf planFlags
	c := &cobra.Command{
		Use:   "plan",
		Short: "Show which node owns which tile in each phase, and the tiles that move between them",
		Long: `Plans the data distribution of an N x N covariance matrix cut into NT x NT
tiles of size nb (NT = ceil(N/nb)) over the nodes of a cluster: for the
factorisation (Cholesky) and for the generation of the matrix, each node's
number of lower tiles (T = NT(NT+1)/2 in all), its power share of them, and
the number of tiles that must move between the two phases.

With --n and --nb it also records the task graph of one likelihood
evaluation with these distributions (the submission code of a real run, on
a recording runtime that runs and allocates nothing; up to 200 x 200 tiles
and 1024 nodes) and prints each node's tile memory: the bytes of the lower
tiles it owns and of those it generates, the most it holds during the
generation, the Cholesky and the solve, and the most it holds at all with
the part of that in replicas (tiles received, or generated for another
node), in program order. Units are decimal (1 MB = 1e6 bytes); --json
gives bytes.

Distributions: bc, the 2D block-cyclic one over a p x q grid of homogeneous
nodes (tile (m, n) on node (m mod p) q + (n mod q); default the most square
grid with p >= q, e.g. 3 x 2 for 6 nodes), and 1d1d, the 1D-1D distribution
of heterogeneous nodes of relative powers (each node owns within one tile of
its power share).

The cluster is a TOML --config file (see configs/cluster-*.toml): nodes,
distribution, p, q, powers for the factorisation, and a [generation] table
with the same keys (default: the factorisation's distribution). --nodes,
--dist, --powers, --gen-dist and --gen-powers override the file, or plan
without one. --svg writes the ownership maps: FILE for the factorisation and
FILE with -generation before its extension for the generation.

--tiles NT plans NT x NT tiles directly, instead of --n and --nb.

--dist lp (or bc-fast) compares, for a cluster modelled by [[group]] tables
(durations per task kind, see 'exageostat simulate-cluster'), the four
strategies of Figure 7 of the multi-phase ExaGeoStat paper by simulating one
evaluation with each: bc, bc-fast, 1d1d and lp (the linear program's
distributions), recommends the fastest and prints its tile memory per node.
--nodes-max K also tries every subset of at most K of the cluster's nodes
(capacity planning); --hostfile FILE then writes the best subset's nodes
in rank order as an OpenMPI host file (one "host slots=1" line each; the
names come from each group's hosts key, else <group>-<i>) and, in
FILE-cluster.toml, the cluster file of that subset, so the run is
  mpirun -np K --hostfile FILE exageostat fit --config fit.toml
with cluster = "FILE-cluster.toml" in fit.toml (srun: --nodelist from the
names in FILE, --distribution=arbitrary). --svg draws the lp strategy's two
distributions (factorisation and generation).

--gen-tiles gives each node's number of generation tiles (summing to
T = NT(NT+1)/2) and derives the generation distribution from the
factorisation one by Algorithm 2 of the multi-phase ExaGeoStat paper: only
nodes above their target give tiles, spread evenly over their tiles in
generation (anti-diagonal) order, to the nodes below theirs, so that exactly
sum_i max(0, factorisation_i - target_i) tiles move, the fewest possible,
and every node ends on its target. Without --config, --nodes defaults to the
number of values of --powers, --gen-powers or --gen-tiles.`,
		Example: `  exageostat plan --n 16000 --nb 320 --config configs/cluster-1d1d.toml --svg plan.svg
  exageostat plan --n 16000 --nb 320 --nodes 4 --dist 1d1d --powers 1,1,4,4 --gen-dist bc
  exageostat plan --n 48000 --nb 960 --nodes 6 --json
  exageostat plan --tiles 50 --powers 60,60,565,590 --gen-tiles 318,319,319,319 --json
  exageostat plan --config configs/cluster-chetemi-chifflet.toml --n 48000 --dist lp --nodes-max 6 --hostfile best.hosts`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error { return runPlan(c, &pf) },
	}
	f := c.Flags()
	f.StringVar(&pf.cfg, "config", "", "cluster TOML file (nodes, distribution, p, q, powers, [generation])")
	f.IntVar(&pf.n, "n", 0, "matrix size N (number of locations)")
	f.IntVar(&pf.nb, "nb", 320, "tile size")
	f.IntVar(&pf.nt, "tiles", 0, "number NT of tile rows and columns (instead of --n and --nb)")
	f.IntVar(&pf.nodes, "nodes", 1, "number of nodes (overrides the file's nodes)")
	f.StringVar(&pf.dist, "dist", "bc", "factorisation distribution: bc or 1d1d (overrides the file)")
	f.StringVar(&pf.powers, "powers", "", "relative node powers for 1d1d, e.g. 1,1,4,4 (implies --dist 1d1d; overrides the file)")
	f.StringVar(&pf.genDist, "gen-dist", "", "generation distribution: bc or 1d1d (default: as the factorisation)")
	f.StringVar(&pf.genPowers, "gen-powers", "", "relative node powers for a 1d1d generation (implies --gen-dist 1d1d)")
	f.StringVar(&pf.genTiles, "gen-tiles", "", "generation tiles per node, e.g. 318,319,319,319: derive the generation distribution from the factorisation's with the fewest moves (Algorithm 2)")
	f.StringVar(&pf.svg, "svg", "", "write the ownership maps to FILE.svg and FILE-generation.svg")
	f.BoolVar(&pf.asJSON, "json", false, "print the plan as JSON")
	f.IntVar(&pf.nodesMax, "nodes-max", 0, "with --dist lp: also find the subset of at most K of the config's nodes with the lowest simulated makespan")
	f.BoolVar(&pf.excludeCPU, "exclude-cpu-only", false, "with --dist lp: keep CPU-only nodes out of the LP's factorisation")
	f.StringVar(&pf.hostfile, "hostfile", "", "with --nodes-max: write the best subset's nodes as an mpirun host file FILE (rank order) and its cluster file FILE-cluster.toml")
	return c
}

// planPhase is one phase of the plan, as printed in JSON.
type planPhase struct {
	Distribution string    `json:"distribution"`
	Name         string    `json:"name"`
	Powers       []float64 `json:"powers"` // relative, one per node (equal for bc)
	Share        []float64 `json:"share"`  // power share of the lower tiles, in tiles
	Tiles        []int     `json:"tiles"`  // lower tiles owned
}

type planResult struct {
	N             int       `json:"n,omitempty"`  // 0 with --tiles
	NB            int       `json:"nb,omitempty"` // 0 with --tiles
	NT            int       `json:"nt"`
	Tiles         int       `json:"tiles"`
	Nodes         int       `json:"nodes"`
	Factorisation planPhase `json:"factorisation"`
	Generation    planPhase `json:"generation"`
	Moves         int       `json:"moves"`
	// The per-node tile counts of the two phases and the tiles that move
	// between them again, flat, and the fewest moves any generation
	// distribution with these counts needs: sum_i max(0, fact_i - gen_i).
	FactorizationTiles []int    `json:"factorization_tiles"`
	GenerationTiles    []int    `json:"generation_tiles"`
	Moved              int      `json:"moved"`
	MinMoves           int      `json:"min_moves"`
	SVG                []string `json:"svg,omitempty"`
	// The tile memory of each node in one recorded evaluation (with --n
	// and --nb), or why it was not recorded.
	Memory     []strategy.NodeMemory `json:"memory,omitempty"`
	MemoryNote string                `json:"memory_note,omitempty"`
}

func runPlan(c *cobra.Command, pf *planFlags) error {
	if pf.dist == "lp" || pf.dist == "bc-fast" {
		return runPlanStrategies(c, pf)
	}
	if pf.nodesMax != 0 {
		return badInput("plan: --nodes-max goes with --dist lp")
	}
	if pf.hostfile != "" {
		return badInput("plan: --hostfile goes with --dist lp --nodes-max K")
	}
	if pf.svg != "" {
		if err := checkOutputs("plan", []job.File{{Flag: "svg", Path: pf.svg}, {Flag: "svg", Path: generationPath(pf.svg)}},
			job.File{Flag: "config", Path: pf.cfg}); err != nil {
			return err
		}
	}
	cfg, genTiles, err := clusterForPlan(c.Flags(), pf)
	if err != nil {
		return err
	}
	nt, err := planTiles(c.Flags(), pf)
	if err != nil {
		return err
	}
	res, fd, gd, err := planPhases(cfg, nt, genTiles, pf)
	if err != nil {
		return err
	}
	if pf.svg != "" {
		if err := writePlanMaps(pf, nt, fd, gd, &res); err != nil {
			return err
		}
		res.SVG = []string{pf.svg, generationPath(pf.svg)}
	}
	out := c.OutOrStdout()
	if pf.asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	printPlan(out, &res)
	if len(res.SVG) > 0 {
		fmt.Fprintf(os.Stderr, "wrote %s\n", strings.Join(res.SVG, ", "))
	}
	return nil
}

// clusterForPlan returns the cluster plan runs on (--config, its perfmodel
// files resolved at --nb when given, with the flags over it:
// config.Cluster.WithFlags) and the generation tiles of --gen-tiles (nil
// without it).
func clusterForPlan(flags *pflag.FlagSet, pf *planFlags) (config.Cluster, []int, error) {
	cfg := config.DefaultCluster()
	if pf.cfg != "" {
		var err error
		if cfg, err = config.DecodeCluster(pf.cfg); err != nil {
			return cfg, nil, &job.InputError{Err: err}
		}
		nb := 0 // the file's, unless --nb is given
		if flags.Changed("nb") {
			nb = pf.nb
		}
		if err = perfmodel.ResolveCluster(&cfg, pf.cfg, nb); err != nil {
			return cfg, nil, &job.InputError{Err: err}
		}
	}
	fl := config.ClusterFlags{Given: map[string]bool{}, Nodes: pf.nodes, Dist: pf.dist, GenDist: pf.genDist}
	for _, name := range []string{"nodes", "dist", "powers", "gen-dist", "gen-powers", "gen-tiles"} {
		fl.Given[name] = flags.Changed(name)
	}
	var err error
	if fl.Given["gen-tiles"] {
		if fl.Given["gen-dist"] || fl.Given["gen-powers"] {
			return cfg, nil, badInput("plan: --gen-tiles derives the generation distribution: it excludes --gen-dist and --gen-powers")
		}
		if fl.GenTiles, err = parseInts("plan", "gen-tiles", pf.genTiles, "a tile count", 0, math.MaxInt); err != nil {
			return cfg, nil, err
		}
	}
	if fl.Given["powers"] {
		if fl.Powers, err = parseFloats("plan", "powers", pf.powers); err != nil {
			return cfg, nil, err
		}
	}
	if fl.Given["gen-powers"] {
		if fl.GenPowers, err = parseFloats("plan", "gen-powers", pf.genPowers); err != nil {
			return cfg, nil, err
		}
	}
	if cfg, err = cfg.WithFlags(pf.cfg, fl); err != nil {
		return cfg, nil, &job.InputError{Err: err}
	}
	return cfg, fl.GenTiles, nil
}

// planTiles returns the tiles per side NT: --tiles, or ceil(--n / --nb)
// (--tiles sets pf.n and pf.nb to 0).
func planTiles(flags *pflag.FlagSet, pf *planFlags) (int, error) {
	if flags.Changed("tiles") {
		if flags.Changed("n") || flags.Changed("nb") {
			return 0, badInput("plan: give either --tiles or --n and --nb, not both")
		}
		if pf.nt < 1 || pf.nt > maxPlanNT {
			return 0, badInput("plan: --tiles must be in [1, %d] (got %d)", maxPlanNT, pf.nt)
		}
		pf.n, pf.nb = 0, 0
		return pf.nt, nil
	}
	if pf.n < 1 {
		return 0, badInput("plan: --n must be >= 1 (got %d)", pf.n)
	}
	if pf.nb < 1 {
		return 0, badInput("plan: --nb must be >= 1 (got %d)", pf.nb)
	}
	nt := (pf.n + pf.nb - 1) / pf.nb
	if nt > maxPlanNT {
		return 0, badInput("plan: %d x %d tiles is too many (at most %d per side); raise --nb", nt, nt, maxPlanNT)
	}
	return nt, nil
}

// planPhases builds the factorisation and generation distributions of cfg
// over nt x nt tiles (the generation by Algorithm 2 when genTiles is not
// nil) and the plan of them, with the tile memory per node when pf.n is
// set.
func planPhases(cfg config.Cluster, nt int, genTiles []int, pf *planFlags) (res planResult, fd, gd distribution.Distribution, err error) {
	fact, gen := cfg.Phases()
	fd, fp, err := buildPhase(fact, cfg.Nodes, nt)
	if err != nil {
		return res, nil, nil, err
	}
	var gp planPhase
	if genTiles != nil {
		gd, gp, err = derivePhase(fd, nt, genTiles)
	} else {
		gd, gp, err = buildPhase(gen, cfg.Nodes, nt)
	}
	if err != nil {
		return res, nil, nil, err
	}
	res = planResult{
		N: pf.n, NB: pf.nb, NT: nt, Tiles: distribution.Tiles(nt), Nodes: cfg.Nodes,
		Factorisation: fp, Generation: gp, Moves: distribution.Moves(gd, fd, nt),
		FactorizationTiles: fp.Tiles, GenerationTiles: gp.Tiles,
		MinMoves: distribution.MinMoves(fd, nt, gp.Tiles),
	}
	res.Moved = res.Moves
	if pf.n > 0 {
		res.Memory, err = strategy.Memory(&strategy.Plan{Name: fp.Name, Fact: fd, Gen: gd}, pf.n, pf.nb)
		if errors.Is(err, strategy.ErrTooLarge) {
			res.MemoryNote, err = err.Error(), nil
		} else if err != nil {
			return res, nil, nil, err
		}
	}
	return res, fd, gd, nil
}

// writePlanMaps draws the two distributions of res to --svg and its
// -generation companion, both or neither.
func writePlanMaps(pf *planFlags, nt int, fd, gd distribution.Distribution, res *planResult) error {
	where := fmt.Sprintf("%d x %d tiles", nt, nt)
	if pf.n > 0 {
		where = fmt.Sprintf("N = %d, nb = %d, %s", pf.n, pf.nb, where)
	}
	err := atomicfile.WriteAll([]string{pf.svg, generationPath(pf.svg)}, []func(io.Writer) error{
		func(w io.Writer) error {
			return distribution.SVG(w, fd, nt, fmt.Sprintf("factorisation: %s (%s)", describe(res.Factorisation), where))
		},
		func(w io.Writer) error {
			return distribution.SVG(w, gd, nt, fmt.Sprintf("generation: %s (%s; %d tiles move)", describe(res.Generation), where, res.Moves))
		},
	})
	if err != nil {
		return badInput("plan: --svg: %v", err)
	}
	return nil
}

// buildPhase makes the distribution of one phase and its per-node summary.
func buildPhase(ph config.Phase, nodes, nt int) (distribution.Distribution, planPhase, error) {
	d, err := distribution.NewBanded(ph.Distribution, nodes, ph.P, ph.Q, ph.Band, ph.Powers, nt)
	if err != nil {
		return nil, planPhase{}, badInput("plan: %v", err)
	}
	powers := ph.Powers
	if ph.Distribution != "1d1d" || len(powers) == 0 {
		powers = make([]float64, nodes)
		for i := range powers {
			powers[i] = 1
		}
	}
	return d, planPhase{
		Distribution: ph.Distribution, Name: d.Name(), Powers: powers,
		Share: distribution.Shares(powers, nt), Tiles: distribution.Counts(d, nt),
	}, nil
}

// derivePhase makes the generation distribution from the factorisation's
// by Algorithm 2 (distribution.Generation) for the given per-node targets.
func derivePhase(fact distribution.Distribution, nt int, target []int) (distribution.Distribution, planPhase, error) {
	d, err := distribution.Generation(fact, nt, target)
	if err != nil {
		return nil, planPhase{}, badInput("plan: --gen-tiles: %v", err)
	}
	t := make([]float64, len(target))
	for i, v := range target {
		t[i] = float64(v)
	}
	return d, planPhase{
		Distribution: "alg2", Name: d.Name(), Powers: t, Share: t, Tiles: distribution.Counts(d, nt),
	}, nil
}

func describe(p planPhase) string {
	switch p.Distribution {
	case "1d1d":
		return "1d1d, powers " + config.FormatFloats(p.Powers)
	case "alg2":
		return "from the factorisation by Algorithm 2 (fewest moves), tiles " + config.FormatFloats(p.Powers)
	}
	return p.Name
}

func printPlan(w io.Writer, r *planResult) {
	if r.N > 0 {
		fmt.Fprintf(w, "N = %d, nb = %d: ", r.N, r.NB)
	}
	fmt.Fprintf(w, "%d x %d tiles, %d lower tiles over %d nodes\n", r.NT, r.NT, r.Tiles, r.Nodes)
	fmt.Fprintf(w, "factorisation: %s\n", describe(r.Factorisation))
	fmt.Fprintf(w, "generation:    %s\n", describe(r.Generation))
	fmt.Fprintf(w, "%6s  %27s  %27s\n", "", "factorisation", "generation")
	fmt.Fprintf(w, "%6s  %7s %10s %8s  %7s %10s %8s\n", "node", "power", "share", "tiles", "power", "share", "tiles")
	fsum, gsum := sum(r.Factorisation.Powers), sum(r.Generation.Powers)
	for i := 0; i < r.Nodes; i++ {
		f, g := r.Factorisation, r.Generation
		fmt.Fprintf(w, "%6d  %6.1f%% %10.2f %8d  %6.1f%% %10.2f %8d\n", i,
			100*f.Powers[i]/fsum, f.Share[i], f.Tiles[i], 100*g.Powers[i]/gsum, g.Share[i], g.Tiles[i])
	}
	fmt.Fprintf(w, "%6s  %6.1f%% %10.2f %8d  %6.1f%% %10.2f %8d\n", "total", 100.0, float64(r.Tiles), r.Tiles, 100.0, float64(r.Tiles), r.Tiles)
	fmt.Fprintf(w, "moves between the phases: %d of %d tiles (%.1f%%)", r.Moves, r.Tiles, 100*float64(r.Moves)/float64(r.Tiles))
	if r.Moves == r.MinMoves {
		fmt.Fprintf(w, ", the fewest for these counts\n")
	} else {
		fmt.Fprintf(w, "; the fewest for these counts: %d\n", r.MinMoves)
	}
	if r.MemoryNote != "" {
		fmt.Fprintf(w, "tile memory per node: %s\n", r.MemoryNote)
	}
	if r.Memory != nil {
		printMemory(w, r.Memory, nil)
	}
}

// printMemory prints the tile memory per node of one recorded evaluation;
// names, if not nil, labels each node (its group).
func printMemory(w io.Writer, mem []strategy.NodeMemory, names []string) {
	label := func(i int) string {
		if names == nil {
			return strconv.Itoa(i)
		}
		return fmt.Sprintf("%d %s", i, names[i])
	}
	width := len("node")
	for i := range mem {
		width = max(width, len(label(i)))
	}
	fmt.Fprintf(w, "tile memory per node, one evaluation in program order:\n")
	fmt.Fprintf(w, "%*s  %21s  %32s  %21s\n", width, "", "lower tiles of Sigma", "peak during", "peak")
	fmt.Fprintf(w, "%-*s  %10s %10s  %10s %10s %10s  %10s %10s\n", width, "node", "owned", "generated", "generation", "cholesky", "solve", "total", "replicas")
	for i, m := range mem {
		fmt.Fprintf(w, "%-*s  %10s %10s  %10s %10s %10s  %10s %10s\n", width, label(i), memory.Format(m.Owned), memory.Format(m.Generated),
			memory.Format(m.Generation), memory.Format(m.Cholesky), memory.Format(m.Solve), memory.Format(m.Peak), memory.Format(m.Replicas))
	}
}

func sum(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s
}

// generationPath inserts "-generation" before the extension of path.
func generationPath(path string) string {
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + "-generation" + ext
}

// runPlanStrategies is plan --dist lp: the four strategies side by side,
// the tile memory of the recommended one, and with --nodes-max the best
// subsets of nodes.
func runPlanStrategies(c *cobra.Command, pf *planFlags) error {
	nb := 0
	if c.Flags().Changed("nb") {
		nb = pf.nb
	}
	if pf.hostfile != "" && pf.nodesMax < 1 {
		return badInput("plan: --hostfile writes the best subset of --nodes-max K nodes: give --nodes-max")
	}
	var outs []job.File
	if pf.svg != "" {
		outs = append(outs, job.File{Flag: "svg", Path: pf.svg}, job.File{Flag: "svg", Path: generationPath(pf.svg)})
	}
	if pf.hostfile != "" {
		outs = append(outs, job.File{Flag: "hostfile", Path: pf.hostfile}, job.File{Flag: "hostfile", Path: subsetConfigPath(pf.hostfile)})
	}
	if len(outs) > 0 {
		if err := checkOutputs("plan", outs, job.File{Flag: "config", Path: pf.cfg}); err != nil {
			return err
		}
	}
	cl, err := loadModel("plan", pf.cfg, pf.n, &nb)
	if err != nil {
		return err
	}
	rows := strategy.Compare(cl, pf.n, nb, pf.excludeCPU)
	var written []string
	if pf.svg != "" {
		if err := writeLPMaps(pf.svg, cl, pf.n, nb, pf.excludeCPU); err != nil {
			return err
		}
		written = append(written, pf.svg, generationPath(pf.svg))
	}
	var subsets []strategy.Subset
	if pf.nodesMax > 0 {
		var progress func(string)
		if !pf.asJSON {
			progress = func(s string) { fmt.Fprintln(c.ErrOrStderr(), "plan: "+s) }
		}
		subsets = strategy.Subsets(cl, pf.n, nb, pf.nodesMax, pf.excludeCPU, progress)
		if pf.hostfile != "" {
			if len(subsets) == 0 {
				return fmt.Errorf("plan: --hostfile: no subset of at most %d nodes could be simulated", pf.nodesMax)
			}
			if err := writeHostfile(pf.hostfile, cl, subsets[0], pf.n, nb); err != nil {
				return err
			}
			written = append(written, pf.hostfile, subsetConfigPath(pf.hostfile))
		}
	}
	if len(written) > 0 {
		defer fmt.Fprintf(c.ErrOrStderr(), "wrote %s\n", strings.Join(written, ", "))
	}
	best := strategy.BestRow(rows)
	out := c.OutOrStdout()
	if pf.asJSON {
		v := map[string]any{"n": pf.n, "nb": nb, "strategies": rows}
		if best >= 0 {
			v["recommended"] = rows[best].Dist
			v["memory"] = rows[best].Memory
		}
		if subsets != nil {
			v["subsets"] = subsets
		}
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	fmt.Fprintf(out, "N = %d, nb = %d on %d nodes (%s): one simulated likelihood evaluation per strategy\n",
		pf.n, nb, cl.GroupNodes(), strategy.DescribeSubset(cl, strategy.GroupCounts(cl)))
	printStrategies(out, rows)
	if pf.nodesMax > 0 {
		if len(subsets) == 0 {
			fmt.Fprintf(out, "no subset of at most %d nodes could be simulated\n", pf.nodesMax)
		} else {
			fmt.Fprintf(out, "best subsets of at most %d nodes:\n", pf.nodesMax)
			top := subsets[:min(5, len(subsets))]
			width := 0
			for _, s := range top {
				width = max(width, len(strategy.DescribeSubset(cl, s.Nodes)))
			}
			for _, s := range top {
				fmt.Fprintf(out, "  %-*s  %-5s %10.4g s\n", width, strategy.DescribeSubset(cl, s.Nodes), s.Dist, s.Makespan)
			}
		}
	}
	if best >= 0 {
		names := make([]string, cl.GroupNodes())
		for r, g := range cl.RankGroups() {
			names[r] = cl.Groups[g].Name
		}
		fmt.Fprintf(out, "%s: ", rows[best].Dist)
		printMemory(out, rows[best].Memory, names)
	}
	return nil
}

// subsetConfigPath is the cluster file written beside a host file:
// FILE-cluster.toml (FILE without its extension).
func subsetConfigPath(hostfile string) string {
	return strings.TrimSuffix(hostfile, filepath.Ext(hostfile)) + "-cluster.toml"
}

// writeLPMaps draws the lp strategy's factorisation and generation
// distributions of n points at tile size nb on cl (as plan --dist lp
// simulates it) to path and its -generation companion.
func writeLPMaps(path string, cl config.Cluster, n, nb int, excludeCPU bool) error {
	p, res, err := strategy.Best("lp", cl, n, nb, strategy.Options{ExcludeCPUOnly: excludeCPU})
	if err != nil {
		return fmt.Errorf("plan: --svg: the lp strategy: %v", err)
	}
	nt := (n + nb - 1) / nb
	where := fmt.Sprintf("N = %d, nb = %d, %s", n, nb, strategy.DescribeSubset(cl, strategy.GroupCounts(cl)))
	titles := [2]string{
		fmt.Sprintf("factorisation: lp (%s), simulated %.4g s", where, res.Makespan),
		fmt.Sprintf("generation: lp (%s), %d tiles move", where, p.Moved),
	}
	err = atomicfile.WriteAll([]string{path, generationPath(path)}, []func(io.Writer) error{
		func(w io.Writer) error {
			return distribution.SVG(w, p.Fact, nt, titles[0])
		},
		func(w io.Writer) error {
			return distribution.SVG(w, p.Gen, nt, titles[1])
		},
	})
	if err != nil {
		return badInput("plan: --svg: %v", err)
	}
	return nil
}

// writeHostfile writes the nodes of the subset best of cl as an OpenMPI
// host file (comment lines, then one "host slots=1" line per rank in rank
// order) and the subset's cluster file beside it.
func writeHostfile(path string, cl config.Cluster, best strategy.Subset, n, nb int) error {
	sub := strategy.SubsetCluster(cl, best.Nodes)
	hosts, named := strategy.Hosts(sub)
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# exageostat plan: the best subset of nodes for N = %d, nb = %d: %s, %s, simulated %.4g s per evaluation\n",
		n, nb, strategy.DescribeSubset(cl, best.Nodes), best.Dist, best.Makespan)
	keys := fmt.Sprintf("distribution = %q, cluster = %q", best.Dist, filepath.Base(subsetConfigPath(path)))
	if best.Dist == "1d1d" {
		powers := make([]float64, 0, len(hosts))
		for _, g := range sub.RankGroups() {
			powers = append(powers, strategy.NodePower(sub.Groups[g]))
		}
		for i := range powers {
			powers[i] = math.Round(powers[i]*1000) / 1000
		}
		keys = fmt.Sprintf("distribution = \"1d1d\", powers = [%s]", config.FormatFloats(powers))
	}
	fmt.Fprintf(&buf, "# ranks in this order (group by group, as in %s); run with\n", filepath.Base(subsetConfigPath(path)))
	fmt.Fprintf(&buf, "#   mpirun -np %d --hostfile %s exageostat fit --config FIT.toml\n", len(hosts), filepath.Base(path))
	fmt.Fprintf(&buf, "# where FIT.toml has %s\n", keys)
	if !named {
		fmt.Fprintf(&buf, "# some groups have no hosts key: their nodes are named <group>-<i>; replace them with real host names\n")
	}
	for _, h := range hosts {
		fmt.Fprintf(&buf, "%s slots=1\n", h)
	}
	var cfg bytes.Buffer
	head := fmt.Sprintf("exageostat plan --hostfile: the node groups of %s (best: %s), ranks in the order of %s",
		strategy.DescribeSubset(cl, best.Nodes), best.Dist, filepath.Base(path))
	if err := (config.ClusterFile{NB: sub.NB, Network: sub.Network, Groups: sub.Groups}).Encode(&cfg, head); err != nil {
		return err
	}
	err := atomicfile.WriteAll([]string{path, subsetConfigPath(path)}, []func(io.Writer) error{
		func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err },
		func(w io.Writer) error { _, err := w.Write(cfg.Bytes()); return err },
	})
	if err != nil {
		return badInput("plan: --hostfile: %v", err)
	}
	return nil
}
