package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/kind"
)

// The network between ranks on one machine (shared memory), from
// shared/FACTS.md: a 960 x 960 tile (7.4 MB) moves in 0.8-4 ms, 2-9 GB/s
// (about 4 GB/s typical); small messages take 1-2 us.
const (
	SharedMemBandwidth = 4e9    // bytes per second
	SharedMemLatency   = 1.5e-6 // seconds per message
)

// MachineGroup is the name of the one [[group]] of a calibration's
// cluster file.
const MachineGroup = "this-machine"

// Link returns the network between the ranks of w: on two ranks or more
// the link between ranks 0 and 1 measured by PingPong (measured true),
// on one rank the shared-memory figures (SharedMemBandwidth and
// SharedMemLatency).
func Link(w comm.Comm) (net config.Network, measured bool, err error) {
	if w.Size() < 2 {
		return config.Network{Bandwidth: SharedMemBandwidth, Latency: SharedMemLatency}, false, nil
	}
	net, err = PingPong(w, PingPongOptions{})
	return net, true, err
}

// ClusterRun says how a calibration was measured, for its cluster file:
// the network between the ranks (Measured: by PingPong, else the
// shared-memory figures), Workers busy on each of Ranks ranks, with the
// caches evicted before each task (Cold).
type ClusterRun struct {
	Network        config.Network
	Measured       bool
	Workers, Ranks int
	Cold           bool
}

// ClusterFile returns c as a cluster file of one [[group]] MachineGroup:
// nodes = r.Ranks, cpus = r.Workers, gpus = 0, [group.cpu] the median
// durations, and the [network] of r; the durations and the network are
// rounded to 5 significant digits.
func (c *Calibration) ClusterFile(r ClusterRun) config.ClusterFile {
	cpu := config.Durations{}
	for _, k := range c.Kinds {
		cpu[k.Kind] = round5(k.Seconds)
	}
	return config.ClusterFile{
		NB:      c.NB,
		Network: config.Network{Bandwidth: round5(r.Network.Bandwidth), Latency: round5(r.Network.Latency)},
		Groups:  []config.Group{{Name: MachineGroup, Nodes: r.Ranks, CPUs: r.Workers, CPU: cpu}},
	}
}

// WriteClusterTOML writes c's cluster file (ClusterFile) as TOML after a
// header of comments: how it was measured, and each kind's rate (GFLOP/s;
// entries per second for dcmg).
func (c *Calibration) WriteClusterTOML(w io.Writer, r ClusterRun) error {
	h := []string{
		fmt.Sprintf("exageostat calibrate --nb %d --reps %d --nu %s --workers %d (%d ranks)", c.NB, c.Reps,
			strconv.FormatFloat(c.Nu, 'g', -1, 64), r.Workers, r.Ranks),
		fmt.Sprintf("Median seconds of one task on one worker (kernels %s, OpenBLAS core %s,", c.Kernels, c.Core),
		fmt.Sprintf("BLAS single-threaded) with %d workers busy on each of %d ranks, on full", r.Workers, r.Ranks),
	}
	if r.Cold {
		h = append(h, "(caches evicted before each task, as in a run),")
	}
	h = append(h, "nb x nb tiles. Load with config.LoadCluster.", "")
	if r.Measured {
		h = append(h, "[network]: between ranks 0 and 1, measured by ping-pong (latency: half a one-word round trip).")
	} else {
		h = append(h, "[network]: between ranks on this machine, shared memory (shared/FACTS.md).")
	}
	h = append(h, "[group.cpu] rates:")
	for _, k := range c.Kinds {
		switch {
		case k.Kind == kind.Dcmg:
			h = append(h, fmt.Sprintf("  %-6s %.0f entries, %.1f M entries/s", k.Kind, k.Flops, k.Flops/k.Seconds*1e-6))
		case k.Gflops > 0:
			h = append(h, fmt.Sprintf("  %-6s %.2f GFLOP/s", k.Kind, k.Gflops))
		}
	}
	return c.ClusterFile(r).Encode(w, h...)
}

// calibrationJSON is WriteClusterJSON's output: the cluster file's keys
// (the durations unrounded), plus the measurements behind them.
type calibrationJSON struct {
	NB      int            `json:"nb"`
	Network networkJSON    `json:"network"`
	Group   []machineGroup `json:"group"`
	*Calibration
}

type networkJSON struct {
	Bandwidth float64 `json:"bandwidth"`
	Latency   float64 `json:"latency"`
	Measured  bool    `json:"measured"` // by ping-pong between ranks 0 and 1 (else the shared-memory figures)
}

// machineGroup is the [[group]] of calibrationJSON.
type machineGroup struct {
	Name  string             `json:"name"`
	Nodes int                `json:"nodes"`
	CPUs  int                `json:"cpus"`
	GPUs  int                `json:"gpus"`
	CPU   map[string]float64 `json:"cpu"`
}

// WriteClusterJSON writes the keys of c's cluster file, unrounded, and c
// with every sample, as indented JSON (calibrate --json).
func (c *Calibration) WriteClusterJSON(w io.Writer, r ClusterRun) error {
	out := calibrationJSON{NB: c.NB, Network: networkJSON{r.Network.Bandwidth, r.Network.Latency, r.Measured},
		Group:       []machineGroup{{Name: MachineGroup, Nodes: r.Ranks, CPUs: r.Workers, CPU: c.Durations()}},
		Calibration: c}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// round5 rounds v to 5 significant digits.
func round5(v float64) float64 {
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 5, 64), 64)
	if err != nil {
		return v
	}
	return r
}
