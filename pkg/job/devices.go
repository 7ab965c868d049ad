package job

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/memory"
	"github.com/exageostat/exageostat/pkg/perfmodel"
	"github.com/exageostat/exageostat/pkg/runtime"
)

// placement is the runtime's devices, scheduler and performance model of
// a job (config keys devices, scheduler, perfmodel).
type placement struct {
	devices   []runtime.Device
	scheduler string
	model     *perfmodel.Model // nil: none (eager without a file)
	path      string           // the perfmodel file to update, "" none
	cmd       string           // the command, for messages
}

// placementOf reads cfg's devices, scheduler and performance model: the
// model's file is read when it exists (a file that cannot be read is an
// input error naming it, and so is a value that is not a duration); dmda
// and dmdas without a file learn from this run's history only.
func placementOf(cmd string, cfg config.Fit, env Env, nb int) (placement, error) {
	p := placement{cmd: cmd}
	d, err := config.ParseDevices(cfg.Devices)
	if err != nil {
		return p, badInput("%s: --devices: %v", cmd, err)
	}
	// A device task holds up to three tiles at once (gemm): a device that
	// cannot would fail the first one.
	if need := int64(3 * nb * nb * 8); d.Count > 0 && d.Bytes < need {
		file := cfg.File
		if file == "" {
			file = cmd
		}
		return p, cfg.Locate(&config.Error{File: file, Key: "devices", Msg: fmt.Sprintf(
			"%q: each device holds %s, less than the three %dx%d tiles a gemm task holds at once (%s): give it more, or a smaller --nb",
			cfg.Devices, memory.Format(d.Bytes), nb, nb, memory.Format(need))})
	}
	for i := 0; i < d.Count; i++ {
		p.devices = append(p.devices, &runtime.HostTest{ID: i, Bytes: d.Bytes})
	}
	if cfg.GPUs > 0 {
		if env.GPUs == nil {
			return p, badInput("%s: --gpus %d: this build has no GPU workers (the CUDA build, bin/exageostat-cuda, has)", cmd, cfg.GPUs)
		}
		gpus, err := env.GPUs(cfg.GPUs, nb)
		if err != nil {
			return p, badInput("%s: --gpus %d: %v", cmd, cfg.GPUs, err)
		}
		p.devices = append(p.devices, gpus...)
	}
	p.scheduler, p.path = cfg.Scheduler, cfg.PerfModel
	if p.path != "" {
		m, err := readPerfModel(env.inputs(), p.path)
		switch {
		case err == nil:
			p.model = m
		case isInterrupted(err):
			return p, err
		case errors.Is(err, fs.ErrNotExist):
			p.model = perfmodel.New()
		default:
			return p, sameOnEveryRank(badInput("%s: --perfmodel: %v", cmd, err), env.comm()) // rank 0's bytes on every rank
		}
	} else if modelled(p.scheduler) {
		p.model = perfmodel.New()
	}
	return p, nil
}

// modelled reports whether scheduler places tasks by a performance model.
func modelled(scheduler string) bool { return scheduler == runtime.DMDA || scheduler == runtime.DMDAS }

// apply sets the runtime options of p.
func (p placement) apply(ro *runtime.Options) {
	ro.Devices = p.devices
	ro.Scheduler = p.scheduler
	if p.model != nil {
		ro.PerfModel, ro.History = p.model, p.model
	}
}

// save writes the model with this run's history to its file (rank 0).
func (p placement) save(rank int) error {
	if p.path == "" || p.model == nil || rank != 0 {
		return nil
	}
	if host, err := os.Hostname(); err == nil && p.model.Host() == "" {
		p.model.SetHost(host)
	}
	if err := p.model.Save(p.path); err != nil {
		return fmt.Errorf("%s: --perfmodel: %v", p.cmd, err)
	}
	return nil
}

// Placement reads the devices (devices, gpus), scheduler and performance
// model of cfg for a command other than fit (the benchmarks; cmd names it
// in messages): apply sets
// them in a runtime's options, save writes the model file afterwards.
func Placement(cmd string, cfg config.Fit, env Env, nb int) (apply func(*runtime.Options), save func() error, err error) {
	p, err := placementOf(cmd, cfg, env, nb)
	if err != nil {
		return nil, nil, err
	}
	return p.apply, func() error { return p.save(0) }, nil
}

// readPerfModel reads the performance model at path (in: rank 0 reads,
// every rank parses the same bytes; a missing file is fs.ErrNotExist on
// every rank).
func readPerfModel(in *Inputs, path string) (*perfmodel.Model, error) {
	name, b, err := in.Read("perfmodel", path)
	if err != nil {
		return nil, err
	}
	return perfmodel.Read(bytes.NewReader(b), name)
}
