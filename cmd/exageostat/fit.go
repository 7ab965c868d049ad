package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/exageostat/exageostat/pkg/atomicfile"
	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/distribution"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/mle"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/solve"
	"github.com/exageostat/exageostat/pkg/strategy"
	"github.com/exageostat/exageostat/pkg/tile"
	"github.com/exageostat/exageostat/pkg/trace"
)

// fitFlags holds the raw flag values; applied over the config file for the
// flags the user set.
type fitFlags struct {
	cfg                  string
	lb, ub, theta, start string
	trueTheta            string
	powers, solve        string
	verbose              bool
}

// failTaskEnv names a task to fail on purpose, as RANK:TASK (e.g.
// 1:potrf(2,2,2)): a test hook for the error path of distributed runs.
const failTaskEnv = "EXAGEOSTAT_FAIL_TASK"

func newFitCmd(w comm.Comm) *cobra.Command {
	cfg := config.DefaultFit()
	var ff fitFlags
	c := &cobra.Command{
		Use:   "fit",
		Short: "Maximum-likelihood estimation of the covariance parameters",
		Long: `Estimates theta = (sigma2, beta, nu) of a Matérn covariance (or
(sigma2, beta, delta) of the powered exponential) by maximising the exact
Gaussian log-likelihood with NLopt BOBYQA within [lb, ub]; a parameter with
lb = ub is fixed. Each evaluation is one task graph (generation, Cholesky,
log-determinant, solve, dot product) on the runtime.

Data: --data file.csv with a header x,y,z (or lon,lat,z for great-circle
distances), or ExaGeoStat's --locations/--observations pair. Without data,
fits the embedded default: N=1600 points simulated with theta = (1, 0.1, 0.5)
(--n, --theta, --seed change it), and prints the truth beside the estimate.

Every flag mirrors a key of the TOML --config file (lb, ub, nb, max_evals...);
flags given on the command line override the file.

Over MPI (a binary built with MPI, started by mpirun or srun), every rank
reads the input and runs the same search; the tiles are spread over the ranks
by --distribution: bc (2D block-cyclic over a p x q grid, default the most
square one) or 1d1d (heterogeneous nodes, --powers one per rank). A
[generation] table in the config gives the generation phase a distribution
of its own; the runtime moves the tiles between the phases. With --cluster
FILE (node groups with their workers and task durations, as for
simulate-cluster; one rank per node, ranks numbered group by group),
--distribution lp solves the linear program of the multi-phase paper and
uses its two distributions: 1D-1D with the LP's factorisation shares, and
Algorithm 2 for the generation; bc-fast is block-cyclic over the fastest
group only. Only rank 0
prints and writes files; the JSON result has the messages and bytes each
rank sent per phase. See configs/fit-mpi.toml and configs/slurm.sbatch.`,
		Example: `  exageostat fit
  exageostat simulate --n 1600 --theta 1,0.1,0.5 --seed 1 --out data.csv
  exageostat fit --data data.csv --lb 0.001,0.001,0.001 --ub 5,5,5 --nb 320 --workers 2 --json result.json
  exageostat fit --config fit.toml --trace trace.json
  mpirun -np 4 exageostat fit --config configs/fit-mpi.toml --json result.json
  srun --mpi=pmix -n 4 exageostat fit --data data.csv --distribution 1d1d --powers 1,1,2,2
  mpirun -np 2 exageostat fit --config configs/fit-lp.toml`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return runFit(c, w, &cfg, &ff)
		},
	}
	f := c.Flags()
	f.StringVar(&ff.cfg, "config", "", "TOML configuration file (keys mirror these flags)")
	f.StringVar(&cfg.Data, "data", "", "CSV with a header x,y,z or lon,lat,z")
	f.StringVar(&cfg.Locations, "locations", "", "headerless locations file x,y (with --observations)")
	f.StringVar(&cfg.Observations, "observations", "", "observations file, one value per line")
	f.StringVar(&cfg.Kernel, "kernel", cfg.Kernel, "covariance: matern or powexp")
	f.StringVar(&cfg.Distance, "distance", cfg.Distance, "euclidean, great-circle, or auto (great-circle for lon,lat data)")
	f.StringVar(&ff.lb, "lb", formatFloats(cfg.Lower), "lower bounds of theta")
	f.StringVar(&ff.ub, "ub", formatFloats(cfg.Upper), "upper bounds of theta")
	f.StringVar(&ff.start, "start", cfg.Start, "start: data (data-driven guess), lower (ExaGeoStat: the lower bounds) or values v1,v2,v3")
	f.StringVar(&cfg.Search, "search", cfg.Search, "search scale: log or linear")
	f.Float64Var(&cfg.Nugget, "nugget", 0, "nugget tau2 added to the diagonal")
	f.IntVar(&cfg.NB, "nb", cfg.NB, "tile size (0: automatic, about N/6 within [160, 960])")
	f.IntVar(&cfg.Workers, "workers", goruntime.NumCPU(), "runtime workers")
	f.Float64Var(&cfg.Tolerance, "tolerance", cfg.Tolerance, "stop when a step improves l by less than this (ftol_abs)")
	f.IntVar(&cfg.MaxEvals, "max-evals", 0, "maximum number of evaluations (0: no limit)")
	f.StringVar(&cfg.JSON, "json", "", "write the result as JSON to this file")
	f.StringVar(&cfg.Trace, "trace", "", "write a Chrome trace-event JSON (or .csv) of every task")
	f.IntVar(&cfg.N, "n", cfg.N, "without data: number of simulated locations")
	f.StringVar(&ff.theta, "theta", formatFloats(cfg.Theta), "without data: true theta of the simulation")
	f.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "without data: seed of the simulation")
	f.IntVar(&cfg.Holdout, "holdout", 0, "hold out this many random locations (--seed), fit the rest, predict them: MSPE and 95% coverage")
	f.StringVar(&ff.trueTheta, "true-theta", "", "with --holdout: MLOE and MMOM against this true theta")
	f.BoolVar(&cfg.StdErr, "stderr", false, "standard errors from the Fisher information (on with --holdout)")
	f.StringVar(&cfg.Plot, "plot", "", "write pictures (SVG and PNG) into this directory")
	f.StringVar(&cfg.Grid, "grid", "", "with --plot: predict on an NxM grid over the data's bounding box for the maps")
	f.StringVar(&cfg.Distribution, "distribution", cfg.Distribution, "MPI runs: tile distribution, bc, 1d1d, lp or bc-fast (the last two need --cluster)")
	f.StringVar(&cfg.Cluster, "cluster", "", "MPI runs: cluster file whose [[group]] tables model the ranks' nodes (for --distribution lp or bc-fast)")
	f.BoolVar(&cfg.ExcludeCPUOnly, "exclude-cpu-only", false, "MPI runs, lp: keep the nodes without GPUs out of the factorisation")
	f.IntVar(&cfg.P, "p", 0, "MPI runs, bc: process grid rows (0: the most square grid)")
	f.IntVar(&cfg.Q, "q", 0, "MPI runs, bc: process grid columns (0: the most square grid)")
	f.StringVar(&ff.powers, "powers", "", "MPI runs, 1d1d: relative power of each rank, e.g. 1,1,4,4 (default equal)")
	f.StringVar(&ff.solve, "solve", "chained", "MPI runs: how the local solve sums L(m,k) z(k): chained (same l on any distribution), per-rank (Algorithm 1 as printed) or move-tiles (no local solve: the baseline)")
	f.BoolVarP(&ff.verbose, "verbose", "v", false, "one log line per evaluation even on a terminal")
	return c
}

