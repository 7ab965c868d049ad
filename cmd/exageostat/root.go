package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/provenance"
)

func newRootCmd(w comm.Comm) *cobra.Command {
	root := &cobra.Command{
		Use:   "exageostat",
		Short: "Exact Gaussian-process maximum likelihood for geostatistics on a task runtime",
		Long: `exageostat fits Matérn Gaussian-process models to spatial data by exact
maximum likelihood, with every phase run as a graph of tile tasks over a task
runtime of its own (one laptop core to a cluster of CPU and GPU nodes).`,
		Example: `  exageostat fit                                  # the embedded default problem
  exageostat simulate --n 1600 --theta 1,0.1,0.5 --out data.csv
  exageostat fit --data data.csv --holdout 100 --json result.json --plot plots
  exageostat predict --data data.csv --theta-from result.json --at new.csv --out pred.csv
  exageostat bench cholesky --n 8192 --nb 1024 --workers 2`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       provenance.ReadBuild().String(),
	}
	root.SetVersionTemplate("exageostat {{.Version}}\n")
	root.PersistentPreRunE = func(c *cobra.Command, args []string) error {
		if err := checkLaunch(cmdName(c), w.Size(), os.Getenv); err != nil {
			return err
		}
		switch c.CommandPath() {
		case "exageostat fit", "exageostat simulate", "exageostat predict", "exageostat cv", "exageostat bench simulator", "exageostat bench overlap", "exageostat calibrate":
		default:
			if w.Size() > 1 {
				return badInput("%s: only fit, simulate, predict, cv, calibrate, bench simulator and bench overlap run over MPI ranks (started with %d ranks)", cmdName(c), w.Size())
			}
		}
		return nil
	}
	// An unknown command is bad input (exit 2) in one line; without a
	// command, the help.
	root.Args = func(c *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		msg := fmt.Sprintf("unknown command %q for %q", args[0], c.CommandPath())
		if s := c.SuggestionsFor(args[0]); len(s) > 0 {
			msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(s, " or "))
		}
		return badInput("%s (see '%s --help')", msg, c.CommandPath())
	}
	root.RunE = func(c *cobra.Command, args []string) error { return c.Help() }
	root.SuggestionsMinimumDistance = 2
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return badInput("%s%v (see '%s --help')", cmdPrefix(c), err, c.CommandPath())
	})
	root.AddCommand(newFitCmd(w), newPredictCmd(w), newCVCmd(w), newSimulateCmd(w), newBenchCmd(w), newPlanCmd(), newSimulateClusterCmd(), newCalibrateCmd(w), newTraceCmd(), newVariogramCmd())
	return root
}

// checkLaunch refuses a run whose launcher started more processes than
// MPI sees ranks (comm.Tasks): srun -n 2 without --mpi=pmix, or mpirun
// of a binary built without MPI, starts independent single-rank runs that
// compute the same thing and write the same outputs.
func checkLaunch(cmd string, ranks int, getenv func(string) string) error {
	n, from := comm.Tasks(getenv)
	if n <= ranks {
		return nil
	}
	fix := "launch it with srun --mpi=pmix (or mpirun)"
	switch {
	case !comm.MPI:
		fix = "this binary was built without MPI: build it with OpenMPI installed (make build, or go build -tags mpi) and launch it with srun --mpi=pmix or mpirun"
	case from == "SLURM_STEP_NUM_TASKS":
		fix = "srun started them without the MPI wiring: use srun --mpi=pmix (or set MpiDefault=pmix in slurm.conf)"
	}
	return badInput("%s: %s=%d processes were started, but MPI sees %d rank: each would run the whole job alone and write the same outputs; %s", cmd, from, n, ranks, fix)
}

// cmdName is c's path without the program's name ("fit", "bench
// cholesky"; "" for the root): main prefixes every message with
// "exageostat: " once.
func cmdName(c *cobra.Command) string {
	return strings.TrimPrefix(strings.TrimPrefix(c.CommandPath(), c.Root().Name()), " ")
}

// cmdPrefix is cmdName followed by ": ", or "" for the root.
func cmdPrefix(c *cobra.Command) string {
	if n := cmdName(c); n != "" {
		return n + ": "
	}
	return ""
}

// noArgs rejects positional arguments as bad input.
func noArgs(c *cobra.Command, args []string) error {
	if len(args) > 0 {
		return badInput("%sunexpected argument %q (see '%s --help')", cmdPrefix(c), args[0], c.CommandPath())
	}
	return nil
}
