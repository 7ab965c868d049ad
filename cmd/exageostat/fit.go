package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/job"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/mle"
	"github.com/exageostat/exageostat/pkg/stop"
)

// fitFlags holds the raw flag values that are not fields of config.Fit;
// applied over the config file for the flags the user set.
type fitFlags struct {
	cfg           string
	lb, ub, theta string
	trueTheta     string
	powers        string
	overlap       string // --overlap, applied over the [overlap] table
	verbose       bool
	quiet         bool
	progress      bool
}

// failTaskEnv names a task to fail on purpose (job.FailTaskEnv).
const failTaskEnv = job.FailTaskEnv

// fitLong and fitExample are fit's --help (the data columns' paragraph
// follows: fitModelFlags).
const (
	fitLong = `Estimates theta = (sigma2, beta, nu) of a Matérn covariance (or
(sigma2, beta, delta) of the powered exponential) by maximising the exact
Gaussian log-likelihood with NLopt BOBYQA within [lb, ub]; a parameter with
lb = ub is fixed. Each evaluation is one task graph (generation, Cholesky,
log-determinant, solve, dot product) on the runtime. Beside the estimates
it prints, for matern and aniso-matern, gstat's vgm(...) of the same model
(gstat_vgm in the JSON), and warnings (also in the JSON) for an estimate
at a bound, an estimated nugget next to its lower bound or negligible
(tau2 <= 1e-4 sigma2), a search stopped by a limit, constant data, or a
start the optimiser moved.

Data: --data file.csv with a header x,y,z (or lon,lat,z for great-circle
distances), or ExaGeoStat's --locations/--observations pair. Without data,
fits the embedded default: N=1600 points simulated with theta = (1, 0.1, 0.5)
(--n, --theta, --seed change it), and prints the truth beside the estimate.

Every flag mirrors a key of the TOML --config file (lb, ub, nb, max_evals...);
flags given on the command line override the file. Relative paths in the
file are taken from the file's directory. --n, --theta and --seed describe
the simulated problem: with data they are errors (but --seed also seeds
--holdout and --plot), as are --data with --locations/--observations.

Outputs (--json, --trace, --plot, --checkpoint) are checked before the
work starts: writable, and none of them an input or another output.

Over MPI (a binary built with MPI, started by mpirun or srun), every rank
reads the input and runs the same search; the tiles are spread over the ranks
by --distribution: bc (2D block-cyclic over a p x q grid, default the most
square one with p >= q: fewer replicas at once) or 1d1d (heterogeneous nodes, --powers one per rank). A
[generation] table in the config gives the generation phase a distribution
of its own; the runtime moves the tiles between the phases. With --cluster
FILE (node groups with their workers and task durations, as for
simulate-cluster; one rank per node, ranks numbered group by group),
--distribution lp solves the linear program of the multi-phase paper and
uses its two distributions: 1D-1D with the LP's factorisation shares, and
Algorithm 2 for the generation; bc-fast is block-cyclic over the fastest
group only. Only rank 0
prints and writes files; the JSON result has the messages and bytes each
rank sent per phase, and --trace holds the tasks of every rank (one
process lane per rank). See configs/fit-mpi.toml and configs/slurm.sbatch.

Memory: before allocating the matrix, each rank's need (its tiles, the
replicas it receives, the assessment's matrices, --draws' conditional
covariance and its factor on rank 0) is compared with what it
has: --memory-limit, or else the node's available memory (cgroup limit
included) shared by the ranks on the node. A run that does not fit stops
with exit status 2 and one line naming the rank. After the fit, a table
gives each rank's tiles, peak tile memory and peak resident set size (the
"memory" list of the JSON result).

Checkpoint and resume: with --json r.json the fit rewrites r.ckpt
atomically after every evaluation (--checkpoint PATH elsewhere, none
to disable): a hash of the data, the settings, and every (theta, l)
evaluated. --resume r.ckpt continues a fit that was killed (kill -9, a
Slurm time limit): the search replays the evaluations already paid for
at no cost, retracing the same path, and goes on, to the same theta and
l as an uninterrupted run; the checkpoint goes on growing. A checkpoint
of other data, or of other kernel, distance, nugget, lb, ub, start,
search, tolerance, holdout, seed, profile, mean, reml, computation (with
tlr_accuracy, max_rank, mp_band, hpotrf, and nb for an approximate
computation) is refused (exit status 2, naming the setting), as is a
checkpoint whose values were edited (its digests; and the best evaluation
is recomputed when the replay reaches it); workers, ranks and max_evals
may differ. While a fit writes a checkpoint it holds its lock (FILE.lock):
a second fit of the same checkpoint stops at once, naming the first.

Stopping: SIGINT (Ctrl-C) or SIGTERM (scancel, a Slurm time limit,
mpirun) asks for an orderly stop: the evaluation under way ends, or is
given up if it cannot end within 20 s (half a second under mpirun, which
kills its ranks a second after forwarding a signal; mpirun --mca
odls_base_sigkill_timeout 30 gives more), then the best result so far is
printed and written with status "interrupted", and the exit status is 130
(SIGINT) or 143 (SIGTERM); a repeat within a second (Slurm signals twice)
is the same request, a second signal later gives up the evaluation at
once, a third exits at once. After the search, a signal gives up the
assessment under way (kriging, standard errors, profile intervals,
cross-validation): the estimate is written, exit status 143. --deadline
(a duration such as 45m, a clock time 17:30, or a date 2026-11-26T17:30;
by default the end of the Slurm job it runs in, read with squeue; none:
no deadline) stops the search before an evaluation that would not end in
time (the longest so far plus a quarter, and 2 s to write): status
"deadline", exit status 143, and --resume goes on to the same result.

A fit that is a result but perhaps not the maximum it looks like says so
under the table and in the JSON ("converged", "at_bound", "warnings"), with
exit status 0: an estimate at a bound (marked in the table; its standard
error is not meaningful), a search stopped by max_evals or a signal, constant
observations, a start that BOBYQA moved by more than a factor 2. A theta at
which Sigma is not positive definite is a failed evaluation the search steps
away from; a standard-error step that cannot invert the Fisher information
keeps the fit and says why ("stderr_note"). Duplicate locations are legal
with a nugget (--nugget > 0, or an estimated one).

Nugget: --nugget TAU2 fixes it (Sigma = sigma2 R(beta, nu) + tau2 I). To
estimate it, give 4 bounds: theta = (sigma2, beta, nu, tau2), e.g.
--lb 0.001,0.001,0.001,0.0001 --ub 5,5,5,2 (lb = ub on the 4th fixes it
again); the JSON's theta then has 4 values and its "nugget" is the
estimate, which predict --theta-from uses.

Profiled variance (--profile, auto by default: on when sigma2 is free and
the nugget is 0 or estimated): for Sigma = sigma2 (R + r I), r = tau2/sigma2,
l is maximised over sigma2 in closed form, sigma2_hat = z'(R + r I)^-1 z / n
(kept within sigma2's bounds, and tau2 = r sigma2 within its own), from one
factorisation per evaluation; BOBYQA searches (beta, nu) or (beta, nu, r)
only, in far fewer evaluations. The table, the JSON and every step hold the
full theta and l (the same l as a full evaluation there). --profile off
searches every free parameter, as ExaGeoStat does.

Mean model (--mean; zero by default): z = X b + e with X = (1) for constant,
(1, x, y) for linear, or an intercept and named covariate columns of the data
file (a header "x,y,z,elev,dist" and --mean elev,dist). At every evaluation b
is estimated by generalised least squares, (X'Sigma^-1 X) b = X'Sigma^-1 z,
with p more triangular solves through the same tiled factor, and profiled
out: l = -1/2 r'Sigma^-1 r - 1/2 log|Sigma| - (n/2) log(2 pi), r = z - X b.
--reml maximises the restricted likelihood l - 1/2 log|X'Sigma^-1 X| +
(p/2) log(2 pi) (Harville's, without the constant 1/2 log|X'X|); profiled,
sigma2_hat = r'R^-1 r/(n - p). The coefficients are printed with their
standard errors sqrt(diag((X'Sigma^-1 X)^-1)) ("mean_coefficients",
"mean_stderr" in the JSON); predict --theta-from takes the mean model.

Approximate likelihood (--computation, default exact; docs/approx.md): tlr
holds every off-diagonal tile of the Cholesky factor as U V^T compressed to
--tlr-accuracy (absolute Frobenius error per tile, default 1e-9) with rank at
most --max-rank (default nb/2), mp holds the tiles beyond --mp-band of the
diagonal in float32, dst drops them. Everything after the search uses that
same factor: --holdout's kriging, --stderr's Fisher information, MLOE/MMOM,
--grid's maps and --draws, --mean's GLS, --ci's constrained fits and --cv.
What stays exact: the cross-covariances Sigma_{*o} of the predictions, and
the Fisher information's derivative matrices dSigma/dtheta (generated dense,
N^2 words per free parameter, then solved on both sides with the
approximate factor). The table and the JSON ("approx_note") say so.

Vecchia (--computation vecchia; docs/vecchia.md): each location, in an
ordering (--vecchia-order, default maxmin), is conditioned on its --vecchia-m
(default 30) nearest earlier locations; locations whose sets overlap are
grouped into blocks (--vecchia-grouping none: one conditional per location,
the plain Vecchia likelihood of GpGp's vecchia_meanzero_loglik on the same
sets). Memory and time are O(N m^3): no N x N matrix. The
search is Fisher scoring (--search fisher, the default; --search bobyqa, log
or linear runs BOBYQA over the same likelihood) from m = 10, then at m;
--stderr comes from the Vecchia Fisher information at the estimate;
--checkpoint/--resume keep each evaluation with its gradient and
information (a resumed fit ends bitwise where an uninterrupted one does);
--cv and --holdout predict from the m nearest observations. The
approximation check (--vecchia-check, on by default) evaluates the
gradient and information once more at --vecchia-check-m (default 2m) and
reports how far one Fisher-scoring step would move the estimate, in
standard errors, with a warning above 0.25 SE (a lower bound on the
approximation's effect: the larger m is an approximation too). The
estimates stay the m fit's. The check costs about half the fit without
it (the fit's one neighbour search finds the sets at 2m too; the blocks
at 2m and one evaluation there, some four evaluations at m: at N = 10^6
on a 2-core Xeon about 16 s against 30 s); --vecchia-check=false skips
it. --vecchia-refine-m MAX goes on where the check warns: the search
continues at the check's m from the estimate, checked again in turn,
while that m is at most MAX; the estimate, l and standard errors are
then the last level's. --vecchia-select greedy chooses the final stage's
sets by conditional variance instead of distance: m of each location's
--vecchia-candidates (default 3m) nearest earlier ones, at the m = 10
stage's estimate (more accurate for smooth fields and noisy data at the
same m; the selection costs some 0.05 ms a location on one core); the
check and the refined levels keep the nearest sets. It needs the Fisher
scoring and sets found by the fit (not --vecchia-sets), and is not for
the bivariate Matérn.`
	fitExample = `  exageostat fit
  exageostat simulate --n 1600 --theta 1,0.1,0.5 --seed 1 --out data.csv
  exageostat fit --data data.csv --lb 0.001,0.001,0.001 --ub 5,5,5 --nb 320 --workers 2 --json result.json
  exageostat fit --config fit.toml --trace trace.json
  exageostat fit --data data.csv --lb 0.001,0.001,0.001,0.0001 --ub 5,5,5,2   # nugget estimated
  exageostat fit --data data.csv --mean linear --reml --json r.json
  exageostat fit --n 16000 --nb 800 --computation tlr --holdout 100 --stderr --json r.json
  exageostat fit --data data.csv --computation vecchia --mean constant --lb 0.01,0.001,0.1,0.0001 --ub 10,5,3,2 --stderr
  exageostat fit --data data.csv --computation vecchia --mean constant --lb 0.01,0.001,0.1,0.0001 --ub 10,5,3,2 --vecchia-refine-m 240
  exageostat fit --data data.csv --json r.json         # killed? then:
  exageostat fit --data data.csv --json r.json --resume r.ckpt
  mpirun -np 4 exageostat fit --config configs/fit-mpi.toml --json result.json
  srun --mpi=pmix -n 4 exageostat fit --data data.csv --distribution 1d1d --powers 1,1,2,2
  mpirun -np 2 exageostat fit --config configs/fit-lp.toml`
)