func runFit(c *cobra.Command, w comm.Comm, cfg *config.Fit, ff *fitFlags) error {
	if ff.cfg != "" {
		// Re-apply the flags the user set over the file's values.
		changed := map[string]string{}
		c.Flags().Visit(func(f *pflag.Flag) { changed[f.Name] = f.Value.String() })
		if err := config.Load(ff.cfg, cfg); err != nil {
			return &inputError{err}
		}
		if !c.Flags().Changed("lb") {
			ff.lb = formatFloats(cfg.Lower)
		}
		if !c.Flags().Changed("ub") {
			ff.ub = formatFloats(cfg.Upper)
		}
		if !c.Flags().Changed("theta") {
			ff.theta = formatFloats(cfg.Theta)
		}
		if !c.Flags().Changed("start") {
			ff.start = cfg.Start
		}
		if !c.Flags().Changed("true-theta") && cfg.TrueTheta != nil {
			ff.trueTheta = formatFloats(cfg.TrueTheta)
		}
		if !c.Flags().Changed("powers") && cfg.Powers != nil {
			ff.powers = formatFloats(cfg.Powers)
		}
		for name, v := range changed {
			if name == "config" {
				continue
			}
			if err := c.Flags().Set(name, v); err != nil {
				return badInput("--%s: %v", name, err)
			}
		}
	}
	var err error
	if cfg.Lower, err = parseFloats("lb", ff.lb); err != nil {
		return err
	}
	if cfg.Upper, err = parseFloats("ub", ff.ub); err != nil {
		return err
	}
	if cfg.Theta, err = parseFloats("theta", ff.theta); err != nil {
		return err
	}
	if ff.trueTheta != "" {
		if cfg.TrueTheta, err = parseFloats("true-theta", ff.trueTheta); err != nil {
			return err
		}
	}
	if ff.powers != "" {
		if cfg.Powers, err = parseFloats("powers", ff.powers); err != nil {
			return err
		}
	}
	model := likelihood.Model(cfg.Kernel)
	if err := model.Validate(); err != nil {
		return badInput("fit: kernel: %v", err)
	}
	if cfg.TrueTheta != nil {
		if cfg.Holdout == 0 {
			return badInput("fit: --true-theta needs --holdout (MLOE/MMOM are computed at the held-out locations)")
		}
		if _, err := model.Kernel(cfg.TrueTheta, 1); err != nil {
			return badInput("fit: --true-theta: %v", err)
		}
	}
	var gridX, gridY int
	if cfg.Grid != "" {
		if cfg.Plot == "" {
			return badInput("fit: --grid needs --plot DIR")
		}
		if gridX, gridY, err = parseGrid(cfg.Grid); err != nil {
			return err
		}
	}
	if cfg.Plot != "" {
		if err := os.MkdirAll(cfg.Plot, 0o755); err != nil {
			return badInput("fit: --plot: %v", err)
		}
	}
	names := model.ParamNames()
	if err := mle.CheckBounds(names, cfg.Lower, cfg.Upper); err != nil {
		return badInput("fit: %v", err)
	}
	opt := mle.Options{Lower: cfg.Lower, Upper: cfg.Upper, FtolAbs: cfg.Tolerance, MaxEvals: cfg.MaxEvals}
	switch ff.start {
	case "data", "":
		opt.Start = mle.StartData
	case "lower":
		opt.Start = mle.StartLower
	default:
		x0, err := parseFloats("start", ff.start)
		if err != nil {
			return err
		}
		if len(x0) != len(names) {
			return badInput("fit: --start needs %d values (%s), got %d", len(names), strings.Join(names, ","), len(x0))
		}
		for i, v := range x0 {
			if v < cfg.Lower[i] || v > cfg.Upper[i] {
				return badInput("fit: start %s = %g is outside its bounds [%g, %g]", names[i], v, cfg.Lower[i], cfg.Upper[i])
			}
		}
		opt.Start, opt.Guess = mle.StartData, x0
	}
	switch cfg.Search {
	case "log":
		opt.LogScale = true
	case "linear":
	default:
		return badInput("fit: search must be log or linear, got %q", cfg.Search)
	}
	if cfg.NB < 0 || cfg.Workers < 0 || cfg.MaxEvals < 0 || !(cfg.Tolerance > 0) || cfg.Nugget < 0 || math.IsNaN(cfg.Nugget) {
		return badInput("fit: need nb >= 0, workers >= 0, max-evals >= 0, tolerance > 0, nugget >= 0")
	}
	for _, p := range []string{cfg.JSON, cfg.Trace} {
		if p != "" {
			if st, err := os.Stat(filepath.Dir(p)); err != nil || !st.IsDir() {
				return badInput("fit: cannot write %s: directory %s does not exist", p, filepath.Dir(p))
			}
		}
	}

	cl := config.Cluster{Nodes: w.Size(), Phase: cfg.Phase, Generation: cfg.Generation}
	if cfg.Cluster != "" {
		groups, err := config.LoadCluster(cfg.Cluster)
		if err != nil {
			return &inputError{err}
		}
		if len(groups.Groups) == 0 {
			return badInput("fit: cluster file %s has no [[group]] tables (the node groups that lp and bc-fast are computed from)", cfg.Cluster)
		}
		if n := groups.GroupNodes(); w.Size() > 1 && n != w.Size() {
			return badInput("fit: cluster file %s models %d nodes, but the run has %d MPI ranks (one rank per node)", cfg.Cluster, n, w.Size())
		}
		cl.NB, cl.Network, cl.Groups = groups.NB, groups.Network, groups.Groups
	}
	if w.Size() > 1 {
		src := ff.cfg
		if src == "" {
			src = "fit"
		}
		if err := cl.Validate(src); err != nil {
			return &inputError{err}
		}
	}
	workers := cfg.Workers
	if workers == 0 {
		workers = goruntime.NumCPU()
	}
	ro := runtime.Options{Workers: workers, Trace: true, Comm: w}
	if v := os.Getenv(failTaskEnv); v != "" {
		r, name, ok := strings.Cut(v, ":")
		if _, err := fmt.Sscan(r, &ro.FailRank); err != nil || !ok {
			return badInput("%s=%q: want RANK:TASK, e.g. 1:potrf(2,2,2)", failTaskEnv, v)
		}
		ro.FailTask = name
	}
	rt := runtime.New(ro)
	defer rt.Close()

	// Data.
	var d *dataset.Data
	simulated := false
	switch {
	case cfg.Data != "":
		d, err = dataset.ReadCSV(cfg.Data)
	case cfg.Locations != "" || cfg.Observations != "":
		if cfg.Locations == "" || cfg.Observations == "" {
			return badInput("fit: --locations and --observations go together")
		}
		d, err = dataset.ReadPair(cfg.Locations, cfg.Observations)
	default:
		simulated = true
		if _, err := model.Kernel(cfg.Theta, 1); err != nil {
			return badInput("fit: --theta: %v", err)
		}
		if cfg.N < 3 {
			return badInput("fit: --n must be >= 3")
		}
		d, err = simulateDefault(cfg, model, rt, cl)
		if err != nil {
			return err
		}
	}
	if err != nil {
		return &inputError{err}
	}
	if d.Obs == nil {
		return badInput("fit: %s has no observations (need a z column)", cfg.Data)
	}
	if err := dataset.Validate(d, 3); err != nil {
		src := cfg.Data
		if src == "" {
			src = cfg.Locations
		}
		return badInput("%s: %v", src, err)
	}
	var test *dataset.Data
	if cfg.Holdout != 0 {
		train, held, err := dataset.Split(d.Len(), cfg.Holdout, cfg.Seed)
		if err != nil {
			return badInput("fit: --holdout: %v", err)
		}
		test = subset(d, held)
		d = subset(d, train)
	}
	metric, err := parseDistance("fit", cfg.Distance, d.Coords)
	if err != nil {
		return err
	}

	if cfg.NB == 0 {
		cfg.NB = tile.AutoNB(d.Len())
	}
	if opt.Start == mle.StartData && opt.Guess == nil {
		for i, g := range mle.Guess(d, metric, model) {
			if g < cfg.Lower[i] || g > cfg.Upper[i] {
				unit := ""
				if metric == matern.GreatCircle && i == 1 {
					unit = " (great-circle distances are in km)"
				}
				fmt.Fprintf(os.Stderr, "note: the data-driven start %s = %.4g is outside its bounds [%g, %g]%s; the search starts at the bound\n",
					names[i], g, cfg.Lower[i], cfg.Upper[i], unit)
			}
		}
	}
	fo := mle.FitOptions{Model: model, Metric: metric, Nugget: cfg.Nugget, NB: cfg.NB, Workers: workers,
		Trace: cfg.Trace != "", Opt: opt, Runtime: rt}
	switch ff.solve {
	case "chained":
		fo.Solve = solve.Chained
	case "per-rank":
		fo.Solve = solve.PerRank
	case "move-tiles":
		fo.Solve = solve.MoveTiles
	default:
		return badInput("fit: --solve must be chained, per-rank or move-tiles, got %q", ff.solve)
	}
	distName := ""
	if w.Size() > 1 {
		if fo.Owner, fo.GenOwner, distName, err = owners(cl, d.Len(), cfg.NB, cfg.ExcludeCPUOnly); err != nil {
			return &inputError{err}
		}
	}
	var asmt assessment
	free := make([]bool, len(names))
	for i := range free {
		free[i] = cfg.Lower[i] != cfg.Upper[i]
	}
	ao := assessOptions{test: test, train: d, free: free, stderr: cfg.StdErr || test != nil, trueTheta: cfg.TrueTheta,
		plotDir: cfg.Plot, gridX: gridX, gridY: gridY, workers: workers, metric: metric, seed: cfg.Seed, write: w.Rank() == 0}
	if ao.test != nil || ao.stderr || ao.plotDir != "" {
		fo.After = func(ev *likelihood.Evaluator, theta []float64) error { return assess(ev, theta, ao, &asmt) }
	}
	tty := term.IsTerminal(int(os.Stderr.Fd())) && !ff.verbose
	fmt.Fprintf(os.Stderr, "fit: N=%d kernel=%s distance=%s nb=%d workers=%d bounds lb=%s ub=%s start=%s search=%s\n",
		d.Len(), model, metricName(metric), cfg.NB, workers, formatFloats(cfg.Lower), formatFloats(cfg.Upper), ff.start, cfg.Search)
	if w.Size() > 1 {
		fmt.Fprintf(os.Stderr, "fit: %d MPI ranks x %d workers, distribution %s\n", w.Size(), workers, distName)
	}
	report := func(s mle.Step) {
		if tty {
			fmt.Fprintf(os.Stderr, "\r  evaluations %4d   best l %.6f   elapsed %6.1fs ", s.N, s.Best, s.Time)
			return
		}
		logStep(os.Stderr, names, s)
	}
	res, err := mle.Fit(d, fo, report)
	if tty {
		fmt.Fprintln(os.Stderr)
	}
	if err != nil {
		return err
	}
	printFit(os.Stdout, names, res, cfg, simulated)
	printComm(os.Stdout, res)
	printAssessment(os.Stdout, names, &asmt)
	if w.Rank() != 0 {
		return nil
	}
	if cfg.Trace != "" {
		if err := trace.WriteFile(cfg.Trace, res.Events); err != nil {
			return err
		}
	}
	if cfg.JSON != "" {
		fj := fitJSON(names, res, cfg, model, metric, workers, simulated)
		fj.assessment = &asmt
		fj.Ranks, fj.Distribution = w.Size(), distName
		if err := writeJSON(cfg.JSON, fj); err != nil {
			return err
		}
	}
	return nil
}

