package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/job"
	"github.com/exageostat/exageostat/pkg/runtime"
)

// placeFlags are the flags that choose where tasks run, as fit's: --gpus,
// --devices, --scheduler, --perfmodel.
type placeFlags struct {
	gpus                          int
	devices, scheduler, perfmodel string
}

func (p *placeFlags) add(f *pflag.FlagSet) {
	f.IntVar(&p.gpus, "gpus", 0, "GPU workers (0: none); needs a CUDA device and the CUDA build, else exit 2 naming what is missing")
	f.StringVar(&p.devices, "devices", "", "host-test:N[:SIZE]: test devices in host RAM (memory nodes with a worker each), as fit's")
	f.StringVar(&p.scheduler, "scheduler", config.DefaultFit().Scheduler, "task placement: "+strings.Join(config.Schedulers(), ", ")+" (as fit's)")
	f.StringVar(&p.perfmodel, "perfmodel", "", "performance-model file, read for dmda when it exists and written with the run's history")
}

// options checks the flags (cmd names the command in errors), hands over
// to the CUDA build for --gpus, and returns how to set the runtime's
// options and how to save the model afterwards.
func (p *placeFlags) options(cmd string, nb int) (func(*runtime.Options), func() error, error) {
	cfg := config.DefaultFit()
	cfg.GPUs, cfg.Devices, cfg.Scheduler, cfg.PerfModel = p.gpus, p.devices, p.scheduler, p.perfmodel
	switch {
	case p.gpus < 0 || p.gpus > 64:
		return nil, nil, badInput("%s: --gpus must be in [0, 64], got %d", cmd, p.gpus)
	case !slices.Contains(config.Schedulers(), p.scheduler):
		return nil, nil, badInput("%s: --scheduler must be one of %s, got %q", cmd, strings.Join(config.Schedulers(), ", "), p.scheduler)
	}
	if _, err := config.ParseDevices(p.devices); err != nil {
		return nil, nil, badInput("%s: --devices: %v", cmd, err)
	}
	if err := checkOutputs(cmd, []job.File{{Flag: "perfmodel", Path: p.perfmodel}}); err != nil {
		return nil, nil, err
	}
	if p.gpus > 0 {
		if err := handOverToCUDA(cmd, p.gpus); err != nil {
			return nil, nil, err
		}
	}
	return job.Placement(cmd, cfg, job.Env{GPUs: gpuOpener()}, nb)
}

// printDevices prints one line per device of a run.
func printDevices(ds []runtime.DeviceStats) {
	for _, d := range ds {
		fmt.Printf("  %v\n", d)
	}
}