func newFitCmd(w comm.Comm) *cobra.Command {
	cfg := config.DefaultFit()
	var ff fitFlags
	c := &cobra.Command{
		Use:     "fit",
		Short:   "Maximum-likelihood estimation of the covariance parameters",
		Long:    fitLong,
		Example: fitExample,
		Args:    noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return runFit(c, w, &cfg, &ff)
		},
	}
	fitModelFlags(c, &cfg, &ff)
	fitAssessFlags(c, &cfg, &ff)
	fitRunFlags(c, &cfg, &ff)
	return c
}

// fitModelFlags adds fit's flags of the data, the model, the search, the
// devices and the outputs to c (and the data columns' help paragraph).
func fitModelFlags(c *cobra.Command, cfg *config.Fit, ff *fitFlags) {
	f := c.Flags()
	f.StringVar(&ff.cfg, "config", "", "TOML configuration file (keys mirror these flags)")
	f.StringVar(&cfg.Data, "data", "", "CSV with a header x,y,z or lon,lat,z")
	f.StringVar(&cfg.Locations, "locations", "", "headerless locations file x,y (with --observations)")
	f.StringVar(&cfg.Observations, "observations", "", "observations file, one value per line")
	f.StringVar(&cfg.Kernel, "kernel", cfg.Kernel, kernelsHelp)
	f.StringVar(&cfg.Distance, "distance", cfg.Distance, "euclidean, great-circle, or auto (great-circle for lon,lat data)")
	f.StringVar(&ff.lb, "lb", config.FormatFloats(cfg.Lower), "lower bounds of theta; a 4th value (with --ub's) makes the nugget tau2 a parameter")
	f.StringVar(&ff.ub, "ub", config.FormatFloats(cfg.Upper), "upper bounds of theta (powexp: delta's default upper bound is 2; a 4th value bounds tau2)")
	f.StringVar(&cfg.Start, "start", cfg.Start, "start: data (data-driven guess), lower (ExaGeoStat: the lower bounds) or values v1,v2,v3")
	f.StringVar(&cfg.Search, "search", cfg.Search, "BOBYQA's search scale: log or linear; vecchia: fisher (Fisher scoring, its default) or bobyqa (BOBYQA, log scale)")
	f.StringVar(&cfg.Mean, "mean", cfg.Mean, "mean model: zero, constant, linear (1,x,y) or covariate columns COL1,COL2 of --data (after an intercept); estimated by GLS at every evaluation")
	f.BoolVar(&cfg.REML, "reml", false, "with --mean: maximise the restricted (REML) log-likelihood")
	f.StringVar(&cfg.Profile, "profile", cfg.Profile, "profile the variance: on (search the other parameters, sigma2 = z'R^-1 z/n in closed form), off, or auto (on when sigma2 is free and the nugget 0 or estimated)")
	f.Float64Var(&cfg.Nugget, "nugget", 0, "fixed nugget tau2 added to the diagonal (to estimate it, give 4 bounds instead)")
	f.IntVar(&cfg.NB, "nb", cfg.NB, "tile size (0: automatic, about N/6 within [160, 960])")
	f.IntVar(&cfg.GPUs, "gpus", 0, "GPU workers per rank (0: none); needs a CUDA device and the CUDA build, else exit 2 naming what is missing")
	f.StringVar(&cfg.Devices, "devices", "", "memory nodes with a worker each that need no GPU: host-test:N[:SIZE] (SIZE as --memory-limit takes it, e.g. 256MiB or 1GB; 1GiB if left out; at least three tiles), running the device kinds (potrf, trmm, syrk, gemm, gemv) on copies the runtime keeps coherent")
	f.StringVar(&cfg.Pin, "pin", cfg.Pin, "pin each worker to one core of the CPU affinity mask (its tile buffers on the core's NUMA node): on, off, or auto (on when the load average is under half the cores)")
	f.StringVar(&cfg.Scheduler, "scheduler", cfg.Scheduler, "task placement: prio (a free worker takes the highest-priority task it can run), eager (the first ready), ws/lws (work stealing), dmda/dmdas (the worker that completes it first by the performance model, copies included; dmdas counts only the queued work of its priority or higher)")
	f.StringVar(&cfg.PerfModel, "perfmodel", "", "performance-model file: read for dmda when it exists, written at the end with this run's measured task durations (calibrate --perfmodel makes one)")
	f.IntVar(&cfg.Workers, "workers", 0, "runtime workers (0: one per core the process may use: its CPU affinity mask, or SLURM_CPUS_PER_TASK if fewer)")
	f.Float64Var(&cfg.Tolerance, "tolerance", cfg.Tolerance, "stop when a step improves l by less than this (ftol_abs)")
	f.IntVar(&cfg.MaxEvals, "max-evals", 0, "maximum number of evaluations (0: no limit)")
	f.StringVar(&cfg.JSON, "json", "", "write the result as JSON to this file")
	f.BoolVarP(&ff.quiet, "quiet", "q", false, "keep stderr to warnings: no set-up notes, no line per evaluation (the table still goes to stdout)")
	f.StringVar(&cfg.Checkpoint, "checkpoint", "", "rewrite this checkpoint after every evaluation (default: the --resume file, else the --json path with .ckpt for its extension, else none; none disables it)")
	f.StringVar(&cfg.Resume, "resume", "", "continue the fit of this checkpoint: its evaluations are replayed at no cost; one made from other data or settings is refused")
	f.StringVar(&cfg.Deadline, "deadline", "", "stop before an evaluation that would end after this: a duration (45m), a clock time (17:30) or a date and time (2026-11-26T17:30); default: the end of the Slurm job, if any; none: no deadline")
	f.StringVar(&cfg.Trace, "trace", "", "write a Chrome trace-event JSON (or .csv) of every task")
	f.IntVar(&cfg.N, "n", cfg.N, "without data: number of simulated locations")
	f.StringVar(&ff.theta, "theta", config.FormatFloats(cfg.Theta), "without data: true theta of the simulation")
	f.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "without data: seed of the simulation")
	f.IntVar(&cfg.Times, "times", 0, "without data, spacetime-matern: N/times sites observed at times 1..times")
	c.Long += dataColumnsHelp
}

