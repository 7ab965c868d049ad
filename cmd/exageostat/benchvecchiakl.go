package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/exageostat/exageostat/pkg/bench"
	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/job"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/vecchia/order"
)

// klOrders are the orderings bench vecchia-kl compares.
var klOrders = []order.Method{order.MaxMin, order.Random, order.Coord, order.MiddleOut, order.ApproxMaxMin}

// newBenchVecchiaKLCmd is `exageostat bench vecchia-kl`: the
// Kullback-Leibler divergence of Vecchia's approximations from the exact
// density.
func newBenchVecchiaKLCmd() *cobra.Command {
	o := bench.VecchiaKLOptions{N: 2000, Workers: job.DefaultWorkers(), Seed: 1}
	var thetaS, msS, ordS, grpS, selS, data string
	var asJSON bool
	c := &cobra.Command{
		Use:   "vecchia-kl",
		Short: "KL divergence of Vecchia's approximations (m, ordering, grouping) from the exact Gaussian",
		Long: `Computes KL(p || q), in nats, between the exact Gaussian p = N(0, Sigma) of N
locations (uniform random points in the unit square from --seed, or the
locations of --data) under the Matérn model with a nugget at --theta
sigma2,beta,nu,tau2, and the Vecchia density q of every combination of --m,
--order and --grouping, at those same parameters: how much each
approximation loses, the measure Guinness (2018) compared orderings and
groupings by. Every factor of q is an exact conditional under Sigma's entries,
so tr(Sigma~^-1 Sigma) = N and KL = (log|Sigma~| - log|Sigma|)/2: one exact
Cholesky of the N x N matrix (tiled, on --workers workers; refused when it
does not fit in memory) and one Vecchia evaluation per row. Orderings:
maxmin (exact, the default of fit), random (from --seed), coord, middleout,
approxmaxmin (an approximate maxmin: a random permutation whose points with
an earlier near neighbour are moved to the end, as GpGp's order_maxmin).
Sets (--select): nearest (the m nearest earlier points, as fit chooses
them) or greedy (m of the --candidates nearest earlier points, picked one
at a time to lower the point's conditional variance at --theta the most).
Printed: one row per approximation with its KL, its blocks, its work (the
covariance entries and Cholesky flops of one evaluation) and seconds
(docs/vecchia.md, "Which approximation: the KL divergence").`,
		Example: `  exageostat bench vecchia-kl --n 3000 --m 10,30,60 --order maxmin,random --grouping blocks,none --theta 1,0.1,0.5,0.1
  exageostat bench vecchia-kl --data vdata.csv --m 30 --theta 1,0.1,0.8,0.1 --json
  exageostat bench vecchia-kl --n 3000 --m 30 --select nearest,greedy --theta 1,0.1,1.5,0.1`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if err := parseKLFlags(&o, thetaS, msS, ordS, grpS, selS, data); err != nil {
				return err
			}
			n := o.N
			if o.Points.Len() > 0 {
				n = o.Points.Len()
			}
			maxM := 0
			for _, m := range o.Ms {
				maxM = max(maxM, m)
			}
			if err := job.CheckLocal("bench vecchia-kl", float64(bench.VecchiaKLNeed(n, 0, maxM, o.Workers)),
				fmt.Sprintf("the exact covariance of N=%d points, N x N", n)); err != nil {
				return err
			}
			o.Progress = benchProgress(asJSON)
			r, err := bench.VecchiaKL(o)
			if err != nil {
				return err
			}
			return emitBench(asJSON, r, 1, r.Workers, func() error {
				printVecchiaKL(r)
				return nil
			})
		},
	}
	f := c.Flags()
	f.IntVar(&o.N, "n", o.N, "locations N (uniform random points in the unit square; without --data)")
	f.StringVar(&data, "data", "", "a CSV file whose planar locations are used (its values are not read)")
	f.StringVar(&msS, "m", "10,30", "conditioning set sizes, comma-separated")
	f.StringVar(&ordS, "order", "maxmin", "orderings, comma-separated: maxmin, random, coord, middleout, approxmaxmin")
	f.StringVar(&grpS, "grouping", "blocks", "groupings, comma-separated: blocks, none")
	f.StringVar(&selS, "select", "nearest", "how the sets are chosen, comma-separated: nearest (fit's), greedy (by conditional variance at --theta)")
	f.IntVar(&o.Candidates, "candidates", 0, "greedy: the nearest earlier points the sets are chosen from (0: 3m)")
	f.StringVar(&thetaS, "theta", "1,0.1,0.5,0.1", "sigma2,beta,nu,tau2 of the Matérn model (the true parameters)")
	f.IntVar(&o.Workers, "workers", o.Workers, "runtime workers")
	f.Uint64Var(&o.Seed, "seed", o.Seed, "seed of the random points and of the random orderings")
	f.BoolVar(&asJSON, "json", false, "print one JSON object instead of the table")
	return c
}