func metricName(m matern.Metric) string {
	if m == matern.GreatCircle {
		return "great-circle"
	}
	return "euclidean"
}

// owners returns the tile distributions of an MPI run: the factorisation's
// and, when [generation] differs from it, the generation's; and a name for
// the log. lp and bc-fast are built from cl's node groups by
// pkg/strategy, as simulate-cluster builds them.
func owners(cl config.Cluster, n, nb int, excludeCPUOnly bool) (fact, gen tile.OwnerFunc, name string, err error) {
	nt := tile.NewLayout(n, nb).NT
	fp, gp := cl.Phases()
	if config.Derived(fp.Distribution) {
		p, err := strategy.Build(fp.Distribution, cl, nt, strategy.Options{ExcludeCPUOnly: excludeCPUOnly})
		if err != nil {
			return nil, nil, "", err
		}
		name = p.Fact.Name()
		if p.Note != "" {
			name += " (" + p.Note + ")"
		}
		if p.Gen == p.Fact {
			return p.Fact.Owner, nil, name, nil
		}
		return p.Fact.Owner, p.Gen.Owner, fmt.Sprintf("%s, %s, %d tiles move", name, p.Gen.Name(), p.Moved), nil
	}
	fd, err := distribution.New(fp.Distribution, cl.Nodes, fp.P, fp.Q, fp.Powers, nt)
	if err != nil {
		return nil, nil, "", err
	}
	name = fd.Name()
	if fp.Distribution == gp.Distribution && fp.P == gp.P && fp.Q == gp.Q && slices.Equal(fp.Powers, gp.Powers) {
		return fd.Owner, nil, name, nil
	}
	gd, err := distribution.New(gp.Distribution, cl.Nodes, gp.P, gp.Q, gp.Powers, nt)
	if err != nil {
		return nil, nil, "", err
	}
	moved := distribution.Moves(fd, gd, nt)
	return fd.Owner, gd.Owner, fmt.Sprintf("%s (generation %s, %d tiles move)", name, gd.Name(), moved), nil
}