// fitAssessFlags adds fit's flags of the assessments after the search
// (hold-out, standard errors, intervals, pictures, cross-validation) to c.
func fitAssessFlags(c *cobra.Command, cfg *config.Fit, ff *fitFlags) {
	f := c.Flags()
	f.IntVar(&cfg.Holdout, "holdout", 0, "hold out this many random locations (--seed), fit the rest, predict them: MSPE and 95% coverage")
	f.StringVar(&ff.trueTheta, "true-theta", "", "with --holdout: MLOE and MMOM against this true theta")
	f.BoolVar(&cfg.StdErr, "stderr", false, "standard errors from the Fisher information (on with --holdout)")
	f.StringVar(&cfg.CI, "ci", "", "profile: profile-likelihood confidence intervals of the free parameters (each point a constrained fit)")
	f.Float64Var(&cfg.CILevel, "ci-level", cfg.CILevel, "level of --ci")
	f.StringVar(&cfg.Plot, "plot", "", "write pictures (SVG and PNG) into this directory")
	f.StringVar(&cfg.Grid, "grid", "", "with --plot: predict on an NxM grid over the data's bounding box for the maps")
	f.IntVar(&cfg.Draws, "draws", 0, "with --grid: also map this many conditional simulations of the latent field given the data (on the grid, at most 4900 points: a coarser one of the same box beyond)")
	f.StringVar(&cfg.CV, "cv", "", "cross-validate the data at the estimate after the fit: loo (leave one out) or K (K-fold, split by --seed); needs --cv-out")
	f.StringVar(&cfg.CVOut, "cv-out", "", "with --cv: the per-point CSV as cv writes it (x,y,z,z_loo,variance,residual,standardized; K-fold: x,y,z,z_cv,variance,residual,standardized,fold), or a GeoPackage (.gpkg: GDAL) point layer of those fields in --crs")
	f.Float64Var(&cfg.DPI, "dpi", 0, "with --plot: resolution of the PNG pictures in dots per inch (0: 300)")
	f.StringVar(&cfg.ZName, "z-name", "", "with --plot: the observed variable's name on the colour bars (default z)")
	f.StringVar(&cfg.Units, "units", "", "with --plot: the observed variable's units on the colour bars (e.g. mm)")
	f.StringVar(&cfg.XYUnits, "xy-units", "", "with --plot: the units of planar x and y on the map axes (e.g. m; lon,lat data are in degrees)")
}