// parseKLFlags checks bench vecchia-kl's flags into o.
func parseKLFlags(o *bench.VecchiaKLOptions, thetaS, msS, ordS, grpS, selS, data string) error {
	const cmd = "bench vecchia-kl"
	if err := checkInts(cmd, atLeast("n", o.N, 2), workersFlag(o.Workers)); err != nil {
		return err
	}
	theta, err := parseFloats(cmd, "theta", thetaS)
	if err != nil {
		return err
	}
	if len(theta) != 4 || theta[0] <= 0 || theta[1] <= 0 || theta[2] <= 0 || theta[3] < 0 {
		return badInput("%s: --theta must be sigma2,beta,nu,tau2 with sigma2, beta, nu > 0 and tau2 >= 0 (got %s)", cmd, thetaS)
	}
	o.Theta = theta
	if o.Ms, err = parseInts(cmd, "m", msS, "a conditioning set size", 1, 1<<20); err != nil {
		return err
	}
	o.Orders = nil
	for _, s := range strings.Split(ordS, ",") {
		m := order.Method(strings.TrimSpace(s))
		if !slices.Contains(klOrders, m) {
			return badInput("%s: --order: %q is not maxmin, random, coord, middleout or approxmaxmin", cmd, s)
		}
		o.Orders = append(o.Orders, m)
	}
	if o.Groupings, err = klChoices(cmd, "grouping", grpS, "blocks", "none"); err != nil {
		return err
	}
	if o.Selects, err = klChoices(cmd, "select", selS, "nearest", "greedy"); err != nil {
		return err
	}
	if err := checkInts(cmd, atLeast("candidates", o.Candidates, 0)); err != nil {
		return err
	}
	if data == "" {
		return nil
	}
	d, err := dataset.ReadLocations(data)
	if err != nil {
		return badInput("%s: --data: %v", cmd, err)
	}
	if d.Coords != dataset.Planar || d.Z != nil || d.T != nil {
		return badInput("%s: --data: %s has %s, 3D or space-time locations; this command takes planar x,y only", cmd, data, d.Coords)
	}
	if len(d.X) < 2 {
		return badInput("%s: --data: %s has %d locations, want at least 2", cmd, data, len(d.X))
	}
	o.Points = matern.Points{X: d.X, Y: d.Y}
	return nil
}

// klChoices splits the comma-separated value of --name, each item one of
// a or b (spaces trimmed); another item is bad input.
func klChoices(cmd, name, list, a, b string) ([]string, error) {
	var out []string
	for _, s := range strings.Split(list, ",") {
		v := strings.TrimSpace(s)
		if v != a && v != b {
			return nil, badInput("%s: --%s: %q is not %s or %s", cmd, name, s, a, b)
		}
		out = append(out, v)
	}
	return out, nil
}

// printVecchiaKL prints the result as a table.
func printVecchiaKL(r *bench.VecchiaKLResult) {
	fmt.Printf("vecchia-kl n=%d theta=%v seed=%d workers=%d: exact log|Sigma| = %.10g (%.2f s, nb=%d)\n",
		r.N, r.Theta, r.Seed, r.Workers, r.ExactLogDet, r.ExactSeconds, r.NB)
	fmt.Printf("%6s  %-13s %-8s %-8s %9s  %14s  %10s  %10s  %9s  %9s\n", "m", "order", "select", "grouping", "blocks", "KL (nats)", "entries", "Chol flop", "prepare s", "eval s")
	for _, w := range r.Rows {
		fmt.Printf("%6d  %-13s %-8s %-8s %9d  %14.6g  %10.3g  %10.3g  %9.3f  %9.3f\n", w.M, w.Order, w.Select, w.Grouping, w.Blocks, w.KL, w.Entries, w.CholFlops, w.PrepSeconds, w.EvalSeconds)
	}
}
