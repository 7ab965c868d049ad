package job

import (
	"fmt"
	"time"

	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/gdal"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/provenance"
)

// SimulateResult describes a simulated data set that was written.
// It is also the --json summary (rank 0), with every rank's memory and
// the run's provenance.
type SimulateResult struct {
	N            int       `json:"n"`
	NB           int       `json:"nb"`
	Kernel       string    `json:"kernel"`
	Theta        []float64 `json:"theta"`
	Nugget       float64   `json:"nugget,omitempty"`
	Seed         uint64    `json:"seed"`
	Out          string    `json:"out"`
	Seconds      float64   `json:"seconds"`
	Ranks        int       `json:"ranks"`
	Workers      int       `json:"workers"`
	Distribution string    `json:"distribution,omitempty"` // the tiles' distribution over the ranks ("" on one rank)
	Computation  string    `json:"computation"`            // the factor L of z = L e: exact, tlr, mp or dst
	// Memory is every rank's memory (rank 0; RankMemory, Busy holding the
	// run's wall seconds), Traced the trace files written (--trace).
	Memory []RankMemory    `json:"memory,omitempty"`
	Traced []string        `json:"trace_files,omitempty"`
	Run    *provenance.Run `json:"run,omitempty"`
}

// Simulate runs `exageostat simulate` as cfg says on the ranks of
// env.Comm: N locations on ExaGeoStat's jittered grid and observations
// Z = L e (likelihood.Simulate, the tiles distributed over the ranks like
// a fit's), written by rank 0 as CSV (x,y,z). The file is the same on any
// number of ranks. Every rank's need is checked against its memory first.
func Simulate(cfg config.Simulate, env Env) (_ *SimulateResult, err error) {
	w := env.comm()
	ag := newAgreement(env, "simulate") // the ranks agree on the settings (agree.go)
	defer ag.finish(&err)
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if w.Rank() == 0 {
		outs := []File{{Flag: "out", Path: cfg.Out}, {Flag: "json", Path: cfg.JSON}, {Flag: "trace", Path: cfg.Trace}}
		if err := (Outputs{Cmd: "simulate", Outputs: outs}).Check(); err != nil {
			return nil, err
		}
		if err := checkPointsOut("simulate", cfg.Out); err != nil {
			return nil, err
		}
	}
	limit, _ := config.MemoryLimitBytes(cfg.MemoryLimit)
	cl, err := phaseCluster("simulate", w.Size(), cfg.Phase)
	if err != nil {
		return nil, err
	}
	nm := cfg.N * variables(likelihood.Model(cfg.Kernel)) // the matrix's order
	nb := tileSize(cfg.NB, nm)
	workers := workersOr(cfg.Workers)
	if err := ag.check(shared{settings: settingsOf(cfg)}, workers); err != nil {
		return nil, err
	}
	if cfg.Computation == "vecchia" { // no tiles (vecchiafit.go)
		if cfg.Trace != "" {
			return nil, badInput("simulate: --trace: not with --computation vecchia (its draw is not traced)")
		}
		res := &SimulateResult{Computation: cfg.Computation, N: cfg.N, Kernel: cfg.Kernel, Theta: cfg.Theta, Nugget: cfg.Nugget, Seed: cfg.Seed,
			Out: cfg.Out, Ranks: w.Size(), Workers: workers}
		d, err := simulateVecchiaCmd(cfg, env, workers, limit, res)
		if err != nil {
			return nil, err
		}
		if err := writeSimulated(env, w.Rank(), cfg.Out, d); err != nil {
			return nil, err
		}
		return res, writeSimJSON(env, w.Rank(), cfg.JSON, res)
	}
	g := evalGraph(nm, nb)
	o := likelihood.Options{NB: nb, Approx: ApproxOf(cfg.Approx)}
	if o.Approx.Computation == likelihood.TLR { // budget the tiles at a sampled rank
		model := likelihood.Model(cfg.Kernel)
		pts := points(dataset.GridTimes(cfg.N, cfg.Times, cfg.Seed))
		if model == likelihood.BivariateMatern {
			pts = matern.Interleave(pts)
		}
		o.Approx.RankEstimate = tlrRankBudget(o.Approx, likelihood.Problem{Points: pts, Metric: matern.Euclidean, Model: model}, cfg.Theta, nb, cfg.Seed)
	}
	if err := checkScale(w, "simulate", limit, scale{n: nm, nb: nb, g: g, tiles: float64(likelihood.TileBytes(nm, o))}); err != nil {
		return nil, err
	}
	res := &SimulateResult{Computation: cfg.Computation, N: cfg.N, NB: nb, Kernel: cfg.Kernel, Theta: cfg.Theta, Nugget: cfg.Nugget, Seed: cfg.Seed,
		Out: cfg.Out, Ranks: w.Size(), Workers: workers}
	if o.Owner, o.GenOwner, res.Distribution, err = distribute(w, cl, nm, nb, false); err != nil {
		return nil, err
	}
	need := likelihood.MemoryNeed(nm, o, w.Size())
	addTo(need, graphNeed(g, nm, nb, o.Owner, w.Size()))
	lim, err := checkMemory(w, "simulate", need, limit, problem(nm, nb, w.Size())+graphNote(g, most(need)*int64(w.Size())))
	if err != nil {
		return nil, err
	}
	tr, err := openTrace(cfg.Trace, w)
	if err != nil {
		return nil, err
	}
	defer tr.close()
	rt, err := newRuntimeWith(w, workers, false, nil, tr)
	if err != nil {
		return nil, err
	}
	defer rt.Close()
	t0 := time.Now()
	d, err := simulateGrid("simulate", cfg.N, cfg.Times, cfg.Seed, likelihood.Model(cfg.Kernel), cfg.Theta, cfg.Nugget, rt, o, 0)
	if err != nil {
		return nil, err
	}
	res.Seconds = time.Since(t0).Seconds()
	if err := checkFailTask(rt, w); err != nil {
		return nil, err
	}
	rep, err := reportRun(w, rt, tr, nm, nb, o.Owner, need, lim, res.Seconds)
	if err != nil {
		return nil, err
	}
	res.Memory, res.Traced = rep.Memory, rep.Traced
	if err := writeSimulated(env, w.Rank(), cfg.Out, d); err != nil {
		return nil, err
	}
	if err := writeSimJSON(env, w.Rank(), cfg.JSON, res); err != nil {
		return nil, err
	}
	return res, nil
}

// writeSimJSON writes res, with the run's provenance, to path (rank 0;
// nothing without a path).
func writeSimJSON(env Env, rank int, path string, res *SimulateResult) error {
	if rank != 0 || path == "" {
		return nil
	}
	res.Run = provenance.New(env.Command, res.Ranks, res.Workers)
	if err := WriteJSON(path, res); err != nil {
		return badInput("simulate: --json: %v", err)
	}
	return nil
}

// writeSimulated writes the simulated data d to out (rank 0 only; "-":
// standard output).
func writeSimulated(env Env, rank int, out string, d *dataset.Data) error {
	if rank != 0 {
		return nil
	}
	if out == StdoutPath {
		if err := dataset.WriteCSVTo(env.stdout(), d); err != nil {
			return fmt.Errorf("simulate: standard output: %w", err)
		}
		return nil
	}
	if gdal.IsPoints(out) {
		hdr, cols := d.Table()
		if err := writePoints(out, pointsCRS(nil, "", d.Coords), hdr, cols); err != nil {
			return badInput("simulate: --out %v", err)
		}
		return nil
	}
	if err := dataset.WriteCSV(out, d); err != nil {
		return badInput("simulate: %v", err)
	}
	return nil
}