// fitRunFlags adds fit's flags of the distribution over the ranks, the
// approximations and the log to c, and the data columns' flags.
func fitRunFlags(c *cobra.Command, cfg *config.Fit, ff *fitFlags) {
	f := c.Flags()
	f.StringVar(&cfg.Distribution, "distribution", cfg.Distribution, "MPI runs: tile distribution, bc, 1d1d, hybrid (seed 002: dense band on a nodes x 1 grid, the rest bc), lp or bc-fast (the last two need --cluster)")
	f.StringVar(&cfg.Cluster, "cluster", "", "MPI runs: cluster file whose [[group]] tables model the ranks' nodes (for --distribution lp or bc-fast)")
	f.BoolVar(&cfg.ExcludeCPUOnly, "exclude-cpu-only", false, "MPI runs, lp: keep the nodes without GPUs out of the factorisation")
	f.IntVar(&cfg.P, "p", 0, "MPI runs, bc: process grid rows (0: the most square grid)")
	f.IntVar(&cfg.Q, "q", 0, "MPI runs, bc: process grid columns (0: the most square grid)")
	f.StringVar(&ff.powers, "powers", "", "MPI runs, 1d1d: relative power of each rank, e.g. 1,1,4,4 (default equal)")
	f.StringVar(&cfg.MemoryLimit, "memory-limit", "", "memory one rank may use, e.g. 2GB (default: what the node has, shared by its ranks); a run that needs more stops before it starts")
	f.StringVar(&cfg.Solve, "solve", cfg.Solve, "MPI runs: how the local solve sums L(m,k) z(k): chained (same l on any distribution), per-rank (Algorithm 1 as printed) or move-tiles (no local solve: the baseline)")
	f.StringVar(&ff.overlap, "overlap", "", config.OverlapHelp+" (the [overlap] table of --config)")
	f.StringVar(&cfg.Computation, "computation", cfg.Computation, "exact, tlr (tile low-rank: off-diagonal tiles U V^T), mp (mixed precision: tiles off the band in float32), dst (tiles off the band dropped) or vecchia (each location conditioned on its --vecchia-m nearest earlier ones)")
	f.IntVar(&cfg.Vecchia.M, "vecchia-m", cfg.Vecchia.M, "vecchia: the conditioning set size (the m nearest earlier locations; the search starts at m = 10)")
	f.StringVar(&cfg.Vecchia.Order, "vecchia-order", cfg.Vecchia.Order, "vecchia: the ordering of the locations: maxmin, random, coord or middleout")
	f.StringVar(&cfg.Vecchia.Sets, "vecchia-sets", "", "vecchia: read the ordering and conditioning sets from this file (as --vecchia-sets-out writes it)")
	f.StringVar(&cfg.Vecchia.SetsOut, "vecchia-sets-out", "", "vecchia: write the ordering and conditioning sets to this file (1-based data rows)")
	f.StringVar(&cfg.Vecchia.Grouping, "vecchia-grouping", cfg.Vecchia.Grouping, "vecchia: blocks (consecutive locations with overlapping sets share one block) or none (one conditional per location, as GpGp's vecchia_meanzero_loglik)")
	f.BoolVar(&cfg.VecchiaCheck, "vecchia-check", cfg.VecchiaCheck, "vecchia: after the fit, one Fisher-scoring step at --vecchia-check-m from the estimate, in standard errors: how far a larger m would move it (a warning above 0.25 SE). It costs about half the fit without it (one evaluation at 2m is some 4 at m); --vecchia-check=false skips it")
	f.IntVar(&cfg.VecchiaCheckM, "vecchia-check-m", 0, "vecchia: the check's conditioning set size (0: twice --vecchia-m)")
	f.StringVar(&cfg.VecchiaSelect, "vecchia-select", cfg.VecchiaSelect, "vecchia: how the final stage's sets are chosen: nearest (the m nearest earlier locations) or greedy (m of the --vecchia-candidates nearest, one at a time by conditional variance at the m = 10 stage's estimate; not with --vecchia-sets, --search bobyqa or the bivariate Matérn: docs/vecchia.md, \"Greedy sets in the fit\")")
	f.IntVar(&cfg.VecchiaCandidates, "vecchia-candidates", 0, "vecchia, --vecchia-select greedy: the candidates a location, its K nearest earlier locations (0: 3m)")
	f.IntVar(&cfg.VecchiaRefineM, "vecchia-refine-m", 0, "vecchia: when the check warns, go on searching at the check's m from the estimate and check again (m doubling, or the ratio of --vecchia-check-m), while the check's m is at most this (0: off; e.g. 120 for a smooth field: docs/vecchia.md, \"Refining m\")")
	f.Float64Var(&cfg.TLRAccuracy, "tlr-accuracy", cfg.TLRAccuracy, "tlr: absolute Frobenius accuracy of each compressed tile (as HiCMA)")
	f.IntVar(&cfg.MaxRank, "max-rank", 0, "tlr: largest rank of a tile held as U V^T (0: nb/2); from nb/2 up a tile that needs more stays dense, below nb/2 it is an error naming the tile (exit status 2)")
	f.IntVar(&cfg.MPBand, "mp-band", cfg.MPBand, "mp, dst: tile sub-diagonals kept in float64 (-1: the band holding 10 % of the tiles)")
	f.IntVar(&cfg.Lookahead, "lookahead", cfg.Lookahead, "tlr, mp, dst: lookahead depth D of the Cholesky (seed 002): step k's updates past column k+D wait for panel k+1 (0: off)")
	f.IntVar(&cfg.HPotrf, "hpotrf", cfg.HPotrf, "tlr, mp, dst: hierarchical potrf, the diagonal tiles factored as a nested graph of sub-tiles of this size (0: off)")
	f.IntVar(&cfg.Band, "dist-band", cfg.Band, "MPI runs, --distribution hybrid: sub-diagonals of tiles on the dense grid (nodes x 1); the others on the p x q grid")
	f.BoolVarP(&ff.verbose, "verbose", "v", false, "one log line per evaluation even on a terminal")
	f.BoolVar(&ff.progress, "progress", false, "a progress line of the evaluation under way (tasks done / total, ETA) every 2 s on stderr: on by default on a terminal; --progress asks for it elsewhere (a line each time), -q turns it off")
	columnFlags(c, &cfg.Columns)
}