// printComm prints the messages of the first successful evaluation of a
// distributed fit (every evaluation sends the same ones).
func printComm(w io.Writer, r *mle.FitResult) {
	cs := evalComm(r)
	if len(cs) == 0 {
		return
	}
	fmt.Fprintf(w, "communication per evaluation (sent):\n  %-15s %4s %9s %12s\n", "phase", "rank", "messages", "MB")
	var msgs int
	var bytes int64
	for _, c := range cs {
		fmt.Fprintf(w, "  %-15s %4d %9d %12.3f\n", c.Phase, c.Rank, c.Messages, float64(c.Bytes)/1e6)
		msgs += c.Messages
		bytes += c.Bytes
	}
	fmt.Fprintf(w, "  %-15s %4s %9d %12.3f\n", "total", "", msgs, float64(bytes)/1e6)
}

func evalComm(r *mle.FitResult) []likelihood.CommStat {
	for _, s := range r.Steps {
		if s.Failed == nil && len(s.Stats.Comm) > 0 {
			return s.Stats.Comm
		}
	}
	return nil
}

func simulateDefault(cfg *config.Fit, model likelihood.Model, rt *runtime.Runtime, cl config.Cluster) (*dataset.Data, error) {
	t0 := time.Now()
	d := dataset.Grid(cfg.N, cfg.Seed)
	p := likelihood.Problem{Points: matern.Points{X: d.X, Y: d.Y}, Metric: matern.Euclidean, Model: model, Nugget: cfg.Nugget}
	nb := cfg.NB
	if nb == 0 {
		nb = tile.AutoNB(cfg.N)
	}
	o := likelihood.Options{NB: nb}
	if rt.Size() > 1 {
		var err error
		if o.Owner, o.GenOwner, _, err = owners(cl, cfg.N, nb, cfg.ExcludeCPUOnly); err != nil {
			return nil, &inputError{err}
		}
	}
	z, err := likelihood.Simulate(p, cfg.Theta, dataset.StandardNormal(cfg.N, cfg.Seed), rt, o, -1)
	if err != nil {
		return nil, err
	}
	d.Obs = z
	fmt.Fprintf(os.Stderr, "simulated N=%d with theta=%s seed=%d in %.2fs (no --data given: the embedded default problem)\n",
		cfg.N, formatFloats(cfg.Theta), cfg.Seed, time.Since(t0).Seconds())
	return d, nil
}

