package main

import (
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/exageostat/exageostat/pkg/config"
)

// parseFloats parses a comma-separated list such as "1,0.1,0.5" given to
// --flag of cmd (config.ParseFloats); an error is bad input naming both.
func parseFloats(cmd, flag, s string) ([]float64, error) {
	v, err := config.ParseFloats(s)
	if err != nil {
		return nil, badInput("%s: --%s: %v", cmd, flag, err)
	}
	return v, nil
}

func formatFloats(x []float64) string {
	s := make([]string, len(x))
	for i, v := range x {
		s[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strings.Join(s, ",")
}

// approxHelp is the --help paragraph of the approximate computations
// (predict, simulate; fit has its own).
const approxHelp = `

Approximate factor (--computation, default exact; docs/approx.md): tlr holds
every off-diagonal tile of the Cholesky factor as U V^T, compressed to
--tlr-accuracy (absolute Frobenius error per tile, default 1e-9) with rank at
most --max-rank (default nb/2; from nb/2 up a tile that needs more stays dense,
below it such a tile stops the run naming it), so memory
grows with the ranks; mp holds the tiles beyond --mp-band of the diagonal in
float32; dst drops them. `

// approxFlags adds --computation, --tlr-accuracy, --max-rank and
// --mp-band (the keys computation, tlr_accuracy, max_rank, mp_band).
func approxFlags(c *cobra.Command, a *config.Approx) {
	f := c.Flags()
	f.StringVar(&a.Computation, "computation", a.Computation, "the Cholesky factor: exact, tlr (tile low-rank: off-diagonal tiles U V^T), mp (mixed precision: tiles off the band in float32) or dst (tiles off the band dropped)")
	f.Float64Var(&a.TLRAccuracy, "tlr-accuracy", a.TLRAccuracy, "tlr: absolute Frobenius accuracy of each compressed tile (as HiCMA)")
	f.IntVar(&a.MaxRank, "max-rank", a.MaxRank, "tlr: largest rank of a tile held as U V^T (0: nb/2); from nb/2 up a tile that needs more stays dense, below nb/2 it is an error naming the tile (exit status 2)")
	f.IntVar(&a.MPBand, "mp-band", a.MPBand, "mp, dst: tile sub-diagonals kept in float64 (-1: the band holding 10 % of the tiles)")
}