func runFit(c *cobra.Command, w comm.Comm, cfg *config.Fit, ff *fitFlags) error {
	// SIGINT and SIGTERM ask for an orderly stop from here on; the input
	// files are read once, by rank 0, for every rank (job.Inputs).
	req := stop.New()
	defer catchSignals(req, w.Rank() == 0)()
	in := job.NewInputs(w, req.Asked(), req.Number)
	if ff.cfg != "" {
		if err := readFitConfig(c, in, cfg, ff); err != nil {
			return err
		}
	}
	var given []string
	c.Flags().Visit(func(f *pflag.Flag) { given = append(given, f.Name) })
	cfg.SetFlags(given...)
	if err := cfg.Overlap.Apply(ff.overlap); err != nil {
		return badInput("fit: --overlap: %v", err)
	}
	if err := fitLists(cfg, ff); err != nil {
		return err
	}
	if cfg.GPUs != 0 {
		if err := cfg.Validate(); err != nil {
			return err
		}
		if err := handOverToCUDA("fit", cfg.GPUs); err != nil {
			return err
		}
	}
	names, err := config.ParamNamesFor(cfg.Kernel, len(cfg.Lower))
	if err != nil {
		names = nil // Fit reports it
	}
	env, progress := fitEnv(c, w, ff, names)
	env.Stop, env.Inputs = req, in
	res, err := job.Fit(*cfg, env)
	if *progress {
		fmt.Fprintln(os.Stderr)
	}
	var ir *job.Interrupted
	if err != nil && (res == nil || !errors.As(err, &ir)) {
		return err
	}
	// An interrupted fit prints its best so far, then ends with the error.
	printFit(os.Stdout, res)
	printComm(os.Stdout, res.Comm)
	printAssessment(os.Stdout, os.Stderr, res)
	printRankMemory(os.Stdout, res.Memory)
	if err == nil && cfg.CV != "" {
		cr, err := job.FitCV(res, *cfg, env)
		if err != nil {
			return err
		}
		s := cr.CV
		what := "leave-one-out"
		if s.Folds > 0 {
			what = fmt.Sprintf("%d-fold cross-validation (seed %d)", s.Folds, cfg.Seed)
		}
		fmt.Fprintf(os.Stdout, "%s at the estimate over %d observations: MSPE %.6g  mean log score %.6g  95%% interval coverage %.1f%%  (%.3fs) -> %s\n",
			what, s.N, s.MSPE, s.LogScore, 100*s.Coverage, cr.Seconds, outName(cr.Out))
		for _, p := range cr.Plots {
			fmt.Fprintf(os.Stderr, "wrote %s (and .svg)\n", p)
		}
	}
	return err
}