func logStep(w io.Writer, names []string, s mle.Step) {
	th := make([]string, len(s.Theta))
	for i, v := range s.Theta {
		th[i] = fmt.Sprintf("%s=%.6g", names[i], v)
	}
	l := fmt.Sprintf("%.6f", s.LogLik)
	if s.Failed != nil {
		l = "failed (not positive definite)"
	}
	st := s.Stats
	fmt.Fprintf(w, "  eval %4d  %s  l=%s  wall %.3fs  gen %.3fs chol %.3fs solve %.3fs  %.1f GFLOP/s\n",
		s.N, strings.Join(th, " "), l, st.Wall, st.Gen, st.Chol, st.Solve, st.Gflops)
}

func printFit(w io.Writer, names []string, r *mle.FitResult, cfg *config.Fit, simulated bool) {
	fmt.Fprintf(w, "%-8s %14s", "param", "estimate")
	if simulated {
		fmt.Fprintf(w, " %12s", "truth")
	}
	fmt.Fprintf(w, " %12s %12s\n", "lb", "ub")
	for i, n := range names {
		fmt.Fprintf(w, "%-8s %14.6g", n, r.Theta[i])
		if simulated {
			fmt.Fprintf(w, " %12.6g", cfg.Theta[i])
		}
		fmt.Fprintf(w, " %12.6g %12.6g\n", cfg.Lower[i], cfg.Upper[i])
	}
	var wall, gen, chol, sol float64
	for _, s := range r.Steps {
		wall += s.Stats.Wall
		gen += s.Stats.Gen
		chol += s.Stats.Chol
		sol += s.Stats.Solve
	}
	k := float64(max(len(r.Steps), 1))
	fmt.Fprintf(w, "loglik %.6f  evaluations %d (%d failed, %d restarts)  %.2fs  status %s\n",
		r.LogLik, r.Evaluations, r.Failed, r.Restarts, r.Seconds, r.Status)
	fmt.Fprintf(w, "per evaluation: %.4fs wall; busy gen %.4fs chol %.4fs solve %.4fs\n", wall/k, gen/k, chol/k, sol/k)
}

