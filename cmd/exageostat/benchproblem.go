package main

import (
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"github.com/exageostat/exageostat/pkg/bench"
	"github.com/exageostat/exageostat/pkg/job"
)

// problemDefaults are a bench command's defaults and help texts for the
// flags of its test problem (problemFlags).
type problemDefaults struct {
	n, nb, reps                   int
	theta                         string
	nbHelp, workersHelp, repsHelp string
}

// problemFlags adds the flags of a bench command's test problem to f,
// into p and thetaS (the text of --theta, for parseMaternTheta): --n,
// --nb, --workers (default job.DefaultWorkers), --reps, --theta and
// --seed (default 1), with d's defaults and help.
func problemFlags(f *pflag.FlagSet, p *bench.Problem, thetaS *string, d problemDefaults) {
	f.IntVar(&p.N, "n", d.n, "number of locations")
	f.IntVar(&p.NB, "nb", d.nb, d.nbHelp)
	f.IntVar(&p.Workers, "workers", job.DefaultWorkers(), d.workersHelp)
	f.IntVar(&p.Reps, "reps", d.reps, d.repsHelp)
	f.StringVar(thetaS, "theta", d.theta, "Matérn sigma2,beta,nu")
	f.Uint64Var(&p.Seed, "seed", 1, "seed of the locations and observations")
}

// parseMaternTheta parses --theta of the bench command cmd, the Matérn
// covariance (sigma2, beta, nu) of its test problem: sigma2, beta > 0 and
// nu in (0, 30]; anything else is bad input naming the command.
func parseMaternTheta(cmd, s string) ([]float64, error) {
	th, err := parseFloats(cmd, "theta", s)
	if err != nil {
		return nil, err
	}
	if len(th) != 3 || !(th[0] > 0 && th[1] > 0 && th[2] > 0 && th[2] <= 30) {
		return nil, badInput("%s: --theta needs sigma2, beta > 0 and nu in (0, 30]", cmd)
	}
	return th, nil
}

// benchProgress is a bench command's Progress: each line on stderr,
// indented, or nil (none) when the output is JSON.
func benchProgress(asJSON bool) func(string) {
	if asJSON {
		return nil
	}
	return func(s string) { fmt.Fprintln(os.Stderr, " ", s) }
}