// setHeapLimit holds this process's Go heap to bytes
// (runtime/debug.SetMemoryLimit, a soft limit): what a Vecchia fit's
// memory check allowed its heap (job.Env.HeapLimit).
func setHeapLimit(bytes int64) { debug.SetMemoryLimit(bytes) }

// fitEnv is a fit's job environment: the log, a line per evaluation
// (redrawn in place on a terminal unless -v; none with -q) and the
// progress meter of the evaluation under way (on a terminal, or with
// --progress; -q or --progress=false: none). *open reports whether the
// terminal's line was left without its newline.
func fitEnv(c *cobra.Command, w comm.Comm, ff *fitFlags, names []string) (env job.Env, open *bool) {
	tty := term.IsTerminal(int(os.Stderr.Fd())) && !ff.verbose
	open = new(bool)
	var head atomic.Value // the terminal's line: the last evaluation's summary
	head.Store("")
	env = job.Env{Comm: w, Log: os.Stderr, Command: os.Args, GPUs: gpuOpener(), HeapLimit: setHeapLimit, Step: func(s mle.Step) {
		if tty {
			*open = true
			line := fmt.Sprintf("  evaluations %4d   best l %.6f   elapsed %6.1fs%s ", s.N, s.Best, s.Time, etaNote(s))
			head.Store(line)
			fmt.Fprint(os.Stderr, "\r\x1b[K"+line)
			return
		}
		logStep(os.Stderr, names, s)
	}}
	switch {
	case ff.quiet:
		env.Quiet, env.Step = true, nil // warnings and the summary only
	case c.Flags().Changed("progress") && !ff.progress:
	case term.IsTerminal(int(os.Stderr.Fd())):
		env.Progress, env.ProgressTTY = os.Stderr, true
		env.ProgressHead = func() string { return head.Load().(string) }
	case ff.progress:
		env.Progress = os.Stderr
	}
	return env, open
}

// readFitConfig reads the --config file of a fit (through in: rank 0
// reads it for every rank) into cfg, then re-applies the flags the user
// set over the file's values.
func readFitConfig(c *cobra.Command, in *job.Inputs, cfg *config.Fit, ff *fitFlags) error {
	// Re-apply the flags the user set over the file's values.
	changed := map[string]string{}
	c.Flags().Visit(func(f *pflag.Flag) { changed[f.Name] = f.Value.String() })
	name, b, err := in.Read("config", ff.cfg)
	if err != nil {
		var ir *job.Interrupted
		if errors.As(err, &ir) {
			return err
		}
		return config.ReadError(name, err)
	}
	if err := config.DecodeFit(name, b, cfg); err != nil {
		return err
	}
	if !c.Flags().Changed("lb") {
		ff.lb = config.FormatFloats(cfg.Lower)
	}
	if !c.Flags().Changed("ub") {
		ff.ub = config.FormatFloats(cfg.Upper)
	}
	if !c.Flags().Changed("theta") {
		ff.theta = config.FormatFloats(cfg.Theta)
	}
	if !c.Flags().Changed("true-theta") && cfg.TrueTheta != nil {
		ff.trueTheta = config.FormatFloats(cfg.TrueTheta)
	}
	if !c.Flags().Changed("powers") && cfg.Powers != nil {
		ff.powers = config.FormatFloats(cfg.Powers)
	}
	for name, v := range changed {
		if name == "config" {
			continue
		}
		if err := c.Flags().Set(name, v); err != nil {
			return badInput("--%s: %v", name, err)
		}
	}
	return nil
}

// fitLists parses the comma-separated lists of a fit's flags into cfg.
func fitLists(cfg *config.Fit, ff *fitFlags) error {
	var err error
	if cfg.Lower, err = parseFloats("fit", "lb", ff.lb); err != nil {
		return err
	}
	if cfg.Upper, err = parseFloats("fit", "ub", ff.ub); err != nil {
		return err
	}
	if cfg.Theta, err = parseFloats("fit", "theta", ff.theta); err != nil {
		return err
	}
	if ff.trueTheta != "" {
		if cfg.TrueTheta, err = parseFloats("fit", "true-theta", ff.trueTheta); err != nil {
			return err
		}
	}
	if ff.powers != "" {
		if cfg.Powers, err = parseFloats("fit", "powers", ff.powers); err != nil {
			return err
		}
	}
	return nil
}

