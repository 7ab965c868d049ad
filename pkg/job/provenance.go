package job

import (
	"github.com/exageostat/exageostat/pkg/provenance"
)

// fitRun describes a fit run (rank 0): the binary, env.Command,
// the machine, ranks and workers, and the date. The files it reads (the
// configuration, the data, a checkpoint resumed) are added with their
// SHA-256 once read (Inputs.Record: the digest of the bytes parsed).
func fitRun(env Env, ranks, workers int) *provenance.Run {
	return provenance.New(env.Command, ranks, workers)
}