type fitOut struct {
	Kernel       string                `json:"kernel"`
	Distance     string                `json:"distance"`
	Params       []string              `json:"parameters"`
	Theta        []float64             `json:"theta"`
	LogLik       float64               `json:"loglik"`
	Evaluations  int                   `json:"evaluations"`
	Failed       int                   `json:"failed_evaluations"`
	Restarts     int                   `json:"restarts"`
	Seconds      float64               `json:"seconds"`
	Status       string                `json:"status"`
	N            int                   `json:"n"`
	NB           int                   `json:"nb"`
	Workers      int                   `json:"workers"`
	Lower        []float64             `json:"lb"`
	Upper        []float64             `json:"ub"`
	Start        []float64             `json:"start"`
	Nugget       float64               `json:"nugget"`
	TrueTheta    []float64             `json:"true_theta,omitempty"`
	PerEval      map[string]float64    `json:"seconds_per_evaluation"`
	Ranks        int                   `json:"ranks"`
	Distribution string                `json:"distribution,omitempty"`
	Comm         []likelihood.CommStat `json:"comm_per_evaluation,omitempty"`
	Steps        []stepOut             `json:"steps"`
	*assessment
}

type stepOut struct {
	N      int       `json:"n"`
	Theta  []float64 `json:"theta"`
	LogLik *float64  `json:"loglik"` // null when the evaluation failed
	Wall   float64   `json:"wall"`
	Gen    float64   `json:"gen"`
	Chol   float64   `json:"chol"`
	Solve  float64   `json:"solve"`
}