// catchSignals makes SIGINT and SIGTERM ask req for an orderly stop (the
// job ends or gives up the work under way and writes its best so far): a
// repeat within stop.Window is the same request (Slurm sends SIGTERM twice
// at a time limit), a second one later gives up the work under way at
// once, a third exits at once without writing. say prints what each does
// (rank 0). The returned function restores the default handling.
func catchSignals(req *stop.Request, say bool) (done func()) {
	c := make(chan os.Signal, 8)
	signal.Notify(c, os.Interrupt, syscall.SIGTERM)
	quit := make(chan struct{})
	go func() {
		for {
			var s os.Signal
			select {
			case s = <-c:
			case <-quit:
				return
			}
			name := stop.Name(s)
			n := req.Ask(s, time.Now())
			switch {
			case n == 3:
				if say {
					fmt.Fprintf(os.Stderr, "\nexageostat: %s a third time: exiting at once, writing nothing more\n", name)
				}
				os.Exit(128 + int(s.(syscall.Signal)))
			case !say:
			case n == 1:
				fmt.Fprintf(os.Stderr, "\n%s: stopping: the work under way ends, or is given up if it cannot end soon; then the best so far is written (again to give it up at once)\n", name)
			case n == 2:
				fmt.Fprintf(os.Stderr, "\n%s again: giving up the work under way; writing the best so far (a third time to exit at once)\n", name)
			}
		}
	}()
	return func() { signal.Stop(c); close(quit) }
}

func logStep(w io.Writer, names []string, s mle.Step) {
	th := make([]string, len(s.Theta))
	for i, v := range s.Theta {
		name := fmt.Sprintf("theta%d", i)
		if i < len(names) {
			name = names[i]
		}
		th[i] = fmt.Sprintf("%s=%.6g", name, v)
	}
	l := fmt.Sprintf("%.6f", s.LogLik)
	if s.Failed != nil {
		l = "failed (not positive definite)"
	}
	if s.Replayed {
		fmt.Fprintf(w, "  [%8.1fs] eval %4d  %s  l=%s  replayed from the checkpoint\n", s.Time, s.N, strings.Join(th, " "), l)
		return
	}
	st := s.Stats
	ranks := ""
	if a := st.Approx; a != nil && a.LowRank > 0 {
		ranks = fmt.Sprintf("  rank mean %.1f max %d (%d dense)", a.MeanRank, a.MaxRank, a.DenseOff)
	}
	eta := etaNote(s)
	if st.Busy > 0 { // vecchia: busy seconds, not traced; no Cholesky GFLOP/s
		fmt.Fprintf(w, "  [%8.1fs] eval %4d  %s  l=%s  wall %.3fs  gen %.3fs chol %.3fs solve %.3fs deriv %.3fs  busy %.1f%%%s\n",
			s.Time, s.N, strings.Join(th, " "), l, st.Wall, st.Gen, st.Chol, st.Solve, st.Deriv, 100*st.Busy, eta)
		return
	}
	fmt.Fprintf(w, "  [%8.1fs] eval %4d  %s  l=%s  wall %.3fs  gen %.3fs chol %.3fs solve %.3fs (CPU %.3fs)  %.1f GFLOP/s  util %.1f%% (first 90%%: %.1f%%, CPU %.1f%%)%s%s\n",
		s.Time, s.N, strings.Join(th, " "), l, st.Wall, st.Gen, st.Chol, st.Solve, st.GenCPU+st.CholCPU+st.SolveCPU, st.Gflops,
		100*st.Utilization.Whole, 100*st.Utilization.First90, 100*st.UtilizationCPU, ranks, eta)
}

// printFit prints the estimates beside the truth (simulated data) and the
// bounds, and the search's summary.
func printFit(w io.Writer, r *job.FitResult) {
	simulated := r.TrueTheta != nil
	fmt.Fprintf(w, "%-8s %14s", "param", "estimate")
	if simulated {
		fmt.Fprintf(w, " %12s", "truth")
	}
	fmt.Fprintf(w, " %12s %12s\n", "lb", "ub")
	for i, n := range r.Params {
		fmt.Fprintf(w, "%-8s %14.6g", n, r.Theta[i])
		if simulated {
			fmt.Fprintf(w, " %12.6g", r.TrueTheta[i])
		}
		fmt.Fprintf(w, " %12.6g %12.6g", r.Lower[i], r.Upper[i])
		if i < len(r.AtBound) && r.AtBound[i] != "" {
			fmt.Fprintf(w, "  (%s)", boundLabel(r.AtBound[i]))
		}
		fmt.Fprintln(w)
	}
	for _, iv := range r.Intervals {
		mark := func(at bool) string {
			if at {
				return " (bound)"
			}
			return ""
		}
		wald := ""
		if len(iv.Wald) == 2 {
			wald = fmt.Sprintf("  Wald [%.6g, %.6g]", iv.Wald[0], iv.Wald[1])
		}
		fmt.Fprintf(w, "%-8s %.0f%% profile interval [%.6g%s, %.6g%s]%s  (%d constrained fits)\n", iv.Param, 100*r.CILevel,
			iv.Lower, mark(iv.LowerAtBound), iv.Upper, mark(iv.UpperAtBound), wald, iv.Fits)
	}
	if r.EffectiveRange != nil {
		fmt.Fprintf(w, "effective range (correlation %g): %.6g\n", matern.EffectiveRangeLevel, *r.EffectiveRange)
	}
	if r.GstatVgm != "" {
		fmt.Fprintf(w, "gstat: %s\n", r.GstatVgm)
	}
	pe := r.PerEval
	replayed := ""
	if r.Replayed > 0 {
		replayed = fmt.Sprintf("%d replayed from %s, %d computed, ", r.Replayed, r.ResumedFrom, r.Evaluations-r.Replayed)
	}
	for i, t := range r.MeanTerms {
		if i == 0 {
			fmt.Fprintf(w, "mean (%s, GLS) %14s %12s\n", r.Mean, "estimate", "std. error")
		}
		fmt.Fprintf(w, "  %-20s %14.6g %12.6g\n", t, r.MeanCoef[i], r.MeanStdErr[i])
	}
	kind := "loglik"
	if r.REML {
		kind = "REML loglik"
	}
	fmt.Fprintf(w, "%s %.6f  evaluations %d (%s%d failed, %d restarts)  %.2fs  status %s\n",
		kind, r.LogLik, r.Evaluations, replayed, r.Failed, r.Restarts, r.Seconds, r.Status)
	if d, ok := pe["deriv"]; ok { // vecchia: busy seconds only (not traced)
		fmt.Fprintf(w, "per evaluation: %.4fs wall; busy gen %.4fs chol %.4fs solve %.4fs deriv %.4fs\n",
			pe["wall"], pe["gen"], pe["chol"], pe["solve"], d)
	} else {
		fmt.Fprintf(w, "per evaluation: %.4fs wall; busy gen %.4fs chol %.4fs solve %.4fs; in CPU time gen %.4fs chol %.4fs solve %.4fs\n",
			pe["wall"], pe["gen"], pe["chol"], pe["solve"], pe["gen_cpu"], pe["chol_cpu"], pe["solve_cpu"])
	}
	printVecchiaCheck(w, r)
	for _, m := range r.Warnings {
		fmt.Fprintf(w, "warning: %s\n", m)
	}
}

