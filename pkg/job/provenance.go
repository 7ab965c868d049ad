package job

import (
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/provenance"
)

// fitRun describes the fit run of cfg (rank 0): the binary, env.Command,
// the files it read (the config file, the data, a checkpoint resumed)
// with their SHA-256, the machine, ranks and workers, and the date.
// A file that cannot be read again is left out: it was read before.
func fitRun(env Env, cfg config.Fit, ranks, workers int) *provenance.Run {
	r := provenance.New(env.Command, ranks, workers)
	for _, in := range []struct{ flag, path string }{
		{"config", env.ConfigFile}, {"data", cfg.Data}, {"locations", cfg.Locations},
		{"observations", cfg.Observations}, {"resume", cfg.Resume},
	} {
		_ = r.AddInput(in.flag, in.path)
	}
	return r
}