func fitJSON(names []string, r *mle.FitResult, cfg *config.Fit, model likelihood.Model, metric matern.Metric, workers int, simulated bool) fitOut {
	o := fitOut{Kernel: string(model), Distance: metricName(metric), Params: names, Theta: r.Theta, LogLik: r.LogLik,
		Evaluations: r.Evaluations, Failed: r.Failed, Restarts: r.Restarts, Seconds: r.Seconds, Status: r.Status, N: r.N, NB: cfg.NB,
		Workers: workers, Lower: cfg.Lower, Upper: cfg.Upper, Start: r.Start, Nugget: cfg.Nugget,
		PerEval: map[string]float64{}, Comm: evalComm(r)}
	if simulated {
		o.TrueTheta = cfg.Theta
	}
	for _, s := range r.Steps {
		so := stepOut{N: s.N, Theta: s.Theta, Wall: s.Stats.Wall, Gen: s.Stats.Gen, Chol: s.Stats.Chol, Solve: s.Stats.Solve}
		if s.Failed == nil {
			l := s.LogLik
			so.LogLik = &l
		}
		o.Steps = append(o.Steps, so)
		o.PerEval["wall"] += s.Stats.Wall
		o.PerEval["gen"] += s.Stats.Gen
		o.PerEval["chol"] += s.Stats.Chol
		o.PerEval["solve"] += s.Stats.Solve
	}
	for k := range o.PerEval {
		o.PerEval[k] /= float64(max(len(r.Steps), 1))
	}
	return o
}

// writeJSON writes v to path atomically.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}