// printVecchiaCheck prints a Vecchia fit's approximation check: the step
// a larger m would take, in standard errors, per free parameter.
func printVecchiaCheck(w io.Writer, r *job.FitResult) {
	for _, c := range r.VecchiaRefined {
		fmt.Fprintf(w, "vecchia refine: m = %d would have moved the estimate by up to %.2f SE: searched again at m = %d\n", c.M2, c.MaxStepSE, c.M2)
	}
	c := r.VecchiaCheck
	switch {
	case c == nil:
		return
	case c.Skipped != "":
		fmt.Fprintf(w, "vecchia check skipped: %s\n", c.Skipped)
		return
	}
	var ses, names []string
	for _, n := range r.Params {
		if se, ok := c.StepSE[n]; ok {
			ses, names = append(ses, fmt.Sprintf("%.2f", se)), append(names, n)
		}
	}
	fmt.Fprintf(w, "vecchia check: m = %d would move the estimate by (%s) SE (%s); l at m = %d %+.4g against m = %d (%.2fs; a lower bound: m = %d is approximate too)\n",
		c.M2, strings.Join(ses, ", "), strings.Join(names, ", "), c.M2, c.DeltaL, r.Vecchia.M, c.Seconds, c.M2)
}

// boundLabel is the table's mark of an estimate at a bound or fixed.
func boundLabel(b string) string {
	if b == "fixed" {
		return "fixed"
	}
	return "at " + b + " bound"
}

// printComm prints the messages of one evaluation of a distributed fit.
func printComm(w io.Writer, cs []likelihood.CommStat) {
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

// printAssessment prints the hold-out scores, standard errors and
// MLOE/MMOM on w, and the pictures written on log.
func printAssessment(w, log io.Writer, r *job.FitResult) {
	a := &r.Assessment
	if a.MSPE != nil {
		fmt.Fprintf(w, "holdout %d: MSPE %.6g  95%% interval coverage %.1f%%  (prediction %.3fs)\n", a.Holdout, *a.MSPE, 100**a.Coverage, a.PredSecs)
	}
	if a.StdErr != nil {
		var parts []string
		for i, n := range r.Params {
			if a.StdErr[i] > 0 {
				parts = append(parts, fmt.Sprintf("%s %.4g", n, a.StdErr[i]))
			}
		}
		fmt.Fprintf(w, "standard errors (Fisher information, %.3fs): %s\n", a.FisherSecs, strings.Join(parts, "  "))
	}
	if a.StdErrNote != "" {
		fmt.Fprintf(w, "standard errors %s\n", a.StdErrNote)
	}
	if a.ApproxNote != "" {
		fmt.Fprintf(w, "approximation: %s\n", a.ApproxNote)
	}
	if a.MLOE != nil {
		fmt.Fprintf(w, "MLOE %.6g  MMOM %.6g\n", *a.MLOE, *a.MMOM)
	}
	for _, p := range a.Plots {
		fmt.Fprintf(log, "wrote %s (and .svg)\n", p)
	}
}

// printRankMemory prints each rank's memory: its share of the matrix's tiles,
// the most tile data and replicas it held, the estimate checked before the
// run, and the process's peak resident set size.
func printRankMemory(w io.Writer, ms []job.RankMemory) {
	if len(ms) == 0 {
		return
	}
	mb := func(b int64) float64 { return float64(b) / 1e6 }
	fmt.Fprintf(w, "memory per rank (MB):\n  %4s %12s %12s %12s %12s %12s\n", "rank", "owned tiles", "peak tiles", "peak replica", "estimate", "peak RSS")
	for _, m := range ms {
		fmt.Fprintf(w, "  %4d %12.1f %12.1f %12.1f %12.1f %12.1f\n", m.Rank, mb(m.OwnedTileBytes), mb(m.PeakTileBytes),
			mb(m.PeakReplicaBytes), mb(m.NeedBytes), mb(m.PeakRSSBytes))
	}
	if len(ms) < 2 {
		return
	}
	fmt.Fprintf(w, "busy seconds per evaluation, per rank (summed over its workers):\n  %4s %9s %9s %9s %9s\n", "rank", "wall", "gen", "chol", "solve")
	for _, m := range ms {
		b := m.Busy
		fmt.Fprintf(w, "  %4d %9.4f %9.4f %9.4f %9.4f\n", m.Rank, b["wall"], b["gen"], b["chol"], b["solve"])
	}
}

// seconds formats a duration in seconds for the log: 12.3s, 4m05s, 2h03m.
func seconds(s float64) string {
	switch {
	case s < 60:
		return fmt.Sprintf("%.1fs", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", int(s)/60, int(s)%60)
	}
	return fmt.Sprintf("%dh%02dm", int(s)/3600, int(s)%3600/60)
}

// etaNote is the fit's ETA after step s for the log ("" when unknown).
func etaNote(s mle.Step) string {
	switch {
	case s.Known && s.Bound:
		return fmt.Sprintf("  ETA <= %s (max-evals)", seconds(s.ETA))
	case s.Known:
		return "  ETA " + seconds(s.ETA)
	}
	return ""
}
